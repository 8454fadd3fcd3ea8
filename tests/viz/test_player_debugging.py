"""The player as a debugger: its jump buttons (first NaN, first underflow, largest gradient), no NumPy warning
reaching the notebook over NaN gradients, and edges drawn along their curves."""

import html.parser
import warnings

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import frames as framing
from tapeviz.viz import svg_frames
from tapeviz.viz.trace import trace_of

viz.stop_watching()  # on only during these tests (as tests/viz/test_player.py)


pytestmark = pytest.mark.usefixtures("session_recorder")


def where_log():
    """tf.where(x > 0, log(x), 0) at x = 0: the value is fine, the gradient is NaN (0 x inf)."""
    x = tf.constant([0.0, 2.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))
    tape.gradient(y, x)
    return tape


def sin_loop(turns=200):
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        y = x
        for _ in range(turns):
            y = tf.sin(0.5 * y)
    tape.gradient(y, x)
    return tape


def sent_gradients(tape):
    """Per backward step of the tape's last sweep: the gradients it sent, as NumPy arrays (what the sweep ran)."""
    trace = trace_of(tape)
    index = len(trace.data["sweeps"]) - 1
    steps = trace.objects["sweeps"][f"s{index}"][1]
    ops = trace.data["sweeps"][index]["steps"]
    return [
        (step["op"], [np.asarray(g.numpy(), dtype=np.float64) for g in event.grads if g is not None])
        for step, event in zip(ops, steps)
    ]


def test_first_nan_is_the_first_step_that_sends_a_nan():
    tape = where_log()
    player = tf.viz.player(tape)
    targets = framing.jump_targets(player.frames)
    by_op = dict(sent_gradients(tape))
    steps = [f for f in player.frames if f["kind"] == "step"]
    has_nan = [any(np.isnan(g).any() for g in by_op[f["op"]]) for f in steps]
    assert True in has_nan
    first = steps[has_nan.index(True)]
    assert targets["nan"] == first["index"] and first["card"]["op"] == "Log"
    assert targets["nan_label"] == "first NaN" and targets["underflow"] is None


def test_largest_gradient_is_the_step_sending_the_largest_norm():
    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.standard_normal((3, 4)), name="w1")
    w2 = tf.Variable(rng.standard_normal((4, 2)) * 10, name="w2")
    x = tf.constant(rng.standard_normal((5, 3)))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.tanh(tf.matmul(tf.tanh(tf.matmul(x, w1)), w2)) ** 2)
    tape.gradient(loss, [w1, w2])
    player = tf.viz.player(tape)
    by_op = dict(sent_gradients(tape))
    steps = [f for f in player.frames if f["kind"] == "step"]
    sizes = [max(np.linalg.norm(g) for g in by_op[f["op"]]) for f in steps]
    assert framing.jump_targets(player.frames)["largest"] == steps[int(np.argmax(sizes))]["index"]


def test_first_inf_when_there_is_no_nan():
    x = tf.Variable([0.0, 1.0], name="x")
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sqrt(x))  # d sqrt(x)/dx = 1 / (2 sqrt(0)) = inf, and nothing makes it a NaN
    tape.gradient(y, x)
    targets = framing.jump_targets(tf.viz.player(tape).frames)
    frame = tf.viz.player(tape).frames[targets["nan"]]
    assert targets["nan_label"] == "first inf" and frame["card"]["op"] == "Sqrt"


def test_first_underflow_and_the_zeros_after_it_are_explained():
    player = tf.viz.player(sin_loop())
    targets = framing.jump_targets(player.frames)
    at = targets["underflow"]
    assert "Underflow" in player.frames[at]["caption"]
    assert not any("Underflow" in f["caption"] for f in player.frames[:at])
    later = [f for f in player.frames[at + 1 :] if f["kind"] == "step"]
    assert later and all(f"underflowed at step {at}" in f["caption"] for f in later)
    assert f"at step {at}" in player.frames[-1]["caption"]  # the vanishing note says the same step


class Buttons(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.buttons, self.divs = {}, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "div":
            self.divs += classes
        if tag == "button" and "tv-jump" in classes:
            self.buttons[classes[1]] = attrs


def test_the_kernel_free_page_carries_the_buttons_and_their_steps():
    player = tf.viz.player(where_log())
    targets = framing.jump_targets(player.frames)
    page = Buttons()
    page.feed(player.to_html())
    assert "tv-jumps" in page.divs
    assert page.buttons["tv-jump-nan"]["data-step"] == str(targets["nan"])
    assert page.buttons["tv-jump-largest"]["data-step"] == str(targets["largest"])
    assert "disabled" in page.buttons["tv-jump-underflow"] and "data-step" not in page.buttons["tv-jump-underflow"]
    script = player.to_html().split("<script>")[-1]
    assert ".tv-jump[data-step]" in script  # the page's script wires them


def test_a_recording_player_has_no_jump_buttons():
    player = tf.viz.player(where_log(), recording=True)
    page = Buttons()
    page.feed(player.to_html())
    assert "tv-jumps" not in page.divs and not page.buttons


def test_the_widgets_buttons_go_to_their_steps():
    pytest.importorskip("ipywidgets")
    player = tf.viz.player(where_log())
    player.widget  # noqa: B018 - builds it
    targets = framing.jump_targets(player.frames)
    buttons = player._parts["jumps"]
    assert buttons["underflow"].disabled and not buttons["nan"].disabled
    buttons["nan"].click()
    assert player._parts["slider"].value == targets["nan"]
    buttons["largest"].click()
    assert player._parts["slider"].value == targets["largest"]


def nan_cases():
    def log_zero():
        p = tf.Variable([0.0, 0.5, 1.0], name="p")
        with tf.GradientTape() as tape:
            y = -tf.reduce_sum(p * tf.math.log(p))  # 0 * -inf = nan in the forward pass
        tape.gradient(y, p)
        return tape

    def exp_overflow():
        x = tf.Variable([100.0, 1000.0], name="x")
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.exp(x) - tf.exp(x))  # inf - inf
        tape.gradient(y, x)
        return tape

    def norm_at_zero():
        x = tf.Variable([0.0, 0.0], name="x")
        with tf.GradientTape() as tape:
            y = tf.norm(x)
        tape.gradient(y, x)
        return tape

    def nonfinite_input():
        x = tf.Variable([np.inf, -np.inf, np.nan, 1.0], name="x")
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(x * x + x)
        tape.gradient(y, x)
        return tape

    return [where_log, log_zero, exp_overflow, norm_at_zero, nonfinite_input]


@pytest.mark.parametrize("case", nan_cases(), ids=lambda f: f.__name__)
def test_no_numpy_warning_reaches_the_notebook(case):
    tape = case()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        player = tf.viz.player(tape)
        player._repr_mimebundle_()  # what Jupyter shows: the widget, the kernel-free copy, the text
        for index in range(len(player.frames)):
            player.card_html(index)
            player.frame_svg(index)
        repr(tf.viz.gradient_norms(tape))
        tf.viz.gradient_norms(tape)._repr_html_()
        tf.show(tape)._repr_mimebundle_()


def test_edges_are_followed_along_their_curve():
    # one Bézier segment from (0, 0) to (30, 0), bulging to y = 7.5 at its middle: its control points are at y = 10
    svg = '<g id="e0" class="edge"><path d="M0,0C0,10 30,10 30,0"/></g>'
    points = svg_frames.edge_paths(svg)["e0"]
    assert len(points) == 1 + svg_frames.CURVE_SAMPLES
    assert points[0] == (0.0, 0.0) and points[-1] == (30.0, 0.0)
    assert (15.0, 7.5) in points and max(y for _x, y in points) == 7.5  # on the curve, never at the control points


def test_edge_samples_find_what_testing_every_edge_finds():
    rng = np.random.default_rng(3)
    paths = [[tuple(p) for p in rng.uniform(0, 200, (4, 2))] for _ in range(30)]
    edges = svg_frames.EdgeSamples(paths)
    for x, y, w, h in rng.uniform([0, 0, 5, 5], [200, 200, 60, 20], (300, 4)):
        rect = (x, y, x + w, y + h)
        brute = any(svg_frames._crosses(np.asarray(p), np.array([rect]), 1.0) for p in paths)
        assert edges.hit(rect, 1.0) == brute


def test_the_where_players_labels_stay_inside_the_picture():
    animation = tf.viz.player(where_log()).animation
    width, height = svg_frames.size(animation.base_svg)
    dx, dy = svg_frames.svg_translate(animation.base_svg)
    labels = svg_frames.edge_label_widths(animation.frames)
    for eid, spot in animation.spots.items():
        if eid in labels and spot is not None:
            assert spot[0] >= -dx and spot[1] >= -dy and spot[1] + svg_frames.EDGE_LABEL_H <= height - dy, eid


def test_a_zero_gradient_made_by_underflow_says_so_on_the_picture():
    x = tf.Variable(1.0, name="x")
    with tf.GradientTape() as tape:
        y = x
        for _ in range(50):
            y = tf.sin(0.1 * y)  # 0.1**50 is far below float32's smallest number
    assert float(tape.gradient(y, x).numpy()) == 0.0
    dot = tf.show(tape, fold=False).dot
    variable = next(line for line in dot.splitlines() if line.strip().startswith("t0 ["))
    assert "\u2202 0" in variable and "0 by underflow" in variable


def test_a_zero_from_a_zero_derivative_is_not_called_an_underflow():
    x = tf.Variable([-1.0, -2.0], name="x")
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.relu(x) * 1e-3)  # relu'(x) = 0 here: an exact 0
    assert float(tf.reduce_sum(tf.abs(tape.gradient(y, x)))) == 0.0
    assert "underflow" not in tf.show(tape).dot
    assert framing.jump_targets(tf.viz.player(tape).frames)["underflow"] is None
