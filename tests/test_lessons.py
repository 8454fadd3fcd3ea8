"""The lessons' helpers, the docs' listener example, and the lessons without Graphviz.

nbval (in ``./dev.sh test``) runs every notebook as stored. Here we check what
it cannot: ``tapeviz.lessons.check`` gives the right verdicts (and rejects
impossible answers), the hooks page's example listener runs and prints what
the page says, every exercise has a solution that its check accepts when run
in its lesson, no solution is stored in a notebook, and every lesson also runs
when the ``dot`` program is missing, producing the same output types as with it.
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
    assert not wrong and "Hint:" in str(wrong)
    assert "14" not in str(wrong).split("Hint:")[0], "a wrong answer must not be told the right one"
    assert 'lessons.solution("01.cube")' in str(wrong)
    pending = lessons.check("01.cube", ...)
    assert not pending and pending.status == "unanswered" and "Replace the `...`" in str(pending)


def test_check_none_lists_and_nested():
    assert lessons.check("02.selective", [None, tf.constant(12.0)])
    assert not lessons.check("02.selective", [tf.constant(0.0), tf.constant(12.0)])
    assert lessons.check("05.jacobian", [[2, 0, 0], [0, 4, 0], [0, 0, 6]])
    assert not lessons.check("05.jacobian", [2, 4, 6])  # a gradient is not a Jacobian


def test_check_judges_give_reasons_and_never_crash():
    assert not lessons.check("06.softplus", [0.5, float("nan")])
    assert "overflow" in str(lessons.check("06.softplus", [0.5, float("nan")]))
    assert lessons.check("02.which_watched", ["w_3:0", "b_3:0"])  # re-run cells rename variables
    assert "never read" in str(lessons.check("02.which_watched", ["unused", "w", "b"]))
    odd = lessons.check("08.regression", "not a list of numbers")
    assert not odd and "raised" in str(odd)


@pytest.mark.parametrize(
    "exercise, answer, reason",
    [
        ("09.accuracy", 1.5, "cannot be an accuracy"),
        ("09.accuracy", 95.0, "as a fraction is 0.95"),
        ("09.accuracy", -0.2, "cannot be an accuracy"),
        ("01.which_none", [3.0, 2.0, 0.0], "None"),  # unwatched is None, not zero
        ("01.which_none", [3.0, 2.0, 8.0], "never watched"),  # nor the derivative 2c
        ("07.bias", -1.0, "broadcast"),  # one element's share only
        ("08.clip", [[0.6, 0.8], 1.0], "global norm"),  # clipped each on its own
        ("09.keeps_path", [True, True, True, True], "[2, 3]"),
        ("10.fix_rule", 4.0, "your fixed function"),
    ],
)
def test_checks_reject_impossible_or_half_right_answers_and_say_why(exercise, answer, reason):
    verdict = lessons.check(exercise, answer)
    assert not verdict and reason in str(verdict), str(verdict)


def test_fix_rule_runs_gradcheck_on_the_students_function():
    @tf.custom_gradient
    def still_wrong(x):
        return x * x, lambda upstream: upstream * x

    @tf.custom_gradient
    def fixed(x):
        return x * x, lambda upstream: upstream * 2.0 * x

    assert not lessons.check("10.fix_rule", still_wrong)
    assert lessons.check("10.fix_rule", fixed)
    assert not lessons.check("10.fix_rule", lambda x: x * 3.0)  # not x * x


def test_check_unknown_exercise_lists_the_known_ones():
    with pytest.raises(KeyError, match="01.cube"):
        lessons.check("no.such", 1)
    with pytest.raises(KeyError, match="01.cube"):
        lessons.solution("no.such")


def test_feedback_html_is_escaped():
    html = lessons.check("02.which_watched", ["<script>"])._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_solution_is_shown_as_code_when_asked():
    shown = lessons.solution("01.cube")
    assert shown._repr_markdown_().count("```") == 2 and "tape.gradient(y, x)" in shown._repr_markdown_()
    assert 'lessons.check("01.cube", answer)' in str(shown)


def _sources():
    return {p.stem: p.read_text() for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")}


def test_every_exercise_has_one_exercise_cell_and_a_solution():
    sources = "\n".join(_sources().values())
    for name, spec in lessons.EXERCISES.items():
        assert sources.count(f'lessons.check("{name}"') == 1, f"{name}: needs exactly one exercise cell"
        assert f'lessons.check("{name}", answer)' in spec.solution, f"{name}: the solution must end with its check"
        lesson = next(stem for stem, text in _sources().items() if f'lessons.check("{name}"' in text)
        assert lesson.startswith(name.split(".")[0]), f"{name} is checked in {lesson}"


def _solution_lines(spec):
    """The lines of a solution that give it away (code, not the check call or comments)."""
    lines = [line.split("#")[0].strip() for line in spec.solution.splitlines()]
    return [line for line in lines if len(line) > 12 and "lessons.check" not in line]


def test_no_notebook_stores_a_solution_and_exercises_wait():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        for cell in code:
            assert "solution" not in cell.metadata.get("tags", []), f"{path.name}: a solution cell is stored"
            if "lessons.check(" not in cell.source:
                continue
            text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
            assert "Your turn" in text, f"{path.name}: an exercise cell is not left to the student"
            assert "answer = ...\n" in cell.source or "answer = ...  #" in cell.source, cell.source
        stored = {line.split("#")[0].strip() for cell in code for line in cell.source.splitlines()}
        for name, spec in lessons.EXERCISES.items():
            if not path.stem.startswith(name.split(".")[0]):
                continue
            given_away = [line for line in _solution_lines(spec) if line.startswith("answer =") and line in stored]
            assert not given_away, f"{path.name} shows the solution of {name}: {given_away}"


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


def _build_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("lesson_build", ROOT / "notebooks" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_lesson_runs_without_dot_and_its_solutions_pass(path, tmp_path, monkeypatch):
    """Each lesson, with every solution run right after its exercise (as the build does), without `dot`."""
    from nbclient import NotebookClient

    build = _build_module()
    # A PATH without `dot` (but with this Python's folder, for the kernel).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("python", "python3"):
        os.symlink(sys.executable, bin_dir / tool)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert shutil.which("dot") is None
    stored = nbformat.read(path, as_version=4)
    nb = build.with_solutions(nbformat.read(path, as_version=4))
    work = tmp_path / "notebooks"
    work.mkdir()
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}})
    client.execute()  # raises CellExecutionError if any cell fails
    solutions = [c for c in nb.cells if build.SOLUTION_TAG in c.metadata.get("tags", [])]
    assert len(solutions) == sum(c.cell_type == "code" and "lessons.check(" in c.source for c in stored.cells)
    for cell in solutions:
        said = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert "Correct" in said, f"{path.name}: a solution is not accepted:\n{cell.source}\n{said}"
    nb.cells = [c for c in nb.cells if c not in solutions]
    assert _output_types(nb) == _output_types(stored)
    text = "".join(o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
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


# -- the seed documents' concepts each keep a place in a lesson -------------------------------------
SEED_CONCEPTS = {
    "recording inside the with block, gradient after it": "tape.gradient(y, x)",
    "eager execution": "tf.executing_eagerly()",
    "watch a constant": "tape.watch(x)",
    "variables are watched automatically": "watched_variables()",
    "non-trainable variables are not watched": "trainable=False",
    "disable automatic tracking": "watch_accessed_variables=False",
    "integers are not differentiated": "tf.constant(3)",
    "persistent tape, several gradients": "persistent=True",
    "release a persistent tape with del": "del persistent_tape",
    "a non-persistent tape answers once": "RuntimeError",
    "nested tapes, higher order": "d2y_d2x = tape2.gradient(dy_dx, x)",
    "Hessian with jacobian": "outer.jacobian(g, x)",
    "gradients of nested structures of sources": "tape.gradient(loss, weights)",
    "output_gradients": "output_gradients=",
    "unconnected gradients": "unconnected_gradients=",
    "jacobian": "tape.jacobian(y, x)",
    "batch_jacobian": "batch_jacobian(",
    "stop_gradient": "tf.stop_gradient(",
    "stop_recording": "tape.stop_recording()",
    "reset": "tape.reset()",
    "custom gradients": "@tf.custom_gradient",
    "reverse mode vs forward mode": "ForwardAccumulator",
    "custom training loop with apply_gradients": "optimizer.apply_gradients(zip(gradients",
    "Adam": "tf.keras.optimizers.Adam",
    "clip between gradient and apply_gradients": "tf.clip_by_global_norm(",
    "several models, one tape": "encoder.trainable_variables + decoder.trainable_variables",
    "Jacobian of a model's output with respect to its weights": "tape.jacobian(out, decoder.trainable_variables[0])",
    "call the model, not model.predict": "model.predict(",
    "compile and fit as the alternative": ".fit(",
    "tf.data pipeline": "tf.data.Dataset",
    "memory of persistent tapes": "tf.viz.memory(",
    "tf.function as the graph-mode alternative": "tf.function",
    "manual gradients as the alternative": "by_hand",
    "CPU or GPU": 'list_physical_devices("GPU")',
}


@pytest.mark.parametrize("concept", sorted(SEED_CONCEPTS))
def test_every_seed_concept_has_a_place_in_a_lesson(concept):
    marker = SEED_CONCEPTS[concept]
    found = [stem for stem, text in _sources().items() if marker in text]
    assert found, f"no lesson teaches {concept!r} any more (looked for {marker!r})"
