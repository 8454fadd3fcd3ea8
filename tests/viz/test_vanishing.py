"""A gradient that underflows to 0 says so: the step where it happened, and a vanishing-gradient note at the end."""

import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import export as exporting

viz.stop_watching()  # on only during these tests (as tests/viz/test_player.py)


pytestmark = pytest.mark.usefixtures("session_recorder")


def test_a_200_step_sin_loop_that_underflows_says_so():
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        y = x
        for _ in range(200):
            y = tf.sin(0.5 * y)  # each step multiplies the gradient by 0.5 cos(...): 0.5**200 is below float32's range
    assert float(tape.gradient(y, x).numpy()) == 0.0
    frames = exporting.Animation(tape).frames
    done = frames[-1]["caption"]
    assert "Vanishing gradient" in done and "became 0" in done
    step = int(done.split("at step ")[1].split(" ")[0])
    assert "Underflow" in frames[step]["caption"]
    assert frames[step]["upstream"] != ["0"] and frames[step + 1]["upstream"] == ["0"]  # tiny, then 0
    assert sum("Underflow" in f["caption"] for f in frames) == 1  # said where it happened, not at every 0 after it


def test_a_gradient_that_is_truly_zero_gets_no_note():
    x = tf.Variable(-2.0, name="x")
    with tf.GradientTape() as tape:
        y = tf.nn.relu(x) * 3.0  # relu's local derivative is 0 here: an exact 0, nothing underflowed
    assert float(tape.gradient(y, x).numpy()) == 0.0
    frames = exporting.Animation(tape).frames
    assert not any("Underflow" in f["caption"] or "Vanishing" in f["caption"] for f in frames)


def test_a_small_gradient_that_survives_gets_no_note():
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        y = x
        for _ in range(20):
            y = tf.sin(0.5 * y)  # 0.5**20: small, still a float32
    assert float(tape.gradient(y, x).numpy()) != 0.0
    assert "Vanishing" not in exporting.Animation(tape).frames[-1]["caption"]
