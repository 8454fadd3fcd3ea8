"""The lessons' pictures, as a student sees them: no gradient badge covers a node's text or another badge.

Each lesson's source (``notebooks/src/NN_*.py``) is run here cell by cell, as
a notebook would run it, and every player a cell shows is drawn frame by
frame. The check reads the drawn SVG itself: the boxes of the badges the
frame adds (``<g class="tv-badge">``) against the nodes' shapes (``<polygon>``,
``<ellipse>``) and the text graphviz wrote in each node and tape frame (its
name, shape, value), estimated from each ``<text>`` element's position,
anchor, font size and length. A static
picture a cell shows must carry its legend.
"""

import ast
import html
import re
from pathlib import Path

import pytest

import tapeviz.viz as viz
from tapeviz.viz import render
from tapeviz.viz.display import Figure
from tapeviz.viz.widget import Player

ROOT = Path(__file__).resolve().parent.parent
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
    for body in _cells(path.read_text()):
        tree = ast.parse(body)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, str(path), "exec"), namespace)  # the lesson's own code, as its notebook runs it
        if last is None:
            continue
        namespace["__shown__"] = eval(compile(ast.Expression(last.value), str(path), "eval"), namespace)
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
    """Boxes of the nodes' shapes (graphviz's <polygon>, <path> and <ellipse>), with the node's id."""
    boxes = []
    for group in _groups(svg, "node"):
        xs, ys = [], []
        for points in re.findall(r'<polygon[^>]* points="([^"]+)"', group.group(2)):
            for pair in points.split():
                x, y = pair.split(",")
                xs.append(float(x))
                ys.append(float(y))
        for d in re.findall(r'<path[^>]* d="([^"]+)"', group.group(2)):  # a rounded box is a path
            numbers = [float(n) for n in re.findall(_NUM, d)]
            xs += numbers[0::2]
            ys += numbers[1::2]
        for cx, cy, rx, ry in re.findall(
            rf'<ellipse[^>]* cx="({_NUM})" cy="({_NUM})" rx="({_NUM})" ry="({_NUM})"', group.group(2)
        ):
            xs += [float(cx) - float(rx), float(cx) + float(rx)]
            ys += [float(cy) - float(ry), float(cy) + float(ry)]
        if xs:
            boxes.append((min(xs), min(ys), max(xs), max(ys), f"node {group.group(1)}"))
    return boxes


def _em_width(text):
    """A text's width in em, Helvetica-like: narrow punctuation and i/l/t, wide capitals, digits 0.56."""
    narrow, wide = set("[](),.;:'|!/ -ijltfr"), set("MWmw@%")
    return sum(0.3 if c in narrow else 0.85 if c in wide else 0.68 if c.isupper() else 0.56 for c in text)


def _badge_boxes(svg):
    found = []
    for match in re.finditer(r'<g class="tv-badge"><rect ([^>]*)/><text[^>]*>([^<]*)</text>', svg):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
        x, y, w, h = (float(attrs[k]) for k in ("x", "y", "width", "height"))
        found.append((x, y, x + w, y + h, html.unescape(match.group(2))))
    return found


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlaps(svg):
    """[(badge, what it covers)] in one drawn frame."""
    badges, texts = _badge_boxes(svg), _text_boxes(svg) + _shape_boxes(svg)
    found = [(b[4], t[4]) for b in badges for t in texts if _overlap(b, t)]
    found += [(a[4], b[4]) for i, a in enumerate(badges) for b in badges[i + 1 :] if _overlap(a, b)]
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
        '<g class="tv-badge"><rect x="0" y="2" width="40" height="16" rx="4"/><text x="4" y="14">dy/dx = 1</text></g>'
    )
    beside = (
        '<g class="tv-badge"><rect x="40" y="2" width="40" height="16" rx="4"/><text x="44" y="14">dy/dx = 1</text></g>'
    )

    def overlay(*badges):
        return '<g class="tapeviz-overlay">' + "".join(badges) + "</g>"

    assert overlaps(node + overlay(covering)) == [("dy/dx = 1", "2.5"), ("dy/dx = 1", "node t0")]
    assert overlaps(node + overlay(beside)) == []  # touching the ellipse's box edge is not covering it
    assert overlaps(node + overlay(beside, beside)) == [("dy/dx = 1", "dy/dx = 1")]


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # lessons write their exports next to them
    yield
    viz.stop_watching()  # lessons.setup() turned the recorder on


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_no_badge_covers_a_value_or_another_badge(path):
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
            for badge, covered in overlaps(player.animation.frame_svg(index)):
                problems.append(f"player {number}, frame {index}: badge {badge!r} covers {covered!r}")
        problems += _links_through_nodes(player.animation.frame_svg(0), f"player {number}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems[:20])
    for figure in figures:
        assert "tapeviz-legend" in figure.html, f"{path.name}: a static picture without its legend"
    assert players or figures, f"{path.name} shows no picture"
