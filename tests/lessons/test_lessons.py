"""The lessons' helpers, the docs' listener example, and the lessons without Graphviz.

nbval (in ``./dev.sh test``) runs every notebook as stored, and
``tests/browser/test_browser.py`` runs each once in JupyterLab. Here we check what
they cannot: ``tapeviz.lessons.check`` gives the right verdicts (for every
exercise: the right answer accepted, text refused where numbers are asked, a
typed result refused where code is asked, the student's code run on fresh
inputs, a misconception named, the hint hidden until a wrong answer), no
question or hint states its answer, the hooks page's example listener runs and
prints what the page says, every exercise has a solution that its check
accepts when run in its lesson, no solution is stored in a notebook, and every
lesson also runs when the ``dot`` program is missing, producing the same
output types as with it (each lesson executed once here, with its solutions).
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
from tapeviz.lessons import provenance

provenance.start()  # as lessons.setup() does: "compute it with a tape" exercises refuse typed numbers
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


# -- check() ------------------------------------------------------------------------------------
FROM_TAPE = sorted(name for name, spec in lessons.EXERCISES.items() if spec.from_tape)


def taped(value):
    """``value`` as a gradient a tape computed: d/dx sum(x * value) at x = 0."""
    if isinstance(value, list) and any(v is None for v in value):
        return [None if v is None else taped(v) for v in value]
    c = tf.constant(value, dtype=tf.float32)
    x = tf.Variable(tf.zeros_like(c))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * c)
    return tape.gradient(y, x)


def as_answer(name, value):
    """What a student's cell would give: a tape's gradient where the exercise asks to compute one."""
    return taped(value) if name in FROM_TAPE and not isinstance(value, str) else value


def test_check_right_wrong_and_unanswered():
    right = lessons.check("01.cube", taped(14.0))
    assert right and right.status == "correct"
    wrong = lessons.check("01.cube", taped(12.0))
    assert not wrong and "Hint:" in str(wrong)
    assert "14" not in str(wrong).split("Hint:")[0], "a wrong answer must not be told the right one"
    assert 'lessons.solution("01.cube")' in str(wrong)
    pending = lessons.check("01.cube", ...)
    assert not pending and pending.status == "unanswered" and "Replace the `...`" in str(pending)


@pytest.mark.parametrize("name", sorted(lessons.EXERCISES))
def test_hint_is_hidden_until_a_wrong_answer(name):
    spec = lessons.EXERCISES[name]
    assert spec.hint, f"{name} has no hint"
    pending = lessons.check(name, ...)
    assert "Hint" not in str(pending) and spec.hint not in pending._repr_html_()
    wrong = lessons.check(name, object())  # no exercise takes this
    assert not wrong and f"Hint: {spec.hint}" in str(wrong)


def _stated_numbers(text):
    return set(re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", text))


# The answers, as a student could type them: neither a question nor a hint may state them.
TYPED_ANSWERS = {
    "01.cube": ["14"],
    "04.third": ["48", "24x", "24 * x"],
    "06.stopped": ["4.5", "2x * c", "2 * x * c"],
    "07.fanout": ["7", "3 + 3 + 1"],
    "07.bias": ["-2"],
    "07.tangent": ["42"],
    "05.jacobian": ["[[2"],
    "05.row": ["[0, 3, 2]", "[0.0, 3.0, 2.0]"],
    "08.clip": ["1.5"],
    "10.safe_where": ["0.25", "[0, 0.5"],
    "11.fewer_ops": ["7"],
    "12.trace_count": ["3"],
    "02.unwatched_read": ["None]"],
}


@pytest.mark.parametrize("name", sorted(TYPED_ANSWERS))
def test_no_question_or_hint_states_the_answer(name):
    spec = lessons.EXERCISES[name]
    for answer in TYPED_ANSWERS[name]:
        for text in (spec.question, spec.hint):
            if answer.lstrip("-").replace(".", "").isdigit():
                assert answer not in _stated_numbers(text), f"{name} states {answer}: {text}"
            else:
                assert answer not in text, f"{name} states {answer}: {text}"


def test_check_none_lists_and_nested():
    assert lessons.check("01.which_none", [3.0, 2.0, None])
    assert lessons.check("05.jacobian", [[2, 0, 0], [0, 4, 0], [0, 0, 6]])
    assert not lessons.check("05.jacobian", [2, 4, 6])  # a gradient is not a Jacobian
    assert "gradient of sum(y)" in str(lessons.check("05.jacobian", [2, 4, 6]))
    assert lessons.check("05.zero", [taped(2.0), tf.constant(0.0)])
    assert "default" in str(lessons.check("05.zero", [taped(2.0), None]))


def test_check_judges_give_reasons_and_never_crash():
    assert lessons.check("02.which_watched", ["w_3:0", "b_3:0"])  # re-run cells rename variables
    assert "never read" in str(lessons.check("02.which_watched", ["unused", "w", "b"]))
    assert "order of creation" in str(lessons.check("02.which_watched", ["b", "w"]))
    broken = lessons.check("04.third", lambda x: 1 / 0)  # the student's code raising is feedback too
    assert not broken and "ZeroDivisionError" in str(broken)


# -- "write it" exercises: the checker runs the student's code ----------------------------------------
def _selective(a, b):
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        loss = a * b**3
    return tape.gradient(loss, [a, b])


def _selective_watching_all(a, b):
    with tf.GradientTape() as tape:
        loss = a * b**3
    return [None, tape.gradient(loss, b)]


def _two_gradients(x):
    with tf.GradientTape(persistent=True) as tape:
        y = x**3
        z = y**2
    gradients = [tape.gradient(y, x), tape.gradient(z, x)]
    del tape
    return gradients


def _two_tapes(x):
    with tf.GradientTape() as one:
        y = x**3
    with tf.GradientTape() as two:
        z = (x**3) ** 2
    return [one.gradient(y, x), two.gradient(z, x)]


KEPT = []


def _persistent_kept(x):
    with tf.GradientTape(persistent=True) as tape:
        y = x**3
        z = y**2
    KEPT.append(tape)  # never released
    return [tape.gradient(y, x), tape.gradient(z, x)]


def _third(x):
    with tf.GradientTape() as t1:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t3:
                y = x**4
            d1 = t3.gradient(y, x)
        d2 = t2.gradient(d1, x)
    return t1.gradient(d2, x)


def _second(x):
    with tf.GradientTape() as t1:
        with tf.GradientTape() as t2:
            y = x**4
        d1 = t2.gradient(y, x)
    return t1.gradient(d1, x)


def _hessian(x):
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            f = x[0] ** 2 * x[1]
        g = inner.gradient(f, x)
    return outer.jacobian(g, x)


def _row_one(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stack([x[0] * x[1], x[1] * x[2]])
    return tape.gradient(y, x, output_gradients=tf.constant([0.0, 1.0]))


def _row_summed(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stack([x[0] * x[1], x[1] * x[2]])
    return tape.gradient(y, x)


@tf.custom_gradient
def _reverse_gradient(x):
    return tf.identity(x), lambda upstream: -upstream


def _negate_without_custom_gradient(x):
    return x


@tf.custom_gradient
def _softplus(x):
    value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))
    return value, lambda upstream: upstream * (1.0 - tf.exp(-value))


@tf.custom_gradient
def _softplus_overflowing(x):
    value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))
    return value, lambda upstream: upstream * tf.exp(x) / (1.0 + tf.exp(x))


def _train_step(w, b, xs, ys, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((ys - (w * xs + b)) ** 2)
    gradients = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(gradients, [w, b]))
    return loss


def _step_without_update(w, b, xs, ys, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((ys - (w * xs + b)) ** 2)
    tape.gradient(loss, [w, b])
    return loss


def _safe_log(x):
    ok = x > 0
    return tf.where(ok, tf.math.log(tf.where(ok, x, tf.ones_like(x))), tf.zeros_like(x))


def _nan_log(x):
    return tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))


@tf.custom_gradient
def _good_square(x):
    return x * x, lambda upstream: upstream * 2.0 * x


class _Digits:
    """A stand-in "model" that has memorised the test labels: the checker must still evaluate it."""

    trainable_variables = ()

    def __init__(self, right):
        from tapeviz import datasets

        _, (_, labels) = datasets.load_digits(flatten=True)
        self.labels = labels if right else (labels + 1) % 10

    def evaluate(self, *args, **kwargs):
        return [0.0, 1.0]  # what it claims: ignored

    def __call__(self, x):
        import numpy as np

        return tf.constant(np.eye(10, dtype="float32")[self.labels[: len(x)]])


WRITTEN = {  # exercise: (right function, [(wrong function, what the verdict says)])
    "02.selective": (_selective, [(_selective_watching_all, "watch_accessed_variables=False")]),
    "03.two_gradients": (_two_gradients, [(_two_tapes, "ONE persistent tape"), (_persistent_kept, "del tape")]),
    "04.third": (_third, [(_second, "three nested")]),
    "04.hessian": (_hessian, [(lambda x: x * 2.0, "without a GradientTape")]),
    "05.row": (_row_one, [(_row_summed, "no output_gradients")]),
    "06.reverse": (_reverse_gradient, [(_negate_without_custom_gradient, "@tf.custom_gradient")]),
    "06.softplus": (_softplus, [(_softplus_overflowing, "not finite")]),
    "08.regression": (_train_step, [(_step_without_update, "apply_gradients")]),
    "10.safe_where": (_safe_log, [(_nan_log, "0 * inf is nan")]),
    "10.fix_rule": (_good_square, [(lambda x: x * x, "@tf.custom_gradient")]),
}
# What a student could type instead of code: the printed result of the lesson's own example.
TYPED_INSTEAD = {
    "02.selective": [None, 12.0],
    "03.two_gradients": [12.0, 192.0],
    "04.third": 48.0,
    "04.hessian": [[4.0, 2.0], [2.0, 0.0]],
    "05.row": [0.0, 3.0, 2.0],
    "06.reverse": -3.0,
    "06.softplus": [0.5, 1.0],
    "08.regression": [3.0, 2.0],
    "09.accuracy": 0.95,
    "10.safe_where": [0.0, 0.5, 0.25],
    "10.fix_rule": 4.0,
}


@pytest.mark.parametrize("name", sorted(WRITTEN))
def test_written_code_is_run_on_fresh_inputs(name):
    right, wrongs = WRITTEN[name]
    verdict = lessons.check(name, right)
    assert verdict, str(verdict)
    for wrong, reason in wrongs:
        verdict = lessons.check(name, wrong)
        assert not verdict and reason in str(verdict), (wrong.__name__, str(verdict))
    KEPT.clear()


def test_a_trained_model_is_evaluated_by_the_checker():
    assert lessons.check("09.accuracy", _Digits(right=True))
    verdict = lessons.check("09.accuracy", _Digits(right=False))  # claims 1.0 from evaluate, is all wrong
    assert not verdict and "0.0%" in str(verdict)


@pytest.mark.parametrize("name", sorted(TYPED_INSTEAD))
def test_a_typed_result_is_refused_where_code_is_asked(name):
    for typed in (TYPED_INSTEAD[name], tf.constant(TYPED_INSTEAD[name]) if name != "02.selective" else None):
        verdict = lessons.check(name, typed)
        assert not verdict and "asks for code" in str(verdict), str(verdict)


@pytest.mark.parametrize(
    "name, text",
    [
        ("01.cube", "14"),
        ("02.which_watched", "wb"),
        ("06.stopped", "4.5"),
        ("07.fanout", "7"),
        ("11.fewer_ops", "7"),
        ("12.trace_count", "3"),
        ("01.which_none", ["3", "2", None]),
        ("08.clip", [["1.5", "2"], "6"]),
        ("07.bias", "-2"),
    ],
)
def test_text_is_refused_where_numbers_are_asked(name, text):
    verdict = lessons.check(name, text)
    assert not verdict and ("not a string" in str(verdict) or "one string per" in str(verdict)), str(verdict)


@pytest.mark.parametrize(
    "name, right, misconceptions",
    [
        ("01.cube", 14.0, [(12.0, "the 2*x term"), (16.0, "constant 2")]),
        ("01.which_none", [3.0, 2.0, None], [([3.0, 2.0, 0.0], "None"), ([3.0, 2.0, 8.0], "never watched")]),
        ("02.unwatched_read", [3.0, None], [([3.0, 5.0], "does not watch it"), ([None, None], "watched by hand")]),
        ("04.symmetric", "b", [("a", "symmetrise"), ("c", "not symmetric")]),
        ("05.none_or_zero", "a", [("b", "minimum"), ("c", "handier")]),
        (
            "05.batch",
            [[5, 4, 3], [5, 4, 5, 3]],
            [([[5, 3, 4], [5, 4, 5, 3]], "axes come first"), ([[5, 4, 3], [5, 4, 3]], "out.shape + batch.shape")],
        ),
        ("06.stopped", 4.5, [(6.75, "d(x**3)/dx"), (3.0, "still multiplies")]),
        ("06.why_finite", "c", [("a", "float64"), ("b", "clips nothing")]),
        ("07.fanout", 7.0, [(6.0, "third use"), (3.0, "three uses")]),
        ("07.bias", -2.0, [(-1.0, "broadcast"), (-0.5, "residual")]),
        ("07.tangent", 42.0, [(26.0, "two inputs"), ([26.0, 16.0, 0.0, 0.0], "ONE number")]),
        ("08.clip", [[1.5, 2.0], 6.0], [([[0.6, 0.8], 1.0], "global norm")]),
        ("09.keeps_path", [True, False, False, True], [([True, True, True, True], "[2, 3]")]),
        ("11.fewer_ops", 7, [(8, "reading W2"), (3, "ANY of its inputs")]),
        (
            "12.trace_count",
            3,
            [(6, "every call"), (1, "new shape"), (2, "by its value"), (5, "tensor's value"), (4, "replays")],
        ),
        ("12.why_once", "c", [("a", "nothing is copied"), ("b", "every call's value")]),
    ],
)
def test_predictions_accept_the_right_answer_and_name_the_misconception(name, right, misconceptions):
    assert lessons.check(name, as_answer(name, right)), str(lessons.check(name, as_answer(name, right)))
    for wrong, reason in misconceptions:
        verdict = lessons.check(name, as_answer(name, wrong))
        assert not verdict and reason in str(verdict), str(verdict)


@pytest.mark.parametrize("name", sorted(n for n, spec in lessons.EXERCISES.items() if spec.judge is None))
def test_any_wrong_value_gets_something_to_look_at(name):
    verdict = lessons.check(name, as_answer(name, [[123.0]]))
    assert not verdict and "not it yet" not in str(verdict) and lessons.EXERCISES[name].otherwise in str(verdict)


@pytest.mark.parametrize("name", FROM_TAPE)
def test_a_typed_number_is_refused_where_a_tape_must_compute_it(name):
    right = lessons.EXERCISES[name].expected
    typed = [right, tf.constant(right), taped(right).numpy()]
    for answer in typed:
        verdict = lessons.check(name, answer)
        assert not verdict and "which no gradient call returned" in str(verdict), str(verdict)
    assert lessons.check(name, taped(right)), "the tape's own gradient is accepted"


def test_the_four_value_exercises_ask_for_a_tapes_gradient():
    assert {"01.cube", "05.zero", "06.stopped", "07.fanout"} <= set(FROM_TAPE)


def test_every_exercise_is_tested_here():
    tested = set(WRITTEN) | {"09.accuracy", "02.which_watched", "05.jacobian", "05.zero"}
    tested |= {"01.cube", "01.which_none", "02.unwatched_read", "04.symmetric", "05.none_or_zero", "05.batch"}
    tested |= {"06.stopped", "06.why_finite", "07.fanout", "07.bias", "07.tangent", "08.clip", "09.keeps_path"}
    tested |= {"11.fewer_ops", "12.trace_count", "12.why_once"}
    assert set(lessons.EXERCISES) == tested


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


def _pictures_text(output):
    """The text of every picture an output shows (inline SVG, or SVG in an <img>'s data: URI)."""
    import base64

    page = output.get("data", {}).get("text/html", "")
    found = re.findall(r"<svg\b.*?</svg>", page, re.S)
    found += [base64.b64decode(d).decode() for d in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]
    return " ".join(found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_numbered_tensor_a_message_names_is_drawn_in_the_lesson(path):
    """``#610`` names a tensor only a picture labels: a message a lesson prints or shows (an explanation, a
    verdict) that names one comes with a picture in the lesson that draws it (lesson 9 once printed an
    explanation naming #610 and #593, drawn nowhere). Players are left out: each draws its own picture."""
    nb = nbformat.read(path, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    drawn = " ".join(_pictures_text(o) for o in outputs)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        said = " ".join(
            o.get("text", "") + o.get("data", {}).get("text/plain", "")
            for o in cell.outputs
            if "application/vnd.jupyter.widget-view+json" not in o.get("data", {})
        )
        named = set(re.findall(r"(?<![\w&])#\d+\b", said))
        missing = sorted(n for n in named if not re.search(rf">(?:seed )?{n}(?![\w])", drawn))
        assert not missing, f"{path.stem}: a message names {missing}, which no picture shows:\n{cell.source}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_stored_svg_image_can_be_drawn(path):
    """A stored notebook shows its drawings as ``<img src="data:image/svg+xml...">``; an SVG without its
    namespace is a broken image there (the legends' swatches were, in every untrusted lesson)."""
    import base64

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            page = output.get("data", {}).get("text/html", "")
            for data in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page):
                svg = base64.b64decode(data).decode()
                root = re.search(r"<svg\b[^>]*>", svg).group(0)
                assert 'xmlns="http://www.w3.org/2000/svg"' in root, f"{path.stem}: an undrawable image {root}"


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
            data = set(o.get("data", {}))
            if "image/svg+xml" in data:  # the build gives an SVG-only drawing an HTML <img> form too
                data.discard("text/html")
            kind = (o.output_type, tuple(sorted(data)))
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


def test_the_build_refuses_to_run_another_checkouts_tapeviz(tmp_path):
    """From a git worktree, ``import tapeviz`` may find another checkout (an editable install): the build stops
    and says to set PYTHONPATH, instead of storing that copy's pictures in this checkout's notebooks."""
    import subprocess

    other = tmp_path / "tapeviz"
    other.mkdir()
    (other / "__init__.py").write_text("")
    build = [sys.executable, str(ROOT / "notebooks" / "build.py"), "no-lesson-starts-so"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    elsewhere = subprocess.run(build, env={**env, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    assert elsewhere.returncode != 0
    assert f"finds {other}" in elsewhere.stderr and f"PYTHONPATH={ROOT}" in elsewhere.stderr, elsewhere.stderr
    here = subprocess.run(build, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert here.returncode == 0, here.stderr


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
