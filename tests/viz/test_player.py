"""Player frames as data, HTML export parsed, SVG frames, GIF, trace JSON, memory view."""

import html.parser
import json
import re

import pytest

import tapeviz as tf
import tapeviz.viz as viz

# Importing tapeviz.viz subscribes the session recorder; keep it on only during
# these tests, so other test modules see the core with no listener.
viz.stop_watching()


pytestmark = pytest.mark.usefixtures("session_recorder")


from tapeviz.viz import export, frames, render, svg_frames
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
    # seed + 3 backward steps (AddV2, Sin, Mul; the variable's reads fold into it) + done
    assert [f["kind"] for f in fs] == ["seed", "step", "step", "step", "done"]
    assert [f["index"] for f in fs] == list(range(5))
    trace = trace_of(tape)
    names = [trace.op(f["op"])["name"] for f in fs if f["kind"] == "step"]
    assert names == ["AddV2", "Sin", "Mul"]
    assert fs[1]["formula"] == "d(x+y)/dx = 1,  d(x+y)/dy = 1" and fs[1]["upstream"] == ["1"]
    variable = next(n for n, node in view.nodes.items() if node.get("role") == "variable")
    # gradients reach the variable on the step that computes them (no lag behind the caption):
    # cos(3) at Sin, then + 3 + 3 at Mul
    shown = [frames.state_at(fs, i)[0].get(variable) for i in range(len(fs))]
    assert shown == [None, None, "d(#6)/d(player_x) = -0.99", "d(#6)/d(player_x) = 5.01", "d(#6)/d(player_x) = 5.01"]
    assert "-0.99 + 3 = 2.01" in fs[3]["caption"] and "2.01 + 3 = 5.01" in fs[3]["caption"]
    # deltas: a frame carries only what changes on it
    assert fs[2]["set"] == {variable: "d(#6)/d(player_x) = -0.99"} and fs[4]["set"] == {}
    # captions name a variable as the student wrote it, never by an id the picture hides
    assert fs[-1]["caption"] == "Done: d(#6)/d(player_x) = 5.01."


def test_internals_show_the_reads_steps():
    fs, _view = frames.sweep_frames(trace_of(square_plus_sin()), internals=True)
    assert len(fs) == 8 and sum("ReadVariableOp" in f["caption"] for f in fs) == 3
    assert frames.state_at(fs, 7)[0] == frames.state_at(frames.sweep_frames(trace_of(square_plus_sin()))[0], 4)[0]


def test_card_shows_upstream_local_value_and_product():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    fs, _view = frames.sweep_frames(trace_of(tape))
    seed, step = fs[0], fs[1]
    assert seed["caption"].startswith("tape.gradient starts") and "dy/dy = 1" in seed["caption"]
    (row,) = step["card"]["rows"]  # d(x**y)/dy is not shown: the exponent 2 is a constant
    assert step["card"]["upstream"] == "1"
    assert (row["local"], row["local_value"]) == ("2*x", "6")
    assert row["product"] == "1 \u00d7 6 = 6"
    assert "dy/dx = 6" in fs[-1]["caption"]


def test_fan_out_shows_the_running_sum():
    x = tf.Variable(2.0, name="x")
    with tf.GradientTape() as tape:
        y = tf.cos(x) + x * x  # dy/dx = -sin(2) + 2*2 = 3.091
    tape.gradient(y, x)
    fs, _view = frames.sweep_frames(trace_of(tape))
    sums = [row["sum"] for f in fs if f.get("card") for row in f["card"]["rows"] if row.get("sum")]
    assert sums[-1].endswith("= 3.091"), sums
    assert len(sums) == 2  # the second and the third gradient to reach x


def test_player_plays_the_inner_tape_of_nested_tapes():
    # seed 004: y = x * x at 3; the inner sweep gives 6, the outer one 2
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x
        dy_dx = inner.gradient(y, x)
    outer.gradient(dy_dx, x)
    inner_frames = export.Animation(inner).frames
    assert inner_frames[-1]["caption"].startswith("Done: dy/dx = 6")
    assert export.Animation(outer).frames[-1]["caption"].startswith("Done: d(dy_dx)/dx = 2")
    both = export.Animation(outer, sweep="all")
    seeds = [f["caption"].split(" ")[0] for f in both.frames if f["kind"] == "seed"]
    assert seeds == ["inner.gradient", "outer.gradient"]  # first order, then second order


def test_nested_backward_ops_link_to_the_op_they_differentiate():
    x = tf.constant(3.0)
    with viz.trace() as t:
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x
            dy_dx = inner.gradient(y, x)
        outer.gradient(dy_dx, x)
    fs, view = frames.sweep_frames(t, sweep="all")
    links = frames.backward_links(t.data, view)
    assert links, "the backward Muls are linked to the forward Mul"
    for backward, forward in links:
        assert view.nodes[backward]["op"]["depth"] == 1 and view.nodes[forward]["op"]["depth"] == 0


def test_recording_frames_reveal_ops_in_order():
    fs, view = frames.recording_frames(trace_of(square_plus_sin()))
    assert len(fs) == 7  # empty tape + 6 recorded ops
    assert len(fs[0]["hidden"]) > len(fs[3]["hidden"]) > len(fs[-1]["hidden"]) == 0
    assert fs[-1]["caption"].startswith("Recorded AddV2")


def test_player_plays_the_recording_when_asked_and_the_old_name_still_works():
    tape = square_plus_sin()
    played = viz.player(tape, recording=True)
    assert [f["caption"] for f in played.frames] == [f["caption"] for f in viz.recording_player(tape).frames]
    assert played.frames[-1]["caption"].startswith("Recorded AddV2")
    with pytest.raises(ValueError, match="takes no tangents"):
        viz.player(tape, recording=True, tangents=[1.0])


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
    assert (
        "svg" in parser.tags and "input" in parser.tags and parser.tags.count("button") == 8 + 3
    )  # 8 controls and 3 jumps (first NaN...); predict mode's check buttons are made per question by the script
    data = json.loads(parser.scripts["tapeviz-frames"])
    assert len(data) == 5 and data[2]["set"] and data[3]["card"]["rows"]
    boxes = json.loads(parser.scripts["tapeviz-boxes"])
    assert data[1]["node"] in boxes
    assert json.loads(parser.scripts["tapeviz-predict"])["tries"] == 2
    assert "http://" not in page.replace("http://www.w3.org", "")  # no network needed
    assert "src=" not in page


@needs_dot
def test_svg_frames_and_gif(tmp_path):
    animation = export.animate(square_plus_sin())
    svgs = animation.svg_frames()
    assert len(svgs) == 5 and all(s.startswith("<svg") for s in svgs)
    assert "#f59e0b" in svgs[1] and "= 5.01" in svgs[-1]
    assert "1 \u00d7 3 = 3" in svgs[3]  # the card is drawn in the frame
    gif = animation.save_gif(str(tmp_path / "sweep.gif"))
    from PIL import Image

    with Image.open(gif) as image:
        assert image.n_frames == 5


@needs_dot
def test_player_widget_steps():
    pytest.importorskip("ipywidgets")
    player = viz.player(square_plus_sin())
    box = player.widget
    slider = box.children[0].children[3]
    slider.value = 3
    caption, card, picture = (player._parts[name] for name in ("caption", "card", "picture"))
    assert "2.01 + 3 = 5.01" in caption.value and "1 \u00d7 3 = 3" in card.value and "5.01" in picture.value


@needs_dot
def test_at_fit_the_picture_is_no_wider_than_the_output():
    """Zoom "fit" (the widget's first choice) draws the picture scaled down to the output's width, never wider,
    so a wide one (lesson 8's training step) shows whole, badges included; a zoom shows a part, to scroll."""
    pytest.importorskip("ipywidgets")
    player = viz.player(square_plus_sin())
    assert player.widget.children[0].children[5].value == 1.0  # the zoom box starts at fit
    root = re.search(r"<svg\b[^>]*>", player._parts["picture"].value).group(0)
    assert 'style="max-width:100%;height:auto"' in root and 'viewBox="' in root, root
    zoomed = re.search(r"<svg\b[^>]*>", player.picture_html(2, zoom=2.0)).group(0)
    assert "max-width" not in zoomed, zoomed
    assert "fit(); show(0);" in export.html_player(player.animation, "t")  # the kernel-free copy starts at fit too


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
    assert kinds[:2] == ["tape_entered", "watched"] and "sweep_started" in kinds and kinds[-1] == "tape_released"
    assert set(kinds) <= {event.kind for event in tf.events.ALL_EVENTS}  # one vocabulary: the core's


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
    translate_x, _ = svg_frames.svg_translate(animation.base_svg)
    width, _ = svg_frames.size(animation.base_svg)
    for index in range(len(animation.frames)):
        svg = animation.frame_svg(index, caption=False)
        overlay = svg[svg.index('<g class="tapeviz-overlay">') :]
        for x, w_ in re.findall(r'<rect x="(-?[\d.]+)" y="-?[\d.]+" width="([\d.]+)" height="16"', overlay):
            assert translate_x + float(x) + float(w_) <= width, f"frame {index}: a badge runs off the picture"


def test_names_are_the_ones_the_student_wrote():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape1:
        y = x**2
    tape1.gradient(y, x)
    trace = trace_of(tape1)
    from tapeviz.viz import names

    found = names.lookup(trace)
    assert "tape1" in found.values() and "y" in found.values() and "x" in found.values()
    data = names.relabel(trace.data, found)
    assert [t["label"] for t in data["tapes"]] == ["tape1"]
    assert trace.data["tapes"][0]["label"] != "tape1"  # the trace itself is untouched
    dot_text = export.Animation(tape1).dot
    assert "tape1" in dot_text and ">y<" in dot_text


def test_two_displays_of_one_tape_give_the_same_ids():
    tape = square_plus_sin()
    first = export.Animation(tape)
    second = export.Animation(tape)
    assert first.dot == second.dot and first.frames == second.frames


def test_predict_mode_checks_the_typed_gradient():
    from tapeviz.viz import widget

    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    fs, _view = frames.sweep_frames(trace_of(tape))
    assert widget.answer_of(fs[0]) is None and widget.answer_of(fs[1]) == 6.0
    assert widget.is_right("6", 6.0) and widget.is_right(" 6.0004", 6.0)
    assert not widget.is_right("9", 6.0) and not widget.is_right("six", 6.0)


@needs_dot
def test_predict_mode_hides_the_gradient_until_answered():
    pytest.importorskip("ipywidgets")
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    player = viz.player(tape, predict=True)
    parts = (player.widget, player._parts)[1]
    parts["forward"].click()
    assert parts["slider"].value == 1
    assert "1 \u00d7 6 = 6" not in parts["card"].value and "? (1)" in parts["card"].value
    assert "dy/dx = 6" not in parts["picture"].value
    parts["forward"].click()
    assert parts["slider"].value == 1, "the player waits for an answer"
    parts["guess"].value = "5"
    parts["check"].click()
    assert "not yet" in parts["verdict"].value and "1 \u00d7 6 = 6" not in parts["card"].value, "one retry first"
    parts["guess"].value = "5"
    parts["check"].click()
    assert "not quite: it is 1 \u00d7 6 = 6" in parts["asking"].children[0].children[-1].value
    assert "1 \u00d7 6 = 6" in parts["card"].value and "dy/dx = 6" in parts["picture"].value


@needs_dot
def test_kernel_free_copy_opens_in_the_widgets_predict_mode(tmp_path):
    """The HTML copy (what the docs site and an untrusted notebook show) starts as the widget does."""
    pytest.importorskip("ipywidgets")
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    box = re.compile(r'<input type="checkbox" class="tv-predict"( checked)?>')
    for predict in (False, True):
        player = viz.player(tape, predict=predict)
        saved = player.save_html(str(tmp_path / f"predict_{predict}.html"))
        for page in (player.to_html(), html.unescape(player._repr_mimebundle_()["text/html"]), open(saved).read()):
            found = box.findall(page)
            assert found == [" checked" if predict else ""], (predict, found)


def test_legend_lists_only_what_is_drawn():
    from tapeviz.viz import legend

    fs, view = frames.sweep_frames(trace_of(square_plus_sin()))
    texts = [t for _kind, _c, t in legend.entries(view, fs)]
    assert any("variable" in t for t in texts) and any("forward op" in t for t in texts)
    assert not any("2nd-order" in t for t in texts) and not any("folded" in t for t in texts)
    assert any("flowing back" in t for t in texts)
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x
        dy_dx = inner.gradient(y, x)
    outer.gradient(dy_dx, x)
    nested = export.Animation(outer, sweep="all")
    texts = [t for _kind, _c, t in legend.entries(nested.view, nested.frames, nested.links)]
    assert any("1st-order backward" in t for t in texts) and any("the op differentiated" in t for t in texts)


@needs_dot
def test_gif_is_written_frame_by_frame_and_decodes_to_the_drawn_frames(tmp_path):
    from PIL import Image

    animation = export.animate(square_plus_sin())
    drawn = [image.convert("RGB") for image in export.gif_images(animation)]
    path = animation.save_gif(str(tmp_path / "s.gif"))
    with Image.open(path) as gif:
        assert gif.n_frames == len(drawn) == len(animation.frames)
        for index, expected in enumerate(drawn):
            gif.seek(index)
            assert gif.convert("RGB").tobytes() == expected.tobytes(), f"frame {index} differs"


@needs_dot
def test_left_to_right_layout_and_zoom_follow():
    animation = export.Animation(square_plus_sin(), rankdir="LR")
    assert "rankdir=LR" in animation.dot
    whole = animation.frame_svg(2, caption=False)
    zoomed = animation.frame_svg(2, caption=False, zoom=3.0)
    box = lambda svg: [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]  # noqa: E731
    assert box(zoomed)[2] == pytest.approx(box(whole)[2] / 3, rel=1e-3)


def test_jacobian_and_hessian_heatmaps():
    x = tf.constant([1.0, -2.0, 0.5])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        jac = inner.jacobian(y, x)  # diag(3 x^2)
    hess = outer.jacobian(jac, x)  # 3 x 3 x 3: d(3 x_i^2 delta_ij)/dx_k
    picture = viz.heatmap(jac, title="Jacobian")
    svg = picture._repr_svg_()
    assert svg.count('class="cell"') == 9 and "Jacobian" in svg
    cells = re.findall(r'class="cell"[^>]*fill="(#[0-9a-f]{6})"', svg)
    assert cells[0] != "#ffffff" and cells[1] == "#ffffff"  # a diagonal Jacobian: white off the diagonal
    assert viz.heatmap(hess, output_rank=2).matrix.shape == (9, 3)  # rows: the jacobian's 9 entries
    assert "3 x 3" in repr(picture)


def test_the_html_page_inlines_the_players_script_and_styles_from_package_data():
    from importlib import resources

    from tapeviz.viz import html_page

    page = export.animate(square_plus_sin()).to_html()
    static = resources.files("tapeviz.viz").joinpath("static")
    script, styles = static.joinpath("player.js").read_text(), static.joinpath("player.css").read_text()
    assert f"<script>{script}</script>" in page and f"<style>{styles}</style>" in page
    assert html_page.static_text("player.js") == script


def test_an_edge_label_between_close_nodes_keeps_clear_of_them():
    """A short edge between two nodes 25 pt apart: its wide label goes in the gap or beside it, never on (or
    touching, once drawn to 0.1 pt) either node."""
    top, below = (50.0, -609.1, 170.0, -562.78), (105.0, -537.78, 197.0, -493.86)
    paths = {"e0": [(123.88, -561.88), (127.29, -556.21), (130.98, -550.09), (134.5, -544.23)]}
    frames_ = [{"edges": {"e0": "[[-0.04943, 0.4…"}}]
    spots = svg_frames.edge_label_spots({"a": top, "b": below}, paths, frames_, [])
    x, y = (round(v, 1) for v in spots["e0"])
    label = (x, y, x + svg_frames.edge_label_widths(frames_)["e0"], y + svg_frames.EDGE_LABEL_H)
    for node in (top, below):
        apart = max(node[0] - label[2], label[0] - node[2], node[1] - label[3], label[1] - node[3])
        assert apart >= 1.0, (label, node)


def test_a_recording_player_shows_no_predict_box():
    """Predict mode asks about a sweep's gradients; a recording has none, so neither player shows the box."""
    pytest.importorskip("ipywidgets")
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    box = re.compile(r'<label title="hide each gradient until you type it"( hidden)?><input type="checkbox"')
    for mode, shown in (("sweep", True), ("record", False)):
        player = viz.player(tape, mode=mode, predict=True)
        assert any(f.get("ask") for f in player.frames) == shown, mode
        predict = player.widget  # noqa: F841 - builds the widget
        assert (player._parts["predict"].layout.display != "none") == shown, mode
        assert player._parts["predict"].value == shown, mode  # nothing to ask: not in predict mode either
        page = player.to_html()
        assert box.findall(page) == ["" if shown else " hidden"], mode
        assert ('class="tv-predict" checked' in page) == shown, mode
    assert "label[hidden] {display: none}" in page  # the controls' inline-flex would show it otherwise


def test_an_edge_label_with_no_clear_place_is_left_out_not_drawn_over_a_value():
    """Nodes all round an edge: its label would cover one, so it gets no place and no frame draws it
    (the step's card still shows that gradient); the edge beside it with room keeps its label."""
    crowd = {
        f"n{i}{j}": (i * 40.0, j * 20.0, i * 40.0 + 38, j * 20.0 + 18) for i in range(-8, 9) for j in range(-12, 13)
    }
    paths = {"e0": [(19.0, 0.0), (19.0, 18.0)], "e1": [(1000.0, 0.0), (1000.0, 40.0)]}
    frame = {"edges": {"e0": "[[0.25, 0.5]]", "e1": "3"}}
    spots = svg_frames.edge_label_spots(crowd, paths, [frame], [])
    assert spots["e0"] is None and spots["e1"] is not None
    base = '<svg width="100pt" height="100pt" viewBox="0 0 100 100"><g id="graph0" class="graph"></g></svg>'
    drawn = svg_frames.frame_svg(base, crowd, frame, caption=False, paths=paths, spots=spots)
    assert drawn.count('class="tv-edge-grad"') == 1 and "[[0.25, 0.5]]" not in drawn
