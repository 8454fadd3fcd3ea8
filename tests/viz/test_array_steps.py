"""Array steps a student can follow, badges never cut, links clear of labels, predict mode's "local" level.

A 200-row batch's card used to multiply summaries ("mean 0.005, min 0.005, max 0.005 x mean 2.821, ...")
and its badges were cut ("mean -0.0141, m..."). Now an array step traces one element through
(upstream[i] x local[i] = product[i], checked here against NumPy on the batch itself), draws the products
as a strip, and every badge and edge label shows its whole value.
"""

import json
import re

import numpy as np
import pytest

import tapeviz as tf
import tapeviz.viz  # noqa: F401  (records the sweeps the players play)
from tapeviz.viz import card as cards
from tapeviz.viz import format as fmt
from tapeviz.viz import heatmaps, predict, render
from tapeviz.viz.svg_frames import link_routes
from tapeviz.viz.widget import Player, hide_cells

tf.viz.stop_watching()  # as every viz test module: the recorder is on only during these tests (conftest)
pytestmark = pytest.mark.usefixtures("session_recorder")

needs_dot = pytest.mark.skipif(render.dot_binary() is None, reason="Graphviz `dot` program not installed")

ROWS = 200


def _batch_step():
    """A linear model's mean squared error on a 200-row batch: (tape, xs, ys, w, b)."""
    rng = np.random.default_rng(3)
    xs = rng.uniform(-1, 1, size=(ROWS, 1))
    ys = 3.0 * xs + 2.0 + 0.1 * rng.normal(size=(ROWS, 1))
    w = tf.Variable(np.array([[0.5]]), name="w")
    b = tf.Variable(np.array([0.25]), name="b")
    with tf.GradientTape() as tape:
        error = tf.matmul(tf.constant(xs), w) + b - tf.constant(ys)
        loss = tf.reduce_mean(error**2)
    tape.gradient(loss, [w, b])
    return tape, xs, ys, w, b


def _rows(player):
    return [(f, row) for f in player.frames if f.get("kind") == "step" for row in f["card"]["rows"]]


@needs_dot
def test_an_array_step_traces_one_element_and_never_multiplies_summaries():
    tape, xs, ys, w, b = _batch_step()
    player = Player(tape)
    traced = [(f, row) for f, row in _rows(player) if row.get("element")]
    assert traced, "no card of the 200-row batch traced an element"
    for frame, row in traced:
        before_equals = row["product"].split(" = ")[0]
        assert "mean" not in before_equals and "min" not in before_equals, row["product"]
        assert "mean" not in frame["caption"].split(" = ")[-2].split(":")[-1], frame["caption"]
    # the Pow step: upstream 1/200 everywhere, local 2*error; the traced element is the largest product
    error = xs * 0.5 + 0.25 - ys
    pow_row = next(row for f, row in traced if f["card"]["op"] == "Pow")
    element = pow_row["element"]
    want = (1.0 / ROWS) * 2.0 * error
    index = int(np.argmax(np.abs(want)))
    assert element["flat"] == index and element["at"] == f"[{index}, 0]"
    assert float(element["upstream"]) == pytest.approx(1.0 / ROWS, rel=1e-3)
    assert float(element["local"]) == pytest.approx(2.0 * error.flat[index], rel=1e-3)
    assert float(element["product"]) == pytest.approx(want.flat[index], rel=1e-3)
    assert pow_row["product"].startswith(f"at [{index}, 0]: ")
    assert f"each of the {ROWS} elements" in pow_row["product"]
    # the bias: each row's product, then summed to its shape (the sum is the gradient the tape gave)
    bias_row = next(row for f, row in traced if row["input"] == "b")
    assert bias_row["element"]["summed"]
    assert bias_row["product"].endswith(f"= {fmt.preview(np.sum(2.0 * error / ROWS, axis=0))}")


@needs_dot
def test_the_student_picks_the_element_a_card_traces():
    tape, xs, ys, w, b = _batch_step()
    trace = tf.viz.trace_of(tape)
    frames = Player(tape).frames
    step = next(f for f in frames if f.get("kind") == "step" and f["card"]["op"] == "Pow")
    data = trace.data
    op = next(o for o in data["ops"] if o["id"] == step["op"])
    sweep_steps = data["sweeps"][-1]["steps"]
    position = next(k for k, s in enumerate(sweep_steps) if s["op"] == step["op"])
    event = cards.sweep_events(trace, len(data["sweeps"]) - 1)[1][position]
    card = cards.step_card(op, sweep_steps[position], event, lambda t: t, {}, lambda t: t, pick=7)
    error = xs * 0.5 + 0.25 - ys
    element = card["rows"][0]["element"]
    assert element["at"] == "[7, 0]"
    assert float(element["product"]) == pytest.approx(2.0 * error[7, 0] / ROWS, rel=1e-3)


@needs_dot
def test_the_page_ships_each_traced_element_and_draws_its_strip():
    tape, *_ = _batch_step()
    page = Player(tape).to_html()
    shipped = json.loads(re.search(r'id="tapeviz-frames">(.*?)</script>', page, re.S).group(1))
    elements = [r[6] for f in shipped if f.get("card") for r in f["card"]["rows"] if len(r) > 6 and r[6]]
    assert elements
    for e in elements:
        assert len(e["u"]) == len(e["l"]) == len(e["p"]) == int(np.prod(e["shape"]))
        for u, local, p in zip(e["u"], e["l"], e["p"]):
            assert p == pytest.approx(u * local, rel=2e-3, abs=1e-9)
    # the widget's card: the same strip as SVG, the traced element outlined
    html = cards.html(
        next(f["card"] for f in Player(tape).frames if f.get("kind") == "step" and f["card"]["op"] == "Pow")
    )
    assert html.count('class="tv-strip"') == 1 and 'stroke="#111827"' in html


def test_strip_draws_every_element_on_the_heatmaps_scale_and_marks_one():
    svg = heatmaps.strip([-2.0, 0.0, 1.0, np.nan], mark=2)
    fills = re.findall(r'<rect x="[\d.]+" width="[\d.]+" height="14" fill="(#[0-9a-f]{6})"', svg)
    # scaled by the largest |value| (2): -1 full blue, 0 white, 0.5 half-way to red, nan yellow
    assert fills == ["#2563eb", "#ffffff", "#ee9292", "#fde047"]
    assert svg.count('fill="none" stroke="#111827"') == 1


def test_a_badge_shows_its_whole_value_on_as_many_lines_as_it_needs():
    value = "mean -0.0141, min -0.03797, max 0.01054"
    badge = fmt.badge_text("d(loss)/d(model/hidden/kernel)", value)
    assert "\u2026" not in badge
    assert ", ".join(line.rstrip(",") for line in badge.split("\n")[1:]).replace(",,", ",") == value
    assert all(len(line) <= fmt.BADGE_LINE + 2 for line in badge.split("\n"))
    assert fmt.edge_label(value) == "mean -0.0141"
    assert fmt.edge_label("[[0.1615], [2.452]]") == "[[0.1615], [2.452]]"


@needs_dot
def test_no_badge_or_edge_label_of_a_training_step_is_cut():
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="tanh"), tf.keras.layers.Dense(1)])
    xs = tf.constant(np.linspace(-1, 1, 2 * ROWS).reshape(ROWS, 2))
    adam = tf.keras.optimizers.Adam(0.05)
    with tf.viz.record_update() as update:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(xs) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        adam.apply_gradients(zip(grads, model.trainable_variables))
    player = Player(tape, update=update)
    labels = [t for f in player.frames for t in (*f.get("set", {}).values(), *f.get("edges", {}).values())]
    assert labels and not [t for t in labels if "\u2026" in t]


def test_a_link_bends_around_a_label_in_its_way():
    boxes = {"back": (200.0, 0.0, 240.0, 20.0), "fwd": (0.0, 0.0, 40.0, 20.0)}
    label = (110.0, 4.0, 130.0, 16.0)  # an edge label right on the straight line between them
    straight = link_routes(boxes, [("back", "fwd")])[0][2]
    assert {y for _x, y in straight} == {10.0}  # with nothing in the way: straight
    bent = link_routes(boxes, [("back", "fwd")], [label])[0][2]
    for (x0, y0), (x1, y1) in zip(bent, bent[1:]):
        for t in np.linspace(0, 1, 9):
            x, y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
            assert not (label[0] - 2 < x < label[2] + 2 and label[1] - 2 < y < label[3] + 2), (x, y)


@needs_dot
def test_the_nested_player_routes_its_links_clear_of_every_label_and_lists_them():
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x
        dy_dx = inner.gradient(y, x)
    outer.gradient(dy_dx, x)
    animation = Player(outer, sweep="all", predict=True).animation
    assert animation.routes
    assert "backward op \u2192 the forward op it differentiates" in animation.legend_html()
    written = np.array(animation.label_boxes())
    for _b, _f, points in animation.routes:
        pts = np.array(points)
        inside = (
            (pts[:, None, 0] > written[None, :, 0])
            & (pts[:, None, 0] < written[None, :, 2])
            & (pts[:, None, 1] > written[None, :, 1])
            & (pts[:, None, 1] < written[None, :, 3])
        )
        assert not inside.any(), "a link runs through a badge, an edge label or a tape's label"


def _product_step():
    x = tf.Variable(2.0, name="x")
    y = tf.Variable(5.0, name="y")
    with tf.GradientTape() as tape:
        f = x * y + tf.sin(x)
    tape.gradient(f, [x, y])
    return tape


@needs_dot
def test_predict_local_asks_each_local_derivative_before_its_product():
    tape = _product_step()
    plain, local = Player(tape, predict=True), Player(tape, predict="local")
    step = next(k for k, f in enumerate(local.frames) if f.get("kind") == "step" and f["card"]["op"] == "Mul")
    asked = local.frames[step]["ask"]
    assert [q["cell"] for q in asked][:2] == ["local", "product"]
    assert not [q for q in plain.frames[step]["ask"] if q["cell"] == "local"]
    by_input = {q["label"].split(":")[0]: q for q in asked if q["cell"] == "local"}
    assert by_input["d/dx"]["answer"] == pytest.approx(5.0)  # d(x*y)/dx = y
    assert by_input["d/dy"]["answer"] == pytest.approx(2.0)
    # the card hides the local derivative (and so the product) until it is answered
    hidden = hide_cells(local.frames[step]["card"], predict.Quiz(local.frames).pending(step))
    assert hidden["rows"][0]["local"] == "? (1)" and hidden["rows"][0]["product"].startswith("? (")
    # a typed upstream instead of the local derivative gets the teaching message
    upstream = local.frames[step]["card"]["rows"][0]["numbers"]["upstream"]
    status, message = predict.judge(by_input["d/dx"], str(upstream), 0)
    assert status == "retry" and "upstream" in message
    assert predict.judge(by_input["d/dx"], "5", 0)[0] == "right"
    page = local.to_html()
    assert '"cell":"local"' in page and "checked" in page


def test_an_unknown_predict_level_says_what_to_use():
    with pytest.raises(ValueError, match="predict=True .* predict='local'"):
        predict.level_of("products")


@needs_dot
def test_a_forward_mode_array_step_traces_one_element_on_every_row_and_sums_it():
    """The tangent card of ``sin(x) * x`` on 200 points: each row is local[i] x tangent[i] at one element
    (the same on both rows), and the output's tangent there is their sum, d/dt (sin(x) x) = cos(x) x + sin(x)."""
    x = np.linspace(-1, 1, ROWS)
    primal = tf.constant(x)
    with tf.autodiff.ForwardAccumulator(primals=primal, tangents=tf.constant(np.ones(ROWS))) as acc:
        y = tf.sin(primal) * primal  # noqa: F841
    card = next(f["card"] for f in Player(acc).frames if f.get("card") and f["card"].get("op") == "Mul")
    elements = [row["element"] for row in card["rows"]]
    assert len(elements) == 2 and elements[0]["at"] == elements[1]["at"]
    i = elements[0]["flat"]
    for row in card["rows"]:
        assert "mean" not in row["product"], row["product"]
    want = np.cos(x[i]) * x[i] + np.sin(x[i])
    assert card["sum"].startswith(f"at [{i}]: ")
    assert float(card["sum"].rsplit(" = ", 1)[1]) == pytest.approx(want, rel=1e-3)
