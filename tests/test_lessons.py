"""The lessons' helpers, the docs' listener example, and the lessons without Graphviz.

nbval (in ``./dev.sh test``) runs every notebook as stored. Here we check what
it cannot: ``tapeviz.lessons.check`` gives the right verdicts, the hooks page's
example listener runs and prints what the page says, every exercise has a
solution that passes, and every lesson also runs when the ``dot`` program is
missing, producing the same output types as with it.
"""

import os
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

import tapeviz as tf
from tapeviz import lessons

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


# -- check() ------------------------------------------------------------------------------------
def test_check_right_wrong_and_unanswered():
    right = lessons.check("01.cube", tf.constant(14.0))
    assert right and right.status == "correct"
    wrong = lessons.check("01.cube", 12.0)
    assert not wrong and "expected 14" in str(wrong) and "Hint:" in str(wrong)
    pending = lessons.check("01.cube", ...)
    assert not pending and pending.status == "unanswered" and "Replace the `...`" in str(pending)


def test_check_none_lists_and_nested():
    assert lessons.check("01.unwatched", None)
    assert not lessons.check("01.unwatched", tf.constant(0.0))
    assert lessons.check("02.selective", [None, tf.constant(12.0)])
    assert not lessons.check("02.selective", [tf.constant(0.0), tf.constant(12.0)])
    assert lessons.check("05.jacobian", [[2, 0, 0], [0, 4, 0], [0, 0, 6]])
    assert not lessons.check("05.jacobian", [2, 4, 6])  # a gradient is not a Jacobian


def test_check_judges_give_reasons_and_never_crash():
    assert not lessons.check("06.log1pexp", [0.5, float("nan")])
    assert "overflow" in str(lessons.check("06.log1pexp", [0.5, float("nan")]))
    assert lessons.check("02.which_watched", ["w_3:0", "b_3:0"])  # re-run cells rename variables
    odd = lessons.check("08.regression", "not a list of numbers")
    assert not odd and "raised" in str(odd)


def test_check_unknown_exercise_lists_the_known_ones():
    with pytest.raises(KeyError, match="01.cube"):
        lessons.check("no.such", 1)


def test_feedback_html_is_escaped():
    html = lessons.check("10.blame", "<script>")._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_every_exercise_is_used_by_a_lesson_with_a_solution():
    sources = "\n".join(p.read_text() for p in (ROOT / "notebooks" / "src").glob("*.py"))
    for name in lessons.EXERCISES:
        assert sources.count(f'lessons.check("{name}"') >= 2, f"{name}: needs an exercise cell and a solution"


def test_stored_solutions_pass_and_exercises_wait():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code" or "lessons.check(" not in cell.source:
                continue
            text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
            if "solution" in cell.metadata.get("tags", []):
                assert "Correct" in text, f"{path.name}: a solution fails its check: {text}"
                assert cell.metadata.get("jupyter", {}).get("source_hidden"), f"{path.name}: solution not folded"
            else:
                assert "Your turn" in text, f"{path.name}: an exercise cell is not left to the student"


# -- the docs' example listener ---------------------------------------------------------------------
def test_hooks_page_example_runs_as_documented(capsys):
    page = (ROOT / "docs" / "hooks.md").read_text()
    code = re.findall(r"```python\n(.*?)```", page, re.S)[-1]
    exec(compile(code, "docs/hooks.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    promised = [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    assert printed == promised


# -- the lessons without Graphviz's dot ---------------------------------------------------------------
def _output_types(nb):
    kinds = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "timing" in cell.metadata.get("tags", []):
            continue
        outputs = []
        for o in cell.outputs:
            if o.output_type == "stream" and o.name == "stderr":
                continue
            kind = (o.output_type, tuple(sorted(o.get("data", {}))))
            if not (kind[0] == "stream" and outputs and outputs[-1] == kind):  # prints flush in pieces
                outputs.append(kind)
        kinds.append(outputs)
    return kinds


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_lesson_runs_without_dot_with_the_same_output_types(path, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    # A PATH without `dot` (but with this Python's folder, for the kernel).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("python", "python3"):
        os.symlink(sys.executable, bin_dir / tool)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert shutil.which("dot") is None
    stored = nbformat.read(path, as_version=4)
    nb = nbformat.read(path, as_version=4)
    work = tmp_path / "notebooks"
    work.mkdir()
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}})
    client.execute()  # raises CellExecutionError if any cell fails
    assert _output_types(nb) == _output_types(stored)
    text = "".join(o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.outputs)
    if '<div class="tapeviz">' in text and shutil.which("graphviz-pure", path=os.path.dirname(sys.executable)) is None:
        # a drawn tape with no layout program at all: the install hint and a table
        assert "dot" in text and "graphviz" in text.lower(), "no install hint shown without dot"


def test_stored_widget_state_has_no_dangling_references():
    import json
    import re

    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
        referenced = set(re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(nb)))
        assert referenced <= set(state), f"{path.name}: widget views point at models that were not stored"
