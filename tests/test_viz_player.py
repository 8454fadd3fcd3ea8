"""Player frames as data, HTML export parsed, SVG frames, GIF, trace JSON, memory view."""

import html.parser
import json

import pytest

import tapeviz as tf
import tapeviz.viz as viz

# Importing tapeviz.viz subscribes the session recorder; keep it on only during
# these tests, so other test modules see the core with no listener.
viz.stop_watching()


@pytest.fixture(autouse=True)
def _session_recorder():
    viz.watch_all()
    yield
    viz.stop_watching()
from tapeviz.viz import export, frames, render
from tapeviz.viz.trace import Trace, trace_of

needs_dot = pytest.mark.skipif(render.dot_binary() is None, reason="Graphviz `dot` program not installed")


def square_plus_sin():
    x = tf.Variable(3.0, name="player_x")
    with tf.GradientTape() as tape:
        y = x * x + tf.sin(x)
    tape.gradient(y, x)
    return tape


def test_sweep_frames_as_data():
    tape = square_plus_sin()
    fs, view = frames.sweep_frames(trace_of(tape))
    # seed + 6 backward steps (AddV2, Sin, read, Mul, read, read) + done
    assert [f["kind"] for f in fs] == ["seed"] + ["step"] * 6 + ["done"]
    assert [f["index"] for f in fs] == list(range(8))
    trace = trace_of(tape)
    names = [trace.op(f["op"])["name"] for f in fs if f["kind"] == "step"]
    assert names == ["AddV2", "Sin", "ReadVariableOp", "Mul", "ReadVariableOp", "ReadVariableOp"]
    assert fs[1]["formula"] == "d(x+y)/dx = 1,  d(x+y)/dy = 1" and fs[1]["upstream"] == ["1"]
    variable = next(n for n, node in view.nodes.items() if node.get("role") == "variable")
    assert fs[3]["node"] == variable  # a read is highlighted on its variable
    # gradients accumulate on the variable: cos(3), then + 3, then + 3
    assert [f["badges"].get(variable) for f in fs] == [None, None, None, "-0.99", "-0.99", "2.01", "5.01", "5.01"]
    assert "fan-out" in fs[6]["caption"] and "3 gradients" in fs[6]["caption"]
    # captions name a variable as the picture does, never by an id the picture hides
    assert fs[-1]["caption"] == "Done: gradients player_x:0: 5.01."
    assert "player_x:0" in fs[6]["caption"]


def test_recording_frames_reveal_ops_in_order():
    fs, view = frames.recording_frames(trace_of(square_plus_sin()))
    assert len(fs) == 7  # empty tape + 6 recorded ops
    assert len(fs[0]["hidden"]) > len(fs[3]["hidden"]) > len(fs[-1]["hidden"]) == 0
    assert fs[-1]["caption"].startswith("Recorded AddV2")


def test_no_sweep_is_a_clear_error():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    with pytest.raises(ValueError, match="tape.gradient"):
        frames.sweep_frames(trace_of(tape))


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self._in = [], {}, None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in = dict(attrs).get("id") if tag == "script" else None

    def handle_data(self, data):
        if self._in:
            self.scripts[self._in] = self.scripts.get(self._in, "") + data


@needs_dot
def test_html_export_is_self_contained_and_parses(tmp_path):
    path = tmp_path / "sweep.html"
    export.animate(square_plus_sin()).save_html(str(path))
    page = path.read_text()
    parser = _Page()
    parser.feed(page)
    assert "svg" in parser.tags and "input" in parser.tags and parser.tags.count("button") == 5
    data = json.loads(parser.scripts["tapeviz-frames"])
    assert len(data) == 8 and data[3]["badges"]
    boxes = json.loads(parser.scripts["tapeviz-boxes"])
    assert data[1]["node"] in boxes
    assert "http://" not in page.replace("http://www.w3.org", "")  # no network needed
    assert "src=" not in page


@needs_dot
def test_svg_frames_and_gif(tmp_path):
    animation = export.animate(square_plus_sin())
    svgs = animation.svg_frames()
    assert len(svgs) == 8 and all(s.startswith("<svg") for s in svgs)
    assert "#f59e0b" in svgs[1] and "\u2202 5.01" in svgs[-1]
    gif = animation.save_gif(str(tmp_path / "sweep.gif"))
    from PIL import Image

    with Image.open(gif) as image:
        assert image.n_frames == 8


@needs_dot
def test_player_widget_steps():
    pytest.importorskip("ipywidgets")
    player = viz.player(square_plus_sin())
    box = player.widget
    slider = box.children[0].children[3]
    slider.value = 6
    assert "3 gradients" in box.children[1].value and "5.01" in box.children[2].value


def test_trace_json_round_trip_and_sweep_contents():
    x = tf.constant([1.0, 2.0])
    with viz.trace() as t:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x)
        tape.gradient(y, x)
    again = Trace.from_json(t.to_json())
    assert again.data == json.loads(t.to_json())
    assert t.tensors["t0"]["watched_by"] == ["T0"]
    sweep = t.sweeps[0]
    assert sweep["results"] == ["[2, 4]"] and sweep["targets"] and sweep["steps"]
    assert t.tapes[0]["released"] == "gradient"
    kinds = [e["kind"] for e in t.events]
    assert kinds[:2] == ["enter", "watch"] and "sweep" in kinds and kinds[-1] == "release"


def test_used_non_persistent_tape_still_draws_its_ops():
    tape = square_plus_sin()
    assert tape.recorded_ops == ()  # released by the core
    assert len(trace_of(tape).ops) == 6


def test_memory_view_persistent_keeps_bytes():
    x = tf.Variable(tf.ones((20, 20)))
    tapes = []
    for persistent in (True, False):
        with tf.GradientTape(persistent=persistent) as tape:
            y = tf.reduce_sum(tf.tanh(tf.matmul(x, x)))
        tape.gradient(y, x)
        tapes.append(tape)
    view = viz.memory(*tapes)
    (_, kept), (_, freed) = view.series
    assert kept[-1][1] == view.peak(0) > 0 and freed[-1][1] == 0
    assert view.svg().startswith("<svg") and "non-persistent" in view.svg()


def test_player_and_memory_stay_functions_after_their_modules_load():
    import importlib

    importlib.import_module("tapeviz.viz.widget")
    importlib.import_module("tapeviz.viz.memory_view")
    assert callable(viz.player) and callable(viz.memory)


def test_player_without_dot_still_plays_and_says_how_to_install(monkeypatch):
    pytest.importorskip("ipywidgets", reason="the widget player needs ipywidgets (tapeviz[viz])")
    monkeypatch.setattr(render, "layout_programs", lambda: {})  # neither Graphviz's dot nor graphviz-pure
    player = viz.player(square_plus_sin())
    bundle = player._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "apt-get install graphviz" in bundle["text/html"]
    assert bundle["text/plain"].splitlines()[0].startswith("step 0:")
    assert len(bundle["text/plain"].splitlines()) == len(player)


def test_player_shows_a_kernel_free_copy_next_to_the_widget():
    pytest.importorskip("ipywidgets", reason="the widget player needs ipywidgets (tapeviz[viz])")
    if render.dot_binary() is None:
        pytest.skip("Graphviz's dot program is not installed (apt-get install graphviz)")
    bundle = viz.player(square_plus_sin())._repr_mimebundle_()
    assert bundle["text/html"].startswith("<iframe") and "srcdoc=" in bundle["text/html"]


def test_every_badge_fits_inside_the_frame():
    if render.dot_binary() is None:
        pytest.skip("Graphviz's dot program is not installed (apt-get install graphviz)")
    import re

    w = tf.Variable([[0.123456, -2.5, 3.75], [1.0, 2.0, 3.0]], name="wide_weights")
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(w) * 1234.5678)
    tape.gradient(y, w)
    animation = export.animate(tape)
    translate_x, _ = export._svg_translate(animation.base_svg)
    width, _ = export._size(animation.base_svg)
    for index in range(len(animation.frames)):
        svg = animation.frame_svg(index, caption=False)
        overlay = svg[svg.index('<g class="tapeviz-overlay">'):]
        for x, w_ in re.findall(r'<rect x="(-?[\d.]+)" y="-?[\d.]+" width="([\d.]+)" height="16"', overlay):
            assert translate_x + float(x) + float(w_) <= width, f"frame {index}: a badge runs off the picture"
