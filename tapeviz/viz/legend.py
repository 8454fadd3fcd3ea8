"""A legend made from the encodings a picture actually uses.

Each entry is (kind, swatch, text): only the node roles, derivative orders,
folds, edge styles and player marks present in this view or these frames
appear, so a small forward-only tape gets a two-line legend and a nested
second-order one explains its colours.
"""

from tapeviz.viz import format as fmt
from tapeviz.viz import view as views

_COLOUR_NAMES = "blue amber red purple green".split()


def entries(view, frames=(), links=(), data=None, forward=False):
    """[(swatch kind, colours dict, text)] for what ``view`` and ``frames`` draw (``forward``: the tangent player's)."""
    out = []
    roles = {node.get("role") for node in view.nodes.values() if node["kind"] == "tensor"}
    targets = any(node.get("target") for node in view.nodes.values())
    if "variable" in roles:
        out.append(("box", {"fill": "#dcfce7", "stroke": "#15803d"}, "variable (watched automatically when trainable)"))
    if "source" in roles:
        out.append(("ellipse", {"fill": "white", "stroke": "#15803d"}, "watched tensor (tape.watch)"))
    if "leaf" in roles:
        out.append(("ellipse-dashed", {"fill": "white", "stroke": "#6b7280"}, "constant: not watched, no gradient"))
    if "tensor" in roles:
        out.append(("ellipse", {"fill": "white", "stroke": "#1f2937"}, "tensor computed by an op"))
    if any(node["kind"] == "tensor" and node["info"].get("nonfinite") for node in view.nodes.values()):
        out.append(("ellipse", {"fill": "#fee2e2", "stroke": "#1f2937"}, "holds inf or NaN"))
    if targets:
        out.append(("ellipse-double", {"fill": "white", "stroke": "#b91c1c"}, "target of gradient()"))
    if any(node.get("grad") is not None for node in view.nodes.values()):
        out.append(("partial", {"stroke": "#b91c1c"}, "the gradient this value got in the last sweep"))
    for depth in sorted(view.depths):
        order = views.ORDER_NAMES[min(depth, len(views.ORDER_NAMES) - 1)]
        colour = _COLOUR_NAMES[min(depth, len(_COLOUR_NAMES) - 1)]
        out.append(
            (
                "op",
                {"fill": views.depth_colour(depth), "stroke": "#1f2937"},
                f"{order} op ({colour}{', dashed edges' if depth else ''})",
            )
        )
    if any(node["kind"] == "op" and not node["op"]["tapes"] for node in view.nodes.values()):
        out.append(("op", {"fill": "#f3f4f6", "stroke": "#6b7280"}, "op no tape recorded"))
    marks = {node.get("mark") for node in view.nodes.values()}
    if "break" in marks:
        out.append(("break", {"fill": "#fecaca", "stroke": "#b91c1c"}, "where the gradient breaks (the cause)"))
    if "path" in marks:
        out.append(("path", {"stroke": "#b91c1c"}, "on the path from the source to the target"))
    if view.folds:
        out.append(("fold", {"fill": "#dbeafe", "stroke": "#1f2937"}, "folded group of ops (open=[...] shows it)"))
    if forward:
        out += _forward_marks(frames)
    else:
        highlighted = _highlighted(frames)
        if highlighted:
            out.append(("highlight", {"stroke": "#f59e0b"}, highlighted))
        if any(f.get("set") for f in frames):
            out.append(
                (
                    "badge",
                    {"fill": "#fee2e2", "stroke": "#b91c1c"},
                    "next to a value: the gradient it has collected so far (dy/dx = ...)",
                )
            )
        if any(f.get("kind") == "update" for f in frames):  # a training step's player (tapeviz.viz.update)
            out.append(
                (
                    "badge",
                    {"fill": "#fee2e2", "stroke": "#b91c1c"},
                    "after the sweep: the gradient the optimizer gets, then the variable's new value (now ...)",
                )
            )
        if any(f.get("edges") for f in frames):
            out.append(("edge-label", {"stroke": "#dc2626"}, "number by an edge: the gradient sent back along it"))
        if any(f.get("flow") for f in frames):
            out.append(("flow", {"stroke": "#dc2626"}, "gradient flowing back along an edge (against the arrow)"))
    if links:
        out.append(("link", {"stroke": "#7c3aed"}, "backward op \u2192 the forward op it differentiates"))
    if any(f.get("hidden") for f in frames):
        out.append(("hidden", {"fill": "white", "stroke": "#e5e7eb"}, "not recorded yet"))
    return out


# What a frame of each kind highlights (the training-step player has all four): the whole phrase when
# one kind does, the short one in a list when several do (the legend keeps each entry on one line).
_HIGHLIGHTS = {
    "record": ("the op this step records on the tape", "the op recorded"),
    "seed": ("the target the sweep starts from", "the sweep's target"),
    "step": ("the op this step differentiates", "the op differentiated"),
    "update": ("the variable this step updates", "the variable updated"),
}


def _highlighted(frames):
    """What the highlight marks on these frames, for each kind of frame that highlights something."""
    kinds = []
    for frame in frames:
        kind = frame.get("kind") if frame.get("kind") in _HIGHLIGHTS else "step"
        if frame.get("node") and kind not in kinds:
            kinds.append(kind)
    if len(kinds) < 2:
        return _HIGHLIGHTS[kinds[0]][0] if kinds else ""
    short = [_HIGHLIGHTS[k][1] for k in kinds]
    return "highlighted: " + ", ".join(short[:-1]) + ", or " + short[-1]


def _forward_marks(frames):
    """The tangent player's marks: blue tangents flowing with the arrows."""
    out = []
    if any(f.get("node") for f in frames):
        out.append(("highlight", {"stroke": "#f59e0b"}, "the op this step pushes the tangents through"))
    if any(f.get("set") for f in frames):
        out.append(("badge", {"fill": "#dbeafe", "stroke": "#1d4ed8"}, "next to a value: its tangent (dy/dt = ...)"))
    if any(f.get("edges") for f in frames):
        out.append(("edge-label", {"stroke": "#2563eb"}, "number by an edge: the tangent sent forward along it"))
    if any(f.get("flow") for f in frames):
        out.append(("flow-forward", {"stroke": "#2563eb"}, "tangent flowing forward along an edge (with the arrow)"))
    return out


def _swatch(kind, c):
    fill, stroke = c.get("fill", "none"), c.get("stroke", "#000")
    shapes = {
        "box": f'<rect x="2" y="3" width="24" height="12" fill="{fill}" stroke="{stroke}" stroke-width="2"/>',
        "ellipse": f'<ellipse cx="14" cy="9" rx="11" ry="6" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>',
        "ellipse-dashed": f'<ellipse cx="14" cy="9" rx="11" ry="6" fill="{fill}" stroke="{stroke}" stroke-dasharray="3,2"/>',
        "ellipse-double": (
            f'<ellipse cx="14" cy="9" rx="12" ry="7" fill="none" stroke="{stroke}"/>'
            f'<ellipse cx="14" cy="9" rx="9" ry="4.5" fill="{fill}" stroke="{stroke}"/>'
        ),
        "op": f'<rect x="2" y="3" width="24" height="12" rx="4" fill="{fill}" stroke="{stroke}"/>',
        "fold": (
            f'<rect x="5" y="2" width="21" height="11" fill="{fill}" stroke="{stroke}"/>'
            f'<rect x="2" y="5" width="21" height="11" fill="{fill}" stroke="{stroke}"/>'
        ),
        "break": f'<rect x="2" y="3" width="24" height="12" rx="4" fill="{fill}" stroke="{stroke}" stroke-width="3"/>',
        "path": f'<rect x="2" y="3" width="24" height="12" rx="4" fill="none" stroke="{stroke}" stroke-width="2.5"/>',
        "highlight": f'<rect x="2" y="2" width="24" height="14" rx="4" fill="none" stroke="{stroke}" stroke-width="3"/>',
        "badge": f'<rect x="2" y="4" width="24" height="10" rx="3" fill="{fill}" stroke="{stroke}"/>',
        "flow": (
            f'<line x1="26" y1="9" x2="7" y2="9" stroke="{stroke}" stroke-width="3"/>'
            f'<path d="M2,9 L9,5 L9,13 z" fill="{stroke}"/>'
        ),
        "flow-forward": (
            f'<line x1="2" y1="9" x2="21" y2="9" stroke="{stroke}" stroke-width="3"/>'
            f'<path d="M26,9 L19,5 L19,13 z" fill="{stroke}"/>'
        ),
        "link": f'<line x1="2" y1="9" x2="26" y2="9" stroke="{stroke}" stroke-width="1.5" stroke-dasharray="2,3"/>',
        "edge-label": (
            f'<line x1="6" y1="1" x2="6" y2="17" stroke="#6b7280"/>'
            f'<text x="9" y="13" font-size="10" font-family="Helvetica,Arial,sans-serif" fill="{stroke}">2</text>'
        ),
        "partial": f'<text x="9" y="14" font-size="14" font-family="Helvetica,Arial,sans-serif" fill="{stroke}">\u2202</text>',
        "hidden": f'<rect x="2" y="3" width="24" height="12" fill="{fill}" stroke="{stroke}"/>',
    }
    return (  # the namespace: stored in a notebook, the swatch becomes an <img>, which draws no SVG without it
        '<svg xmlns="http://www.w3.org/2000/svg" width="28" height="18" viewBox="0 0 28 18" '
        f'style="vertical-align:middle">{shapes[kind]}</svg>'
    )


def html(items):
    """The legend as inline HTML: one swatch and one phrase per entry (a block each, so a swatch stays
    with its phrase and a long phrase wraps inside a phone's width)."""
    if not items:
        return ""
    cells = "".join(
        f'<span style="display:inline-block;margin-right:14px">{_swatch(kind, colours)} {fmt.html_text(text)}</span>'
        for kind, colours, text in items
    )
    return f'<div class="tapeviz-legend">{cells}</div>'


def text(items):
    return "legend: " + "; ".join(t for _k, _c, t in items)
