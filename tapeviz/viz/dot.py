"""A view -> graphviz DOT text, deterministically.

Node ids come from the trace (``t3``, ``op5``, ``fold0``), attributes are
written in a fixed order, numbers through :mod:`tapeviz.viz.format`: the same
trace always gives byte-identical DOT, so it is tested as golden text with no
``dot`` binary. Labels are graphviz HTML-like labels whose every piece of user
text is HTML-escaped; the SVG ids are set to the node ids, so the player and
the HTML export can find nodes in the rendered picture.
"""

from tapeviz.viz import format as fmt
from tapeviz.viz import magnitude
from tapeviz.viz import names as naming
from tapeviz.viz import view as views
from tapeviz.viz.trace import trace_of

FONT = "Helvetica"
GREEN, RED, GREY = "#15803d", "#b91c1c", "#6b7280"
TITLE_LIMIT = 200  # characters of a title shown under the picture


def to_dot(trace, title=None, **options):
    """DOT source for ``trace`` (a tape, a Trace or its data); options as :func:`view.build`."""
    if hasattr(trace, "recorded_ops"):  # a GradientTape: draw its trace
        trace = trace_of(trace)
    return write(views.build(trace, **options), trace.data if hasattr(trace, "data") else trace, title)


def _row(text, size=None, colour=None, bold=False):
    inner = fmt.html_text(text)
    if bold:
        inner = f"<B>{inner}</B>"
    if size or colour:
        attrs = (f' POINT-SIZE="{size}"' if size else "") + (f' COLOR="{colour}"' if colour else "")
        inner = f"<FONT{attrs}>{inner}</FONT>"
    return f"<TR><TD>{inner}</TD></TR>"


def _table(rows):
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">' + "".join(rows) + "</TABLE>>"


def _attrs(pairs):
    parts = []
    for key, value in pairs:
        if value is None:
            continue
        if key == "label" and value.startswith("<"):
            parts.append(f"{key}={value}")
        else:
            parts.append(f"{key}={fmt.dot_string(value)}")
    return "[" + " ".join(parts) + "]"


def tensor_label(node):
    info = node["info"]
    kind = f"{fmt.short_dtype(info['dtype'])} {fmt.shape_text(info['shape'])}"
    rows = []
    if node["role"] == "variable":
        rows.append(_row(fmt.clip(naming.variable_name(info)), bold=True))  # x, not x:0
        kind = ("" if info["trainable"] else "non-trainable ") + kind
    elif node["role"] == "source":
        rows.append(_row(f"{info['id']}  watched", bold=True, colour=GREEN))
    elif node["role"] == "leaf" and info.get("seed_of"):
        rows.append(_row(f"seed {info['id']}", bold=True, colour=RED))
    elif node["role"] == "leaf":
        rows.append(_row(f"{info['id']}  constant", colour=GREY))
    else:
        rows.append(_row(info["id"], bold=True))
    rows.append(_row(kind, size=9, colour=GREY))
    rows += [_row(fmt.clip(line, 44), size=10) for line in fmt.preview_lines(info["preview"] or "")]
    if node.get("grad") is not None:
        # a summary on two lines, as the value above it: the node stays narrow and nothing is cut
        for number, line in enumerate(fmt.preview_lines(node["grad"])):
            rows.append(_row(("\u2202 " if number == 0 else "") + fmt.clip(line, 44), size=10, colour=RED))
        if node.get("grad_note"):  # a 0 an underflow made, not a zero derivative
            rows.append(_row(node["grad_note"], size=9, colour=RED))
    if node.get("target"):
        rows.append(_row("target", size=9, colour=RED, bold=True))
    return _table(rows)


def op_label(op):
    rows = [_row(fmt.clip(op["name"], 40), bold=True)]
    if op.get("function"):  # a custom gradient: the student's function, by name
        rows.insert(0, _row(fmt.clip(op["function"], 40), bold=True))
        rows[1] = _row("custom gradient", size=9, colour=GREY)
    if op["scope"]:
        rows.append(_row(fmt.clip(op["scope"], 32), size=9, colour=GREY))
    if not op["tapes"]:
        rows.append(_row("not recorded", size=9, colour=GREY))
    elif op["differentiable"] is False:
        rows.append(_row("no gradient", size=9, colour=RED))
    return _table(rows)


def _blocks_gradient(node):
    """An edge into a recorded op that lets no gradient through (stop_gradient, argmax, round)."""
    return node is not None and node["kind"] == "op" and node["op"]["tapes"] and node["op"]["differentiable"] is False


def fold_label(fold_info):
    rows = [_row(fmt.clip(fold_info["title"], 40), bold=True), _row(fold_info["subtitle"], size=9, colour=GREY)]
    if fold_info.get("growth"):  # a loop: how the gradient's norm changed across it, red when beyond the check's factor
        ratio = fold_info.get("growth_ratio")
        rows.append(_row(fold_info["growth"], size=9, colour=RED if magnitude.alarming(ratio) else GREY))
    if fold_info["open"]:
        rows.append(_row(fmt.clip(f"open=[{fold_info['open']!r}]", 40), size=8, colour=GREY))
    return _table(rows)


def _fold_tooltip(fold_info):
    """What hovering a folded box says, in words: what it holds, and what to type to draw its ops."""
    kind = fold_info["key"].split(":", 1)[0]
    count = len(fold_info["ops"])
    held = f"{count:,} op{'s' if count != 1 else ''}"
    opener = fold_info["open"]
    if kind == "scope":
        return (
            f"{held} of name scope {opener}, folded into one box; "
            f"tapeviz.show(tape, open=[{opener!r}]) draws them (sub-scopes stay folded)"
        )
    if kind == "repeat" and opener:
        return (
            f"a loop, {fold_info['title']}: {held} folded into one box; tapeviz.show(tape, open=[{opener!r}]) "
            f"draws its first and last turns ({opener} is the id of the loop's first op)"
        )
    if opener:
        return (
            f"{held} in a row, folded into one box; tapeviz.show(tape, open=[{opener!r}]) draws them "
            f"({opener} is the id of the first one)"
        )
    return f"{held} folded into one box; tapeviz.show(tape, fold=False) draws every op"


def _tensor_name(info):
    """A value's name as the picture writes it: ``x``, not ``t0`` or TF's ``'x:0'``."""
    return naming.variable_name(info) if info["kind"] == "variable" else info["id"]


def _tensor_tooltip(info):
    """What hovering a value says: its name as the picture writes it (``x``, not ``t0 'x:0'``), dtype, shape, value."""
    return (
        f"{_tensor_name(info)}: {info['dtype']} {fmt.shape_text(info['shape'])} = {fmt.clip(info['preview'] or '', 80)}"
    )


def _op_tooltip(op, tensors):
    """What hovering an op says, as the picture and the player's cards name it: ``Mul \u2192 y in scope model:
    d(x*y)/dx = y, ...`` (no op id: an op drawn on its own is never opened)."""
    made = [_tensor_name(tensors[t]) for t in op["outputs"] if t in tensors]
    head = (op.get("function") or op["name"]) + (f" \u2192 {', '.join(made)}" if made else "")
    scope = f" in scope {op['scope']}" if op["scope"] else ""
    return f"{head}{scope}: {op['formula']}"


def node_statement(node, tensors=None):
    """The DOT line of one node; ``tensors``: the trace's tensors by id, as labelled (an op's tooltip names its
    outputs)."""
    nid = node["id"]
    mark = node.get("mark")
    if node["kind"] == "op":
        op = node["op"]
        fill = "#f3f4f6" if not op["tapes"] else views.depth_colour(op["depth"])
        pairs = [
            ("id", nid),
            ("shape", "box"),
            ("style", "rounded,filled"),
            ("fillcolor", fill),
            ("color", GREY if not op["tapes"] else "#1f2937"),
            ("label", op_label(op)),
            ("tooltip", _op_tooltip(op, tensors or {})),
        ]
    elif node["kind"] == "fold":
        pairs = [
            ("id", nid),
            ("shape", "box3d"),
            ("style", "filled"),
            ("fillcolor", views.depth_colour(node["depth"])),
            ("label", fold_label(node["fold"])),
            ("tooltip", _fold_tooltip(node["fold"])),
        ]
    else:
        info = node["info"]
        role = node["role"]
        fill = "#fee2e2" if info["nonfinite"] else ("#dcfce7" if role == "variable" else "white")
        style = "filled,dashed" if role == "leaf" else "filled"
        colour = GREEN if role in ("variable", "source") else (GREY if role == "leaf" else "#1f2937")
        pairs = [
            ("id", nid),
            ("shape", "box" if role == "variable" else "ellipse"),
            ("style", style),
            ("fillcolor", fill),
            ("color", RED if node.get("target") else colour),
            ("penwidth", "2" if role in ("variable", "source") or node.get("target") else None),
            ("peripheries", "2" if node.get("target") else None),
            ("label", tensor_label(node)),
            ("tooltip", _tensor_tooltip(info)),
        ]
    if mark == "path":
        pairs += [("color", RED), ("penwidth", "3")]
    elif mark == "break":
        pairs += [("color", RED), ("penwidth", "4"), ("fillcolor", "#fecaca")]
    pairs = _last_wins(pairs)
    return f"  {nid} {_attrs(pairs)}"


def _last_wins(pairs):
    seen = {}
    for key, value in pairs:
        seen[key] = value
    order = []
    for key, _ in pairs:
        if key not in order:
            order.append(key)
    return [(key, seen[key]) for key in order]


def _tape_label(tape_id, tapes):
    info = tapes.get(tape_id, {"label": tape_id, "persistent": False, "released": None})
    label = info["label"] + (" (persistent)" if info["persistent"] else "")
    if info.get("released") == "gradient":
        label += " \u00b7 used, released"
    return label


BADGE_PREFIX = "badge_"  # the id of the room kept beside a node for its gradient badge: badge_t3


def badge_room(statement, nid, width, height, above=False):
    """DOT lines drawing node ``nid`` (its ``statement``) with an empty box of ``width`` x ``height`` points
    kept right beside it (``above``: right above it, on the rank before).

    The player draws the node's gradient badge there, so ``dot`` lays the graph out with room for it: edges
    are routed around it and no other node sits on it. The two share a frameless cluster, which ``dot`` keeps
    together (no other node or edge between them). The box is transparent, not invisible, so the SVG says
    where it is. A room above costs height instead of width: a variable read by a layer has nothing above it.
    """
    room = BADGE_PREFIX + nid
    if above:
        place = [f"  {room} -> {nid} [style=invis weight=10]"]  # weight: straight above it
    else:
        place = [
            f"  {{rank=same; {nid}; {room}}}",
            f"  {nid} -> {room} [style=invis minlen=0]",  # minlen=0: as close as nodesep allows, to its right
        ]
    return [
        f'subgraph cluster_{room} {{ graph [id="cluster_{room}" label="" peripheries=0 margin=0]',
        "  " + statement.lstrip(),
        f'  {room} [id="{room}" shape=box fixedsize=true width={width / 72:.3f} height={height / 72:.3f} '
        'label="" color="transparent"]',
        *place,
        "}",
    ]


def header(name):
    """The first lines of every picture's DOT (tapes, traced functions): one font, sizes and spacing."""
    return [
        f"digraph {name} {{",
        f'  graph [rankdir=TB fontname="{FONT}" fontsize=11 nodesep=0.25 ranksep=0.35 '
        "newrank=true labelloc=b labeljust=l]",
        f'  node [fontname="{FONT}" fontsize=11 margin="0.08,0.03" height=0.3]',
        f'  edge [fontname="{FONT}" fontsize=9 arrowsize=0.6]',
    ]


def html_label(title, *notes, colour=None):
    """A node's label as the tape pictures write it: ``title`` in bold, then each note small and grey."""
    return _table([_row(fmt.clip(title, 40), bold=True, colour=colour)] + [_row(n, size=9, colour=GREY) for n in notes])


def attributes(pairs):
    """``[key="value" ...]`` for DOT, skipping None values; an HTML label (``<...>``) is written as it is."""
    return _attrs(pairs)


def write(view, data, title=None, badges=None, above=()):
    """The DOT text of a :class:`view.View`; ``badges``: node id -> (width, height) of room kept for its badge,
    right of the node, or above it for the nodes in ``above``."""
    badges = badges or {}
    tapes = {t["id"]: t for t in data["tapes"]}
    lines = header("tape")
    caption = []
    if title:
        caption.append(fmt.clip(title, TITLE_LIMIT))
    if len(view.depths) > 1 or any(d > 0 for d in view.depths):
        caption.append(
            "colours: "
            + ", ".join(
                f"{views.ORDER_NAMES[min(d, 4)]} ({'blue amber red purple green'.split()[min(d, 4)]})"
                for d in sorted(view.depths)
            )
        )
    if view.folds:
        count = f"{len(view.folds)} fold" + ("s" if len(view.folds) > 1 else "")
        caption.append(f"{count}; open one with tapeviz.show(tape, open=[...]) as written on it, or fold=False")
    if caption:
        lines.append(f"  label={fmt.dot_string(' | '.join(caption))}")

    by_cluster = {}
    for node in view.nodes.values():
        by_cluster.setdefault(node["cluster"], []).append(node)
    paths = sorted(by_cluster, key=lambda p: (len(p), p))

    def emit(prefix, indent):
        pad = "  " * indent
        for node in by_cluster.get(prefix, []):
            if node["id"] in badges:
                statement = node_statement(node, data["tensors"])
                room = badge_room(statement, node["id"], *badges[node["id"]], above=node["id"] in above)
                lines.extend(pad + line for line in room)
            else:
                lines.append(pad + node_statement(node, data["tensors"]).lstrip())
        children = sorted({p[: len(prefix) + 1] for p in paths if len(p) > len(prefix) and p[: len(prefix)] == prefix})
        for child in children:
            name = "cluster_" + "_".join(child)
            tape_id = child[-1]
            lines.append(f"{pad}subgraph {name} {{")
            lines.append(
                f"{pad}  graph [id={fmt.dot_string(name)} label={fmt.dot_string(_tape_label(tape_id, tapes))} "
                f'style="rounded" color="#9ca3af" fontcolor="#374151" labeljust=l]'
            )
            emit(child, indent + 1)
            lines.append(f"{pad}}}")

    emit((), 1)
    for position, (src, dst, _direction, depth) in enumerate(view.edges):
        pairs = [("id", f"e{position}")]
        if _blocks_gradient(view.nodes.get(dst)):  # drawn as a dead end: no gradient goes back along it
            pairs += [
                ("style", "dashed"),
                ("arrowhead", "tee"),
                ("color", RED),
                ("tooltip", "no gradient flows back along this edge"),
            ]
        elif depth > 0:
            pairs += [("style", "dashed"), ("color", views.depth_colour(depth, views.DEPTH_EDGES))]
        else:
            pairs += [("color", views.DEPTH_EDGES[0])]
        lines.append(f"  {src} -> {dst} {_attrs(pairs)}")
    lines.append("}")
    return "\n".join(lines) + "\n"
