"""The catalogue of gradient bugs (issue 28): ``tf.viz.diagnose`` names each one's cause, op and line.

Each bug is a small program written as a user would, with the guilty line
marked ``# <- here``; the test finds that line's number with ``inspect`` and
asserts the finding's ``where`` names it. Each program is asked both ways:
``diagnose`` before ``gradient()``, and in the natural order (``gradient()``
first, on a non-persistent tape, then ``diagnose``). ``explain``,
``find_nonfinite``, the diagnosis and its picture must agree.
"""

import inspect
import os
import warnings

import numpy as np
import pytest

import tapeviz as tf
import tapeviz.viz as viz

viz.stop_watching()  # on for these tests only (the fixture), as the other viz test modules do
pytestmark = pytest.mark.usefixtures("session_recorder")

HERE = os.path.basename(__file__)


def marked_line(program):
    """The file line of ``program``'s line marked ``# <- here``."""
    lines, first = inspect.getsourcelines(program)
    return first + next(i for i, line in enumerate(lines) if "# <- here" in line)


def expected_where(program, where):
    """What ``Finding.where`` should say for a catalogue entry."""
    if where is True:
        return f"{HERE}:{marked_line(program)}"
    return f"{HERE}:{marked_line(where)}" if callable(where) else where


# -- the programs: each returns (tape, target, source) ------------------------------------------


def norm_at_zero():
    x = tf.Variable([0.0, 0.0])
    with tf.GradientTape() as tape:
        distance = tf.norm(x)  # <- here
    return tape, distance, x


def log_zero_cross_entropy():
    logits = tf.Variable([30.0, 0.0, -80.0])
    labels = tf.constant([1.0, 0.0, 0.0])
    with tf.GradientTape() as tape:
        p = tf.exp(logits) / tf.reduce_sum(tf.exp(logits))
        loss = -tf.reduce_sum(labels * tf.math.log(p))  # <- here
    return tape, loss, logits


def activation_in_numpy():
    x = tf.constant([[1.0, -2.0]])
    w = tf.Variable([[0.5, -0.5], [0.25, 1.0]])
    with tf.GradientTape() as tape:
        z = x @ w
        h = np.maximum(z, 0.0)  # the activation, done in NumPy
        loss = tf.reduce_sum(h * h)  # <- here
    return tape, loss, w


def replaced_variable():
    w = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        loss = (w * 3.0 - 1.0) ** 2
    g = tape.gradient(loss, w)
    w = w - 0.1 * g  # <- here
    with tf.GradientTape() as tape:
        loss = (w * 3.0 - 1.0) ** 2
    return tape, loss, w


def vanishing_sigmoids(layers=20):
    rng = np.random.default_rng(0)
    weights = [tf.Variable(rng.normal(0, 1.0, (8, 8)).astype(np.float32)) for _ in range(layers)]
    x = tf.constant(rng.normal(0, 1, (4, 8)).astype(np.float32))
    with tf.GradientTape() as tape:
        h = x
        for w in weights:
            h = tf.sigmoid(h @ w)  # <- here
        loss = tf.reduce_sum(h)
    return tape, loss, weights[0]


def vanishing_80_sigmoids():
    return vanishing_sigmoids(80)


def exploding_relu_rnn():
    inputs = tf.constant(np.full((60, 1, 4), 0.1, np.float32))
    w = tf.Variable(np.eye(4, dtype=np.float32) * 3.0)
    with tf.GradientTape() as tape:
        h = tf.zeros((1, 4))
        for t in range(60):
            h = tf.nn.relu(h @ w + inputs[t])  # <- here
        loss = tf.reduce_sum(h)
    return tape, loss, w


def exploding_without_overflow():
    inputs = tf.constant(np.full((40, 1, 3), 0.5, np.float32))
    w = tf.Variable(np.eye(3, dtype=np.float32) * 1.6)
    with tf.GradientTape() as tape:
        h = tf.zeros((1, 3))
        for t in range(40):
            h = h @ w + inputs[t]  # <- here
        loss = tf.reduce_mean(h)
    return tape, loss, w


@tf.custom_gradient
def clipped_square(x):
    def grad_fn(upstream):
        return -upstream * 2.0 * x  # the wrong sign

    return x * x, grad_fn


def wrong_sign_custom_gradient():
    x = tf.Variable([0.5, -1.5])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(clipped_square(x) * 3.0)  # <- here
    return tape, loss, x


def where_log_trap():
    p = tf.Variable([0.5, 0.0, 0.25])
    with tf.GradientTape() as tape:
        entropy = -tf.reduce_sum(tf.where(p > 0, p * tf.math.log(p), 0.0))  # <- here
    return tape, entropy, p


def saliency_unwatched_input():
    image = tf.constant([[0.2, 0.7, 0.1]])
    w = tf.Variable([[1.0], [-2.0], [0.5]])
    with tf.GradientTape() as tape:
        score = tf.matmul(image, w)  # <- here
    return tape, score, image


def nan_in_the_input():
    data = np.array([[1.0, np.nan], [0.5, 2.0]], np.float32)
    w = tf.Variable([[0.1], [0.2]])
    with tf.GradientTape() as tape:
        out = tf.matmul(data, w)  # <- here
        loss = tf.reduce_mean(out * out)
    return tape, loss, w


def numpy_round_trip():
    x = tf.constant([[0.5, -1.0]])
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        h = tf.tanh(x @ w)
        h_copy = tf.constant(h.numpy())
        loss = tf.reduce_sum(h_copy * 2.0)  # <- here
    return tape, loss, w


def nan_label():
    labels = tf.constant([1.0, np.nan, 0.0])
    w = tf.Variable(0.5)
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        predictions = w * x
        loss = tf.reduce_mean((predictions - labels) ** 2)  # <- here
    return tape, loss, w


def constant_column_over_std():
    features = tf.constant([[1.0, 3.0], [2.0, 3.0], [4.0, 3.0]])
    features = (features - tf.reduce_mean(features, axis=0)) / tf.math.reduce_std(features, axis=0)  # <- here
    w = tf.Variable([[0.5], [0.5]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.matmul(features, w) ** 2)
    return tape, loss, w


def softmax_overflow():
    logits = tf.Variable([1000.0, 10.0, -5.0])
    with tf.GradientTape() as tape:
        e = tf.exp(logits)  # <- here
        p = e / tf.reduce_sum(e)
        loss = -tf.math.log(p[0])
    return tape, loss, logits


def dead_relu_layer():
    x = tf.constant([[1.0, 2.0], [0.5, 0.3], [2.0, 1.0]])
    w1 = tf.Variable([[0.5, -0.2, 0.1], [0.3, 0.4, -0.1]])
    b1 = tf.Variable([-50.0, -50.0, -50.0])
    w2 = tf.Variable([[1.0], [1.0], [1.0]])
    with tf.GradientTape() as tape:
        hidden = tf.nn.relu(x @ w1 + b1)  # <- here
        loss = tf.reduce_sum(hidden @ w2 + 1.0)
    return tape, loss, w1


def gradient_through_argmax():
    logits = tf.Variable([0.2, 1.5, -0.3])
    with tf.GradientTape() as tape:
        choice = tf.cast(tf.argmax(logits), tf.float32)  # <- here
        loss = choice * 2.0
    return tape, loss, logits


def sqrt_at_zero():
    x = tf.Variable([0.0, 4.0])
    with tf.GradientTape() as tape:
        root = tf.reduce_sum(tf.sqrt(x))  # <- here
    return tape, root, x


def integer_path():
    x = tf.constant(3)
    with tf.GradientTape() as tape:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tape.watch warns about an integer tensor, as TF does
            tape.watch(x)
        y = x * x
    return tape, y, x


def stop_gradient_on_the_path():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        frozen = tf.stop_gradient(x * 3.0)  # <- here
        y = frozen * x
    return tape, frozen * 1.0, x


def not_connected():
    x = tf.Variable(2.0)
    z = tf.Variable(5.0)
    with tf.GradientTape() as tape:
        y = z * 2.0
    return tape, y, x


# (program, cause, op, where: True = the program's marked line, a function = that one's, "" = none)
CATALOGUE = [
    (norm_at_zero, "nonfinite_backward", "Sqrt", True),
    (log_zero_cross_entropy, "nonfinite_forward", "Log", True),
    (activation_in_numpy, "left_the_tape", "Sum", True),
    (replaced_variable, "replaced_variable", "Sub", True),
    (vanishing_sigmoids, "vanishing", "Sigmoid", True),
    (vanishing_80_sigmoids, "vanishing", "Sigmoid", vanishing_sigmoids),
    (exploding_relu_rnn, "exploding", "MatMul", True),
    (exploding_without_overflow, "exploding", "MatMul", True),
    (wrong_sign_custom_gradient, "custom_gradient_mismatch", "CustomGradient", True),
    (where_log_trap, "where_untaken_branch", "Log", True),
    (saliency_unwatched_input, "unwatched", "MatMul", True),
    (nan_in_the_input, "nonfinite_input", "MatMul", True),
    (numpy_round_trip, "left_the_tape", "Mul", True),
    (nan_label, "nonfinite_input", "Sub", True),
    (constant_column_over_std, "nonfinite_forward", "RealDiv", True),
    (softmax_overflow, "nonfinite_forward", "Exp", True),
    (dead_relu_layer, "dead_relu", "Relu", True),
    (gradient_through_argmax, "no_gradient_op", "ArgMax", True),
    (sqrt_at_zero, "nonfinite_backward", "Sqrt", True),
    (integer_path, "integer_path", None, ""),
    (stop_gradient_on_the_path, "stop_gradient", "StopGradient", True),
    (not_connected, "not_connected", None, ""),
]
IDS = [program.__name__ for program, *_ in CATALOGUE]


def _check(program, cause, op, where, diagnosis):
    assert diagnosis, f"{program.__name__}: nothing found"
    first = diagnosis.findings[0]
    assert (first.cause, first.op) == (cause, op), diagnosis
    expected = expected_where(program, where)
    assert first.where == expected, diagnosis
    assert first.message and first.fix, diagnosis
    assert len([f for f in diagnosis.findings if f.cause == cause]) == 1, diagnosis  # one consistent finding
    return first


@pytest.mark.parametrize("program, cause, op, where", CATALOGUE, ids=IDS)
def test_diagnose_before_gradient(program, cause, op, where):
    tape, target, source = program()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # nothing leaks
        diagnosis = viz.diagnose(tape, target, source, check=True)
    _check(program, cause, op, where, diagnosis)


@pytest.mark.parametrize("program, cause, op, where", CATALOGUE, ids=IDS)
def test_diagnose_after_gradient_on_a_used_tape(program, cause, op, where):
    tape, target, source = program()
    if cause != "integer_path":  # (TF warns and returns None there too)
        tape.gradient(target, source)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        diagnosis = viz.diagnose(tape, target, source, check=True)
        again = viz.diagnose(tape, target, check=True)  # the sources of the last gradient() call
    first = _check(program, cause, op, where, diagnosis)
    assert again.causes == diagnosis.causes
    if cause in STEPPED:  # the player's sweep reaches the op: the finding says at which step
        assert first.step is not None and tape_steps(tape)[first.step] == (first.op, first.where)


STEPPED = ("nonfinite_backward", "vanishing", "exploding", "dead_relu", "custom_gradient_mismatch")


def tape_steps(tape):
    """(op type, line) of each step of the tape's last sweep, as the player plays them."""
    from tapeviz.viz.trace import trace_of

    played = trace_of(tape)
    ops = [played.op(step["op"]) for step in played.data["sweeps"][-1]["steps"]]
    return [(op["name"], op["where"]) for op in ops]


EXPLAIN_CODES = {  # the finer codes explain() has always used, for the causes it names
    "unwatched": {"not_watched", "non_trainable"},
    "replaced_variable": {"variable_replaced"},
    "left_the_tape": {"numpy_roundtrip"},
    "integer_path": {"integer_source", "integer_target"},
    "no_gradient_op": {"non_differentiable"},
    "stop_gradient": {"stop_gradient"},
    "not_connected": {"not_connected"},
}
NONFINITE = ("nonfinite_input", "nonfinite_forward", "nonfinite_backward", "where_untaken_branch")


@pytest.mark.parametrize("program, cause, op, where", CATALOGUE, ids=IDS)
def test_the_views_agree(program, cause, op, where):
    tape, target, source = program()
    diagnosis = viz.diagnose(tape, target, source, check=True)
    first = diagnosis.findings[0]
    explanation = viz.explain(tape, target, source)
    if cause in EXPLAIN_CODES:
        assert explanation.cause in EXPLAIN_CODES[cause], explanation
    else:
        assert explanation.cause in ("connected", "zero"), explanation  # the path exists: it names no break
    nonfinite = viz.find_nonfinite(tape, target, source)
    if cause in NONFINITE:
        assert nonfinite and nonfinite.finding.cause == cause and nonfinite.finding.op == op
        assert first.where in str(nonfinite)
    else:
        assert not nonfinite, nonfinite
    # the picture rings the finding's op (or tensor), and draws it
    marks = diagnosis.marks()
    key = first.node or first.tensor
    if key is not None:
        assert marks.get(key) == "break"
        assert 'fillcolor="#fecaca"' in diagnosis.figure().dot
    html = diagnosis._repr_mimebundle_(include={"text/plain"})["text/plain"]
    assert cause in html and (first.where in html)


def test_a_healthy_program_has_no_findings_in_either_order():
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(0, 1, (16, 4)).astype(np.float32))
    w1 = tf.Variable(rng.normal(0, 0.5, (4, 8)).astype(np.float32))
    w2 = tf.Variable(rng.normal(0, 0.5, (8, 1)).astype(np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.relu(x @ w1) @ w2)
    assert not viz.diagnose(tape, loss, [w1, w2])
    tape.gradient(loss, [w1, w2])
    found = viz.diagnose(tape, loss)
    assert not found and str(found).startswith("Nothing wrong")
    assert viz.explain(tape, loss, w1).cause == "connected"  # never "the tape was already used"


def test_one_small_factor_is_no_vanishing_gradient():
    x = tf.constant(np.linspace(-1, 1, 40, dtype=np.float32).reshape(20, 2))
    w = tf.Variable([[0.5], [-0.3]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w) ** 2) + 1e-6 * tf.reduce_sum(w**2)  # a regulariser's weight, on purpose
    tape.gradient(loss, w)
    assert not viz.diagnose(tape, loss, w)


def test_the_saliency_picture_and_text_agree_on_the_unwatched_input():
    tape, score, image = saliency_unwatched_input()
    before = viz.explain(tape, score, image)
    assert tape.gradient(score, image) is None
    after = viz.explain(tape, score, image)
    assert before.cause == after.cause == "not_watched"
    assert "never watched" in before.message and "never watched" in after.message
    legend = after.figure().legend_html()
    assert "constant: not watched" in legend


def test_a_numpy_round_trip_shows_values_and_points_at_the_tensor():
    x = tf.constant([[0.5, -1.0]])
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        h = tf.tanh(x @ w)
        h_copy = tf.constant(h.numpy())
        loss = tf.reduce_sum(h_copy * 2.0)
    (finding,) = viz.diagnose(tape, loss, w)
    assert f"h_copy = {np.round(h.numpy(), 3).tolist()}"[:14] in finding.message  # its values, not its shape
    assert "(1, 2)" not in finding.message
    assert finding.fix.startswith("use h itself"), finding.fix  # the tensor to use instead of its copy


def test_vanishing_at_80_layers_is_one_finding_the_player_reads_too():
    tape, loss, w = vanishing_80_sigmoids()
    tape.gradient(loss, w)
    diagnosis = viz.diagnose(tape, loss, w)
    assert diagnosis.causes == ["vanishing"] and diagnosis[0].op == "Sigmoid"
    from tapeviz.viz.diagnosis import findings_of
    from tapeviz.viz.trace import trace_of

    played = findings_of(trace_of(tape))
    assert [(f.cause, f.op, f.where, f.step) for f in played] == [(f.cause, f.op, f.where, f.step) for f in diagnosis]


@pytest.mark.parametrize(
    "program", [constant_column_over_std, where_log_trap, dead_relu_layer, exploding_relu_rnn], ids=lambda p: p.__name__
)
def test_the_players_captions_read_the_same_findings(program):
    from tapeviz.viz.diagnosis import findings_of
    from tapeviz.viz.trace import trace_of

    tape, target, source = program()
    tape.gradient(target, source)
    diagnosis = viz.diagnose(tape, target, source)
    played = trace_of(tape)  # what the player draws: the tape's own ops
    captions = findings_of(played)
    assert [(f.cause, f.op, f.where, f.step) for f in captions] == [(f.cause, f.op, f.where, f.step) for f in diagnosis]
    for finding in captions:  # named by the player's own ids: its picture rings the same op
        if finding.node is not None:
            assert played.op(finding.node)["name"] == finding.op


def test_the_causes_are_documented():
    from tapeviz.viz.diagnosis import CAUSES

    for _program, cause, _op, _where in CATALOGUE:
        assert cause in CAUSES
    assert "vanishing" in viz.diagnose.__module__ or CAUSES["vanishing"]


def test_the_pictures_of_a_nan_leak_no_runtime_warning():
    tape, entropy, p = where_log_trap()
    tape.gradient(entropy, p)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert "tapeviz-player" in viz.player(tape).to_html()  # the cards multiply 0 by inf
        viz.diagnose(tape, entropy, p)._repr_mimebundle_(include={"text/plain"})


def test_bad_arguments_get_a_clear_error():
    tape, distance, x = norm_at_zero()
    with pytest.raises(TypeError, match="target must be a tensor"):
        viz.diagnose(tape, [1.0], x)
    with pytest.raises(TypeError, match="GradientTape"):
        viz.diagnose(distance, distance, x)


def test_where_is_a_notebook_cell_in_jupyter(monkeypatch):
    from tapeviz.core import origin

    def in_a_cell():
        x = tf.Variable([0.0])
        with tf.GradientTape() as tape:
            y = tf.sqrt(x)
        return tape, y, x

    cell = "<ipython-input-12-0123abcd>"  # how IPython names a cell's code (older versions)
    code = compile(inspect.getsource(in_a_cell).replace("    def", "def", 1), cell, "exec")
    namespace = {"tf": tf}
    exec(code, namespace)  # noqa: S102 - the test's own code, compiled as a cell
    tape, y, x = namespace["in_a_cell"]()
    (finding,) = viz.diagnose(tape, y, x)
    assert finding.where == "In [12], line 4" and origin.describe(None) == ""
