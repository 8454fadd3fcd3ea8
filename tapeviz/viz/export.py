"""Frames -> files: SVG frames, a self-contained HTML player, an animated GIF.

One layout, many states: the graph is laid out once by ``dot`` (with no
gradients on it), and each frame draws its state on top of that picture: a
highlight around the current node, gradient badges beside the nodes that
have one (``dy/dx = 6``), the gradients on the edges they flowed along
(against the arrows), dotted links from backward ops to the forward op they
differentiate (nested tapes), hidden nodes (the recording animation), and a
caption with the chain-rule card.

Frames are deltas (see :mod:`tapeviz.viz.frames`): the HTML file embeds the
SVG once, the deltas as JSON and a few lines of script that replay them: no
kernel, no network, and a 2,000-step sweep stays a few hundred kilobytes.
Captions, cards and badges are set with ``textContent``, and the JSON is
escaped for ``<script>``, so user text never becomes markup. The GIF is
written frame by frame from a generator (Pillow is imported only there).
"""

import json
import re

import numpy as np

from tapeviz.core import nest
from tapeviz.core.forward import ForwardAccumulator
from tapeviz.viz import card as cards
from tapeviz.viz import dot as dotmod
from tapeviz.viz import format as fmt
from tapeviz.viz import frames as framing
from tapeviz.viz import legend as legends
from tapeviz.viz import names as naming
from tapeviz.viz import render, tangent_card
from tapeviz.viz import tangents as tangent_frames
from tapeviz.viz.gif import GifWriter
from tapeviz.viz.trace import Trace, trace_of

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
    "ask": "upstream \u00d7 local",
}
FORWARD_STYLE = {
    "flow": "#2563eb",
    "badge": "#dbeafe",
    "badge_edge": "#1d4ed8",
    "badge_text": "#1e3a8a",
    "forward": True,
    "ask": "the output's tangent",
}
_NUM = r"-?\d+(?:\.\d+)?"


class Animation:
    """Frames plus the one laid-out picture they are drawn on.

    ``tape``: play that tape's own sweeps (a tape passed as ``trace`` is used
    for this too, so ``player(inner_tape)`` plays the inner sweep).
    ``mode``: "sweep" (the reverse sweep), "record" (the recording) or
    "forward" (forward mode: ``primals`` and their ``tangents``, or a
    ``tf.autodiff.ForwardAccumulator`` passed as ``trace``, which gives both).
    ``sweep``: "last", "all" (e.g. the first-order then the second-order
    sweep), an index or an id. ``rankdir``: "TB" or "LR" (long chains read
    better left to right). ``internals``: show the variable reads' own steps.
    Other options go to :func:`tapeviz.viz.view.build` (``fold``, ``open``,
    ``max_nodes``...).
    """

    def __init__(
        self,
        trace,
        mode="sweep",
        sweep="last",
        title=None,
        tape=None,
        rankdir="TB",
        internals=False,
        names=None,
        primals=None,
        tangents=None,
        **options,
    ):
        who = None
        if isinstance(trace, ForwardAccumulator):  # forward mode: the accumulator knows its primals and tangents
            accumulator, mode = trace, "forward"
            trace, tape = accumulator.tape, accumulator.tape
            primals = accumulator.primals if primals is None else primals
            tangents = accumulator.tangents if tangents is None else tangents
            who = naming.by_identity({0: accumulator}, naming.namespace(2)).get(0, "ForwardAccumulator")
        if tape is None and not isinstance(trace, Trace) and hasattr(trace, "serial"):
            tape = trace
        self.trace = trace_of(trace)
        self.names = naming.lookup(self.trace) if names is None else dict(names)
        if who is not None:  # the accumulator's tape is drawn under the accumulator's name
            tape_id = {s: t for t, s in naming.tape_serials(self.trace).items()}.get(tape.serial)
            self.names.setdefault(tape_id, f"{who}'s tape")
        self.style = FORWARD_STYLE if mode == "forward" else REVERSE_STYLE
        if mode == "forward":
            primals, tangents = _primals_and_tangents(self.trace, tape, primals, tangents)
            self.frames, self.view, self.tangents = tangent_frames.forward_frames(
                self.trace, primals, tangents, tape=tape, internals=internals, names=self.names, who=who, **options
            )
            self.links = []
        elif mode == "sweep":
            self.frames, self.view = framing.sweep_frames(
                self.trace, sweep=sweep, tape=tape, internals=internals, names=self.names, **options
            )
            swept = {f["sweep"] for f in self.frames}
            self.links = framing.backward_links(self.trace.data, self.view, swept)
        else:
            self.frames, self.view = framing.recording_frames(self.trace, **options)
            self.links = []
        if mode != "forward":
            self.tangents = {}
        self.mode = mode
        self.rankdir = rankdir
        source = dotmod.write(self.view, naming.relabel(self.trace.data, self.names), title)
        if rankdir != "TB":
            source = source.replace("rankdir=TB", f"rankdir={rankdir}", 1)
        self.dot = source
        self._svg = None
        self._boxes = None
        self._paths = None

    @property
    def base_svg(self):
        """The laid-out picture, widened so every frame's gradient badges fit."""
        if self._svg is None:
            svg = render.svg(self.dot)
            self._boxes = node_boxes(svg)
            self._paths = edge_paths(svg)
            self._svg = _widen(svg, _badge_overhang(svg, self._boxes, self.frames))
        return self._svg

    @property
    def boxes(self):
        """Node id -> (x0, y0, x1, y1) in the SVG's graph coordinates."""
        if self._boxes is None:
            self.base_svg  # noqa: B018 - lays the picture out and measures its nodes
        return self._boxes

    @property
    def paths(self):
        """Edge id -> list of (x, y) points along it, in graph coordinates (tail first)."""
        if self._paths is None:
            self.base_svg  # noqa: B018
        return self._paths

    def state(self, index):
        """(badges, edge labels) shown on frame ``index``."""
        return framing.state_at(self.frames, index)

    def states(self):
        """(frame, badges, edge labels) for every frame, replaying the deltas once."""
        badges, edges = {}, {}
        for frame in self.frames:
            if frame.get("clear"):
                badges, edges = {}, {}
            badges.update(frame.get("set", {}))
            edges.update(frame.get("edges", {}))
            yield frame, badges, edges

    def frame_svg(self, index, caption=True, zoom=1.0):
        """Frame ``index`` as SVG; ``caption=False`` leaves caption and card to the caller (the player).
        ``zoom`` > 1 shows that much of the picture around the highlighted node."""
        badges, edges = self.state(index)
        return self._draw(self.frames[index], badges, edges, caption, zoom)

    def _draw(self, frame, badges, edges, caption=True, zoom=1.0):
        svg = frame_svg(
            self.base_svg,
            self.boxes,
            frame,
            caption,
            badges=badges,
            edges=edges,
            paths=self.paths,
            links=self.links,
            style=self.style,
        )
        return _zoomed(svg, self.boxes.get(frame.get("node")), zoom) if zoom > 1 and not caption else svg

    def svg_frames(self):
        return [self._draw(frame, badges, edges) for frame, badges, edges in self.states()]

    def legend_html(self):
        return legends.html(
            legends.entries(self.view, self.frames, self.links, self.trace.data, forward=self.style["forward"])
        )

    def to_html(self, title="tapeviz"):
        return html_player(self, title)

    def save_html(self, path, title="tapeviz"):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(self.to_html(title))
        return path

    def save_svg_frames(self, prefix):
        paths = []
        for i, (frame, badges, edges) in enumerate(self.states()):
            path = f"{prefix}{i:03d}.svg"
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(self._draw(frame, badges, edges))
            paths.append(path)
        return paths

    def save_gif(self, path, duration_ms=900):
        return save_gif(self, path, duration_ms)


def _primals_and_tangents(trace, tape, primals, tangents):
    """(primals, tangents) as two lists, one tangent per primal; a tape's watched tensors by default."""
    if tangents is None:
        raise ValueError(
            "Forward mode needs a direction: pass tangents=... (one per primal, each of its "
            "primal's shape), or pass a tf.autodiff.ForwardAccumulator to the player."
        )
    if primals is None:
        tape_id = {s: t for t, s in naming.tape_serials(trace).items()}.get(tape.serial) if tape is not None else None
        primals = tangent_frames.default_primals(trace.data, tape_id) if tape_id is not None else []
        shapes = [tuple(trace.data["tensors"][t]["shape"]) for t in primals]
    else:
        primals = nest.flatten(primals)
        shapes = [tuple(p.shape) if hasattr(p, "shape") else tuple(trace.data["tensors"][p]["shape"]) for p in primals]
    # One tangent per primal: a list is a list of tangents, unless it is the one primal's own shape.
    if not isinstance(tangents, (list, tuple)) or (len(shapes) == 1 and shapes[0] and _shape(tangents) == shapes[0]):
        tangents = [tangents]
    tangents = list(tangents)
    if len(primals) != len(tangents):
        if not primals:
            raise ValueError("No primals: pass primals=[...], the tensors or variables the tangents move.")
        watched = [str(p) if isinstance(p, str) else getattr(p, "name", None) or "a tensor" for p in primals]
        if all(isinstance(p, str) for p in primals):
            watched = [trace.data["tensors"][p]["name"] or p for p in primals]
        raise ValueError(
            f"{len(primals)} primals ({', '.join(watched)}) but {len(tangents)} tangents were given: "
            "give one tangent per primal, and pass primals=[...] to say which ones move."
        )
    return primals, tangents


def _shape(value):
    """The shape of a nested list of numbers, or None for anything else (a list of tensors of several shapes)."""
    try:
        return np.shape(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError):
        return None


# -- reading graphviz's SVG -------------------------------------------------------------------


def node_boxes(svg):
    """Bounding boxes of the ``<g id=... class="node">`` groups of a graphviz SVG."""
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


def edge_paths(svg):
    """Edge id -> the points of its spline (tail at the source node first), from graphviz's SVG."""
    paths = {}
    for match in re.finditer(r'<g id="(e\d+)" class="edge">(.*?)</g>', svg, re.S):
        found = re.search(r' d="([^"]+)"', match.group(2))
        if found:
            nums = [float(n) for n in re.findall(_NUM, found.group(1))]
            paths[match.group(1)] = list(zip(nums[0::2], nums[1::2]))
    return paths


def _badge_width(label):
    return 6.2 * len(label) + 8


def _badge_overhang(svg, boxes, frames):
    """How far (pt) the widest badge of any frame reaches past the picture's right edge."""
    width, _ = _size(svg)
    dx, _ = _svg_translate(svg)
    reach = 0.0
    for frame in frames:
        for nid, label in frame.get("set", {}).items():
            if nid in boxes:
                reach = max(reach, dx + boxes[nid][2] - 6 + _badge_width(label))
    return max(0.0, reach - width + 4)


def _widen(svg, extra):
    """``svg`` with ``extra`` points of blank space added on the right (width and viewBox)."""
    if extra <= 0:
        return svg
    width, height = _size(svg)
    svg = re.sub(rf'width="{_NUM}pt"', f'width="{width + extra:.2f}pt"', svg, count=1)
    return re.sub(
        rf'viewBox="({_NUM}) ({_NUM}) ({_NUM}) ({_NUM})"',
        lambda m: f'viewBox="{m.group(1)} {m.group(2)} {float(m.group(3)) + extra:.2f} {m.group(4)}"',
        svg,
        count=1,
    )


def _size(svg):
    width = float(re.search(rf'width="({_NUM})pt"', svg).group(1))
    height = float(re.search(rf'height="({_NUM})pt"', svg).group(1))
    return width, height


def _svg_translate(svg):
    match = re.search(
        rf'class="graph" transform="scale\(({_NUM}) ({_NUM})\) rotate\(0\) translate\(({_NUM}) ({_NUM})\)"', svg
    )
    return (float(match.group(3)), float(match.group(4))) if match else (4.0, 0.0)


def _zoomed(svg, box, zoom):
    """The picture cropped to 1/zoom of its size around ``box`` (the highlighted node), same display size."""
    width, height = _size(svg)
    dx, dy = _svg_translate(svg)
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
    ref = 8 if style["forward"] else 2
    return (
        f'<defs><marker id="{_marker(style)}" viewBox="0 0 10 10" refX="{ref}" refY="5" markerWidth="5" '
        f'markerHeight="5" orient="{orient}"><path d="M0,0 L10,5 L0,10 z" fill="{style["flow"]}"/></marker></defs>'
    )


def _marker(style):
    return "tv-ahead" if style["forward"] else "tv-back"


def _centre(box):
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _overlay(boxes, frame, badges, edges, paths, links, style=REVERSE_STYLE):
    parts = ['<g class="tapeviz-overlay">', _defs(style)]
    flow, end = style["flow"], ("marker-end" if style["forward"] else "marker-start")
    for backward, forward in links:
        if backward in boxes and forward in boxes:
            (x0, y0), (x1, y1) = _centre(boxes[backward]), _centre(boxes[forward])
            parts.append(
                f'<line class="tv-link" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" '
                f'stroke="{LINK}" stroke-width="1.5" stroke-dasharray="2,3"/>'
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
        if points:
            x, y = points[len(points) // 2]
            label = edges[eid]
            w = 6.0 * len(label) + 6
            parts.append(
                f'<g class="tv-edge-grad"><rect x="{x + 3:.1f}" y="{y - 7:.1f}" width="{w:.1f}" height="13" '
                f'rx="3" fill="white" fill-opacity="0.85"/><text x="{x + 6:.1f}" y="{y + 3:.1f}" '
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
        x0, y0, x1, y1 = boxes[nid]
        label = badges[nid]
        width = _badge_width(label)
        parts.append(
            f'<rect x="{x1 - 6:.1f}" y="{y1 - 8:.1f}" width="{width:.1f}" height="16" rx="4" '
            f'fill="{style["badge"]}" stroke="{style["badge_edge"]}" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{x1 - 2:.1f}" y="{y1 + 4:.1f}" font-family="Helvetica,Arial,sans-serif" '
            f'font-size="11" fill="{style["badge_text"]}">{fmt.html_text(label)}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


LINE_H = 15


def frame_svg(base, boxes, frame, caption=True, badges=None, edges=None, paths=None, links=(), style=None):
    """One frame as a standalone SVG: caption and card on top, the graph with the frame's state below."""
    if badges is None:
        badges, edges = frame.get("set", {}), frame.get("edges", {})
    width, height = _size(base)
    close = base.rfind("</g>")
    graph = (
        base[:close]
        + _overlay(boxes, frame, badges, edges or {}, paths or {}, links, style or REVERSE_STYLE)
        + base[close:]
    )
    if not caption:
        return graph
    lines = [f"step {frame['index']}: {frame['caption']}"] + cards.text(frame.get("card"))
    top = 8 + LINE_H * len(lines)
    graph = re.sub(
        r'<svg width="[^"]+" height="[^"]+"',
        f'<svg x="0" y="{top}" width="{width}pt" height="{height}pt"',
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

_KEEP = ("index", "kind", "node", "caption", "set", "edges", "flow", "clear", "hidden", "card")


def _compact_card(card):
    """What the page needs of a card (rows of short strings)."""
    if card is None:
        return None
    if card.get("forward"):
        return tangent_card.compact(card)
    if card.get("seed"):
        rows = [[cards.ratio(r["input"], r["input"]), "", "", r["total"], r["total"], 0] for r in card["rows"]]
    else:
        rows = [
            [
                cards.wrt(r["input"]),
                cards.local_shown(r),
                "",
                r["product"],
                r["sum"] or r["total"],
                1 if r["elementwise"] else 0,
            ]
            for r in card["rows"]
        ]
    return {
        "op": card["op"],
        "out": card["outputs"],
        "up": card["upstream"],
        "f": card["formula"],
        "rows": rows,
        "seed": 1 if card.get("seed") else 0,
    }


def _frame_json(animation):
    out = []
    for frame in animation.frames:
        item = {k: frame[k] for k in _KEEP if frame.get(k)}
        if "card" in item:
            item["card"] = _compact_card(item["card"])
        item["index"] = frame["index"]
        out.append(item)
    return out


_PLAYER_JS = r"""
(function(){
var root=document.getElementById('tapeviz-player');
var frames=JSON.parse(document.getElementById('tapeviz-frames').textContent);
var boxes=JSON.parse(document.getElementById('tapeviz-boxes').textContent);
var paths=JSON.parse(document.getElementById('tapeviz-paths').textContent);
var links=JSON.parse(document.getElementById('tapeviz-links').textContent);
var style=JSON.parse(document.getElementById('tapeviz-style').textContent);
var view=root.querySelector('.tv-view'); var svg=view.querySelector('svg'); var graph=svg.querySelector('g.graph');
var NS='http://www.w3.org/2000/svg';
function el(tag,attrs){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);return e;}
var mark=style.forward?'tv-ahead':'tv-back';
var defs=el('defs',{}); var marker=el('marker',{id:mark,viewBox:'0 0 10 10',refX:style.forward?8:2,refY:5,markerWidth:5,markerHeight:5,orient:style.forward?'auto':'auto-start-reverse'});
marker.appendChild(el('path',{d:'M0,0 L10,5 L0,10 z',fill:style.flow})); defs.appendChild(marker); svg.insertBefore(defs,svg.firstChild);
var still=el('g',{'class':'tv-links'}); graph.appendChild(still);
links.forEach(function(l){var a=boxes[l[0]],b=boxes[l[1]];if(!a||!b)return;
  still.appendChild(el('line',{x1:(a[0]+a[2])/2,y1:(a[1]+a[3])/2,x2:(b[0]+b[2])/2,y2:(b[1]+b[3])/2,stroke:'#7c3aed','stroke-width':1.5,'stroke-dasharray':'2,3'}));});
var layer=el('g',{'class':'tapeviz-overlay'}); graph.appendChild(layer);
var slider=root.querySelector('.tv-slider'), caption=root.querySelector('.tv-caption'), cardBox=root.querySelector('.tv-card');
var playBtn=root.querySelector('.tv-play'), speed=root.querySelector('.tv-speed');
var predict=root.querySelector('.tv-predict'), guessBox=root.querySelector('.tv-guess'), guess=root.querySelector('.tv-guess-input'), verdict=root.querySelector('.tv-verdict');
var current=-1, timer=null, badges={}, edges={}, revealed={}; slider.max=frames.length-1;
var W0=svg.width.baseVal.value, H0=svg.height.baseVal.value, zoom=1;
function replay(i){badges={};edges={};var s=i;while(s>0&&!frames[s].clear)s--;
  for(var k=s;k<=i;k++)apply(frames[k]);}
function apply(f){if(f.clear){badges={};edges={};} var k; for(k in (f.set||{}))badges[k]=f.set[k]; for(k in (f.edges||{}))edges[k]=f.edges[k];}
function answerOf(f){if(!f.card||f.card.seed||!f.card.rows.length)return null;
  if(f.card.fwd){var a=parseFloat(f.card.ans);return isNaN(a)?null:a;} var r=f.card.rows[0];
  var m=String(r[3]).split(' = ');var v=parseFloat(m[m.length-1]);return isNaN(v)?null:v;}
function hiding(i){return predict.checked&&!revealed[i]&&answerOf(frames[i])!==null;}
function text(tag,t,cls){var e=document.createElement(tag);e.textContent=t;if(cls)e.className=cls;return e;}
function drawCard(f,hide){cardBox.innerHTML='';var c=f.card;if(!c)return;var t=document.createElement('table');
  if(c.fwd){drawTangentCard(c,t,hide);cardBox.appendChild(t);return;}
  if(c.seed){c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td','seed'));
    tr.appendChild(text('td',r[0]+' = '+r[3]));t.appendChild(tr);});cardBox.appendChild(t);return;}
  var h=document.createElement('tr');h.appendChild(text('th',c.op+' \u2192 '+c.out));var fm=text('th',c.f,'tv-formula');fm.colSpan=4;h.appendChild(fm);t.appendChild(h);
  var hd=document.createElement('tr');['to','upstream','local derivative','upstream \u00d7 local','collected at the input'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',c.up));
    tr.appendChild(text('td',r[1]||c.f));tr.appendChild(text('td',hide?'? (your turn)':r[3],'tv-product'));
    tr.appendChild(text('td',hide?'?':r[4]));t.appendChild(tr);});
  cardBox.appendChild(t);}
function drawTangentCard(c,t,hide){
  if(c.seed){c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td','tangent'));
    tr.appendChild(text('td',r[0]+' = '+r[1]));t.appendChild(tr);});return;}
  var h=document.createElement('tr');h.appendChild(text('th',c.op+' \u2192 '+c.out));var fm=text('th',c.f,'tv-formula');fm.colSpan=3;h.appendChild(fm);t.appendChild(h);
  var hd=document.createElement('tr');['from','tangent in','local derivative','local \u00d7 tangent'].forEach(function(x){hd.appendChild(text('td',x,'tv-head'));});t.appendChild(hd);
  c.rows.forEach(function(r){var tr=document.createElement('tr');tr.appendChild(text('td',r[0]));tr.appendChild(text('td',r[1]));
    tr.appendChild(text('td',r[2]));tr.appendChild(text('td',hide?'? (your turn)':r[3],'tv-product'));t.appendChild(tr);});
  var last=document.createElement('tr');var tot=text('td',hide?'? (your turn)':c.tot,'tv-product');tot.colSpan=4;last.appendChild(tot);t.appendChild(last);}
function draw(){var f=frames[current]; var hide=hiding(current);
  while(layer.firstChild)layer.removeChild(layer.firstChild);
  (f.hidden||[]).forEach(function(id){var b=boxes[id];if(!b)return;
    layer.appendChild(el('rect',{x:b[0]-2,y:b[1]-2,width:b[2]-b[0]+4,height:b[3]-b[1]+4,fill:'white','fill-opacity':0.9}));});
  if(!hide)(f.flow||[]).forEach(function(id){var p=paths[id];if(!p)return;
    var path=el('path',{d:'M'+p.map(function(q){return q[0]+','+q[1];}).join(' L'),fill:'none',stroke:style.flow,'stroke-width':3,'class':'tv-flow'});path.setAttribute(style.forward?'marker-end':'marker-start','url(#'+mark+')');layer.appendChild(path);});
  Object.keys(edges).sort().forEach(function(id){var p=paths[id];if(!p||(hide&&(f.edges||{})[id]))return;var q=p[Math.floor(p.length/2)];
    var w=6*edges[id].length+6; var g=el('g',{'class':'tv-edge-grad'});
    g.appendChild(el('rect',{x:q[0]+3,y:q[1]-7,width:w,height:13,rx:3,fill:'white','fill-opacity':0.85}));
    var t=el('text',{x:q[0]+6,y:q[1]+3,'font-size':10,'font-family':'Helvetica,Arial,sans-serif',fill:style.flow});t.textContent=edges[id];g.appendChild(t);layer.appendChild(g);});
  if(f.node&&boxes[f.node]){var b=boxes[f.node];
    layer.appendChild(el('rect',{x:b[0]-4,y:b[1]-4,width:b[2]-b[0]+8,height:b[3]-b[1]+8,rx:6,fill:'none',stroke:'#f59e0b','stroke-width':4}));}
  Object.keys(badges).sort().forEach(function(id){var b=boxes[id];if(!b||(f.hidden||[]).indexOf(id)>=0)return;
    if(hide&&(f.set||{})[id])return;
    var label=badges[id]; var w=6.2*label.length+8;
    layer.appendChild(el('rect',{x:b[2]-6,y:b[3]-8,width:w,height:16,rx:4,fill:style.badge,stroke:style.badge_edge}));
    var t=el('text',{x:b[2]-2,y:b[3]+4,'font-size':11,'font-family':'Helvetica,Arial,sans-serif',fill:style.badge_text});
    t.textContent=label; layer.appendChild(t);});
  caption.textContent='step '+current+' of '+(frames.length-1)+': '+(hide?f.caption.split(';')[0]+'; what is '+style.ask+'?':f.caption);
  drawCard(f,hide); guessBox.style.display=hide?'':'none'; if(hide){verdict.textContent='';guess.value='';}
  if(f.node&&boxes[f.node])follow(boxes[f.node]);}
function show(i){i=Math.max(0,Math.min(frames.length-1,i));
  if(i===current+1&&current>=0)apply(frames[i]);else if(i!==current)replay(i);
  current=i; slider.value=current; draw();}
function follow(b){var ctm=graph.getCTM(); if(!ctm)return; var p=svg.createSVGPoint();
  p.x=(b[0]+b[2])/2;p.y=(b[1]+b[3])/2;var q=p.matrixTransform(ctm);
  var x=q.x*svg.getBoundingClientRect().width/svg.viewBox.baseVal.width, y=q.y*svg.getBoundingClientRect().height/svg.viewBox.baseVal.height;
  if(x<view.scrollLeft+40||x>view.scrollLeft+view.clientWidth-40)view.scrollLeft=x-view.clientWidth/2;
  if(y<view.scrollTop+40||y>view.scrollTop+view.clientHeight-40)view.scrollTop=y-view.clientHeight/2;}
function setZoom(z){zoom=Math.max(0.1,Math.min(8,z));svg.setAttribute('width',(W0*zoom)+'px');svg.setAttribute('height',(H0*zoom)+'px');
  root.querySelector('.tv-zoom-level').textContent=Math.round(zoom*100)+'%';if(current>=0)draw();}
function fit(){var z=Math.min(view.clientWidth/W0,1);setZoom(z>0?z:1);}
function stop(){if(timer){clearInterval(timer);timer=null;}playBtn.textContent='\u25B6 play';}
function play(){if(timer){stop();return;} if(current>=frames.length-1)show(0);
  playBtn.textContent='\u23F8 pause';
  timer=setInterval(function(){if(current>=frames.length-1||hiding(current)){stop();return;}show(current+1);},parseInt(speed.value));}
function check(){var want=answerOf(frames[current]);var got=parseFloat(guess.value);if(want===null)return;
  var ok=!isNaN(got)&&Math.abs(got-want)<=1e-3*Math.max(1,Math.abs(want))+5e-4;
  revealed[current]=true; draw(); verdict.textContent=(ok?'\u2714 right: ':'\u2718 not quite: ')+style.ask+' = '+want;
  verdict.className='tv-verdict '+(ok?'tv-right':'tv-wrong'); guessBox.style.display='';}
root.querySelector('.tv-first').onclick=function(){stop();show(0);};
root.querySelector('.tv-back').onclick=function(){stop();show(current-1);};
root.querySelector('.tv-next').onclick=function(){stop();show(current+1);};
root.querySelector('.tv-last').onclick=function(){stop();show(frames.length-1);};
root.querySelector('.tv-zoom-in').onclick=function(){setZoom(zoom*1.25);};
root.querySelector('.tv-zoom-out').onclick=function(){setZoom(zoom/1.25);};
root.querySelector('.tv-zoom-fit').onclick=fit;
root.querySelector('.tv-check').onclick=check; guess.onkeydown=function(e){if(e.key==='Enter')check();};
predict.onchange=function(){revealed={};draw();};
var drag=null; view.onmousedown=function(e){drag=[e.clientX,e.clientY,view.scrollLeft,view.scrollTop];view.style.cursor='grabbing';};
window.addEventListener('mouseup',function(){drag=null;view.style.cursor='grab';});
view.onmousemove=function(e){if(!drag)return;view.scrollLeft=drag[2]-(e.clientX-drag[0]);view.scrollTop=drag[3]-(e.clientY-drag[1]);};
view.addEventListener('wheel',function(e){if(!e.ctrlKey)return;e.preventDefault();setZoom(zoom*(e.deltaY<0?1.1:1/1.1));},{passive:false});
playBtn.onclick=play; slider.oninput=function(){stop();show(parseInt(slider.value));};
speed.onchange=function(){if(timer){stop();play();}};
setZoom(1); show(0);
})();
"""

_STYLE = """
#tapeviz-player {font-family: Helvetica, Arial, sans-serif; font-size: 13px}
#tapeviz-player .tv-bar {position: sticky; top: 0; z-index: 2; background: white; padding: 4px 0; border-bottom: 1px solid #e5e7eb}
#tapeviz-player .tv-controls button {margin-right: 4px}
#tapeviz-player .tv-caption {margin: 6px 0; min-height: 1.4em; max-width: 70em}
#tapeviz-player .tv-card table {border-collapse: collapse; font-size: 12px}
#tapeviz-player .tv-card td, #tapeviz-player .tv-card th {border: 1px solid #e5e7eb; padding: 2px 6px; text-align: left}
#tapeviz-player .tv-formula {color: #6b7280; font-weight: normal}
#tapeviz-player .tv-head {color: #6b7280}
#tapeviz-player .tv-product {font-weight: bold}
#tapeviz-player .tv-view {overflow: auto; max-height: 75vh; cursor: grab; border: 1px solid #f3f4f6}
#tapeviz-player .tv-right {color: #15803d} #tapeviz-player .tv-wrong {color: #b91c1c}
#tapeviz-player .tv-legend {margin-top: 6px; font-size: 12px; color: #374151}
"""


def html_player(animation, title="tapeviz"):
    """A self-contained HTML page that plays the frames without a kernel or network."""
    frames = fmt.script_json(json.dumps(_frame_json(animation), sort_keys=True, separators=(",", ":")))
    boxes = fmt.script_json(
        json.dumps({k: [round(v, 1) for v in b] for k, b in sorted(animation.boxes.items())}, separators=(",", ":"))
    )
    paths = fmt.script_json(
        json.dumps(
            {k: [[round(x, 1), round(y, 1)] for x, y in p] for k, p in sorted(animation.paths.items())},
            separators=(",", ":"),
        )
    )
    links = fmt.script_json(json.dumps(animation.links, separators=(",", ":")))
    style = fmt.script_json(json.dumps(animation.style, sort_keys=True, separators=(",", ":")))
    ask = fmt.html_text(animation.style["ask"])
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{fmt.html_text(title)}</title>
<style>{_STYLE}</style></head><body>
<div id="tapeviz-player">
<div class="tv-bar">
<div class="tv-controls">
<button class="tv-first" title="first">&#x25C0;&#x25C0; first</button><button class="tv-back" title="step back">&#x25C0; step</button><button class="tv-play">&#x25B6; play</button><button class="tv-next" title="step forward">step &#x25B6;</button><button class="tv-last" title="last">last &#x25B6;&#x25B6;</button>
<input class="tv-slider" type="range" min="0" max="0" value="0" style="width:240px">
<label>speed <select class="tv-speed"><option value="1600">slow</option><option value="900" selected>normal</option><option value="400">fast</option></select></label>
<button class="tv-zoom-out" title="zoom out">&#x2212;</button><span class="tv-zoom-level">100%</span><button class="tv-zoom-in" title="zoom in">+</button><button class="tv-zoom-fit" title="fit the width">fit</button>
<label title="hide each gradient until you type it"><input type="checkbox" class="tv-predict"> predict</label>
</div>
<div class="tv-caption"></div>
<div class="tv-card"></div>
<div class="tv-guess" style="display:none">your answer for {ask}: <input class="tv-guess-input" size="10"> <button class="tv-check">check</button> <span class="tv-verdict"></span></div>
</div>
<div class="tv-view">
{animation.base_svg}
</div>
<div class="tv-legend">{animation.legend_html()}</div>
</div>
<script type="application/json" id="tapeviz-frames">{frames}</script>
<script type="application/json" id="tapeviz-boxes">{boxes}</script>
<script type="application/json" id="tapeviz-paths">{paths}</script>
<script type="application/json" id="tapeviz-links">{links}</script>
<script type="application/json" id="tapeviz-style">{style}</script>
<script>{_PLAYER_JS}</script>
</body></html>
"""


# -- the GIF ----------------------------------------------------------------------------------------


def _font(size):
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "Arial.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


_PALETTE = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "highlight": (245, 158, 11),
    "badge": (254, 226, 226),
    "badge_edge": (185, 28, 28),
    "badge_text": (153, 27, 27),
    "flow": (220, 38, 38),
    "link": (124, 58, 237),
}


def _rgb(colour):
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def gif_images(animation, text_lines=3, max_size=(960, 720)):
    """The frames as Pillow images in one shared palette, made one at a time (a generator).

    A picture larger than ``max_size`` is shown through a window of that size
    that follows the highlighted node, as the HTML player scrolls to it.
    """
    import io

    from PIL import Image, ImageDraw

    png = render.run_dot(animation.dot.replace("digraph tape {", "digraph tape {\n  graph [dpi=72]", 1), "png")
    rgb = Image.open(io.BytesIO(png)).convert("RGB")
    # One palette for every frame: the picture's colours plus ours, so frames need no quantising.
    colours = dict(
        _PALETTE, **{key: _rgb(animation.style[key]) for key in ("badge", "badge_edge", "badge_text", "flow")}
    )
    reserved = list(colours.values())
    base = rgb.quantize(colors=256 - len(reserved), dither=Image.Dither.NONE)
    palette = base.getpalette()[: 3 * (256 - len(reserved))]
    palette += [0] * (3 * (256 - len(reserved)) - len(palette))
    palette += [c for rgb_ in reserved for c in rgb_]
    base.putpalette(palette)
    ink = {name: 256 - len(reserved) + i for i, name in enumerate(colours)}
    dx, dy = _svg_translate(animation.base_svg)
    font, small = _font(13), _font(11)
    top = 8 + 16 * (1 + text_lines)
    view_w, view_h = min(base.width, max_size[0]), min(base.height, max_size[1])
    width = max(view_w, 640)
    origin = [0, 0]  # the window's top-left corner in the picture

    def follow(box_):
        cx, cy = (box_[0] + box_[2]) / 2, (box_[1] + box_[3]) / 2
        for axis, centre, span, full in ((0, cx, view_w, base.width), (1, cy, view_h, base.height)):
            if not origin[axis] + 0.2 * span <= centre <= origin[axis] + 0.8 * span:
                origin[axis] = int(min(max(0, centre - span / 2), full - span))

    sprites = {}  # label -> its drawn badge: text is drawn once, not once per frame

    def sprite(label, is_badge):
        key = (label, is_badge)
        if key not in sprites:
            probe = ImageDraw.Draw(blank_probe)
            w = int(probe.textlength(label, font=small)) + 9
            image = Image.new("P", (w, 17 if is_badge else 13), ink["white"])
            image.putpalette(palette)
            pen = ImageDraw.Draw(image)
            if is_badge:
                pen.rounded_rectangle((0, 0, w - 1, 16), radius=4, fill=ink["badge"], outline=ink["badge_edge"])
                pen.text((4, 2), label, fill=ink["badge_text"], font=small)
            else:
                pen.text((3, 0), label, fill=ink["flow"], font=small)
            sprites[key] = image
        return sprites[key]

    blank_probe = Image.new("P", (1, 1))

    def visible(x, y):
        return -200 <= x <= width + 50 and top - 50 <= y <= view_h + top + 50

    for frame, badges, edges in animation.states():
        canvas = Image.new("P", (width, view_h + top + 10), ink["white"])
        canvas.putpalette(palette)
        draw = ImageDraw.Draw(canvas)

        def at(x, y):
            return x + dx - origin[0], y + dy + top - origin[1]

        def box(nid):
            x0, y0, x1, y1 = animation.boxes[nid]
            return (*at(x0, y0), *at(x1, y1))

        if frame.get("node") in animation.boxes:
            x0, y0, x1, y1 = animation.boxes[frame["node"]]
            follow((x0 + dx, y0 + dy, x1 + dx, y1 + dy))
        canvas.paste(base.crop((origin[0], origin[1], origin[0] + view_w, origin[1] + view_h)), (0, top))
        for backward, forward in animation.links:
            if backward in animation.boxes and forward in animation.boxes:
                (ax, ay), (bx, by) = _centre(box(backward)), _centre(box(forward))
                draw.line((ax, ay, bx, by), fill=ink["link"], width=1)
        hidden = set(frame.get("hidden", ()))
        for nid in hidden:
            if nid in animation.boxes:
                x0, y0, x1, y1 = box(nid)
                draw.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), fill=ink["white"])
        for eid in frame.get("flow", ()):
            points = [at(x, y) for x, y in animation.paths.get(eid, ())]
            if len(points) > 1:
                draw.line(points, fill=ink["flow"], width=3)
        for eid in sorted(edges):
            points = animation.paths.get(eid)
            if points:
                x, y = at(*points[len(points) // 2])
                if visible(x, y):
                    canvas.paste(sprite(edges[eid], False), (int(x + 3), int(y - 7)))
        if frame.get("node") in animation.boxes:
            x0, y0, x1, y1 = box(frame["node"])
            draw.rounded_rectangle((x0 - 4, y0 - 4, x1 + 4, y1 + 4), radius=6, outline=ink["highlight"], width=4)
        for nid in sorted(badges):
            if nid in animation.boxes and nid not in hidden:
                x0, y0, x1, y1 = box(nid)
                if visible(x1, y1):
                    canvas.paste(sprite(badges[nid], True), (int(x1 - 6), int(y1 - 8)))
        # the caption and the card on top, over a blank band
        draw.rectangle((0, 0, width, top - 1), fill=ink["white"])
        lines = _wrap(draw, f"step {frame['index']}: {frame['caption']}", font, width - 12)[:2]
        lines += cards.text(frame.get("card"))[: text_lines + 1 - len(lines)]
        for row, content in enumerate(lines):
            draw.text((6, 4 + 16 * row), content, fill=ink["black"], font=font)
        yield canvas


def _wrap(draw, text, font, width):
    lines, line = [], ""
    for word in text.split(" "):
        if line and draw.textlength(line + " " + word, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    return lines


def save_gif(animation, path, duration_ms=900):
    """Write an animated GIF of the frames, made one at a time (Pillow is imported here, and only here)."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ImportError("Saving a GIF needs Pillow: pip install pillow (or tapeviz[viz]).") from None
    images = gif_images(animation)
    first = next(images)
    with GifWriter(path, first.size, duration_ms) as gif:
        gif.add(first)
        for image in images:
            gif.add(image)
    return path


def animate(tape, mode="sweep", **options):
    """An :class:`Animation` of ``tape``'s last sweep (mode="sweep") or of its recording ("record")."""
    return Animation(tape, mode=mode, **options)


def iframe(page, height=None):
    """A whole HTML page (an exported animation) as an inline iframe that keeps its own scripts."""
    import html as _html

    if height is None:
        height = _guess_height(page)
    return (
        f'<iframe class="tapeviz-embed" srcdoc="{_html.escape(page, quote=True)}" '
        f'style="width:100%;height:{height}px;border:1px solid #e5e7eb;border-radius:4px" '
        'loading="lazy"></iframe>'
    )


def _guess_height(page):
    match = re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', page)
    graph = float(match.group(1)) * 4 / 3 if match else 300.0
    return int(min(900, graph + 260))
