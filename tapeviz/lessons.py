"""Helpers for the lesson notebooks: set-up, checked exercises, embedded animations.

A lesson starts with::

    import tapeviz as tf
    from tapeviz import lessons
    lessons.setup()

and an exercise ends with ``lessons.check("01.cube", answer)``, which says
in plain words whether the answer is right, and if not, what to look at.
A ``...`` answer means "not answered yet" and is never an error, so a
notebook runs from top to bottom before any exercise is done.

Solutions are not in the notebooks (where a preview or "Run All" would give
them away): ``lessons.solution("01.cube")`` shows one when asked. The lesson
build runs every solution in its lesson and fails unless ``check`` accepts it.

Nothing here is imported by ``import tapeviz``; it loads the visualizer when
``setup()`` is called.
"""

import html as _html

import numpy as _np

__all__ = ["setup", "check", "solution", "exercises", "Feedback", "Solution", "Embedded", "embed_html", "embed_image"]


# -- set-up --------------------------------------------------------------------------------
def setup(precision=4):
    """Prepare a lesson notebook.

    * turns on the visualizer's recorder (``tapeviz.viz.watch_all()``) so every
      tape made from now on can be drawn and its reverse sweep played, even
      after a non-persistent tape released what it held;
    * prints NumPy arrays with ``precision`` digits, so outputs stay short.
    """
    import tapeviz.viz as viz

    viz.watch_all()
    _np.set_printoptions(precision=precision, suppress=True)


# -- embedding exported animations ------------------------------------------------------------
def embed_html(page, height=None):
    """Show a whole HTML page (e.g. an exported animation) inline, in an iframe.

    ``page`` is the HTML text, or the path of an ``.html`` file. The page keeps
    its own scripts and styles, so it plays the same inline as in a browser.
    """
    from tapeviz.viz.export import iframe

    return Embedded(iframe(_read_page(page), height))


def embed_image(path, alt="animation"):
    """Show an image file (a GIF the player saved, a PNG) inline, inside the notebook itself.

    The picture is written into the HTML as a ``data:`` URI, so it shows in any
    notebook viewer, also before the notebook is run (JupyterLab keeps such
    images when it sanitizes an untrusted notebook; it drops iframes).
    """
    import base64
    import mimetypes

    kind = mimetypes.guess_type(str(path))[0] or "image/png"
    with open(path, "rb") as handle:
        data = base64.b64encode(handle.read()).decode("ascii")
    return Embedded(
        f'<img src="data:{kind};base64,{data}" alt="{_html.escape(alt)}" style="max-width:100%">', f"<{alt}: {path}>"
    )


class Embedded:
    """HTML shown as is in a notebook (``_repr_html_``); its text form says what it is."""

    def __init__(self, html, text="<an embedded HTML page: open the notebook in Jupyter, or the docs, to see it play>"):
        self.html = html
        self.text = text

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.text


def _read_page(page):
    text = str(page)
    if not text.lstrip().startswith("<") and text.endswith((".html", ".htm")):
        with open(text, encoding="utf-8") as handle:
            return handle.read()
    return text


# -- exercises -------------------------------------------------------------------------------
class Feedback:
    """The verdict on one answer: true when right; shows itself in a notebook."""

    def __init__(self, exercise, status, message, hint=""):
        self.exercise = exercise
        self.status = status  # "correct", "wrong" or "unanswered"
        self.message = message
        self.hint = hint

    def __bool__(self):
        return self.status == "correct"

    def __str__(self):
        mark = {"correct": "\u2713 Correct", "wrong": "\u2717 Not yet", "unanswered": "\u270e Your turn"}
        text = f"{mark[self.status]} ({self.exercise}): {self.message}"
        if self.hint and self.status != "correct":
            text += f"\nHint: {self.hint}"
        return text

    __repr__ = __str__

    def _repr_html_(self):
        colour = {
            "correct": ("#065f46", "#d1fae5"),
            "wrong": ("#991b1b", "#fee2e2"),
            "unanswered": ("#1e3a8a", "#dbeafe"),
        }[self.status]
        lines = _html.escape(str(self)).replace("\n", "<br>")
        return (
            f'<div class="tapeviz-check tapeviz-check-{self.status}" style="color:{colour[0]};'
            f'background:{colour[1]};padding:6px 10px;border-radius:4px">{lines}</div>'
        )


class Exercise:
    def __init__(self, question, expected=None, hint="", judge=None, tolerance=1e-4, solution=""):
        self.question = question
        self.expected = expected
        self.hint = hint
        self.judge = judge  # callable(answer) -> (ok, message); replaces `expected`
        self.tolerance = tolerance
        self.solution = solution.strip("\n")  # code for the exercise cell, ending with the check


class Solution:
    """One exercise's solution, shown as code (Markdown, so it shows in any notebook)."""

    def __init__(self, exercise, code):
        self.exercise = exercise
        self.code = code

    def __str__(self):
        return self.code

    def __repr__(self):
        return f"A solution to {self.exercise} (paste it into the exercise's cell):\n\n{self.code}"

    def _repr_markdown_(self):
        return (
            f"A solution to **{self.exercise}** (paste it into the exercise's cell and run it):\n\n"
            f"```python\n{self.code}\n```"
        )


def _plain(value):
    """A Tensor/Variable/array/list -> nested Python floats (or None)."""
    if value is None:
        return None
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    array = _np.asarray(value)
    if array.dtype.kind in "biuf":
        return array.astype(float).tolist()
    return value


def _describe(value):
    if value is None:
        return "None"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


def _same(answer, expected, tolerance):
    if expected is None or answer is None:
        return answer is expected
    if isinstance(expected, dict):
        return (
            isinstance(answer, dict)
            and answer.keys() == expected.keys()
            and all(_same(answer[k], expected[k], tolerance) for k in expected)
        )
    if isinstance(expected, (list, tuple)) and any(e is None or isinstance(e, dict) for e in expected):
        return (
            isinstance(answer, (list, tuple))
            and len(answer) == len(expected)
            and all(_same(a, e, tolerance) for a, e in zip(answer, expected))
        )
    if isinstance(expected, (bool, str)):
        return answer == expected
    try:
        a = _np.asarray(answer, dtype=float)
        e = _np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return answer == expected
    if a.shape != e.shape:
        return False
    return bool(_np.allclose(a, e, rtol=tolerance, atol=tolerance, equal_nan=True))


def check(exercise, answer):
    """Check ``answer`` to the exercise named ``exercise`` (e.g. ``"01.cube"``).

    Returns a :class:`Feedback` (true when right) that shows itself in a
    notebook: what was expected when you are wrong, and a hint. Pass ``...``
    while you have no answer yet.
    """
    if exercise not in EXERCISES:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"No exercise called {exercise!r}. The exercises are: {known}.")
    spec = EXERCISES[exercise]
    if answer is Ellipsis:
        return Feedback(
            exercise,
            "unanswered",
            f"{spec.question} Replace the `...` with your answer and run the cell again.",
            spec.hint,
        )
    stuck = f' Stuck? lessons.solution("{exercise}") shows a solution.'
    if spec.judge is not None:
        try:
            ok, message = spec.judge(answer)
        except Exception as problem:  # a wrong kind of answer is feedback, not a crash
            ok, message = False, f"checking your answer raised {type(problem).__name__}: {problem}"
        return Feedback(exercise, "correct" if ok else "wrong", message + ("" if ok else stuck), spec.hint)
    got = _plain(answer)
    want = _plain(spec.expected)
    if _same(got, want, spec.tolerance):
        return Feedback(exercise, "correct", "that is right.")
    return Feedback(exercise, "wrong", f"got {_describe(got)}: that is not it yet." + stuck, spec.hint)


def solution(exercise):
    """A solution to the exercise named ``exercise``: try it yourself first."""
    if exercise not in EXERCISES:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"No exercise called {exercise!r}. The exercises are: {known}.")
    return Solution(exercise, EXERCISES[exercise].solution)


def exercises():
    """The names and questions of every exercise, in lesson order."""
    return {name: spec.question for name, spec in sorted(EXERCISES.items())}


# -- judges: answers that need more than a comparison, or feedback that teaches -----------------
def _number(value):
    """A single finite number from a Python/NumPy/tapeviz scalar, or a ValueError saying why not."""
    array = _np.asarray(_plain(value), dtype=float)
    if array.size != 1:
        raise ValueError(f"expected one number, got {array.size} values")
    return float(array.reshape(()))


def _judge_which_none(answer):
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        return False, "answer with a list of three: [dy/da, dy/db, dy/dc]."
    da, db, dc = (None if v is None else _number(v) for v in answer)
    if dc is not None:
        return False, (
            f"dy/dc = {dc:g}? c was never watched, so the tape recorded nothing from it: "
            "tape.gradient gives None (not 0, not 2c)."
        )
    if da is None or db is None:
        return False, "a is a trainable variable (watched when read) and b was watched: both get a number."
    if abs(da - 3.0) < 1e-4 and abs(db - 2.0) < 1e-4:
        return True, "[3, 2, None]: d(a*b)/da = b, d(a*b)/db = a, and the unwatched c gives None."
    return False, f"[{da:g}, {db:g}, None] has the None right; d(a*b)/da is b and d(a*b)/db is a."


def _judge_log1pexp_grad(answer):
    values = _plain(answer)
    if values is None:
        return False, "got None: is x watched (a Variable, or tape.watch(x))?"
    values = _np.asarray(values, dtype=float)
    want = _np.array([0.5, 1.0], dtype=float)
    if values.shape != want.shape:
        return False, f"expected the gradients at x = 0 and x = 100 (2 numbers), got shape {values.shape}."
    if not _np.all(_np.isfinite(values)):
        return False, f"got {values.tolist()}: a NaN means exp(100) overflowed in the gradient."
    if _np.allclose(values, want, atol=1e-4):
        return True, f"{values.tolist()} is right, and finite at x = 100."
    return False, f"got {values.tolist()}: finite, but not the derivative of log(1 + e^x) (1/2 at x = 0)."


def _base_name(name):
    """'w_3:0' -> 'w': tapeviz numbers repeated variable names, so re-running a cell renames."""
    import re

    return re.sub(r"(_\d+)?(:\d+)?$", "", str(name))


def _judge_watched_names(answer):
    names = [_base_name(n) for n in answer]
    if names == ["w", "b"]:
        return True, "w and b, in the order they were created; count is not trainable and unused was never read."
    if "count" in names:
        return False, f"got {list(answer)}: count was created with trainable=False, so it is not watched."
    if "unused" in names:
        return False, f"got {list(answer)}: unused exists, but it was never read inside the block."
    return False, f"got {list(answer)}; which trainable variables were read inside the block, in order of creation?"


def _judge_bias(answer):
    value = _number(answer)
    if abs(value + 2.0) < 1e-4:
        return True, (
            "-2: each element's residual is -0.5, the square's rule gives 2 * -0.5 = -1 per element, "
            "and b was broadcast to both elements, so their gradients add up."
        )
    if abs(value + 1.0) < 1e-4:
        return False, "-1 is one element's share: b was broadcast to two elements; what happens to their gradients?"
    return False, f"got {value:g}. Residuals w*xs + b - ys, then d(r**2)/dr = 2r for each element; b got all of them."


def _judge_regression(answer):
    w, b = (_number(v) for v in answer)
    if abs(w - 3.0) < 0.1 and abs(b - 2.0) < 0.1:
        return True, f"w = {w:.2f}, b = {b:.2f}: the line y = 3x + 2 is found."
    return False, f"w = {w:.3f}, b = {b:.3f}; the data lie around a line. Did apply_gradients run in every step?"


def _judge_clip(answer):
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        return False, "answer with the clipped list: [clipped first gradient, clipped second gradient]."
    first = _np.asarray(_plain(answer[0]), dtype=float)
    second = _np.asarray(_plain(answer[1]), dtype=float)
    if first.shape != (2,) or second.size != 1:
        return False, f"the clipped gradients keep their shapes: (2,) and (); got {first.shape} and {second.shape}."
    if _np.allclose(first, [1.5, 2.0], atol=1e-4) and abs(float(second.reshape(())) - 6.0) < 1e-4:
        return True, (
            "[[1.5, 2], 6]: the joint norm sqrt(9 + 16 + 144) = 13 is twice 6.5, so every gradient "
            "is halved: same direction, half the length."
        )
    if _np.allclose(first, [0.6, 0.8], atol=1e-3):
        return False, "that clips [3, 4] on its own (tf.clip_by_norm); the global norm counts both gradients."
    return False, f"got {first.tolist()} and {second.reshape(()).item():g}. What is the norm of all three numbers?"


def _judge_accuracy(answer):
    accuracy = _number(answer)
    if not 0.0 <= accuracy <= 1.0:
        hint = f" ({accuracy:g}% as a fraction is {accuracy / 100:g})" if 2.0 <= accuracy <= 100.0 else ""
        return False, f"{accuracy:g} cannot be an accuracy: it is the fraction of test images right, 0 to 1{hint}."
    if accuracy >= 0.9:
        return True, f"test accuracy {accuracy:.1%} is at least 90%."
    return False, f"test accuracy {accuracy:.1%}; aim for at least 90% (more epochs, or a larger learning rate?)."


def _judge_keeps_path(answer):
    want = [True, False, False, True]
    if not isinstance(answer, (list, tuple)) or len(answer) != 4:
        return False, "answer with four booleans, one per expression, in order."
    got = [bool(a) for a in answer]
    if got == want:
        return True, (
            "only tapeviz ops keep the path: model(x) and model(x) * 2.0 do; predict and .numpy() "
            "give NumPy arrays, which come back as new constants."
        )
    wrong = [i + 1 for i, (a, b) in enumerate(zip(got, want)) if a != b]
    return False, f"expressions {wrong} are not right yet: does the value leave tapeviz (NumPy) on the way?"


def _judge_finite(answer):
    values = _plain(answer)
    if values is None:
        return False, "got None: is x watched?"
    values = _np.asarray(values, dtype=float)
    if not _np.all(_np.isfinite(values)):
        return False, f"got {values.tolist()}: still not finite. Make the log's input safe in BOTH branches."
    want = _np.array([0.0, 0.5, 0.25])
    if values.shape == want.shape and _np.allclose(values, want, atol=1e-5):
        return True, f"{values.tolist()}: finite, and 1/x where x > 0."
    return False, f"finite, but got {values.tolist()}: the gradient should be 1/x where x > 0 and 0 elsewhere."


def _judge_fixed_rule(answer):
    import tapeviz as tf

    if not callable(answer):
        return False, "answer with your fixed function itself (e.g. answer = good_square), not a number."
    values = _np.asarray(_plain(answer(tf.constant([0.5, 1.5, -2.0]))), dtype=float)
    if not _np.allclose(values, [0.25, 2.25, 4.0], atol=1e-5):
        return False, f"its values {values.tolist()} are not x * x: keep the forward computation as it was."
    result = tf.gradcheck(lambda x: tf.sin(x) + answer(x), [0.5, 1.5, -2.0])
    if result:
        return True, "gradcheck agrees with finite differences: the rule is 2 * x * upstream."
    return False, "gradcheck still disagrees: " + str(result).splitlines()[0]


EXERCISES = {
    # 01
    "01.cube": Exercise(
        "d/dx (x**3 + 2*x) at x = 2.0?",
        14.0,
        "Record y = x**3 + 2*x inside the tape, then tape.gradient(y, x). By hand: 3x^2 + 2.",
        solution="""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = x ** 3 + 2 * x
answer = tape.gradient(y, x)  # 3 * x**2 + 2 = 14
lessons.check("01.cube", answer)
""",
    ),
    "01.which_none": Exercise(
        "Predict [dy/da, dy/db, dy/dc] for y = a*b + c*c (a a variable, b watched, c never watched).",
        judge=_judge_which_none,
        hint="What does the tape watch? Variables when read, and what you pass to tape.watch.",
        solution="""
# a: a trainable variable, watched when read. b: watched by hand. c: never watched.
answer = tape.gradient(y, [a, b, c])  # [b, a, None] = [3, 2, None]
lessons.check("01.which_none", answer)
""",
    ),
    # 02
    "02.which_watched": Exercise(
        "The names of the variables the tape watched, in order (a list of str)?",
        judge=_judge_watched_names,
        hint="Watched: trainable variables read inside the block. tape.watched_variables() confirms it.",
        solution="""
answer = [v.name for v in tape.watched_variables()]  # w and b; not count (trainable=False), not unused (never read)
lessons.check("02.which_watched", answer)
""",
    ),
    "02.selective": Exercise(
        "Gradients [d(loss)/d(a), d(loss)/d(b)] when only b is watched?",
        [None, 12.0],
        "Use tf.GradientTape(watch_accessed_variables=False) and tape.watch(b).",
        solution="""
a = tf.Variable(1.0)
b = tf.Variable(2.0)
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(b)
    loss = a * b ** 3
answer = tape.gradient(loss, [a, b])  # [None, 3 * a * b**2 = 12]
lessons.check("02.selective", answer)
""",
    ),
    # 03
    "03.two_gradients": Exercise(
        "[dy/dx, dz/dx] at x = 2 for y = x**3, z = y**2, from one tape?",
        [12.0, 192.0],
        "One tf.GradientTape(persistent=True), two gradient calls. z = x**6.",
        solution="""
x = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    y = x ** 3
    z = y ** 2
answer = [tape.gradient(y, x), tape.gradient(z, x)]  # [3x^2, 6x^5] = [12, 192]
del tape  # done with it: let go of what it holds
lessons.check("03.two_gradients", answer)
""",
    ),
    # 04
    "04.third": Exercise(
        "The third derivative of x**4 at x = 2.0?",
        48.0,
        "Three nested tapes; each gradient call inside the next outer tape. By hand: 24x.",
        solution="""
x = tf.Variable(2.0)
with tf.GradientTape() as t1:
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t3:
            y = x ** 4
        d1 = t3.gradient(y, x)  # 4x^3, recorded by t2 and t1
    d2 = t2.gradient(d1, x)     # 12x^2, recorded by t1
answer = t1.gradient(d2, x)     # 24x = 48
lessons.check("04.third", answer)
""",
    ),
    "04.hessian": Exercise(
        "The Hessian of f(x) = x0**2 * x1 at x = [1, 2] (a 2x2 matrix)?",
        [[4.0, 2.0], [2.0, 0.0]],
        "Outer tape: jacobian(inner gradient, x).",
        solution="""
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        f = x[0] ** 2 * x[1]
    g = inner.gradient(f, x)        # [2 x0 x1, x0^2]
answer = outer.jacobian(g, x)       # [[2 x1, 2 x0], [2 x0, 0]]
lessons.check("04.hessian", answer)
""",
    ),
    # 05
    "05.jacobian": Exercise(
        "The jacobian of y = x**2 with x = [1, 2, 3]?",
        [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]],
        "tape.jacobian(y, x): y[i] depends only on x[i].",
        solution="""
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x ** 2
answer = tape.jacobian(y, x)  # diagonal: dy[i]/dx[i] = 2 x[i]
lessons.check("05.jacobian", answer)
""",
    ),
    "05.row": Exercise(
        "Row 1 of the Jacobian of y = [x0*x1, x1*x2] at x = [1, 2, 3], from ONE gradient call?",
        [0.0, 3.0, 2.0],
        "output_gradients weighs each element of y: which weights keep y[1] and drop y[0]?",
        solution="""
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.stack([x[0] * x[1], x[1] * x[2]])
# weights [0, 1]: the sweep starts from y[1] alone, so it gives d y[1] / dx = [0, x2, x1]
answer = tape.gradient(y, x, output_gradients=tf.constant([0.0, 1.0]))
lessons.check("05.row", answer)
""",
    ),
    "05.zero": Exercise(
        "The gradients [dy/dx, dy/dz] when y = x * 2 and z is unconnected, asking for zeros?",
        [2.0, 0.0],
        "unconnected_gradients=tf.UnconnectedGradients.ZERO",
        solution="""
x, z = tf.Variable(1.0), tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = x * 2
answer = tape.gradient(y, [x, z], unconnected_gradients=tf.UnconnectedGradients.ZERO)
lessons.check("05.zero", answer)
""",
    ),
    # 06
    "06.stopped": Exercise(
        "d/dx of x**2 * tf.stop_gradient(x) at x = 2?",
        8.0,
        "The stopped factor is a constant c = 2 to the tape: d/dx (x**2 * c) = 2x * c.",
        solution="""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = x ** 2 * tf.stop_gradient(x)  # the value is x**3 = 8, but the tape sees x**2 * c
answer = tape.gradient(y, x)           # 2x * c = 8, not 3x^2 = 12
lessons.check("06.stopped", answer)
""",
    ),
    "06.reverse": Exercise(
        "The gradient of reverse_gradient(x) * 3 at x = 1 (the custom gradient negates)?",
        -3.0,
        "@tf.custom_gradient; return x (a copy, e.g. tf.identity(x)) and a grad_fn returning -upstream.",
        solution="""
@tf.custom_gradient
def reverse_gradient(x):
    def grad(upstream):
        return -upstream
    return tf.identity(x), grad

x = tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = reverse_gradient(x) * 3.0
answer = tape.gradient(y, x)  # the upstream 3, negated
lessons.check("06.reverse", answer)
""",
    ),
    "06.softplus": Exercise(
        "The gradients of your own stable softplus at x = [0, 100], its rule computed from its value?",
        judge=_judge_log1pexp_grad,
        hint="d/dx log(1 + e^x) = e^x / (1 + e^x) = 1 - e^(-value): no exp(x) needed, so no overflow.",
        solution="""
@tf.custom_gradient
def softplus(x):
    value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))  # stable for any x

    def grad(upstream):
        return upstream * (1.0 - tf.exp(-value))  # e^x / (1 + e^x), from the value: never overflows

    return value, grad

x = tf.constant([0.0, 100.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = softplus(x)
answer = tape.gradient(y, x)
lessons.check("06.softplus", answer)
""",
    ),
    # 07
    "07.fanout": Exercise(
        "d/dx of x*x + x at x = 3 (x fans out to three uses)?",
        7.0,
        "Each use sends a gradient back; they are summed: 3 + 3 + 1.",
        solution="""
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    f = x * x + x
answer = tape.gradient(f, x)  # x + x + 1 = 7: three arrivals, summed
tf.viz.player(tape)           # step through it: three gradients arrive at x
lessons.check("07.fanout", answer)
""",
    ),
    "07.bias": Exercise(
        "Predict d loss / d b for loss = reduce_sum((w*xs + b - ys)**2), w = 2, b = 0.5, xs = [1, 2], ys = [3, 5].",
        judge=_judge_bias,
        hint="Follow the sweep: the Sum passes 1 to each element, the square 2r, and b was broadcast.",
        solution="""
with tf.GradientTape() as tape:
    loss = tf.reduce_sum((w * xs + b - ys) ** 2)
# residuals r = [2.5 - 3, 4.5 - 5] = [-0.5, -0.5]; each element sends 2r = -1 back to b; b was used by both
answer = tape.gradient(loss, b)  # -1 + -1 = -2
lessons.check("07.bias", answer)
""",
    ),
    # 08
    "08.regression": Exercise(
        "Fit y = 3x + 2 with your own loop: [w, b]?",
        judge=_judge_regression,
        hint="gradient -> apply_gradients inside the loop, 200 steps of SGD(0.1).",
        solution="""
w, b = tf.Variable(0.0), tf.Variable(0.0)
optimizer = tf.optimizers.SGD(learning_rate=0.1)
for step in range(200):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((ys - (w * xs + b)) ** 2)
    gradients = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(gradients, [w, b]))
answer = [w, b]
lessons.check("08.regression", answer)
""",
    ),
    "08.clip": Exercise(
        "Predict: the gradients [[3, 4], 12] clipped to a global norm of 6.5?",
        judge=_judge_clip,
        hint="The global norm is the length of all the numbers together; clipping scales them all by one factor.",
        solution="""
gradients = [tf.constant([3.0, 4.0]), tf.constant(12.0)]
clipped, norm = tf.clip_by_global_norm(gradients, clip_norm=6.5)  # norm = sqrt(9 + 16 + 144) = 13
answer = clipped  # every gradient times 6.5 / 13: [[1.5, 2], 6]
lessons.check("08.clip", answer)
""",
    ),
    # 09
    "09.accuracy": Exercise(
        "Your model's test accuracy on the digits (a fraction from 0 to 1)?",
        judge=_judge_accuracy,
        hint="A Dense(64, relu) + Dense(10) model, Adam(1e-2), 10 epochs.",
        solution="""
tf.random.set_seed(1)
mine = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
mine.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
             loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
mine.fit(x_train, y_train, epochs=10, batch_size=32, verbose=0)
answer = mine.evaluate(x_test, y_test, verbose=0)[1]
lessons.check("09.accuracy", answer)
""",
    ),
    "09.keeps_path": Exercise(
        "For model(x), model.predict(x), tf.constant(model(x).numpy()), model(x) * 2.0: does the loss keep "
        "a path to the weights (four booleans)?",
        judge=_judge_keeps_path,
        hint="The tape follows tapeviz ops only. Which of these hand back a NumPy array on the way?",
        solution="""
# model(x) and model(x) * 2.0 are tapeviz ops all the way; predict and .numpy() go through NumPy
answer = [True, False, False, True]
batch, labels = x_test[:4], y_test[:4]
kernel = model.trainable_variables[0]
with tf.GradientTape(persistent=True) as tape:
    outputs = [model(batch), tf.constant(model.predict(batch, verbose=0)),
               tf.constant(model(batch).numpy()), model(batch) * 2.0]
    losses = [loss_fn(labels, out) for out in outputs]
print([tape.gradient(loss, kernel) is not None for loss in losses])  # the tape agrees
del tape
lessons.check("09.keeps_path", answer)
""",
    ),
    # 10
    "10.safe_where": Exercise(
        "Gradients of the safe version at x = [0, 2, 4]?",
        judge=_judge_finite,
        hint="Feed the log a safe value where x <= 0: tf.where(x > 0, x, 1.0).",
        solution="""
x = tf.constant([0.0, 2.0, 4.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    ok = x > 0
    safe = tf.where(ok, x, tf.ones_like(x))       # log never sees a bad value
    y = tf.where(ok, tf.math.log(safe), tf.zeros_like(x))
answer = tape.gradient(y, x)
lessons.check("10.safe_where", answer)
""",
    ),
    "10.fix_rule": Exercise(
        "Fix bad_square's custom gradient: answer with your fixed function (gradcheck must pass).",
        judge=_judge_fixed_rule,
        hint="d(x*x)/dx = 2x, and the rule must multiply the upstream gradient by it.",
        solution="""
@tf.custom_gradient
def good_square(x):
    def grad(upstream):
        return upstream * 2.0 * x    # the local derivative 2x, times what arrives from above
    return x * x, grad

print(tf.gradcheck(lambda x: tf.sin(x) + good_square(x), [0.5, 1.5]))
answer = good_square
lessons.check("10.fix_rule", answer)
""",
    ),
    # 11
    "11.fewer_ops": Exercise(
        "How many ops did the tape record with watch_accessed_variables=False and only W1 watched?",
        7,
        "Every op downstream of W1 is recorded; ops that touch nothing watched are not. "
        "len(tape.recorded_ops) counts them.",
        solution="""
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(W1)
    forward()
answer = len(tape.recorded_ops)  # every op of forward() depends on W1, except reading W2
print([entry.primitive.name for entry in tape.recorded_ops])
lessons.check("11.fewer_ops", answer)
""",
    ),
}
