"""explain() names each cause of a None/zero gradient; find_nonfinite; gradcheck."""

import re

import numpy as np
import pytest

import tapeviz as tf
import tapeviz.viz as viz

# Importing tapeviz.viz subscribes the session recorder; keep it on only during
# these tests, so other test modules see the core with no listener.
viz.stop_watching()


pytestmark = pytest.mark.usefixtures("session_recorder")


def test_not_watched():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    v = viz.explain(tape, y, x)
    assert v.cause == "not_watched" and "tape.watch" in v.fix


def test_non_trainable_variable():
    x = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = x * x
    assert viz.explain(tape, y, x).cause == "non_trainable"


def test_integer_source():
    x = tf.constant(3)
    with tf.GradientTape() as tape:
        with pytest.warns(UserWarning):
            tape.watch(x)
        y = x * x
    assert viz.explain(tape, y, x).cause == "integer_source"


def test_outside_context():
    x = tf.Variable(3.0)
    y = x * x
    with tf.GradientTape() as tape:
        z = y + 1
    v = viz.explain(tape, z, x)
    assert v.cause == "outside_context" and "before" in v.message and v.broken_at


def test_stop_recording():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = x * x
        z = y + 1
    assert viz.explain(tape, z, x).cause == "stop_recording"


def test_the_picture_marks_the_op_the_student_wrote_and_only_it():
    # The variable's read ran inside stop_recording too, but the read is drawn
    # as the variable: the break is the Mul, and nothing else is painted red.
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = x * x
        z = y + 1
    v = viz.explain(tape, z, x)
    broken = next(op for op in v.trace.data["ops"] if op["id"] == v.broken_at)
    assert broken["name"] == "Mul" and v.message.startswith("Mul \u2192 y ran inside")  # as the picture names it
    assert v.marks() == {v.broken_at: "break"}
    dot = viz.to_dot(v.trace, marks=v.marks())
    assert dot.count('fillcolor="#fecaca"') == 1 and dot.count('penwidth="3"') == 0


def test_without_a_break_the_path_is_marked():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    v = viz.explain(tape, y, x)
    assert v.broken_at is None and set(v.marks().values()) == {"path"} and len(v.marks()) >= 3


def test_numpy_roundtrip():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
        z = tf.constant(y.numpy()) * 3.0
    v = viz.explain(tape, z, x)
    assert v.cause == "numpy_roundtrip" and v.broken_at
    # the constant and the value it copies, by the names the picture writes on them (#N, y)
    constant = re.search(r"uses (#\d+) = 6, a new constant whose values equal y \(", v.message)  # its value shown
    assert constant, v.message
    dot = v.figure().dot
    assert f"{constant.group(1)}  constant" in dot and "<B>y</B>" in dot  # y's own Mul is drawn too


def test_stop_gradient():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(x * 2.0) * 3.0
    v = viz.explain(tape, y, x)
    assert v.cause == "stop_gradient" and v.broken_at.startswith("op")


@pytest.mark.parametrize(
    "make",
    [
        lambda x: tf.cast(tf.argmax(tf.stack([x, x * 2.0])), tf.float32),
        lambda x: tf.round(x),
        lambda x: tf.cast(tf.cast(x, tf.int32), tf.float32),
    ],
    ids=["argmax", "round", "cast_to_int"],
)
def test_non_differentiable(make):
    x = tf.Variable(3.3)
    with tf.GradientTape() as tape:
        y = make(x) * 3.0
    assert tape.gradient(y, x) is None
    assert viz.explain(tape, y, x).cause == "non_differentiable"


def test_variable_replaced_by_tensor():
    x = tf.Variable(3.0)
    x = x + 1
    with tf.GradientTape() as tape:
        y = x * x
    v = viz.explain(tape, y, x)
    assert v.cause == "variable_replaced" and "assign" in v.fix


def test_non_persistent_tape_already_used():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
        z = y * 2.0
    tape.gradient(z, x)
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)  # another question to a tape that already answered one
    v = viz.explain(tape, y, x)
    assert v.cause == "tape_used" and "persistent=True" in v.fix


def test_asking_why_after_the_gradient_is_never_tape_used():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)  # the natural order: the gradient first, then why
    v = viz.explain(tape, y, x)
    assert v.cause == "connected" and "6" in v.message


def test_zero_gradient_points_at_the_rule():
    x = tf.Variable(-3.0)
    with tf.GradientTape() as tape:
        y = tf.maximum(x, 0.0) * 2.0
    assert float(tape.gradient(y, x)) == 0.0
    v = viz.explain(tape, y, x)
    assert v.cause == "zero" and "Maximum" in v.message


def test_connected_and_picture():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    v = viz.explain(tape, y, x)
    assert v.cause == "connected"
    assert 'penwidth="3"' in v.figure().dot  # the path is highlighted


def test_find_nonfinite_where_log_trap():
    x = tf.constant([1.0, 0.0, -1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))
    g = tape.gradient(y, x)
    assert not np.all(np.isfinite(g.numpy()))
    found = viz.find_nonfinite(tape)
    assert found and found.phase == "forward" and "Log" in found.message and "tf.where" in found.message


def test_find_nonfinite_none():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    assert not viz.find_nonfinite(tape)


def test_gradcheck_agrees_for_builtin_ops():
    result = viz.gradcheck(lambda a, b: tf.tanh(a * b) + tf.sin(a), np.array([0.3, -0.7]), np.array([1.1, 0.4]))
    assert result.ok and bool(result)


def test_gradcheck_blames_a_wrong_custom_gradient():
    @tf.custom_gradient
    def bad_square(x):
        def grad(upstream):
            return upstream * x  # wrong: should be 2 * x

        return x * x, grad

    result = viz.gradcheck(lambda a: tf.sin(bad_square(a)), np.array([0.5, 1.5]))
    assert not result.ok
    suspect = result.trace.op(result.suspect)
    assert suspect["name"] == "CustomGradient"
    assert 'penwidth="4"' in result.figure().dot  # highlighted in the picture


def test_gradcheck_of_a_function_that_ignores_an_argument():
    # The ignored argument's gradient is None: compared as zeros, never a crash.
    result = viz.gradcheck(lambda x, unused: tf.sin(x) * 2.0, [0.3, 0.7], [1.0, 2.0])
    assert result.ok, result.message
    np.testing.assert_array_equal(result.analytic[1], [0.0, 0.0])


def test_gradcheck_picture_names_the_checkers_own_tensors():
    """Its arguments by the function's parameter names; the projection and the projected sum by what they are."""

    def f(a, b):
        return tf.sin(a) * b

    result = viz.gradcheck(f, [0.3, 0.7], [1.0, 2.0])
    data, labels = result.trace.data, result.labels
    by_label = {label: data["tensors"][tid] for tid, label in labels.items()}
    assert set(by_label) == {"a", "b", "random weights", "checked sum"}
    assert by_label["random weights"]["kind"] == "leaf" and by_label["checked sum"]["shape"] == []
    dot = result.figure().dot
    assert "random weights" in dot and "checked sum" in dot
    without = viz.gradcheck(f, [0.3, 0.7], [1.0, 2.0])
    without.labels = {}
    assert "random weights" not in without.figure().dot  # the names come from the labels
    # a callable without a signature still checks; its arguments are numbered
    assert viz.gradcheck(tf.sin, [0.3]).labels.get("t0") in ("x", "argument 0")


INTERNAL = re.compile(r"\bop\d+\b|\bt\d+\b|:0\b|\bs\d+\b")  # trace ids and TF's output index: never shown


def test_messages_use_the_pictures_names_never_internal_ids():
    """Each verdict names ops and values as its picture does: ``Mul \u2192 y``, ``#4``, variable ``x``."""
    x = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = x * x
    v = viz.explain(tape, y, x)
    # made without a name: TF calls it "Variable"; the picture and the message use the student's name for it
    assert v.message.startswith("The variable x is non-trainable"), v.message
    assert "<B>x</B>" in v.figure().dot and "<B>Variable</B>" not in v.figure().dot
    x = tf.Variable(3.3, name="x")
    with tf.GradientTape() as tape:
        y = tf.round(x) * 3.0
    v = viz.explain(tape, y, x)
    made = re.match(r"Round \u2192 (#\d+) is not differentiable", v.message)
    assert made and f"<B>{made.group(1)}</B>" in v.figure().dot, v.message
    messages = [v.message]
    x = tf.constant([1.0, 0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.log(x) * 2.0
    tape.gradient(y, x)
    found = viz.find_nonfinite(tape)
    made = re.match(r"Forward: Log \u2192 (#\d+) made", found.message)
    assert made and f"<B>{made.group(1)}</B>" in found.figure().dot, found.message
    messages.append(found.message)

    @tf.custom_gradient
    def bad_square(x):
        return x * x, lambda upstream: upstream * x

    result = viz.gradcheck(lambda a: tf.sin(bad_square(a)), [0.5])
    assert "the suspect is bad_square \u2192 #" in result.message, result.message  # its node shows bad_square
    messages.append(result.message)
    for message in messages:
        assert not INTERNAL.search(message), message


def test_the_picture_draws_each_variable_on_the_path_by_its_name():
    """A variable whose value enters the drawn path is drawn as itself (``b``), not as an unnamed ``#4`` read."""
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable([0.5], name="b")
    x = tf.constant([[1.0, 1.0]])
    with tf.GradientTape() as tape:
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_sum(tf.constant(logits.numpy()) ** 2)
    verdict = viz.explain(tape, loss, w)
    assert verdict.cause == "numpy_roundtrip"
    drawn = verdict.figure().dot
    assert "<B>w</B>" in drawn and "<B>b</B>" in drawn, drawn
    unnamed = set(re.findall(r"<B>(#\d+)</B>", drawn))
    assert len(unnamed) == 2, unnamed  # only x @ w and the square go unnamed; no read of w or b
