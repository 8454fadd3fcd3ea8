"""The forward-mode (tangent) player: tangents per op, its card, the exports, predict mode.

Its numbers are checked three ways: every tangent against
ForwardAccumulator's jvp of the same tensor, the final tangent against the
reverse-mode gradient dotted with the tangent (and against float64 finite
differences), and a small model against TF's ForwardAccumulator (numbers
from tests/tf_reference/tangent_player_reference.py).
"""

import html.parser
import json

import numpy as np
import pytest

import tapeviz as tf
import tapeviz.viz as viz
from tapeviz.core.local_derivatives import local_derivatives
from tests.rule_cases import collect, rand
from tests.rule_cases import complex as complex_cases

viz.stop_watching()  # on only during these tests (see tests/viz/test_player.py)


pytestmark = pytest.mark.usefixtures("session_recorder")


from tapeviz.viz import card as cards  # noqa: E402
from tapeviz.viz import export, legend, render, widget  # noqa: E402
from tapeviz.viz.format import preview  # noqa: E402

needs_dot = pytest.mark.skipif(render.dot_binary() is None, reason="Graphviz `dot` program not installed")
CASES = collect()
COMPLEX_CASES = set(complex_cases.CASES)  # the rules of the complex primitives


def steps(animation):
    return [f for f in animation.frames if f["kind"] == "step"]


def test_square_card_shows_local_derivative_times_tangent():
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x**2  # noqa: F841  (the player names it by looking it up)
    animation = export.Animation(acc)
    seed, (step,), done = animation.frames[0], steps(animation), animation.frames[-1]
    assert seed["kind"] == "seed" and seed["card"]["rows"] == [{"input": "x", "tangent": "1"}]
    assert list(seed["set"].values()) == ["dx/dt = 1"]
    (row,) = step["card"]["rows"]  # the exponent 2 is a constant: no tangent, no row
    assert (row["input"], row["tangent"], row["local"], row["local_value"]) == ("x", "1", "2*x", "6")
    assert row["product"] == "6 \u00d7 1 = 6"
    assert step["card"]["values"] == ["9"] and step["card"]["totals"] == ["6"]
    assert "dy/dt = 6" in step["caption"] and list(step["set"].values()) == ["dy/dt = 6"]
    assert widget.answer_of(step) == 6.0 and widget.answer_of(seed) is None
    assert done["caption"].startswith("Done: dy/dt = 6, what acc.jvp(y) returns")


def test_fan_in_sums_the_products_of_each_input():
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x * x  # noqa: F841  (the player names it by looking it up)
    (step,) = steps(export.Animation(acc))
    assert [r["product"] for r in step["card"]["rows"]] == ["3 \u00d7 1 = 3", "3 \u00d7 1 = 3"]
    assert step["card"]["sum"] == "3 + 3 = 6"
    lines = "\n".join(cards.text(step["card"]))
    assert "local x = 3" in lines and "dy/dt = 3 + 3 = 6" in lines


def test_every_tangent_is_the_accumulators_jvp():
    x = tf.constant([[0.5, -1.2, 2.0]], dtype=tf.float64)
    w = tf.Variable([[1.0, -0.5], [0.3, 0.8], [-1.1, 0.4]], dtype=tf.float64, name="w")
    b = tf.constant([0.1, -0.2], dtype=tf.float64)
    vx = tf.constant([[1.0, 0.5, -1.0]], dtype=tf.float64)
    vw = tf.constant([[0.1, 0.0], [0.0, 0.2], [-0.3, 0.1]], dtype=tf.float64)
    with tf.autodiff.ForwardAccumulator(primals=[x, w], tangents=[vx, vw]) as acc:
        z = tf.matmul(x, w) + b
        h = tf.tanh(z)
        loss = tf.reduce_sum(h * h)
    animation = export.Animation(acc)
    live = animation.trace.objects["tensors"]
    computed = [tid for tid in animation.tangents if live[tid] is not x and live[tid] is not w]
    assert len(computed) >= 5  # the read of w, MatMul, AddV2, Tanh, Mul, Sum
    for tid in computed:
        np.testing.assert_allclose(animation.tangents[tid].numpy(), acc.jvp(live[tid]).numpy(), rtol=1e-12)
    # TF 2.21's ForwardAccumulator on the same model (tests/tf_reference/tangent_player_reference.py)
    by_object = {id(live[tid]): animation.tangents[tid].numpy() for tid in computed}
    np.testing.assert_allclose(by_object[id(z)], [[1.7000000000000002, -0.54]], rtol=1e-12)
    np.testing.assert_allclose(by_object[id(h)], [[0.1297207729179352, -0.3801198781583281]], rtol=1e-12)
    np.testing.assert_allclose(by_object[id(loss)], 0.16432042163133392, rtol=1e-12)
    matmul = next(f for f in steps(animation) if f["card"]["op"] == "MatMul")
    assert not matmul["card"]["elementwise"] and "computed from the op's rule" in matmul["caption"]
    assert "VJP" not in matmul["caption"]  # words a student knows, not the implementation's trick
    assert matmul["card"]["rows"][0]["local"]  # the rule's description, in place of a local value


def test_final_tangent_is_the_reverse_gradient_dotted_with_the_tangent():
    x = tf.Variable([0.3, -0.7, 1.1], dtype=tf.float64, name="x")
    s = tf.constant(2.5, dtype=tf.float64)
    vx, vs = np.array([1.0, -2.0, 0.5]), 0.25
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(s)
        f = tf.reduce_sum(tf.exp(x * s) / (1.0 + x * x)) + tf.reduce_max(x) * s
    gx, gs = tape.gradient(f, [x, s])
    animation = export.Animation(tape, mode="forward", primals=[x, s], tangents=[vx, vs])
    final = animation.tangents[next(t for t, o in animation.trace.objects["tensors"].items() if o is f)]
    expected = float(np.sum(gx.numpy() * vx) + gs.numpy() * vs)
    np.testing.assert_allclose(final.numpy(), expected, rtol=1e-12)

    def fn(xs, ss):
        return np.sum(np.exp(xs * ss) / (1.0 + xs * xs)) + np.max(xs) * ss

    eps = 1e-6
    x0, s0 = x.numpy(), float(s.numpy())
    numeric = (fn(x0 + eps * vx, s0 + eps * vs) - fn(x0 - eps * vx, s0 - eps * vs)) / (2 * eps)
    np.testing.assert_allclose(final.numpy(), numeric, rtol=1e-7)
    assert animation.frames[-1]["caption"].startswith(f"Done: df/dt = {preview(final.numpy())}")


def test_a_tape_plays_forward_along_the_tangent_given():
    x = tf.Variable(2.0, name="x")
    y = tf.Variable(5.0, name="y")
    with tf.GradientTape() as tape:
        f = x * y + tf.sin(x)
    df_dx, _df_dy = tape.gradient(f, [x, y])  # a used, non-persistent tape: small values are still kept
    along_x = viz.player(tape, tangents=[1.0, 0.0])  # primals: what the tape watched, in order
    assert (
        along_x.frames[0]["caption"].startswith("Forward mode starts") and "dy/dt = 0" in along_x.frames[0]["caption"]
    )
    assert along_x.animation.tangents and along_x.frames[-1]["kind"] == "done"
    assert along_x.frames[-1]["caption"].startswith(f"Done: df/dt = {preview(df_dx.numpy())}")
    with pytest.raises(ValueError, match="primals="):
        viz.player(tape, tangents=1.0)  # two watched variables, one tangent
    with pytest.raises(ValueError, match="shape"):
        viz.player(tape, tangents=[[1.0, 2.0]], primals=[x])


def test_only_the_accumulators_ops_are_played_under_an_outer_tape():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    v = tf.constant([1.0, -1.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = tf.reduce_sum(x**3) + x[0] * x[1]
        jvp = acc.jvp(y)
    outer.gradient(jvp, x)
    animation = export.Animation(acc)
    names = [f["card"]["op"] for f in steps(animation)]
    assert names == ["Pow", "Sum", "StridedSlice", "StridedSlice", "Mul", "AddV2"]
    assert all(node["op"]["depth"] == 0 for node in animation.view.nodes.values() if node["kind"] == "op")
    assert animation.frames[-1]["caption"].startswith(f"Done: dy/dt = {preview(jvp.numpy())}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_rule_plays_forward_and_local_times_tangent_is_its_jvp(name):
    case = CASES[name]
    tensors = [case.make_input(np.array(a, dtype=np.float64)) for a in case.inputs]
    primals = [t for t in tensors if t.dtype.is_floating]
    tangents = [tf.constant(rand(*t.shape, seed=7)) for t in primals]
    with tf.autodiff.ForwardAccumulator(primals, tangents) as acc:
        case.fn(*tensors)
    if name in COMPLEX_CASES:  # the player stops at a complex tensor, saying so, rather than show None
        with pytest.raises(NotImplementedError, match="complex tensors"):
            export.Animation(acc)
        return
    animation = export.Animation(acc)
    live, entries = animation.trace.objects["tensors"], animation.trace.objects["entries"]
    played = [op for op in animation.trace.data["ops"] if op["name"] == name]
    assert played, f"the case for {name} never runs it"
    for tid, tangent in animation.tangents.items():
        if all(live[tid] is not p for p in primals):
            np.testing.assert_allclose(tangent.numpy(), acc.jvp(live[tid]).numpy(), rtol=1e-9, atol=1e-12)
    for op in played:
        entry = entries[op["id"]]
        described = local_derivatives(entry)
        incoming = [animation.tangents.get(t) for t in op["inputs"]]
        if not all(item and item[1] is not None for item, t in zip(described, incoming) if t is not None):
            continue  # not elementwise: the card shows the rule and the library's JVP
        summed = sum(item[1] * t.numpy() for item, t in zip(described, incoming) if t is not None)
        np.testing.assert_allclose(
            summed,
            animation.tangents[op["outputs"][0]].numpy(),
            rtol=1e-7,
            atol=1e-9,
            err_msg=f"{name}: the sum of local x tangent is not the op's JVP",
        )
    assert all(f["caption"] for f in animation.frames) and animation.frames[-1]["kind"] == "done"


def test_clear_errors_without_a_direction_or_ops():
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        y = x * 2.0  # noqa: F841
    with pytest.raises(ValueError, match="tangents="):
        export.Animation(tape, mode="forward")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        unrelated = tf.constant(2.0) * 3.0  # noqa: F841
    with pytest.raises(ValueError, match="no ops"):
        viz.player(acc)


def test_a_trace_from_json_is_a_clear_error():
    x = tf.Variable(1.0)
    with viz.trace() as t:
        with tf.GradientTape():
            y = x * 2.0  # noqa: F841
    loaded = viz.Trace.from_json(t.to_json())
    with pytest.raises(ValueError, match="recorded values"):
        export.Animation(loaded, mode="forward", primals=["t0"], tangents=[1.0])


def test_forward_frames_draw_tangents_with_the_arrows():
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x * x + tf.sin(x)  # noqa: F841
    animation = export.Animation(acc)
    out_edges = {f"e{i}": (src, dst) for i, (src, dst, kind, _d) in enumerate(animation.view.edges)}
    for frame in steps(animation):
        node = frame["node"]
        # the tangents run INTO the op and OUT of it to its result, on the same step as the caption
        assert any(out_edges[e][1] == node for e in frame["flow"])
        assert any(out_edges[e][0] == node for e in frame["flow"])
        assert set(frame["edges"]) <= set(frame["flow"])
        assert all(out_edges[e][1] == node for e in frame["edges"])  # labels: the tangents arriving
        assert all(label.split(" = ")[0].endswith("/dt") for label in frame["set"].values())
    texts = [t for _kind, _c, t in legend.entries(animation.view, animation.frames, forward=True)]
    assert any("flowing forward" in t for t in texts) and not any("flowing back" in t for t in texts)


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self._in = {}, None

    def handle_starttag(self, tag, attrs):
        self._in = dict(attrs).get("id") if tag == "script" else None

    def handle_data(self, data):
        if self._in:
            self.scripts[self._in] = self.scripts.get(self._in, "") + data


@needs_dot
def test_exports_draw_blue_tangents_forward(tmp_path):
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x**2  # noqa: F841
    player = viz.player(acc)
    page = player.to_html()
    parser = _Page()
    parser.feed(page)
    style = json.loads(parser.scripts["tapeviz-style"])
    assert style["forward"] and style["flow"] == export.FORWARD_STYLE["flow"]
    data = json.loads(parser.scripts["tapeviz-frames"])
    assert data[1]["card"]["fwd"] == 1 and data[1]["card"]["ans"] == "6"
    assert data[1]["card"]["rows"][0][2:] == ["2*x = 6", "6 \u00d7 1 = 6"]
    assert "http://" not in page.replace("http://www.w3.org", "") and "src=" not in page
    svg = player.animation.frame_svg(1)
    assert 'marker-end="url(#tv-ahead)"' in svg and export.FORWARD_STYLE["flow"] in svg
    assert "6 \u00d7 1 = 6" in svg and "dy/dt = 6" in svg
    gif = player.save_gif(str(tmp_path / "tangents.gif"))
    from PIL import Image

    with Image.open(gif) as image:
        assert image.n_frames == len(player.frames)


@needs_dot
def test_predict_mode_asks_for_the_tangent():
    pytest.importorskip("ipywidgets")
    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x**2  # noqa: F841
    player = viz.player(acc, predict=True)
    parts = (player.widget, player._parts)[1]
    parts["forward"].click()
    assert parts["slider"].value == 1
    assert "6 \u00d7 1 = 6" not in parts["card"].value and "? (1)" in parts["card"].value
    assert "your turn" in parts["caption"].value and "dy/dt = 6" not in parts["picture"].value
    assert "1. dy/dt: the output&#x27;s tangent =" == parts["asking"].children[0].children[0].value
    parts["guess"].value = "6"
    parts["check"].click()
    assert "right first time" in parts["verdict"].value and "dy/dt = 6" in parts["card"].value
    assert "dy/dt = 6" in parts["picture"].value


def test_a_forward_card_writes_the_rule_with_the_students_names():
    w = tf.constant(3.0)
    with tf.autodiff.ForwardAccumulator(primals=[w], tangents=[tf.constant(1.0)]) as acc:
        y = w * w
    animation = export.Animation(acc)
    mul = next(f for f in steps(animation) if f["card"]["op"] == "Mul")
    assert mul["card"]["formula"] == "d(w*w)/dw = w", mul["card"]["formula"]
