"""The gradient's norm per layer and loop turn (tf.viz.gradient_norms), its verdicts, and the folded loop's label.

Every norm is checked against NumPy on the same gradients: a hand-written backward pass in float64, or
the gradients tape.gradient returns for the layers' outputs.
"""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import magnitude
from tapeviz.viz import view as views
from tapeviz.viz.trace import trace_of

viz.stop_watching()  # on only during these tests (as tests/viz/test_player.py)


pytestmark = pytest.mark.usefixtures("session_recorder")


def sigmoid_mlp(layers=20, width=6, seed=0):
    """``layers`` name-scoped sigmoid layers in float64, loss = sum of the last; (tape, loss, weights, h0)."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal((width, width)) * 0.5 for _ in range(layers)]
    h0 = rng.standard_normal((4, width))
    ws = [tf.Variable(w, name=f"w{i}") for i, w in enumerate(weights)]
    with tf.GradientTape() as tape:
        h = tf.constant(h0)
        for i, w in enumerate(ws):
            with tf.name_scope(f"layer{i}"):
                h = tf.sigmoid(tf.matmul(h, w))
        loss = tf.reduce_sum(h)
    tape.gradient(loss, ws)
    return tape, loss, weights, h0


def numpy_arriving(weights, h0):
    """By hand, in float64: the norm of d loss / d (each layer's output), last layer first."""
    outs, h = [], h0
    for w in weights:
        h = 1 / (1 + np.exp(-(h @ w)))
        outs.append(h)
    g, norms = np.ones_like(outs[-1]), []
    for w, out in zip(reversed(weights), reversed(outs)):
        norms.append(float(np.linalg.norm(g)))
        g = (g * out * (1 - out)) @ w.T
    return norms


def test_layer_norms_match_numpy_in_path_order():
    tape, loss, weights, h0 = sigmoid_mlp()
    norms = tf.viz.gradient_norms(tape, loss)
    layers = [r for r in norms if r.kind == "scope"]
    assert [r.name for r in layers] == [f"layer{i}" for i in reversed(range(20))]  # from the target back
    np.testing.assert_allclose([r.norm for r in layers], numpy_arriving(weights, h0), rtol=1e-10)
    assert all(r.op_name == "Sigmoid" for r in layers)  # a layer's gradient arrives at its output op
    assert [r.step for r in norms] == sorted(r.step for r in norms)
    assert norms.names == [r.name for r in norms] and norms.values == [r.norm for r in norms]


def test_a_layer_norm_is_the_norm_of_the_gradient_tape_gradient_gives_for_its_output():
    rng = np.random.default_rng(1)
    w1, w2 = (tf.Variable(rng.standard_normal((3, 3)), name=f"w{i}") for i in (1, 2))
    x = tf.constant(rng.standard_normal((2, 3)))
    with tf.GradientTape(persistent=True) as tape:
        with tf.name_scope("first"):
            h1 = tf.tanh(tf.matmul(x, w1))
        with tf.name_scope("second"):
            h2 = tf.tanh(tf.matmul(h1, w2))
        loss = tf.reduce_sum(h2 * h2)
    reference = tape.gradient(loss, [h2, h1])
    tape.gradient(loss, [w1, w2])  # the sweep measured: the last one
    rows = {r.name: r.norm for r in tf.viz.gradient_norms(tape, loss)}
    np.testing.assert_allclose(
        [rows["second"], rows["first"]], [np.linalg.norm(g.numpy()) for g in reference], rtol=1e-12
    )


def test_a_vanishing_gradient_is_flagged_beyond_the_factor_only():
    tape, loss, weights, h0 = sigmoid_mlp()
    expected = numpy_arriving(weights, h0)
    (verdict,) = magnitude.verdicts(tf.viz.gradient_norms(tape, loss))
    assert verdict.cause == "vanishing" and not verdict.underflow
    first_below = next(i for i, n in enumerate(expected) if n < expected[0] / magnitude.DEFAULT_FACTOR)
    assert verdict.at.name == f"layer{19 - first_below}" and verdict.start.name == "layer19"
    assert verdict.ratio == pytest.approx(min(expected) / expected[0], rel=1e-9)
    assert "Vanishing gradient" in verdict.message and verdict.at.name in verdict.message
    # the same path with a factor it stays within: nothing to say
    shrink = expected[0] / min(expected)
    assert magnitude.verdicts(tf.viz.gradient_norms(tape, loss), factor=shrink * 2) == []


def relu_rnn(turns=60, scale=1.3, width=4):
    """h <- relu(h @ (scale I) + 1): every unit active, d loss / d h_k = scale**(turns - k) per element."""
    w = tf.Variable(np.eye(width) * scale, name="w")
    with tf.GradientTape() as tape:
        h = tf.zeros((1, width), dtype=tf.float64)
        for _ in range(turns):
            h = tf.nn.relu(tf.matmul(h, w) + 1.0)
        loss = tf.reduce_sum(h)
    tape.gradient(loss, w)
    return tape, loss


def test_loop_turns_match_numpy_and_explode():
    tape, loss = relu_rnn()
    norms = tf.viz.gradient_norms(tape, loss)
    turns = [r for r in norms if r.kind == "turn"]
    assert len(turns) == 60 and turns[0].name.startswith("turn 60 of 60 \u00d7 [MatMul")
    expected = [math.sqrt(4) * 1.3 ** (60 - k) for k in range(60, 0, -1)]  # turn 60 first
    np.testing.assert_allclose([r.norm for r in turns], expected, rtol=1e-10)
    (verdict,) = norms.verdicts()
    assert verdict.cause == "exploding" and verdict.ratio == pytest.approx(1.3**59, rel=1e-9)
    crossing = next(k for k in range(60) if 1.3**k > magnitude.DEFAULT_FACTOR)
    assert verdict.at.name == f"turn {60 - crossing} of 60 \u00d7 [MatMul \u2192 AddV2 \u2192 Relu]"


def test_the_folded_loop_says_how_the_norm_grew():
    tape, _loss = relu_rnn()
    view = views.build(trace_of(tape).data)
    (fold,) = [f for f in view.folds.values() if f["key"].startswith("repeat:")]
    assert fold["title"].startswith("60 \u00d7 [")
    assert fold["growth_ratio"] == pytest.approx(1.3**59, rel=1e-9)  # first turn's norm over the last's
    assert fold["growth"] == "gradient norm \u00d75e6 over the loop"  # 1.3**59 = 5.1e6
    assert "gradient norm \u00d75e6 over the loop" in tf.show(tape).dot


def test_growth_text():
    assert magnitude.growth_text(1.6e27) == "\u00d72e27"
    assert magnitude.growth_text(3.2e-12) == "\u00d73e-12"
    assert magnitude.growth_text(1.5) == "\u00d71.5"
    assert magnitude.growth_text(0.0) == "\u00d70" and magnitude.growth_text(math.inf) == "\u00d7inf"


def sin_loop(turns=200):
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        y = x
        for _ in range(turns):
            y = tf.sin(0.5 * y)  # 0.5**200 is below float32's range: the gradient underflows
    tape.gradient(y, x)
    return tape, y


def test_an_underflow_to_zero_is_vanishing_and_the_fold_says_so():
    tape, y = sin_loop()
    norms = tf.viz.gradient_norms(tape, y)
    (verdict,) = norms.verdicts(factor=1e300)  # no factor is passed: only the underflow flags it
    assert verdict.cause == "vanishing" and verdict.underflow and verdict.ratio == 0.0
    lost = [r for r in norms if r.underflow]
    assert len(lost) == 1 and lost[0].name in verdict.message
    after = norms.rows[norms.rows.index(lost[0]) + 1 :]
    assert after and all(r.norm == 0.0 for r in after)
    (fold,) = views.build(trace_of(tape).data).folds.values()
    assert fold["growth"] == "gradient norm fell to 0 over the loop"


def test_a_dead_relu_zero_is_not_a_vanishing_gradient():
    w0 = tf.Variable(np.eye(3), name="w0")
    w = tf.Variable(-np.ones((3, 3)), name="w")
    x = tf.constant(np.ones((2, 3)))
    with tf.GradientTape() as tape:
        with tf.name_scope("first"):
            h0 = tf.tanh(tf.matmul(x, w0)) + 1.0
        with tf.name_scope("dense"):
            h = tf.nn.relu(tf.matmul(h0, w))  # every pre-activation is negative: the ReLU's derivative is 0
        with tf.name_scope("head"):
            out = tf.matmul(h, tf.ones((3, 1), dtype=tf.float64)) + 1.0
        loss = tf.reduce_sum(out)
    assert float(tf.reduce_sum(tf.abs(tape.gradient(loss, w0)))) == 0.0
    norms = tf.viz.gradient_norms(tape, loss)
    rows = {r.name: r for r in norms if r.kind == "scope"}
    assert list(rows) == ["head", "dense", "first"]
    assert rows["dense"].norm > 0 and rows["first"].norm == 0.0 and not rows["first"].underflow
    assert norms.verdicts() == []  # an exact 0 from a zero derivative: a dead ReLU, not a vanishing gradient


def test_bad_calls_are_clear_errors():
    tape, loss, _w, _h = sigmoid_mlp(layers=2)
    with pytest.raises(ValueError, match="factor must be more than 1"):
        magnitude.verdicts(tf.viz.gradient_norms(tape, loss), factor=1)
    with pytest.raises(ValueError, match="No recorded sweep started at this target"):
        tf.viz.gradient_norms(tape, tf.constant(1.0))
    x = tf.Variable(1.0)
    with tf.GradientTape() as unused:
        _ = x * x
    with pytest.raises(ValueError, match="call tape.gradient"):
        tf.viz.gradient_norms(unused)


def test_the_table_and_the_chart():
    tape, loss = relu_rnn(turns=8, scale=4.0)
    norms = tf.viz.gradient_norms(tape, loss)
    text = repr(norms)
    assert text.splitlines()[0].startswith("gradient norms arriving, from loss back to the sources")
    assert "turn 8 of 8" in text and "Exploding gradient" in text
    svg = norms.plot().svg
    root = ET.fromstring(svg)  # well-formed
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}circle")) == len(norms)  # one point per unit
    titles = [c.find(f"{ns}title").text for c in root.findall(f"{ns}circle")]
    assert titles[1].startswith(f"{norms[1].name}: ")
    assert svg in norms._repr_html_() and "Exploding gradient" in norms._repr_html_()


def test_a_chart_prints_the_table_it_draws():
    x = tf.Variable([[0.5, -0.3]])
    with tf.GradientTape() as tape:
        h = x
        for i in range(3):
            with tf.name_scope(f"layer{i}"):
                h = tf.sigmoid(h)
        loss = tf.reduce_sum(h)
    tape.gradient(loss, x)
    norms = tf.viz.gradient_norms(tape, loss)
    chart = norms.plot()
    assert repr(chart) == repr(norms) and "0x" not in repr(chart)
    assert chart._repr_svg_().startswith("<svg")
