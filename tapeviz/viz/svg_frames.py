"""Graphviz's SVG, read and drawn on: one laid-out picture, a state per frame.

The graph is laid out once by ``dot`` (with no gradients on it); this module
reads where ``dot`` put each node and edge (``node_boxes``, ``edge_paths``),
and draws a frame's state on top of that picture: a highlight around the
current node, gradient badges beside the nodes that have one (``dy/dx = 6``),
the gradients on the edges they flowed along (against the arrows), dotted
links from backward ops to the forward op they differentiate, hidden nodes
(the recording animation), and a caption with the chain-rule card.
"""

import re

import numpy as np

from tapeviz.viz import card as cards
from tapeviz.viz import format as fmt
from tapeviz.viz.dot import BADGE_PREFIX

HIGHLIGHT = "#f59e0b"
FLOW = "#dc2626"  # a gradient flowing along an edge, against its arrow
LINK = "#7c3aed"  # dotted: a backward op -> the forward op it differentiates
# Colours of what a frame adds: red gradients flowing back (against the arrows)
# in the reverse player, blue tangents flowing forward (with them) in the tangent player.
REVERSE_STYLE = {
    "flow": FLOW,
    "badge": "#fee2e2",
    "badge_edge": "#b91c1c",
    "badge_text": "#991b1b",
    "forward": False,
}
FORWARD_STYLE = {
    "flow": "#2563eb",
    "badge": "#dbeafe",
    "badge_edge": "#1d4ed8",
    "badge_text": "#1e3a8a",
    "forward": True,
}
_NUM = r"-?\d+(?:\.\d+)?"


# -- reading graphviz's SVG -------------------------------------------------------------------


def node_boxes(svg):
    """Bounding boxes of the ``<g id=... class="node">`` groups of a graphviz SVG (not the rooms kept for badges)."""
    return {nid: box for nid, box in _all_node_boxes(svg).items() if not nid.startswith(BADGE_PREFIX)}


def badge_rooms(svg):
    """Node id -> the box ``dot`` kept empty beside it for its badge (see :func:`tapeviz.viz.dot.badge_room`)."""
    return {nid[len(BADGE_PREFIX) :]: box for nid, box in _all_node_boxes(svg).items() if nid.startswith(BADGE_PREFIX)}


def _all_node_boxes(svg):
    boxes = {}
    for match in re.finditer(r'<g id="([^"]+)" class="node">(.*?)</g>', svg, re.S):
        nid, body = match.group(1), match.group(2)
        xs, ys = [], []
        for pts in re.findall(r'points="([^"]+)"', body):
            for pair in pts.split():
                x, y = pair.split(",")
                xs.append(float(x))
                ys.append(float(y))
        for cx, cy, rx, ry in re.findall(rf'cx="({_NUM})" cy="({_NUM})" rx="({_NUM})" ry="({_NUM})"', body):
            xs += [float(cx) - float(rx), float(cx) + float(rx)]
            ys += [float(cy) - float(ry), float(cy) + float(ry)]
        for d in re.findall(r' d="([^"]+)"', body):
            nums = [float(n) for n in re.findall(_NUM, d)]
            xs += nums[0::2]
            ys += nums[1::2]
        if xs:
            boxes[nid] = (min(xs), min(ys), max(xs), max(ys))
    return boxes


def cluster_label_boxes(svg):
    """Boxes of the tapes' frame labels (``tape1 · used, released``), estimated from graphviz's <text>."""
    boxes = []
    for match in re.finditer(r'<g id="[^"]+" class="cluster">(.*?)</g>', svg, re.S):
        for attrs, content in re.findall(r"<text([^>]*)>([^<]*)</text>", match.group(1)):
            x, y = (re.search(rf' {k}="({_NUM})"', attrs) for k in ("x", "y"))
            size = re.search(rf'font-size="({_NUM})"', attrs)
            if not (x and y and size):
                continue
            x, y, size = float(x.group(1)), float(y.group(1)), float(size.group(1))
            width = 0.62 * size * len(content.strip())
            anchor = re.search(r'text-anchor="(\w+)"', attrs)
            left = {"middle": x - width / 2, "end": x - width}.get(anchor.group(1) if anchor else "", x)
            boxes.append((left, y - 0.85 * size, left + width, y + 0.25 * size))
    return boxes


def edge_paths(svg):
    """Edge id -> points along its drawn curve (tail at the source node first), from graphviz's SVG.

    Graphviz writes an edge as cubic Bézier segments (``M p0 C p1 p2 p3 ...``); their control points stray
    from the curve, so a line through them would zig-zag off the edge (and through a label placed by the
    curve). Each segment is sampled on the curve instead (:data:`CURVE_SAMPLES` points), so the flowing
    gradient drawn over an edge, and the places found for labels, follow what the reader sees.
    """
    paths = {}
    for match in re.finditer(r'<g id="(e\d+)" class="edge">(.*?)</g>', svg, re.S):
        found = re.search(r' d="([^"]+)"', match.group(2))
        if found:
            nums = [float(n) for n in re.findall(_NUM, found.group(1))]
            points = list(zip(nums[0::2], nums[1::2]))
            curved = "C" in found.group(1) and len(points) >= 4 and (len(points) - 1) % 3 == 0
            paths[match.group(1)] = on_curve(points) if curved else points
    return paths


CURVE_SAMPLES = 8  # points per Bézier segment: within a fraction of a point of the curve at these sizes


def on_curve(points):
    """Points along the cubic Bézier segments ``p0 (p1 p2 p3) (p4 p5 p6) ...``: their ends, and samples between."""
    out = [(round(points[0][0], 2), round(points[0][1], 2))]
    for k in range(0, len(points) - 1, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[k : k + 4]
        for i in range(1, CURVE_SAMPLES + 1):
            t = i / CURVE_SAMPLES
            a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3
            out.append((round(a * x0 + b * x1 + c * x2 + d * x3, 2), round(a * y0 + b * y1 + c * y2 + d * y3, 2)))
    return out


def badge_lines(label):
    """The lines a badge is written on (a long one has two: what it is, then its value)."""
    return label.split("\n")


def _badge_width(label):
    return 6.2 * max(len(line) for line in badge_lines(label)) + 8


BADGE_H = 16  # a badge of one line
BADGE_LINE_H = 13  # each further line


def badge_height(label):
    return BADGE_H + BADGE_LINE_H * (len(badge_lines(label)) - 1)


_GAP = 3


def _overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def badge_widths(frames):
    """Node id -> the width of its widest badge over all ``frames`` (a badge keeps one size on every frame)."""
    widths = {}
    for frame in frames:
        for nid, label in frame.get("set", {}).items():
            widths[nid] = max(widths.get(nid, 0.0), _badge_width(label))
    return widths


def even_badges(frames):
    """``frames`` with every badge of a node on as many lines as its tallest: where one needs two (what it is,
    then its value), its one-line badges are split the same way (``gets`` over ``[[0.04, 0.64]]``), so a
    node's badge keeps one height on every frame and sits against its node in the one place kept for it."""
    tall = {nid for frame in frames for nid, label in frame.get("set", {}).items() if "\n" in label}
    if not tall:
        return frames
    evened = []
    for frame in frames:
        badges = frame.get("set", {})
        if tall & badges.keys():
            badges = {nid: _two_lines(label) if nid in tall else label for nid, label in badges.items()}
            frame = dict(frame, set=badges)
        evened.append(frame)
    return evened


def _two_lines(label):
    if "\n" in label:
        return label
    head, sep, value = label.partition(" = ")
    if not sep:
        head, sep, value = label.partition(" ")
        return f"{head}\n{value}" if sep else label
    return f"{head} =\n{value}"


def badge_heights(frames):
    """Node id -> the height of its tallest badge over all ``frames``."""
    heights = {}
    for frame in frames:
        for nid, label in frame.get("set", {}).items():
            heights[nid] = max(heights.get(nid, 0.0), badge_height(label))
    return heights


def edge_label_widths(frames):
    """Edge id -> the width of the widest gradient label it carries on any frame."""
    widths = {}
    for frame in frames:
        for eid, label in frame.get("edges", {}).items():
            widths[eid] = max(widths.get(eid, 0.0), _edge_label_width(label))
    return widths


def _edge_label_width(label):
    return 6.0 * len(label) + 6


EDGE_LABEL_H = 13


def badge_spots(svg, boxes, frames, paths=None):
    """Node id -> (x, y): the top-left corner of its gradient badge, the same on every frame.

    A badge sits just right of its node, in the room ``dot`` kept there (:func:`badge_rooms`), pulled
    close to the node when no edge, node or other badge is in the gap, so it reads as the node's. A node
    with no room (a layout made without one) gets the first free place beside it. Placed once, so a badge
    never jumps between frames and every renderer (this module, the kernel-free page, the GIF) draws it in
    one place.
    """
    widths = {nid: w for nid, w in badge_widths(frames).items() if nid in boxes}
    heights = badge_heights(frames)
    rooms = badge_rooms(svg)
    edges = EdgeSamples((paths or edge_paths(svg)).values())
    taken = list(boxes.values()) + cluster_label_boxes(svg) + arrow_zones(paths or edge_paths(svg))
    spots = {}
    for nid in sorted(widths, key=lambda n: (n not in rooms, boxes[n][1], boxes[n][0], n)):
        w, h = widths[nid], heights[nid]
        tries = _room_tries(boxes[nid], rooms[nid], w, h) if nid in rooms else _beside(svg, boxes[nid], w, h)
        spot = tries[-1] if nid in rooms else tries[0]  # the room itself: dot kept it free
        for x, y in tries:
            rect = (x, y, x + w, y + h)
            if not any(_overlaps(rect, other) for other in taken) and not _on_an_edge(rect, edges):
                spot = (x, y)
                break
        spots[nid] = spot
        taken.append((spot[0], spot[1], spot[0] + w, spot[1] + h))
    return spots, widths


NEAR = 12.0  # points: a badge further from its node, or as near another node, does not read as its node's


def stray_badges(boxes, spots, widths, heights):
    """The node ids whose badge (placed at ``spots``) does not read as theirs: more than :data:`NEAR` pt from
    its node, or as near another node."""

    ids = list(boxes)
    all_boxes = np.asarray([boxes[n] for n in ids], dtype=float).reshape(-1, 4)

    def gaps(badge):  # the distance from ``badge`` to every node's box, at once
        dx = np.maximum(0.0, np.maximum(all_boxes[:, 0] - badge[2], badge[0] - all_boxes[:, 2]))
        dy = np.maximum(0.0, np.maximum(all_boxes[:, 1] - badge[3], badge[1] - all_boxes[:, 3]))
        return np.hypot(dx, dy)

    strays = []
    for nid, width in sorted(widths.items()):
        if nid not in spots or spots[nid] is None or nid not in boxes:
            continue
        x, y = spots[nid]
        distances = gaps((x, y, x + width, y + heights.get(nid, BADGE_H)))
        mine = ids.index(nid)
        own = distances[mine]
        if own > NEAR or (np.delete(distances, mine) <= own).any():
            strays.append(nid)
    return strays


def arrow_zones(paths, length=15.0):
    """Boxes around both ends of every edge, where a flowing edge's arrowhead (``length`` pt long and as wide)
    is drawn on some frame, whichever way the edge leaves its node."""
    reach = length / 2 * 2**0.5 + 0.5  # the triangle turned 45 degrees: its box's half size around its middle
    zones = []
    for points in paths.values():
        for end, rest in ((points[0], points[1:]), (points[-1], points[-2::-1])):
            other = next((q for q in rest if q != end), None)
            if other is None:
                continue
            step = np.hypot(other[0] - end[0], other[1] - end[1])
            cx = end[0] + (other[0] - end[0]) / step * length / 2
            cy = end[1] + (other[1] - end[1]) / step * length / 2
            zones.append((cx - reach, cy - reach, cx + reach, cy + reach))
    return zones


def _room_tries(node, room, width, height):
    """Where a badge ``width`` x ``height`` pt may sit: against its node on the room's side first, then steps
    towards the room, then the room itself (right of the node with rankdir TB; above or below it with LR, where
    a rank is a column, and above a variable in a picture too wide for a notebook: centred on the node there,
    within the room)."""
    x0, y0, x1, y1 = node
    centred = max(room[0], min((x0 + x1) / 2 - width / 2, room[2] - width))
    if room[0] >= x1 - 1:  # right of the node
        mid = (y0 + y1) / 2 - height / 2
        near, far = (x1 + _GAP + 2, mid), (room[0], mid)
    elif room[3] <= y0 + 1:  # above it
        near, far = (centred, y0 - _GAP - height), (centred, room[1])
    else:  # below it
        near, far = (centred, y1 + _GAP), (centred, room[1])
    return [(near[0] + (far[0] - near[0]) * k / 4, near[1] + (far[1] - near[1]) * k / 4) for k in range(5)] + [
        (room[0], room[1])
    ]


def _beside(svg, box, w, h=BADGE_H):
    """Places beside a node with no room kept for its badge: right, below, above, left, then further out."""
    x0, y0, x1, y1 = box
    mid = (y0 + y1) / 2 - h / 2
    _, height = size(svg)
    dx, dy = svg_translate(svg)
    top, bottom, left = -dy + 2, height - dy - 2, -dx + 2  # the picture's edges in graph coordinates
    tries = [
        (x1 + _GAP, mid),
        (x1 + _GAP, y1 - h),
        (x1 + _GAP, y0),
        (x0, y1 + _GAP),
        (x0, y0 - h - _GAP),
        (x0 - _GAP - w, mid),
    ]
    tries += [(x1 + _GAP, mid + k * (h + 2)) for n in range(1, 12) for k in (n, -n)]
    tries += [(x1 + _GAP + k * 40, mid) for k in range(1, 20)]
    return [(x, y) for x, y in tries if x >= left and y >= top and y + h <= bottom] or tries[:1]


class EdgeSamples:
    """Points sampled along every edge once (as :func:`_crosses` samples one), sorted by x, so asking whether a
    label's box lies on some edge looks only at the points in its x range: placing a few hundred labels
    against a few hundred edges costs milliseconds, not the seconds of testing each box against each edge."""

    def __init__(self, paths):
        chunks = [_samples(np.asarray(points, dtype=float)) for points in paths if len(points) > 1]
        points = np.concatenate(chunks) if chunks else np.zeros((0, 2))
        order = np.argsort(points[:, 0], kind="stable")
        self.xs, self.ys = points[order, 0], points[order, 1]

    def hit(self, rect, pad):
        """True when a sampled point lies strictly inside ``rect`` grown by ``pad``."""
        lo = np.searchsorted(self.xs, rect[0] - pad, side="right")
        hi = np.searchsorted(self.xs, rect[2] + pad, side="left")
        ys = self.ys[lo:hi]
        return bool(((ys > rect[1] - pad) & (ys < rect[3] + pad)).any())


def _on_an_edge(rect, edges, pad=1.0):
    """True when ``rect`` lies on one of ``edges`` (an :class:`EdgeSamples`)."""
    return edges.hit(rect, pad)


def edge_label_spots(boxes, paths, frames, badges, svg=None):
    """Edge id -> (x, y): the top-left corner of the gradient label an edge carries, the same on every frame.

    Beside the edge near its middle (right, then left, level with it, above or below), moving along the
    edge until the label keeps clear of every node, badge, tape label and other edge label (by ``_CLEAR``
    pt: a label touching a node reads as on it), and crosses no edge and no tape's frame; failing that, the
    first such place that crosses only a tape's frame (a short edge into a tape: next to its edge beats
    tidy but far, where it reads as another edge's); failing that, the same further out from a short
    edge's middle, then the first clear place. Never past the picture's left, top or bottom edge. Where
    no place near the edge is clear, the edge gets None: no label (covering a value would hide it; the
    step's card still shows the gradient sent along the edge).
    """
    taken = list(boxes.values()) + list(badges) + (cluster_label_boxes(svg) if svg else [])
    frames_ = cluster_boxes(svg) if svg else []
    lines = EdgeSamples(paths.values())
    inside = _within_picture(svg)
    spots = {}
    for eid, w in sorted(edge_label_widths(frames).items()):
        points = paths.get(eid)
        if not points:
            continue
        near = []
        for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8):
            x, y = _along(points, t)
            for dy in (-7, -EDGE_LABEL_H - 2, 2):
                near += [(x + 3, y + dy), (x - 3 - w, y + dy)]
        far = []
        x, y = _along(points, 0.5)
        for k in range(1, 8):  # a short edge between close nodes: further out sideways, then up and down
            far += [(x + 3 + 12 * k, y - 7), (x - 3 - w - 12 * k, y - 7)]
            far += [(x + 3, y - 7 + s * (EDGE_LABEL_H + 2) * k) for s in (-1, 1)]
            far += [(x + 3 + 12 * k, y - 7 + s * (EDGE_LABEL_H + 2) * k) for s in (-1, 1)]
            far += [(x - 3 - w - 12 * k, y - 7 + s * (EDGE_LABEL_H + 2) * k) for s in (-1, 1)]
        spot, first_clear = None, None
        for tier in (near, far):
            rects = [(x, y, x + w, y + EDGE_LABEL_H) for x, y in tier]
            rects = [r for r in rects if inside(r)]  # never cut off by the picture's edge (the right one widens)
            clear = [r for r, free in zip(rects, _clear_of(rects, taken, _CLEAR)) if free]
            first_clear = first_clear or (clear[0] if clear else None)
            for r in (r for r in clear if not _on_an_edge(r, lines)):
                spot = spot or r  # the first off every edge
                if not any(_across(r, f) for f in frames_):
                    spot = r  # the first tidy one: off every edge and every tape's frame
                    break
            if spot is not None:
                break
        spot = spot or first_clear
        if spot is None:
            spots[eid] = None
            continue
        spot = spot[:2]
        spots[eid] = spot
        taken.append((spot[0], spot[1], spot[0] + w, spot[1] + EDGE_LABEL_H))
    return spots


_CLEAR = 2.0


def _within_picture(svg):
    """A test: is a rect (graph coordinates) inside the picture's left, top and bottom edges? Always, without one."""
    if not svg:
        return lambda rect: True
    _, height = size(svg)
    dx, dy = svg_translate(svg)
    left, top, bottom = -dx + 1, -dy + 1, height - dy - 1
    return lambda rect: rect[0] >= left and rect[1] >= top and rect[3] <= bottom


def _clear_of(rects, taken, pad):
    """For each of ``rects``: True when, grown by ``pad``, it overlaps none of ``taken`` (all pairs at once)."""
    if not taken:
        return [True] * len(rects)
    r = np.asarray(rects, dtype=float)[:, None, :]
    t = np.asarray(taken, dtype=float)[None, :, :]
    hit = (r[..., 0] - pad < t[..., 2]) & (t[..., 0] < r[..., 2] + pad)
    hit &= (r[..., 1] - pad < t[..., 3]) & (t[..., 1] < r[..., 3] + pad)
    return list(~hit.any(axis=1))


def _grown(rect, pad):
    return rect[0] - pad, rect[1] - pad, rect[2] + pad, rect[3] + pad


def cluster_boxes(svg):
    """Boxes of the tapes' frames (graphviz's clusters that draw one)."""
    boxes = []
    for match in re.finditer(r'<g id="[^"]+" class="cluster">(.*?)</g>', svg, re.S):
        xs, ys = [], []
        for shape in re.findall(r"<(?:polygon|path)[^>]*>", match.group(1)):
            if 'stroke="none"' in shape or 'stroke="transparent"' in shape:
                continue
            found = re.search(r' (?:points|d)="([^"]+)"', shape)
            nums = [float(n) for n in re.findall(_NUM, found.group(1))] if found else []
            xs += nums[0::2]
            ys += nums[1::2]
        if xs:
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
    return boxes


def _across(rect, frame):
    """True when ``rect`` lies on the border of ``frame`` (partly inside, partly out)."""
    inside = frame[0] <= rect[0] and rect[2] <= frame[2] and frame[1] <= rect[1] and rect[3] <= frame[3]
    return _overlaps(rect, frame) and not inside


def _edge_label_at(points):
    """Where an edge's label goes when no place was chosen for it: right of the edge's middle."""
    x, y = _along(points, 0.5)
    return x + 3, y - 7


def _along(points, t):
    """The point a fraction ``t`` of the way along the polyline through ``points``."""
    pts = np.asarray(points, dtype=float)
    steps = np.hypot(*np.diff(pts, axis=0).T)
    goal, walked = t * steps.sum(), 0.0
    for (a, b), step in zip(zip(pts, pts[1:]), steps):
        if walked + step >= goal and step > 0:
            u = (goal - walked) / step
            return float(a[0] + (b[0] - a[0]) * u), float(a[1] + (b[1] - a[1]) * u)
        walked += step
    return float(pts[-1][0]), float(pts[-1][1])


def _crosses(points, boxes, pad=2.0):
    """True when the polyline through ``points`` passes through any of ``boxes`` (an (n, 4) array, grown by ``pad``).

    Sampled densely along each segment and tested against every box at once (NumPy), which is plenty at this scale.
    """
    if not len(boxes):
        return False
    samples = _samples(np.asarray(points, dtype=float))
    x, y = samples[:, :1], samples[:, 1:]
    inside = (x > boxes[:, 0] - pad) & (x < boxes[:, 2] + pad) & (y > boxes[:, 1] - pad) & (y < boxes[:, 3] + pad)
    return bool(inside.any())


_STEPS = np.linspace(0.0, 1.0, 12, endpoint=False)[1:, None, None]


def _samples(pts):
    """Points along each segment of the polyline ``pts`` (an (n, 2) array), 11 per segment, ends left out."""
    return (pts[:-1] + (pts[1:] - pts[:-1]) * _STEPS).reshape(-1, 2)


def _curve(p, q, bend):
    """Points along a quadratic curve from p to q whose middle is pushed ``bend`` pt sideways."""
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    length = max(1e-6, ((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5)
    nx, ny = -(q[1] - p[1]) / length, (q[0] - p[0]) / length
    cx, cy = mx + 2 * bend * nx, my + 2 * bend * ny  # the control point: the curve's middle moves by ``bend``
    points = []
    for i in range(17):
        t = i / 16
        points.append(
            (
                (1 - t) ** 2 * p[0] + 2 * (1 - t) * t * cx + t**2 * q[0],
                (1 - t) ** 2 * p[1] + 2 * (1 - t) * t * cy + t**2 * q[1],
            )
        )
    return points


def link_routes(boxes, links, labels=()):
    """[(backward, forward, points)]: each dotted link as a line from one node's edge to the other's,
    bent around every other node it would cross (a straight line first, then curves bending further
    left and right), so a link never runs through an op it does not connect; and, where a bend allows,
    around ``labels`` too ((x0, y0, x1, y1) of the badges and edge labels drawn on the picture), so its
    dots never run through a number."""
    routes = []
    written = np.array(list(labels), dtype=float).reshape(-1, 4)
    bends = [0] + [sign * step * 30 for step in range(1, 12) for sign in (1, -1)]
    for backward, forward in links:
        if backward not in boxes or forward not in boxes:
            continue
        p, q = box_centre(boxes[backward]), box_centre(boxes[forward])
        others = np.array([b for n, b in boxes.items() if n not in (backward, forward)], dtype=float).reshape(-1, 4)
        clear = np.concatenate([others, written])
        curves = [_curve(p, q, bend) for bend in bends]
        best = next((c for c in curves if not _crosses(c, clear)), None)
        best = best or next((c for c in curves if not _crosses(c, others)), None)
        points = best or _curve(p, q, 60)
        # start and end at the nodes' borders, not their centres: the dots stay off the labels
        trimmed = [pt for pt in points if not _inside(pt, boxes[backward]) and not _inside(pt, boxes[forward])]
        points = trimmed if len(trimmed) >= 2 else points
        routes.append((backward, forward, [(round(x, 1), round(y, 1)) for x, y in points]))
    return routes


def _inside(point, box):
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def badge_overhang(svg, spots, widths):
    """How far (pt) the badges reach past the picture's right edge."""
    width, _ = size(svg)
    dx, _ = svg_translate(svg)
    reach = max((dx + spot[0] + widths[n] for n, spot in spots.items() if spot is not None), default=0.0)
    return max(0.0, reach - width + 4)


def widen(svg, extra):
    """``svg`` with ``extra`` points of blank space added on the right (width and viewBox)."""
    if extra <= 0:
        return svg
    width, height = size(svg)
    svg = re.sub(rf'width="{_NUM}pt"', f'width="{width + extra:.2f}pt"', svg, count=1)
    return re.sub(
        rf'viewBox="({_NUM}) ({_NUM}) ({_NUM}) ({_NUM})"',
        lambda m: f'viewBox="{m.group(1)} {m.group(2)} {float(m.group(3)) + extra:.2f} {m.group(4)}"',
        svg,
        count=1,
    )


def size(svg):
    width = float(re.search(rf'width="({_NUM})pt"', svg).group(1))
    height = float(re.search(rf'height="({_NUM})pt"', svg).group(1))
    return width, height


def svg_translate(svg):
    match = re.search(
        rf'class="graph" transform="scale\(({_NUM}) ({_NUM})\) rotate\(0\) translate\(({_NUM}) ({_NUM})\)"', svg
    )
    return (float(match.group(3)), float(match.group(4))) if match else (4.0, 0.0)


FIT_STYLE = "max-width:100%;height:auto"


def fit_width(svg):
    """``svg`` drawn no wider than the box it is shown in: scaled down to that width (never up), its
    proportions kept, so at "fit" a wide picture (a model's training step) shows whole at a notebook's width,
    every badge included, instead of running past the right edge."""
    return re.sub(r"<svg\b", f'<svg style="{FIT_STYLE}"', svg, count=1)


def zoomed(svg, box, zoom):
    """The picture cropped to 1/zoom of its size around ``box`` (the highlighted node), same display size."""
    width, height = size(svg)
    dx, dy = svg_translate(svg)
    w, h = width / zoom, height / zoom
    if box is None:
        cx, cy = width / 2, height / 2
    else:
        cx, cy = dx + (box[0] + box[2]) / 2, dy + (box[1] + box[3]) / 2
    x0 = min(max(0.0, cx - w / 2), width - w)
    y0 = min(max(0.0, cy - h / 2), height - h)
    return re.sub(
        rf'viewBox="{_NUM} {_NUM} {_NUM} {_NUM}"', f'viewBox="{x0:.1f} {y0:.1f} {w:.1f} {h:.1f}"', svg, count=1
    )


# -- drawing one frame's state -----------------------------------------------------------------


def _defs(style):
    """The arrowhead on a flowing edge: at its tail for gradients (they flow back), at its head for tangents."""
    orient = "auto" if style["forward"] else "auto-start-reverse"
    ref = 10  # the tip on the edge's end (reversed at the tail for gradients): at the node's border, off its text
    return (
        f'<defs><marker id="{_marker(style)}" viewBox="0 0 10 10" refX="{ref}" refY="5" markerWidth="5" '
        f'markerHeight="5" orient="{orient}"><path d="M0,0 L10,5 L0,10 z" fill="{style["flow"]}"/></marker></defs>'
    )


def _marker(style):
    return "tv-ahead" if style["forward"] else "tv-back"


def box_centre(box):
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _overlay(boxes, frame, badges, edges, paths, links, style=REVERSE_STYLE, spots=None):
    spots = spots or {}
    parts = ['<g class="tapeviz-overlay">', _defs(style)]
    flow, end = style["flow"], ("marker-end" if style["forward"] else "marker-start")
    for _backward, _forward, points in links:  # routes: see link_routes
        d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(
            f'<path class="tv-link" d="{d}" fill="none" stroke="{LINK}" stroke-width="1.5" stroke-dasharray="2,3"/>'
        )
    hidden = set(frame.get("hidden", ()))
    for nid in hidden:
        if nid in boxes:
            x0, y0, x1, y1 = boxes[nid]
            parts.append(
                f'<rect x="{x0 - 2:.1f}" y="{y0 - 2:.1f}" width="{x1 - x0 + 4:.1f}" '
                f'height="{y1 - y0 + 4:.1f}" fill="white" fill-opacity="0.9"/>'
            )
    for eid in frame.get("flow", ()):
        points = paths.get(eid)
        if points:
            d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(
                f'<path class="tv-flow" d="{d}" fill="none" stroke="{flow}" stroke-width="3" '
                f'{end}="url(#{_marker(style)})"/>'
            )
    for eid in sorted(edges):
        points = paths.get(eid)
        if points and not (eid in spots and spots[eid] is None):  # None: no clear place for its label
            label = edges[eid]
            x, y = spots.get(eid) or _edge_label_at(points)
            parts.append(
                f'<g class="tv-edge-grad"><rect x="{x:.1f}" y="{y:.1f}" width="{_edge_label_width(label):.1f}" '
                f'height="{EDGE_LABEL_H}" rx="3" fill="white" fill-opacity="0.85"/><text x="{x + 3:.1f}" '
                f'y="{y + 10:.1f}" '
                f'font-family="Helvetica,Arial,sans-serif" font-size="10" fill="{flow}">'
                f"{fmt.html_text(label)}</text></g>"
            )
    node = frame.get("node")
    if node in boxes:
        x0, y0, x1, y1 = boxes[node]
        parts.append(
            f'<rect x="{x0 - 4:.1f}" y="{y0 - 4:.1f}" width="{x1 - x0 + 8:.1f}" height="{y1 - y0 + 8:.1f}" '
            f'rx="6" fill="none" stroke="{HIGHLIGHT}" stroke-width="4"/>'
        )
    for nid in sorted(badges):
        if nid not in boxes or nid in hidden:
            continue
        label = badges[nid]
        x, y = spots.get(nid) or (boxes[nid][2] + _GAP, boxes[nid][3] - BADGE_H)
        lines = "".join(
            f'<text x="{x + 4:.1f}" y="{y + 12 + BADGE_LINE_H * row:.1f}" font-family="Helvetica,Arial,sans-serif" '
            f'font-size="11" fill="{style["badge_text"]}">{fmt.html_text(line)}</text>'
            for row, line in enumerate(badge_lines(label))
        )
        parts.append(
            f'<g class="tv-badge" data-node="{nid}"><rect x="{x:.1f}" y="{y:.1f}" width="{_badge_width(label):.1f}" '
            f'height="{badge_height(label)}" rx="4" fill="{style["badge"]}" stroke="{style["badge_edge"]}" '
            f'stroke-width="1"/>{lines}</g>'
        )
    parts.append("</g>")
    return "".join(parts)


LINE_H = 15


def frame_svg(base, boxes, frame, caption=True, badges=None, edges=None, paths=None, links=(), style=None, spots=None):
    """One frame as a standalone SVG: caption and card on top, the graph with the frame's state below."""
    if badges is None:
        badges, edges = frame.get("set", {}), frame.get("edges", {})
    width, height = size(base)
    close = base.rfind("</g>")
    graph = (
        base[:close]
        + _overlay(boxes, frame, badges, edges or {}, paths or {}, links, style or REVERSE_STYLE, spots)
        + base[close:]
    )
    if not caption:
        return graph
    lines = [f"step {frame['index']}: {frame['caption']}"] + cards.text(frame.get("card"))
    top = 8 + LINE_H * len(lines)
    graph = re.sub(
        r'<svg width="[^"]+" height="[^"]+"',
        f'<svg x="0" y="{top}" width="{width}" height="{height}"',  # user units: the outer viewBox's
        graph,
        count=1,
    )
    total_w, total_h = max(width, 560), height + top + 10
    text = "".join(
        f'<text x="6" y="{14 + LINE_H * i}" font-family="Helvetica,Arial,sans-serif" font-size="12"'
        f">{fmt.html_text(line)}</text>"
        for i, line in enumerate(lines)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}pt" height="{total_h:.0f}pt" '
        f'viewBox="0 0 {total_w:.0f} {total_h:.0f}">'
        f'<rect width="100%" height="100%" fill="white"/>{text}{graph}</svg>'
    )


# -- the kernel-free HTML player ------------------------------------------------------------------
