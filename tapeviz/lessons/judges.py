"""Checks that need more than a comparison: code run on fresh inputs, and feedback that teaches.

Each judge takes the student's answer and returns ``(ok, message)``, or
raises :class:`~tapeviz.lessons.answers.Refused` for an answer of the wrong
kind. A judge of written code calls the function on inputs the notebook never
showed, under :func:`~tapeviz.lessons.probe.observe`, so it checks both what
the code computes and how (which tapes, which gradient calls).
"""

import re

import numpy as np

from tapeviz.lessons.answers import Refused, code, describe, number, numbers, plain, refuse_text
from tapeviz.lessons.probe import observe


def _tf():
    import tapeviz

    return tapeviz


def _close(values, want, atol=1e-4):
    values, want = np.asarray(values, dtype=float), np.asarray(want, dtype=float)
    return values.shape == want.shape and bool(np.allclose(values, want, atol=atol, rtol=1e-4))


def _text(values):
    return np.round(np.asarray(values, dtype=float), 4).tolist()


def _needs_a_tape(run, what="the gradient"):
    if not run.tapes or not run.sweeps:
        raise Refused(
            f"your function computed {what} without a GradientTape (no gradient call ran): the exercise is to let "
            "the tape do the calculus."
        )


def _custom_gradient(run, name):
    if not run.recorded("CustomGradient"):
        raise Refused(
            f"the tape did not record {name} as one op with your rule: decorate it with @tf.custom_gradient and "
            "return (value, grad)."
        )


# -- multiple choice ("why" questions) --------------------------------------------------------
def choice(right, because, wrong):
    """A judge of a multiple-choice answer: one letter; ``wrong`` maps each other letter to its misconception."""
    letters = sorted({right, *wrong})

    def judge(answer):
        if not isinstance(answer, str) or answer.strip().lower() not in letters:
            raise Refused(f"answer with one letter in quotes: one of {', '.join(repr(x) for x in letters)}.")
        letter = answer.strip().lower()
        if letter == right:
            return True, because
        return False, f"({letter}) {wrong[letter]}"

    return judge


# -- 01 ----------------------------------------------------------------------------------------
def which_none(answer):
    refuse_text(answer)
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Refused("answer with a list of three: [dy/da, dy/db, dy/dc].")
    da, db, dc = (None if v is None else number(v) for v in answer)
    if dc is not None:
        return False, (
            f"dy/dc = {dc:g}? c was never watched, so the tape recorded nothing from it: "
            "tape.gradient gives None (not 0, not 2c)."
        )
    if da is None or db is None:
        return False, "a is a trainable variable (watched when read) and b was watched: both get a number."
    if abs(da - 3.0) < 1e-4 and abs(db - 2.0) < 1e-4:
        return True, "[3, 2, None]: d(a*b)/da = b, d(a*b)/db = a, and the unwatched c gives None."
    return False, f"[{da:g}, {db:g}, None] has the None right; what is d(a*b)/da, and what is d(a*b)/db?"


# -- 02 ----------------------------------------------------------------------------------------
def _base_name(name):
    """'w_3:0' -> 'w': tapeviz numbers repeated variable names, so re-running a cell renames."""
    return re.sub(r"(_\d+)?(:\d+)?$", "", str(name))


def watched_names(answer):
    if not isinstance(answer, (list, tuple)) or not all(isinstance(n, str) for n in answer):
        raise Refused('answer with a list of names, one string per variable, e.g. ["a", "b"].')
    names = [_base_name(n) for n in answer]
    if names == ["w", "b"]:
        return True, "w and b, in the order they were created; count is not trainable and unused was never read."
    if "count" in names:
        return False, f"got {list(answer)}: count was created with trainable=False, so it is not watched."
    if "unused" in names:
        return False, f"got {list(answer)}: unused exists, but it was never read inside the block."
    if sorted(names) == ["b", "w"]:
        return False, f"got {list(answer)}: the right two, but watched_variables() lists them in order of creation."
    return False, f"got {list(answer)}; which trainable variables were read inside the block?"


def selective(answer):
    tf = _tf()
    function = code(answer, "answer = selective")
    a, b = tf.Variable(1.5, name="a"), tf.Variable(-2.0, name="b")
    run = observe(function, a, b)
    _needs_a_tape(run, "the gradients")
    if all(t.watch_accessed_variables for t in run.tapes.values()):
        return False, "your tape watches every variable it reads: make it with watch_accessed_variables=False."
    got = run.result
    if not isinstance(got, (list, tuple)) or len(got) != 2:
        raise Refused("selective(a, b) should return the list [d loss/d a, d loss/d b].")
    if got[0] is not None:
        return False, "a got a gradient, so the tape watched a: watch only b (tape.watch(b))."
    if got[1] is None:
        return False, "b got None: did the tape watch b (tape.watch(b) inside the block)?"
    if _close(numbers(got[1]), 3 * 1.5 * 4.0):
        return True, "at a = 1.5, b = -2 your function gives [None, 18]: only b was watched, and d(a b^3)/db = 3ab^2."
    return False, f"d loss/d b = {_text(numbers(got[1]))} at a = 1.5, b = -2; the loss is a * b ** 3."


def unwatched_read(answer):
    refuse_text(answer)
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise Refused("answer with a list of two: [d total/d p, d total/d q].")
    dp, dq = (None if v is None else number(v) for v in answer)
    if dq is not None:
        return False, (
            f"d total/d q = {dq:g}? With watch_accessed_variables=False, reading q does not watch it: "
            "to the tape q is a plain number, so its gradient is None."
        )
    if dp is None:
        return False, "p was watched by hand (tape.watch(p)): it gets a number."
    if abs(dp - 3.0) < 1e-4:
        return True, "[3, None]: d(p*q + q*q)/dp = q = 3, and q, never watched, gets None."
    return False, f"[{dp:g}, None] has the None right; q is a constant to the tape: d(p*q + q*q)/dp is?"


# -- 03 ----------------------------------------------------------------------------------------
def two_gradients(answer):
    tf = _tf()
    function = code(answer, "answer = two_gradients")
    try:
        run = observe(function, tf.Variable(1.5))
    except RuntimeError as error:
        return False, f"RuntimeError: {error} A tape that answers twice must be made with persistent=True."
    _needs_a_tape(run, "the gradients")
    if len(run.tapes) > 1:
        return (
            False,
            f"your function made {len(run.tapes)} tapes: the exercise asks ONE persistent tape to answer both.",
        )
    (tape,) = run.tapes.values()
    if not tape.persistent:
        return False, "a non-persistent tape answers once: make it with persistent=True."
    if tape.sweeps < 2:
        return False, "one gradient call gave both? Ask the tape twice: once for dy/dx, once for dz/dx."
    if not tape.released:
        return False, "the tape is still alive after your function returned: release it (del tape) when done."
    got = run.result
    if not isinstance(got, (list, tuple)) or len(got) != 2:
        raise Refused("two_gradients(x) should return the list [dy/dx, dz/dx].")
    want = [3 * 1.5**2, 6 * 1.5**5]
    values = [number(v) for v in got]
    if _close(values, want):
        return True, "one persistent tape answered twice and was released: at x = 1.5, [6.75, 45.5625] = [3x^2, 6x^5]."
    if _close(values[::-1], want):
        return False, "the two gradients are swapped: [dy/dx, dz/dx]."
    return False, f"at x = 1.5 your function gives {_text(values)}; y = x**3 and z = y**2."


# -- 04 ----------------------------------------------------------------------------------------
def third_derivative(answer):
    tf = _tf()
    function = code(answer, "answer = third")
    results = []
    for value in (1.5, -0.5):
        run = observe(function, tf.Variable(value))
        _needs_a_tape(run, "the derivative")
        if len(run.tapes) < 3 or run.sweeps < 3:
            return False, (
                f"{len(run.tapes)} tape(s) and {run.sweeps} gradient call(s): a third derivative takes three nested "
                "tapes, each gradient call inside the next outer tape."
            )
        results.append(number(run.result))
    if _close(results, [24 * 1.5, 24 * -0.5]):
        return True, "three tapes, three sweeps: at x = 1.5 and -0.5 your function gives 24x, the third derivative."
    if _close(results, [12 * 1.5**2, 12 * 0.25]):
        return False, "that is the second derivative (12x^2): one more tape, one more gradient call."
    return (
        False,
        f"at x = 1.5 and -0.5 your function gives {_text(results)}: is each gradient call inside the next tape?",
    )


def hessian(answer):
    tf = _tf()
    function = code(answer, "answer = hessian")
    run = observe(function, tf.Variable([1.5, -2.0]))
    _needs_a_tape(run, "the Hessian")
    if len(run.tapes) < 2:
        return False, "a Hessian needs two tapes: an inner one for the gradient, an outer one for its Jacobian."
    got = numbers(run.result)
    want = [[2 * -2.0, 2 * 1.5], [2 * 1.5, 0.0]]
    if _close(got, want):
        return (
            True,
            "at x = [1.5, -2] your function gives [[2 x1, 2 x0], [2 x0, 0]]: symmetric, as second derivatives are.",
        )
    if got.shape == (2,):
        return False, "that is one vector: outer.gradient sums; outer.jacobian(g, x) keeps each d g[i] / d x[j]."
    return False, f"at x = [1.5, -2] your function gives {_text(got)}; differentiate g = [2 x0 x1, x0**2] once more."


# -- 05 ----------------------------------------------------------------------------------------
def row_one(answer):
    tf = _tf()
    function = code(answer, "answer = row_one")
    run = observe(function, tf.constant([2.0, -1.0, 0.5]))
    _needs_a_tape(run, "the row")
    if run.sweeps != 1:
        return False, f"{run.sweeps} gradient calls: the exercise asks for ONE, weighed by output_gradients."
    (tape,) = [t for t in run.tapes.values() if t.sweeps]
    if not any(tape.output_gradients):
        return False, "no output_gradients were given: the sweep started from ones, i.e. from y[0] + y[1]."
    got = numbers(run.result)
    if _close(got, [0.0, 0.5, -1.0]):
        return True, "at x = [2, -1, 0.5] your function gives [0, x2, x1]: weights [0, 1] keep y[1] alone."
    if _close(got, [-1.0, 2.5, -1.0]):
        return False, "that is the gradient of y[0] + y[1]: which weights drop y[0]?"
    if _close(got, [-1.0, 2.0, 0.0]):
        return False, "that is row 0, d y[0] / dx: the weights pick the row."
    return False, f"at x = [2, -1, 0.5] your function gives {_text(got)}."


def batch_shapes(answer):
    refuse_text(answer)
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise Refused("answer with two shapes: [shape of batch_jacobian, shape of jacobian], e.g. [[1, 2], [3]].")
    shapes = [[int(number(d)) for d in shape] for shape in answer]
    per_example, whole = shapes
    if per_example == [5, 4, 3] and whole == [5, 4, 5, 3]:
        return True, (
            "[5, 4, 3] and [5, 4, 5, 3]: batch_jacobian keeps one 4 x 3 Jacobian per example; jacobian also "
            "keeps every pair of different examples, whose blocks are all zero."
        )
    if per_example == [5, 3, 4]:
        return False, "the output's axes come first, then the input's: d out[i] / d batch[j]."
    if per_example != [5, 4, 3]:
        return False, "batch_jacobian: one Jacobian per example, out (4 values) by input (3 values)."
    return False, "batch_jacobian is right; jacobian's shape is out.shape + batch.shape."


# -- 06 ----------------------------------------------------------------------------------------
def reverse_gradient(answer):
    tf = _tf()
    function = code(answer, "answer = reverse_gradient")
    x = tf.constant([0.5, -2.0])
    weights = tf.constant([3.0, 5.0])

    def use(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = function(x) * weights
        return y, tape.gradient(y, x)

    run = observe(use, x)
    _custom_gradient(run, "reverse_gradient")
    y, grad = run.result
    if not _close(numbers(y), [1.5, -10.0]):
        return False, "going forward, reverse_gradient must be the identity: its value is x itself."
    if grad is None:
        return False, "the gradient is None: does your grad return the upstream gradient, negated?"
    got = numbers(grad)
    if _close(got, [-3.0, -5.0]):
        return True, "identity forward, the upstream gradient negated backward: on fresh inputs too."
    if _close(got, [3.0, 5.0]):
        return False, "the gradient came through unchanged: negate the upstream gradient in grad."
    if _close(got, [-1.0, -1.0]):
        return False, "your grad returns -1: it must negate what arrives from above (the upstream), not replace it."
    return False, f"with upstream [3, 5] your rule gives {_text(got)}."


def softplus(answer):
    tf = _tf()
    function = code(answer, "answer = softplus")
    points = [-3.0, 0.0, 2.0, 100.0, 500.0]
    x = tf.constant(points)

    def use(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = function(x)
        return y, tape.gradient(y, x)

    run = observe(use, x)
    _custom_gradient(run, "softplus")
    y, grad = run.result
    values = numbers(y)
    want_values = np.logaddexp(0.0, np.array(points))
    if not np.all(np.isfinite(values)):
        return False, f"its values {_text(values)} are not finite: compute log(1 + e^x) stably (no exp of a large x)."
    if not _close(values, want_values, atol=1e-3):
        return False, f"its values at {points} are {_text(values)}: not log(1 + e^x)."
    if grad is None:
        return False, "the gradient is None: does your grad return a gradient for x?"
    got = numbers(grad)
    if not np.all(np.isfinite(got)):
        return False, f"the gradient {_text(got)} is not finite: an exp of a large x overflowed in your rule."
    if _close(got, 1.0 / (1.0 + np.exp(-np.array(points)))):
        return True, f"values and gradients right and finite at x = {points}: the rule computed from the value."
    return False, f"the gradients at {points} are {_text(got)}: not e^x / (1 + e^x)."


# -- 07 ----------------------------------------------------------------------------------------
def bias(answer):
    value = number(answer)
    if abs(value + 2.0) < 1e-4:
        return True, (
            "-2: each element's residual is -0.5, the square's rule gives 2 * -0.5 = -1 per element, "
            "and b was broadcast to both elements, so their gradients add up."
        )
    if abs(value + 1.0) < 1e-4:
        return False, "-1 is one element's share: b was broadcast to two elements; what happens to their gradients?"
    if abs(value + 0.5) < 1e-4 or abs(value + 1.0 / 4) < 1e-4:
        return False, "that is a residual, not a gradient: the square's rule multiplies it by 2 on the way back."
    return False, f"got {value:g}. Residuals w*xs + b - ys, then d(r**2)/dr = 2r for each element; b got all of them."


def forward_tangent(answer):
    refuse_text(answer)
    values = numbers(answer)
    if values.size != 1:
        return False, (
            f"got {values.size} numbers: for one output, jvp gives ONE number, the derivative along the "
            "tangent (the gradient dotted with it)."
        )
    value = float(values.reshape(()))
    if abs(value - 42.0) < 1e-3:
        return True, "42 = 26 + 16: moving w0 and w1 together, their partial derivatives add."
    if abs(value - 26.0) < 1e-3 or abs(value - 16.0) < 1e-3:
        return False, "that is one partial derivative: the tangent [1, 1, 0, 0] moves two inputs at once."
    return False, f"got {value:g}; the jvp is the gradient dotted with the tangent."


# -- 08 ----------------------------------------------------------------------------------------
def train_step(answer):
    tf = _tf()
    function = code(answer, "answer = train_step")
    rng = np.random.default_rng(7)
    xs_np = rng.uniform(-1, 1, size=(64, 1)).astype("float32")
    xs, ys = tf.constant(xs_np), tf.constant(-2.0 * xs_np + 0.5)
    w, b = tf.Variable(0.0), tf.Variable(0.0)
    optimizer = tf.optimizers.SGD(learning_rate=0.1)
    run = observe(function, w, b, xs, ys, optimizer)
    _needs_a_tape(run, "the step")
    if run.assigned == 0 or (float(w.numpy()) == 0.0 and float(b.numpy()) == 0.0):
        return False, "w and b did not change: the step must apply the gradients (optimizer.apply_gradients)."
    for _ in range(299):
        function(w, b, xs, ys, optimizer)
    got = [float(w.numpy()), float(b.numpy())]
    if _close(got, [-2.0, 0.5], atol=0.05):
        return True, "300 of your steps fit a fresh line, y = -2x + 0.5: a tape, its gradient, and the update."
    return False, f"300 of your steps on the line y = -2x + 0.5 end at w = {got[0]:.3f}, b = {got[1]:.3f}."


def clip(answer):
    refuse_text(answer)
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise Refused("answer with the clipped list: [clipped first gradient, clipped second gradient].")
    first, second = numbers(answer[0]), numbers(answer[1])
    if first.shape != (2,) or second.size != 1:
        return False, f"the clipped gradients keep their shapes: (2,) and (); got {first.shape} and {second.shape}."
    if _close(first, [1.5, 2.0]) and abs(float(second.reshape(())) - 6.0) < 1e-4:
        return True, (
            "[[1.5, 2], 6]: the joint norm sqrt(9 + 16 + 144) = 13 is twice 6.5, so every gradient "
            "is halved: same direction, half the length."
        )
    if _close(first, [0.6, 0.8], atol=1e-3):
        return False, "that clips [3, 4] on its own (tf.clip_by_norm); the global norm counts both gradients."
    return False, f"got {first.tolist()} and {second.reshape(()).item():g}. What is the norm of all three numbers?"


# -- 09 ----------------------------------------------------------------------------------------
def accuracy(answer):
    if not hasattr(answer, "evaluate") or not hasattr(answer, "trainable_variables"):
        raise Refused(
            f"got {describe(plain(answer)) if not isinstance(answer, str) else repr(answer)}: this exercise asks for "
            "code, a trained model: answer with the model itself (answer = mine). The checker evaluates it on the "
            "test set, so a typed accuracy cannot pass."
        )
    from tapeviz import datasets

    _, (x_test, y_test) = datasets.load_digits(flatten=True)
    logits = plain(answer(x_test))
    score = float(np.mean(np.argmax(np.asarray(logits), axis=1) == y_test))
    if score >= 0.9:
        return True, f"the checker's own evaluation of your model: test accuracy {score:.1%}, at least 90%."
    return False, f"the checker evaluated your model: test accuracy {score:.1%}; aim for at least 90%."


def keeps_path(answer):
    want = [True, False, False, True]
    if not isinstance(answer, (list, tuple)) or len(answer) != 4 or not all(isinstance(a, bool) for a in answer):
        raise Refused("answer with four booleans (True or False), one per expression, in order.")
    if list(answer) == want:
        return True, (
            "only tapeviz ops keep the path: model(x) and model(x) * 2.0 do; predict and .numpy() "
            "give NumPy arrays, which come back as new constants."
        )
    wrong = [i + 1 for i, (a, b) in enumerate(zip(answer, want)) if a != b]
    return False, f"expressions {wrong} are not right yet: does the value leave tapeviz (NumPy) on the way?"


# -- 10 ----------------------------------------------------------------------------------------
def safe_log(answer):
    tf = _tf()
    function = code(answer, "answer = safe_log")
    points = [-1.0, 0.0, 0.5, 3.0]

    def use(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = function(x)
        return y, tape.gradient(y, x)

    run = observe(use, tf.constant(points))
    y, grad = run.result
    values = numbers(y)
    if not _close(values, [0.0, 0.0, np.log(0.5), np.log(3.0)]):
        return False, f"at x = {points} its values are {_text(values)}: log(x) where x > 0, else 0."
    if grad is None:
        return False, "the gradient is None: build the result from tapeviz ops on x (tf.where, tf.math.log)."
    got = numbers(grad)
    if not np.all(np.isfinite(got)):
        return False, (
            f"gradient {_text(got)}: the branch not taken still gets its gradient, times 0, and 0 * inf is nan. "
            "The log itself must never see x <= 0."
        )
    if _close(got, [0.0, 0.0, 2.0, 1.0 / 3.0]):
        return True, f"finite at x = {points}: 1/x where x > 0, 0 elsewhere."
    return False, f"finite, but the gradient at x = {points} is {_text(got)}: 1/x where x > 0, 0 elsewhere."


def fixed_rule(answer):
    tf = _tf()
    function = code(answer, "answer = good_square")
    x = tf.constant([0.5, 1.5, -2.0])
    run = observe(lambda: _gradient_of(tf, function, x))
    values = numbers(run.result)
    if not _close(values, [0.25, 2.25, 4.0], atol=1e-5):
        return False, f"its values {_text(values)} are not x * x: keep the forward computation as it was."
    _custom_gradient(run, "good_square")
    result = tf.gradcheck(lambda x: tf.sin(x) + function(x), [0.5, 1.5, -2.0])
    if result:
        return True, "gradcheck agrees with finite differences: the rule is 2 * x * upstream."
    return False, "gradcheck still disagrees: " + str(result).splitlines()[0]


def _gradient_of(tf, function, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = function(x)
    tape.gradient(y, x)
    return y


# -- 11 ----------------------------------------------------------------------------------------
def fewer_ops(answer):
    if not isinstance(answer, int) or isinstance(answer, bool):
        refuse_text(answer)
        count = number(answer)
        if count != int(count):
            raise Refused(f"got {count:g}: a count of ops is a whole number.")
        answer = int(count)
    if answer == 7:
        return True, "7: every op of forward() depends on W1, except reading W2, which touches nothing watched."
    if answer == 8:
        return False, "8 counts reading W2 too: W2 is not watched, so reading it is not recorded."
    if answer < 7:
        return False, f"{answer}: an op is recorded when ANY of its inputs depends on W1, all the way to the loss."
    return False, f"{answer}: more than forward() runs with W1 on its path."


# -- 12 ----------------------------------------------------------------------------------------
_TRACE_MISTAKES = {
    6: "6 counts every call as a trace: a call whose signature (dtype and shape of each tensor, value of each "
    "Python argument) was seen before replays the recorded ops instead.",
    1: "1 counts only the first call: a new shape, or a new Python value, is a new signature and traces again.",
    2: "2 treats the Python float like a float32 scalar tensor: a Python argument is part of the signature by its "
    "value, so it is a signature of its own.",
    5: "5 retraces on every new tensor value: a tensor's value is not part of the signature, only its dtype and "
    "shape are.",
    4: "4 traced one call too many: the second call with the same Python value replays, and so does a scalar "
    "tensor after the first scalar tensor, whatever its value.",
}


def trace_count(answer):
    if not isinstance(answer, int) or isinstance(answer, bool):
        refuse_text(answer)
        count = number(answer)
        if count != int(count):
            raise Refused(f"got {count:g}: a count of traces is a whole number.")
        answer = int(count)
    if answer == 3:
        return True, (
            "3 traces: a float32 scalar, a float32 vector of length 2, and the Python value 2.0; the other "
            "calls replayed a trace they matched."
        )
    if answer in _TRACE_MISTAKES:
        return False, _TRACE_MISTAKES[answer]
    return False, (
        f"{answer}: list each call's signature (dtype and shape of a tensor, the value of a Python number) and "
        "count the different ones."
    )
