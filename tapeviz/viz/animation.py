"""The animation model: frames plus the one laid-out picture they are drawn on.

Shared by the ipywidgets player (:mod:`tapeviz.viz.widget`) and the files
(:meth:`Animation.to_html`, :meth:`Animation.save_gif`, SVG frames): the
frames come from :mod:`tapeviz.viz.frames` (reverse sweep, recording) or
:mod:`tapeviz.viz.tangents` (forward mode), the picture from ``dot``; each
view draws them its own way (:mod:`tapeviz.viz.svg_frames`,
:mod:`tapeviz.viz.html_page`, :mod:`tapeviz.viz.gif_frames`).
"""

import numpy as np

from tapeviz.core import nest
from tapeviz.core.files import write_bytes
from tapeviz.core.forward import ForwardAccumulator
from tapeviz.viz import dot as dotmod
from tapeviz.viz import frames as framing
from tapeviz.viz import legend as legends
from tapeviz.viz import names as naming
from tapeviz.viz import render
from tapeviz.viz import tangents as tangent_frames
from tapeviz.viz.gif_frames import save_gif
from tapeviz.viz.html_page import html_player
from tapeviz.viz.svg_frames import (
    EDGE_LABEL_H,
    FORWARD_STYLE,
    REVERSE_STYLE,
    badge_heights,
    badge_overhang,
    badge_spots,
    badge_widths,
    cluster_label_boxes,
    edge_label_spots,
    edge_label_widths,
    edge_paths,
    even_badges,
    frame_svg,
    link_routes,
    node_boxes,
    size,
    stray_badges,
    widen,
    zoomed,
)
from tapeviz.viz.trace import Trace, trace_of
from tapeviz.viz.update import update_frames

NOTEBOOK_WIDTH = 675  # points: JupyterLab's output area at about 900 px; a wider picture is drawn smaller at "fit"


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
        update=None,
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
            if update is not None:  # one training step: forward, this sweep, then the optimizer's update
                self.frames = self._training_step(update, sweep, tape, internals)
            # every sweep's links, not only the played ones: the outer tape's player shows which forward op
            # each of its (backward) ops came from, as the inner tape's player does
            self.links = framing.backward_links(self.trace.data, self.view)
        else:
            self.frames, self.view = framing.recording_frames(self.trace, **options)
            self.links = []
        if mode != "forward":
            self.tangents = {}
        self.mode = mode
        self.rankdir = rankdir
        self.frames = even_badges(self.frames)
        heights = badge_heights(self.frames)
        rooms = {nid: (w, heights[nid]) for nid, w in badge_widths(self.frames).items() if nid in self.view.nodes}
        labelled = naming.relabel(self.trace.data, self.names)
        source = dotmod.write(self.view, labelled, title, badges=rooms)
        if rankdir != "TB":
            source = source.replace("rankdir=TB", f"rankdir={rankdir}", 1)
        self.dot = source
        # the same picture with each variable's badge above it instead: tried when the first is too wide
        lifted = {n for n in rooms if self.view.nodes[n].get("role") == "variable"}
        self._narrower = dotmod.write(self.view, labelled, title, badges=rooms, above=lifted) if lifted else None
        if rankdir != "TB":
            self._narrower = None
        self._svg = None
        self._boxes = None
        self._paths = None
        self._spots = None
        self._routes = None

    def _training_step(self, update, sweep, tape, internals):
        """The forward pass recorded on the sweep's picture, the sweep (its frames made again, numbered
        after the forward pass's), then the optimizer's update."""
        forward, _ = framing.recording_frames(self.trace, view=self.view)
        data = self.trace.data
        namer = framing.Namer(data, self.view, self.names)
        ids = {id(obj): tid for tid, obj in (self.trace.objects or {}).get("tensors", {}).items()}

        def node_of(variable):
            tid = ids.get(id(variable))
            node = self.view.alias.get(tid, tid) if tid is not None else None
            return node if node in self.view.nodes else None

        def name_of(variable):
            tid = ids.get(id(variable))
            return namer(tid) if tid is not None else variable.name.split(":")[0]

        played = next((s for s in data["sweeps"] if s["id"] == self.frames[-1]["sweep"]), None)
        target = namer(played["targets"][0]) if played and played["targets"] else "loss"
        sweep_frames = framing.sweep_frames(
            self.trace, sweep, self.view, tape, internals, names=self.names, start=len(forward)
        )[0]
        then = update_frames(update, node_of, name_of, target, start=len(forward) + len(sweep_frames))
        return forward + sweep_frames + then

    @property
    def base_svg(self):
        """The laid-out picture, widened so every frame's gradient badges fit.

        A picture wider than a notebook (a model's training step: four weights, each with its badge beside
        it) is laid out again with each variable's badge above it, and drawn so when that is narrower and
        still puts every badge clearly by its own node.
        """
        if self._svg is None:
            laid = self._lay_out(self.dot)
            if size(laid[0])[0] > NOTEBOOK_WIDTH and self._narrower is not None:
                other = self._lay_out(self._narrower)
                heights = badge_heights(self.frames)
                if size(other[0])[0] < size(laid[0])[0] and not stray_badges(other[1], other[3], other[4], heights):
                    laid, self.dot = other, self._narrower
            self._svg, self._boxes, self._paths, spots, _widths = laid
            self._spots = spots
        return self._svg

    def _lay_out(self, source):
        """(svg, node boxes, edge paths, spots, badge widths) of DOT ``source``, widened to hold its badges."""
        svg = render.svg(source)
        boxes, paths = node_boxes(svg), edge_paths(svg)
        spots, widths = badge_spots(svg, boxes, self.frames, paths)
        heights = badge_heights(self.frames)
        badges = [(x, y, x + widths[n], y + heights[n]) for n, (x, y) in spots.items()]
        edges = edge_label_spots(boxes, paths, self.frames, badges, svg)
        reach = dict(widths, **edge_label_widths(self.frames))
        spots = {**spots, **edges}  # node ids (t3, op5) and edge ids (e2) never meet
        return widen(svg, badge_overhang(svg, spots, reach)), boxes, paths, spots, widths

    @property
    def boxes(self):
        """Node id -> (x0, y0, x1, y1) in the SVG's graph coordinates."""
        if self._boxes is None:
            self.base_svg  # noqa: B018 - lays the picture out and measures its nodes
        return self._boxes

    @property
    def routes(self):
        """[(backward, forward, points)]: the dotted links, bent around the nodes they do not connect."""
        if self._routes is None:
            self._routes = link_routes(self.boxes, self.links, self.label_boxes()) if self.links else []
        return self._routes

    def label_boxes(self):
        """(x0, y0, x1, y1) of every badge and edge label any frame draws, where it is drawn, and of the
        tapes' labels."""
        widths, heights = badge_widths(self.frames), badge_heights(self.frames)
        reach = edge_label_widths(self.frames)
        out = list(cluster_label_boxes(self.base_svg))
        for key, spot in self.spots.items():
            if spot is None:
                continue
            if key in widths:
                out.append((spot[0], spot[1], spot[0] + widths[key], spot[1] + heights[key]))
            elif key in reach:
                out.append((spot[0], spot[1], spot[0] + reach[key], spot[1] + EDGE_LABEL_H))
        return out

    @property
    def spots(self):
        """Node id -> (x, y): where its gradient badge is drawn (top-left), the same on every frame;
        edge id -> (x, y): where the gradient label it carries is drawn."""
        if self._spots is None:
            self.base_svg  # noqa: B018
        return self._spots

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
        return self.draw_frame(self.frames[index], badges, edges, caption, zoom)

    def draw_frame(self, frame, badges, edges, caption=True, zoom=1.0):
        """``frame`` as SVG with these ``badges`` and ``edges`` (what ``state`` gives, or a player's own)."""
        svg = frame_svg(
            self.base_svg,
            self.boxes,
            frame,
            caption,
            badges=badges,
            edges=edges,
            paths=self.paths,
            links=self.routes,
            style=self.style,
            spots=self.spots,
        )
        return zoomed(svg, self.boxes.get(frame.get("node")), zoom) if zoom > 1 and not caption else svg

    def svg_frames(self):
        return [self.draw_frame(frame, badges, edges) for frame, badges, edges in self.states()]

    def legend_html(self):
        return legends.html(
            legends.entries(self.view, self.frames, self.links, self.trace.data, forward=self.style["forward"])
        )

    def to_html(self, title="tapeviz", predict=False):
        return html_player(self, title, predict)

    def save_html(self, path, title="tapeviz", predict=False):
        write_bytes(path, self.to_html(title, predict).encode("utf-8"))
        return path

    def save_svg_frames(self, prefix):
        paths = []
        for i, (frame, badges, edges) in enumerate(self.states()):
            path = f"{prefix}{i:03d}.svg"
            write_bytes(path, self.draw_frame(frame, badges, edges).encode("utf-8"))
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


def animate(tape, mode="sweep", **options):
    """An :class:`Animation` of ``tape``'s last sweep (mode="sweep") or of its recording ("record")."""
    return Animation(tape, mode=mode, **options)
