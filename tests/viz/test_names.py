"""Names a student recognises: their own Python names, never a loop's leftover or a library's.

Pictures and players label tensors with the names the student gave them, a
Variable without its ``:0``, a sweep's seed as the seed (``dy/dy``), every
other tensor as ``#4`` (no Python name or tape can look like that), second
order as ``d(dy)/dx``, and the card's rule on the op's own inputs
(``d(b*x)/db = x``; ``d(x**2)/dx``, never the student's ``y`` as an exponent).
"""

import re

import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import dot, names
from tapeviz.viz import export as exporting

viz.stop_watching()  # on only during these tests (as tests/viz/test_player.py)


pytestmark = pytest.mark.usefixtures("session_recorder")


TRACE_ID = re.compile(r"(?<![\w#])t\d+\b")  # a raw trace id (t4) in text shown to a student


def _shown_text(animation):
    texts = []
    for frame in animation.frames:
        texts.append(frame["caption"])
        texts += list(frame.get("set", {}).values())
        card = frame.get("card")
        if card:
            texts.append(card.get("formula") or "")
            texts += [row["input"] for row in card["rows"]]
    return texts


def test_a_for_loops_leftover_names_nothing():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones", name="layer")], name="model")
    inputs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(inputs) - 1.0) ** 2)
    gradients = tape.gradient(loss, model.trainable_variables)
    for variable, gradient in zip(model.trainable_variables, gradients):  # leaves the bias and its gradient bound
        assert variable is not None and gradient is not None
    shown = " | ".join(_shown_text(exporting.Animation(tape)))
    assert "variable" not in shown and "returned as gradient" not in shown
    assert "d(loss)/d(model/layer/bias)" in shown  # the bias by its own (Keras) name instead


def test_a_name_bound_again_after_the_loop_is_the_students():
    cells = ["for x in range(3):\n    pass\n", "x = 1\n", "for y in range(2):\n    y = y + 1\n"]
    assert names.loop_leftovers(cells) == set()  # x assigned after the loop, y assigned inside it
    assert names.loop_leftovers(cells + ["for x, (z, w) in []:\n    pass\n"]) == {"x", "z", "w"}
    assert names.loop_leftovers(["[q for q in range(3)]", "with open(f) as h:\n    pass"]) == set()


def test_variables_drop_their_output_index():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    text = dot.to_dot(tape)
    assert "<B>x</B>" in text and "x:0</B>" not in text
    assert 'tooltip="x: float32 () = 3"' in text  # hovering it says x too
    table = viz.text.table(viz.trace_of(tape))  # the picture's stand-in without Graphviz
    assert "x:0" not in table and re.search(r"ReadVariableOp +x ", table), table

    @tf.function
    def times_x(a):
        return a * x

    times_x(tf.constant(2.0))
    graph = viz.show(times_x).dot  # a tf.function's graph draws its captured variable as the tape does
    assert "<B>x</B>" in graph and "x:0" not in graph


def test_the_seed_is_drawn_as_the_seed_and_second_order_reads_d_dy_dx():
    # the inner tape stays alive (as in a notebook), so the outer trace holds its sweep and seed
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x
        dy = inner.gradient(y, x)
    outer.gradient(dy, x)
    animation = exporting.Animation(outer)
    assert "seed dy/dy" in animation.dot and "constant" not in animation.dot
    shown = _shown_text(animation)
    assert animation.frames[-1]["caption"].startswith("Done: d(dy)/dx = 2")
    assert any("dy/dy = 1" in row for f in animation.frames if f.get("card") for row in _locals(f["card"]))
    assert not any("ddy" in text for text in shown)


def _locals(card):
    return [f"{row['local']} = {row['local_value']}" for row in card["rows"]]


def _labels(dot_text):
    """The text a picture prints (labels), not the ids and tooltips it keeps for the player."""
    return re.findall(r"label=(<.*?>|\"[^\"]*\")[ \]]", dot_text)


def test_unnamed_tensors_cannot_be_read_as_tapes_or_python_names():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x
        dy = inner.gradient(y, x)
    outer.gradient(dy, x)
    animation = exporting.Animation(outer)
    assert _labels(animation.dot)
    for text in _shown_text(animation) + _labels(animation.dot):
        assert not TRACE_ID.search(text), text
    assert "#5" in animation.dot  # an intermediate of the backward pass, numbered


def test_card_header_uses_the_ops_own_inputs():
    x = tf.Variable(3.0, name="x")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        z = b * x
    tape.gradient(z, b)
    step = next(f for f in exporting.Animation(tape).frames if f["kind"] == "step")
    assert step["card"]["formula"] == "d(b*x)/db = x"  # only b gets a gradient: no d/dx piece


def test_pow_card_never_takes_the_students_y_for_the_exponent():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    assert float(y.numpy()) == 9.0  # the student's y: not an exponent
    step = next(f for f in viz.player(tape).frames if f["kind"] == "step")
    assert step["card"]["formula"].startswith("d(x**2)/dx = 2*x**(2-1)")
    assert "y" not in step["card"]["formula"]


def test_names_false_keeps_the_trace_ids():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    assert "<B>t3</B>" in viz.show(tape, names=False).dot
    assert "<B>y</B>" in viz.show(tape).dot and "<B>t3</B>" not in viz.show(tape).dot


def test_a_variable_is_called_the_same_in_the_picture_and_the_captions():
    """A named variable goes by its own (TF's) name in the picture, the captions, the badges and the cards, even
    when the student's Python name differs; one made without a name (TF's "Variable") by the student's name."""
    weight = tf.Variable(2.0, name="w")
    b = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = weight * 3.0 + b  # noqa: F841 - named, so the picture calls it y
    tape.gradient(y, [weight, b])
    for mode in ("sweep", "record"):
        animation = exporting.Animation(tape, mode=mode)
        drawn = " ".join(_labels(animation.dot))
        assert "<B>w</B>" in drawn and "<B>b</B>" in drawn and "Variable" not in drawn, drawn
        shown = " | ".join(_shown_text(animation))
        assert "weight" not in shown and "Variable" not in shown, shown
        if mode == "sweep":
            assert "Done: dy/dw = 3, dy/db = 1." in shown and "d/dw: 3" in shown, shown
        else:
            assert "Recorded the read of w" in shown and "Recorded the read of b" in shown, shown
    tooltips = re.findall(r'tooltip="([^"]*)"', viz.show(tape).dot)
    assert "w: float32 () = 2" in tooltips and "b: float32 () = 1" in tooltips, tooltips
