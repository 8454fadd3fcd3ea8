"""The lessons' pictures, as a student sees them: nothing the player draws covers a node's text or a badge.

Each lesson's source (``notebooks/src/NN_*.py``) is run here cell by cell, as
a notebook would run it, and every player a cell shows is drawn frame by
frame. The check reads the drawn SVG itself: the boxes of what a frame adds
(the gradient badges ``<g class="tv-badge">``, the gradients written on edges
``<g class="tv-edge-grad">``, and the arrowheads of the flowing edges, from
their ``<marker>``'s geometry) against the nodes' shapes (``<polygon>``,
``<ellipse>``), the text graphviz wrote in each node and tape frame (its name,
shape, value; estimated from each ``<text>`` element's position, anchor, font
size and length), the other badges, and the edges graphviz drew (a badge on
an edge reads as the edge's). A static picture a cell shows is checked the
same way and must carry its legend.
"""

import ast
import html
import linecache
import math
import re
from pathlib import Path

import numpy as np
import pytest

import tapeviz.viz as viz
from tapeviz.viz import render
from tapeviz.viz.animation import Animation
from tapeviz.viz.display import Figure
from tapeviz.viz.widget import Player

ROOT = Path(__file__).resolve().parents[2]
# The lessons whose players are checked (09 trains on digits and 11 times things: slow, and no new kind of picture).
LESSONS = [p for p in sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")) if p.name[:2] not in ("09", "11")]
_NUM = r"-?\d+(?:\.\d+)?"


def _cells(source):
    """The code cells of a percent-format lesson source."""
    chunks = re.split(r"^# %%(.*)$", source, flags=re.M)
    return [body for header, body in zip(chunks[1::2], chunks[2::2]) if "[markdown]" not in header]


def run_lesson(path):
    """Run a lesson's code cells in one namespace; return what the cells show, drawn when their cell ends.

    A player is kept as is (it looked its names up when made); a static picture
    (a tape, ``tf.viz.show``, an explanation) is drawn right away, as Jupyter
    does, since later cells rebind the names it would find.
    """
    namespace = {"__name__": "__lesson__"}
    shown = []
    for number, body in enumerate(_cells(path.read_text()), start=1):
        # each cell under a name of its own whose lines linecache holds, as IPython does: AutoGraph reads a
        # tf.function's source from there
        filename = f"<{path.name} cell {number}>"
        linecache.cache[filename] = (len(body), None, body.splitlines(True), filename)
        tree = ast.parse(body)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, filename, "exec"), namespace)  # the lesson's own code, as its notebook runs it
        if last is None:
            continue
        namespace["__shown__"] = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
        # drawn from code running in the lesson's namespace, so the names found are the lesson's (as in Jupyter)
        value = eval(_DRAW, namespace)
        if isinstance(value, Figure):
            value = StaticPicture(value._repr_mimebundle_()["text/html"], value.svg())
        shown.append(value)
    return shown


_DRAW = compile(
    "(__shown__.figure() if callable(getattr(__shown__, 'figure', None))"  # explain's verdicts draw a figure
    " else __import__('tapeviz.viz').viz.show(__shown__) if hasattr(__shown__, 'recorded_ops') else __shown__)",
    "<the notebook's display>",
    "eval",
)


class StaticPicture:
    def __init__(self, html_text, svg):
        self.html, self.svg = html_text, svg


def _text_boxes(svg):
    """Boxes (x0, y0, x1, y1) of the text graphviz drew in nodes and clusters, from each <text> element."""
    boxes = []
    for group in [*_groups(svg, "node"), *_groups(svg, "cluster")]:
        for attrs, content in re.findall(r"<text([^>]*)>([^<]*)</text>", group.group(2)):
            x = float(re.search(rf' x="({_NUM})"', attrs).group(1))
            y = float(re.search(rf' y="({_NUM})"', attrs).group(1))
            size = float(re.search(rf'font-size="({_NUM})"', attrs).group(1))
            width = size * _em_width(html.unescape(content).strip())
            anchor = re.search(r'text-anchor="(\w+)"', attrs)
            left = x - width / 2 if anchor and anchor.group(1) == "middle" else x
            if anchor and anchor.group(1) == "end":
                left = x - width
            boxes.append((left, y - 0.8 * size, left + width, y + 0.2 * size, html.unescape(content).strip()))
    return boxes


def _groups(svg, kind):
    """(id, body) matches of graphviz's ``<g id=... class=kind>`` groups, each body up to the next group or overlay."""
    return re.finditer(
        rf'<g id="([^"]+)" class="{kind}">(.*?)(?=<g id="[^"]+" class="(?:node|edge|cluster)"|<g class="tapeviz-overlay"|$)',
        svg,
        re.S,
    )


def _shape_boxes(svg):
    """Boxes of the nodes' drawn shapes (graphviz's <polygon>, <path> and <ellipse>), with the node's id.

    A shape with neither fill nor stroke (the room a player keeps for a badge) is not drawn: nothing covers it.
    """
    boxes = []
    for match in _groups(svg, "node"):
        body = re.sub(
            r"<(?:polygon|path|ellipse)(?=[^>]*fill=\"(?:none|transparent)\")"
            r"(?=[^>]*stroke=\"(?:none|transparent)\")[^>]*>",
            "",
            match.group(2),
        )
        group = (match.group(1), body)
        xs, ys = [], []
        for points in re.findall(r'<polygon[^>]* points="([^"]+)"', group[1]):
            for pair in points.split():
                x, y = pair.split(",")
                xs.append(float(x))
                ys.append(float(y))
        for d in re.findall(r'<path[^>]* d="([^"]+)"', group[1]):  # a rounded box is a path
            numbers = [float(n) for n in re.findall(_NUM, d)]
            xs += numbers[0::2]
            ys += numbers[1::2]
        for cx, cy, rx, ry in re.findall(
            rf'<ellipse[^>]* cx="({_NUM})" cy="({_NUM})" rx="({_NUM})" ry="({_NUM})"', group[1]
        ):
            xs += [float(cx) - float(rx), float(cx) + float(rx)]
            ys += [float(cy) - float(ry), float(cy) + float(ry)]
        if xs:
            boxes.append((min(xs), min(ys), max(xs), max(ys), f"node {group[0]}"))
    return boxes


def _em_width(text):
    """A text's width in em, Helvetica-like: narrow punctuation and i/l/t, wide capitals, digits 0.56."""
    narrow, wide = set("[](),.;:'|!/ -ijltfr"), set("MWmw@%")
    return sum(0.3 if c in narrow else 0.85 if c in wide else 0.68 if c.isupper() else 0.56 for c in text)


def _badge_boxes(svg):
    return _drawn_boxes(svg, "tv-badge", "")


def _edge_label_boxes(svg):
    """Boxes of the gradients written on edges (``<g class="tv-edge-grad">``), named ``edge label ...``."""
    return _drawn_boxes(svg, "tv-edge-grad", "edge label ")


def _drawn_boxes(svg, kind, prefix):
    """Boxes of the ``<g class=kind><rect .../><text>label</text>`` marks a frame draws, named prefix + label."""
    found = []
    for match in re.finditer(
        rf'<g class="{kind}"(?: data-node="[^"]*")?><rect ([^>]*)/><text[^>]*>([^<]*)</text>', svg
    ):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(1)))
        x, y, w, h = (float(attrs[k]) for k in ("x", "y", "width", "height"))
        found.append((x, y, x + w, y + h, prefix + html.unescape(match.group(2))))
    return found


def _arrowhead_boxes(svg):
    """Boxes of the arrowheads on the flowing edges (``tv-flow`` paths), from their ``<marker>``'s geometry.

    The marker's triangle (its path, in its viewBox) is scaled by markerWidth / viewBox width x the
    path's stroke width, its refX/refY point put on the path's end (``marker-end``) or start
    (``marker-start``, turned around when ``orient="auto-start-reverse"``), and turned along the path there.
    """
    markers = {}
    for attrs, body in re.findall(r"<marker([^>]*)>(.*?)</marker>", svg, re.S):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        shape = [float(n) for n in re.findall(_NUM, re.search(r' d="([^"]+)"', body).group(1))]
        markers[a["id"]] = (a, list(zip(shape[0::2], shape[1::2])))
    found = []
    for attrs in re.findall(r'<path class="tv-flow"([^>]*)/>', svg):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        points = [tuple(map(float, pair.split(","))) for pair in re.findall(rf"{_NUM},{_NUM}", a["d"])]
        for end in ("marker-start", "marker-end"):
            if end not in a:
                continue
            m, triangle = markers[re.search(r"#([\w-]+)", a[end]).group(1)]
            scale = float(m["markerWidth"]) / float(m["viewBox"].split()[2]) * float(a["stroke-width"])
            at, towards = (points[0], points) if end == "marker-start" else (points[-1], points[::-1])
            other = next((p for p in towards if p != at), at)
            angle = math.atan2(at[1] - other[1], at[0] - other[0])  # the path's direction at its end
            if end == "marker-start":
                angle += 0.0 if m["orient"] == "auto-start-reverse" else math.pi
            cos, sin = math.cos(angle), math.sin(angle)
            ref = (float(m["refX"]), float(m["refY"]))
            corners = [
                (
                    at[0] + scale * ((x - ref[0]) * cos - (y - ref[1]) * sin),
                    at[1] + scale * ((x - ref[0]) * sin + (y - ref[1]) * cos),
                )
                for x, y in triangle
            ]
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            found.append((min(xs), min(ys), max(xs), max(ys), f"arrowhead on {end[7:]} of a flowing edge"))
    return found


def _edge_points(svg):
    """{edge id: points along graphviz's drawn edge}: its cubic Bezier curves, sampled."""
    found = {}
    for group in _groups(svg, "edge"):
        d = re.search(r'<path[^>]* d="([^"]+)"', group.group(2))
        if not d:
            continue
        numbers = [float(n) for n in re.findall(_NUM, d.group(1))]
        pts = list(zip(numbers[0::2], numbers[1::2]))
        samples = [pts[0]]
        for i in range(0, len(pts) - 3, 3):
            p0, p1, p2, p3 = pts[i : i + 4]
            for k in range(1, 21):
                t = k / 20
                samples.append(
                    tuple(
                        (1 - t) ** 3 * a + 3 * (1 - t) ** 2 * t * b + 3 * (1 - t) * t**2 * c + t**3 * e
                        for a, b, c, e in zip(p0, p1, p2, p3)
                    )
                )
        found[group.group(1)] = samples
    return found


def _strays(svg, near=12.0):
    """[(badge, why)] for each badge (``data-node`` says whose) not clearly its node's: another node is as
    near it as its own, or its own is more than ``near`` pt away."""
    shapes = {box[4].removeprefix("node "): box for box in _shape_boxes(svg)}
    found = []
    for match in re.finditer(r'<g class="tv-badge" data-node="([^"]*)"><rect ([^>]*)/><text[^>]*>([^<]*)</text>', svg):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(2)))
        x, y, w, h = (float(attrs[k]) for k in ("x", "y", "width", "height"))
        badge, label = (x, y, x + w, y + h), html.unescape(match.group(3))
        own = _gap(badge, shapes[match.group(1)])
        if own > near:
            found.append((label, f"its node {match.group(1)}, {own:.0f} pt away"))
        found += [
            (label, f"{n}, as near as its node")
            for n, b in shapes.items()
            if n != match.group(1) and _gap(badge, b) <= own
        ]
    return found


def _gap(a, b):
    """The distance between two boxes (0 when they touch or overlap)."""
    return math.hypot(max(0.0, b[0] - a[2], a[0] - b[2]), max(0.0, b[1] - a[3], a[1] - b[3]))


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlaps(svg):
    """[(mark, what it covers)] in one drawn frame: a mark is a badge, an edge's gradient label or an arrowhead."""
    badges, labels, arrows = _badge_boxes(svg), _edge_label_boxes(svg), _arrowhead_boxes(svg)
    texts, shapes = _text_boxes(svg), _shape_boxes(svg)
    found = [(m[4], t[4]) for m in badges + labels + arrows for t in texts if _overlap(m, t)]
    found += [(m[4], t[4]) for m in badges + labels for t in shapes if _overlap(m, t)]
    found += [(m[4], b[4]) for m in labels + arrows for b in badges if _overlap(m, b)]
    found += [(a[4], b[4]) for i, a in enumerate(badges) for b in badges[i + 1 :] if _overlap(a, b)]
    found += [(a[4], b[4]) for i, a in enumerate(labels) for b in labels[i + 1 :] if _overlap(a, b)]
    found += _strays(svg)
    found += [
        (b[4], f"edge {eid}")
        for b in badges
        for eid, points in _edge_points(svg).items()
        if any(_inside(point, b) for point in points)
    ]
    return found


def _links_through_nodes(svg, where):
    """The dotted backward-to-forward links (``tv-link`` paths) that cross a node they do not end at."""
    shapes = _shape_boxes(svg)
    problems = []
    for d in re.findall(r'<path class="tv-link" d="([^"]+)"', svg):
        points = [tuple(map(float, pair.split(","))) for pair in re.findall(rf"{_NUM},{_NUM}", d)]
        ends = [box for box in shapes if any(_near(point, box) for point in (points[0], points[-1]))]
        for box in shapes:
            if box in ends:
                continue
            for (x0, y0), (x1, y1) in zip(points, points[1:]):
                if any(_inside((x0 + (x1 - x0) * t / 10, y0 + (y1 - y0) * t / 10), box) for t in range(11)):
                    problems.append(f"{where}: a link runs through {box[4]}")
                    break
    return problems


def _inside(point, box, pad=0.0):
    return box[0] - pad < point[0] < box[2] + pad and box[1] - pad < point[1] < box[3] + pad


def _near(point, box):
    return _inside(point, box, pad=3.0)


def test_the_link_check_sees_a_link_through_a_node():
    nodes = "".join(
        f'<g id="{n}" class="node"><polygon points="{x},0 {x + 20},0 {x + 20},10 {x},10"/></g>'
        for n, x in (("a", 0), ("b", 40), ("c", 80))
    )
    through = '<g class="tapeviz-overlay"><path class="tv-link" d="M20,5 L80,5"/></g>'
    around = '<g class="tapeviz-overlay"><path class="tv-link" d="M20,5 L50,30 L80,5"/></g>'
    assert _links_through_nodes(nodes + through, "x") == ["x: a link runs through node b"]
    assert _links_through_nodes(nodes + around, "x") == []


def test_the_overlap_check_sees_a_badge_over_a_value():
    node = (
        '<g id="t0" class="node"><ellipse cx="10" cy="10" rx="20" ry="10"/>'
        '<text text-anchor="middle" x="10" y="14" font-size="10.00">2.5</text></g>'
    )
    covering = (
        '<g class="tv-badge"><rect x="0" y="2" width="40" height="16" rx="4" stroke-width="1"/>'
        '<text x="4" y="14">dy/dx = 1</text></g>'
    )
    beside = (
        '<g class="tv-badge"><rect x="40" y="2" width="40" height="16" rx="4"/><text x="44" y="14">dy/dx = 1</text></g>'
    )

    def overlay(*badges):
        return '<g class="tapeviz-overlay">' + "".join(badges) + "</g>"

    assert overlaps(node + overlay(covering)) == [("dy/dx = 1", "2.5"), ("dy/dx = 1", "node t0")]
    assert overlaps(node + overlay(beside)) == []  # touching the ellipse's box edge is not covering it
    assert overlaps(node + overlay(beside, beside)) == [("dy/dx = 1", "dy/dx = 1")]


def test_the_overlap_check_sees_an_arrowhead_an_edge_label_and_a_badge_on_an_edge():
    # a box node whose value "5" sits 6 pt above its bottom border, at y = 20
    node = (
        '<g id="y" class="node"><polygon points="0,0 40,0 40,20 0,20"/>'
        '<text text-anchor="middle" x="20" y="14" font-size="10.00">5</text></g>'
    )
    edge = '<g id="e0" class="edge"><path d="M20,20C20,30 20,40 20,50"/></g>'  # y's edge, straight down

    def flowing(ref_x):  # a gradient flowing up into y: the arrowhead at the path's start, turned around
        marker = (
            f'<defs><marker id="tv-back" viewBox="0 0 10 10" refX="{ref_x}" refY="5" markerWidth="5" '
            'markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>'
        )
        flow = '<path class="tv-flow" d="M20.0,20.0 L20.0,50.0" stroke-width="3" marker-start="url(#tv-back)"/>'
        return f'<g class="tapeviz-overlay">{marker}{flow}</g>'

    arrow = "arrowhead on start of a flowing edge"
    assert overlaps(node + edge + flowing(2)) == [(arrow, "5")]  # the tip 12 pt inside y, over its value
    assert overlaps(node + edge + flowing(10)) == []  # the tip on y's border
    label = '<g class="tv-edge-grad"><rect x="10" y="8" width="20" height="13"/><text>2</text></g>'
    assert ("edge label 2", "5") in overlaps(node + f'<g class="tapeviz-overlay">{label}</g>')
    on_edge = '<g class="tv-badge"><rect x="10" y="30" width="40" height="16"/><text>dy/dx = 1</text></g>'
    assert overlaps(node + edge + f'<g class="tapeviz-overlay">{on_edge}</g>') == [("dy/dx = 1", "edge e0")]
    far = '<g class="tv-badge" data-node="y"><rect x="60" y="2" width="40" height="16"/><text>dy/dx = 1</text></g>'
    other = '<g id="z" class="node"><polygon points="105,0 125,0 125,20 105,20"/></g>'
    assert overlaps(node + other + f'<g class="tapeviz-overlay">{far}</g>') == [
        ("dy/dx = 1", "its node y, 20 pt away"),
        ("dy/dx = 1", "z, as near as its node"),
    ]


def test_each_badge_sits_just_right_of_its_node_in_room_the_layout_kept():
    try:
        render.svg("digraph { a }")
    except render.GraphvizUnavailable as problem:
        pytest.fail(f"the pictures need a layout program: {problem}")
    import tapeviz as tf
    from tapeviz.viz import svg_frames

    viz.watch_all()  # the fixture below turns it off again
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x * x + x  # x fans out: its badge is the sum of three gradients
    tape.gradient(y, x)
    animation = Animation(tape)
    assert 'id="badge_' in animation.dot  # dot is asked to keep the room
    rooms = svg_frames.badge_rooms(animation.base_svg)
    assert set(animation.spots) >= set(rooms) and rooms
    for nid, room in rooms.items():
        x0, y0, x1, y1 = animation.boxes[nid]
        bx, by = animation.spots[nid]
        assert x1 < bx <= room[0], (nid, animation.boxes[nid], animation.spots[nid], room)  # beside its node
        assert abs((by + svg_frames.BADGE_H / 2) - (y0 + y1) / 2) < 1, nid  # level with its middle
    for index in range(len(animation.frames)):
        assert overlaps(animation.frame_svg(index)) == [], index
    legend = animation.legend_html()  # the legend says what a badge and a number by an edge are
    assert "next to a value: the gradient it has collected so far" in legend  # right of it, or above a weight
    assert "number by an edge: the gradient sent back along it" in legend


def test_a_left_to_right_player_keeps_clear_too():
    """rankdir="LR": a rank is a column, so the room kept for a badge is above or below its node."""
    import tapeviz as tf

    viz.watch_all()  # the fixture below turns it off again
    x = tf.Variable(2.0, name="x")
    with tf.GradientTape() as tape:
        f = x * tf.sin(x) + x
    tape.gradient(f, x)
    animation = Animation(tape, rankdir="LR")
    assert "rankdir=LR" in animation.dot
    for index in range(len(animation.frames)):
        assert overlaps(animation.frame_svg(index)) == [], index


def test_the_recording_player_says_what_each_step_recorded_in_the_pictures_names():
    import tapeviz as tf

    viz.watch_all()  # the fixture below turns it off again
    x = tf.Variable(2.0, name="x")
    with tf.GradientTape() as tape:
        f = x * tf.sin(x) + 1.0  # noqa: F841 - named, so the picture calls it f
    recording = Animation(tape, mode="record")
    captions = [frame["caption"] for frame in recording.frames]
    variables = [n for n, node in recording.view.nodes.items() if node.get("role") == "variable"]
    assert variables and not set(variables) & set(recording.frames[0]["hidden"])  # "variables exist": x is drawn
    assert captions[1] == "Recorded the read of x on tape."  # not "ReadVariableOp (op0)"
    assert captions[2] == "Recorded Sin on tape: #2 from x."  # the read is drawn as x, so it is called x
    assert captions[-1] == "Recorded AddV2 on tape: f from #4, #5."
    assert not any("(op" in caption or ":0" in caption for caption in captions), captions
    assert "the op this step records on the tape" in recording.legend_html()  # it differentiates nothing


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # lessons write their exports next to them
    with np.printoptions():  # lessons.setup() asks NumPy for 4 digits: not for the tests after these
        yield
    viz.stop_watching()  # lessons.setup() turned the recorder on


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_nothing_drawn_covers_a_value_or_a_badge(path):
    """In every player frame and static picture: no badge, edge label or arrowhead covers a node's text or a
    badge, no badge sits on an edge, and no backward-to-forward link runs through a node."""
    try:
        render.svg("digraph { a }")
    except render.GraphvizUnavailable as problem:
        pytest.fail(f"the lesson pictures need a layout program: {problem}")
    shown = run_lesson(path)
    players = [s for s in shown if isinstance(s, Player)]
    figures = [s for s in shown if isinstance(s, StaticPicture)]
    problems = []
    for number, player in enumerate(players):
        for index in range(len(player.animation.frames)):
            for mark, covered in overlaps(player.animation.frame_svg(index)):
                problems.append(f"player {number}, frame {index}: {mark!r} covers {covered!r}")
        problems += _links_through_nodes(player.animation.frame_svg(0), f"player {number}")
    for number, figure in enumerate(figures):
        problems += [f"picture {number}: {mark!r} covers {covered!r}" for mark, covered in overlaps(figure.svg)]
    assert not problems, f"{path.name}:\n" + "\n".join(problems[:20])
    for figure in figures:
        assert "tapeviz-legend" in figure.html, f"{path.name}: a static picture without its legend"
        if 'fill="#fecaca"' in figure.svg:  # an op marked as where the gradient breaks (explain's verdicts)
            assert "where the gradient breaks" in figure.html, f"{path.name}: a red op the legend does not explain"
        if 'fill="#fee2e2"' in figure.svg:  # a value that is inf or NaN
            assert "holds inf or NaN" in figure.html, f"{path.name}: a pink value the legend does not explain"
    assert players or figures, f"{path.name} shows no picture"


def test_lesson_8s_training_step_fits_a_notebook_at_fit():
    """Lesson 8's training step (four weights around a model's tape) is laid out with each weight's badge above
    it, long badges on two lines, big tensors' summaries on two lines and their badges by the mean, so the
    picture is at most 1.25 times a notebook's width (JupyterLab, ~900 px = 675 pt; it was 1,382 pt): "fit"
    scales it by 0.8 or more, and nothing drawn covers a value (the overlap test above runs the same lesson)."""
    from tapeviz.viz import gif_frames
    from tapeviz.viz.animation import NOTEBOOK_WIDTH
    from tapeviz.viz.svg_frames import size

    players = [p for p in run_lesson(ROOT / "notebooks" / "src" / "08_training_loops.py") if isinstance(p, Player)]
    animation = players[0].animation
    pngs, real = [], render.run_dot
    try:  # the GIF, made first, draws the layout its badges are placed on (the second, narrower one)
        render.run_dot = lambda source, kind="svg", *rest: (
            (pngs.append(source) if kind == "png" else None) or real(source, kind, *rest)
        )
        next(gif_frames.gif_images(animation))
    finally:
        render.run_dot = real
    assert pngs and pngs[-1].replace("\n  graph [dpi=72]", "", 1) == animation.dot, "the GIF drew another layout"
    width, _height = size(animation.base_svg)
    assert NOTEBOOK_WIDTH / width >= 0.8, width
    weights = [n for n, node in animation.view.nodes.items() if node.get("role") == "variable"]
    assert len(weights) == 4 and all(f"badge_{n} -> {n} [style=invis" in animation.dot for n in weights)
    for index in range(len(animation.frames)):  # every badge inside the picture: none past its right edge
        svg = animation.frame_svg(index, caption=False)
        assert all(box[2] <= width for box in _badge_boxes(svg)), index


def test_a_long_badge_takes_two_lines_and_keeps_its_height_on_every_frame():
    """``d(loss)/d(model/hidden/kernel) = [[-0.04943, 0.4403]]`` is written as what it is over its value, each
    line short, the value whole; a node with one such badge has all its badges on two lines (``gets`` over
    its value), so the badge keeps one height and its place against the node on every frame."""
    from tapeviz.viz import format as fmt
    from tapeviz.viz import svg_frames

    assert fmt.badge_text("dy/dx", "6") == "dy/dx = 6"
    long = fmt.badge_text("d(loss)/d(model/hidden/kernel)", "[[-0.04943, 0.4403]]")
    assert long == "d(loss)/d(model/hidden/kernel) =\n[[-0.04943, 0.4403]]"
    frames = [{"set": {"t0": long, "t1": "dy/dx = 6"}}, {"set": {"t0": "gets [[0.1, 0.2]]"}}, {"set": {}}]
    evened = svg_frames.even_badges(frames)
    assert evened[1]["set"]["t0"] == "gets\n[[0.1, 0.2]]" and evened[0]["set"]["t1"] == "dy/dx = 6"
    assert svg_frames.badge_heights(evened) == {"t0": 29, "t1": 16}
    drawn = svg_frames._overlay({"t0": (0, 0, 40, 20)}, {}, evened[0]["set"], {}, {}, [], spots={"t0": (50, 0)})
    assert re.findall(r"<text[^>]*>([^<]*)</text>", drawn) == [
        "d(loss)/d(model/hidden/kernel) =",
        "[[-0.04943, 0.4403]]",
    ]
    assert 'height="29"' in drawn


def test_lesson_9s_folded_picture_is_readable_at_a_notebooks_width():
    """The folded picture lesson 9 stores (``tf.show(tape, max_nodes=12)`` of a digits model): every
    gradient written whole (a summary on two lines, as the value above it: no "…"), and narrow enough that
    a 738 px notebook shows it at 90% or more of its size (it was 902 pt wide, with its summaries cut)."""
    import base64
    import json

    notebook = json.loads((ROOT / "notebooks" / "09_digits.ipynb").read_text())
    cell = next(c for c in notebook["cells"] if c["cell_type"] == "code" and "max_nodes=12" in "".join(c["source"]))
    page = "".join(next(o["data"]["text/html"] for o in cell["outputs"] if "text/html" in o.get("data", {})))
    svg = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page).group(1)).decode()
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    gradients = [t for t in texts if t.startswith("\u2202 ")]
    assert len(gradients) >= 6, texts  # the four weights, #7 and #13
    assert not [t for t in texts if "\u2026" in t], [t for t in texts if "\u2026" in t]
    for first in gradients:  # "∂ mean m" over "min a, max b"
        assert re.fullmatch(rf"\u2202 mean {_NUM}(e-?\d+)?", first), first
        assert texts[texts.index(first) + 1].startswith("min "), texts[texts.index(first) + 1]
    width_px = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1)) * 4 / 3
    assert 700 / width_px >= 0.9, f"the picture is {width_px:.0f} px wide: shown at {700 / width_px:.0%} in a notebook"
