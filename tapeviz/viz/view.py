"""A trace -> what to draw: visible nodes, edges, clusters, marks.

This is the one place that decides what a picture contains; ``dot.py`` only
writes it as DOT text, and the player animates states on the same node ids.

Choices made here, for students' eyes:

* a variable is one node: its ``ReadVariableOp`` reads are folded into it,
  each read tensor is shown as the variable itself, so fan-out (``x * x``)
  meets at the variable, where the sweep sums it (``show_reads=True`` draws
  the reads);
* ops no tape recorded are drawn (grey) only when they are forward ops, so a
  ``trace()`` shows what ran outside the tape; backward ops a sweep ran are
  drawn when an outer tape recorded them (that is the second-order graph);
* big graphs are folded (see :mod:`tapeviz.viz.fold`): a loop is one box.
"""

from tapeviz.viz import fold as folding
from tapeviz.viz import magnitude

DEPTH_COLOURS = ["#dbeafe", "#fde68a", "#fecaca", "#e9d5ff", "#d1fae5"]
DEPTH_EDGES = ["#374151", "#d97706", "#dc2626", "#7c3aed", "#059669"]
ORDER_NAMES = ["forward", "1st-order backward", "2nd-order backward", "3rd-order backward", "4th-order backward"]
READ = "ReadVariableOp"


def depth_colour(depth, table=DEPTH_COLOURS):
    return table[min(depth, len(table) - 1)]


class View:
    """Nodes (dicts by id, in drawing order), edges, clusters of a picture."""

    def __init__(self):
        self.nodes = {}
        self.edges = []  # (src, dst, kind, depth)
        self.alias = {}  # tensor id -> node id it is drawn as (a variable's reads: the variable)
        self.hidden = set()  # tensors (as drawn) a fold hides
        self.folds = {}  # fold node id -> {"key", "title", "subtitle", "open", "ops"; a loop: "growth", "growth_ratio"}
        self.op_node = {}  # op id -> node id drawn for it (itself, a fold, or a variable)
        self.tape_order = []
        self.depths = set()
        self.sweep = None


def build(
    trace, sweep="last", fold=True, open=(), max_nodes=300, untaped="forward", marks=None, grads=True, show_reads=False
):
    """The :class:`View` of ``trace``.

    ``sweep``: "last", None, or a sweep id/index whose gradients label the
    nodes. ``fold``: True (automatic), False, "scopes" (every
    innermost name scope one box, whatever the size: a model's layers), or a ready plan. ``open``:
    scopes, or the first op ids of loops and segments, to unfold.
    ``untaped``: "forward", "all" or "none". ``marks``: {op or tensor id:
    "path" | "break"} used by explain to highlight a path. ``grads``: False
    leaves gradients off the nodes (the player adds them). ``show_reads``:
    draw each ``ReadVariableOp`` instead of folding it into its variable.
    """
    data = trace.data if hasattr(trace, "data") else trace
    view = View()
    ops = [op for op in data["ops"] if _visible(op, untaped)]
    drawn = ops if show_reads else _fold_reads(view, ops)
    view.sweep = _choose_sweep(data, sweep)
    view.tape_order = _tape_order(ops)
    plan = _plan(view, data, drawn, fold, open, max_nodes)
    _add_nodes_and_edges(view, data, drawn, plan)
    if view.sweep:
        _label_sweep(view, view.sweep, grads, data)
        _label_loop_growth(view, data, view.sweep)
    _apply_marks(view, marks or {})
    return view


def _visible(op, untaped):
    if op["tapes"]:
        return True
    if untaped == "all":
        return True
    return untaped == "forward" and op["depth"] == 0


def _fold_reads(view, ops):
    """The ops left to draw once each variable read is drawn as its variable."""
    for op in ops:
        if op["name"] == READ and op["inputs"]:
            for out in op["outputs"]:
                view.alias[out] = op["inputs"][0]
            view.op_node[op["id"]] = op["inputs"][0]
    return [op for op in ops if op["name"] != READ]


def _choose_sweep(data, sweep):
    sweeps = data["sweeps"]
    if sweep is None or not sweeps:
        return None
    if sweep == "last":
        return sweeps[-1]
    if isinstance(sweep, int):
        return sweeps[sweep]
    for s in sweeps:
        if s["id"] == sweep:
            return s
    raise ValueError(f"No sweep {sweep!r} in this trace; it has {[s['id'] for s in sweeps]}.")


def _tape_order(ops):
    """Tapes outermost first: the tape that recorded the most ops."""
    counts = {}
    for op in ops:
        for t in op["tapes"]:
            counts[t] = counts.get(t, 0) + 1
    return sorted(counts, key=lambda t: (-counts[t], int(t[1:])))


def _kept(data, sweep):
    """Tensors no fold may hide: variables, watched tensors, the sweep's targets."""
    targets = set(sweep["targets"]) if sweep else set()
    return (
        frozenset(t for t, info in data["tensors"].items() if info["kind"] == "variable" or info["watched_by"])
        | targets
    )


def _plan(view, data, drawn, fold, opened, max_nodes):
    keep = _kept(data, view.sweep)
    if fold is False:
        plan = {}
    elif isinstance(fold, dict):
        plan = fold
    elif fold == "scopes":
        plan = folding.scope_boxes(drawn, tuple(opened))
    else:
        plan = folding.plan(drawn, max_nodes, tuple(opened), view.alias, keep)
    view.hidden, _, _ = folding.hidden_tensors(drawn, plan, view.alias, keep)
    return plan


def _tensor_node(view, data, tid):
    """The node drawing tensor ``tid`` (made on first use)."""
    nid = view.alias.get(tid, tid)
    if nid not in view.nodes:
        info = data["tensors"][nid]
        role = (
            "variable"
            if info["kind"] == "variable"
            else ("source" if info["watched_by"] else ("leaf" if info["kind"] == "leaf" else "tensor"))
        )
        sources = view.sweep["sources"] if view.sweep else ()
        view.nodes[nid] = {
            "id": nid,
            "kind": "tensor",
            "role": role,
            "info": info,
            "cluster": (),
            "grad": None,
            "target": False,
            "source": nid in sources or bool(info["watched_by"]),
        }
    return nid


def _fold_node(view, key, members, path):
    nid = f"fold{len(view.folds)}"
    title, subtitle, opener = folding.describe(key, members)
    view.folds[nid] = {
        "key": key,
        "title": title,
        "subtitle": subtitle,
        "open": opener,
        "ops": [m["id"] for m in members],
    }
    view.nodes[nid] = {
        "id": nid,
        "kind": "fold",
        "fold": view.folds[nid],
        "cluster": path,
        "depth": min(m["depth"] for m in members),
    }
    return nid


def _add_nodes_and_edges(view, data, drawn, plan):
    """Op and fold nodes in tape order, the tensors they use and make, and the edges between."""
    rank = {t: i for i, t in enumerate(view.tape_order)}
    members = {}
    for op in drawn:
        if op["id"] in plan:
            members.setdefault(plan[op["id"]], []).append(op)
    producer, _ = folding.flows(drawn, plan, view.alias)
    unit_node = {}  # fold key or op id -> node id
    seen = set()

    def edge(src, dst, kind, depth):
        if src != dst and (src, dst, kind, depth) not in seen:
            seen.add((src, dst, kind, depth))
            view.edges.append((src, dst, kind, depth))

    for op in drawn:
        unit = folding.unit_of(plan, op)
        path = tuple(sorted(op["tapes"], key=rank.get))
        view.depths.add(op["depth"])
        nid = unit_node.get(unit)
        if nid is None:
            if unit in members:
                nid = _fold_node(view, unit, members[unit], path)
            else:
                nid = op["id"]
                view.nodes[nid] = {"id": nid, "kind": "op", "op": op, "cluster": path}
            unit_node[unit] = nid
        view.op_node[op["id"]] = nid
        for position, t in enumerate(op["inputs"]):
            drawn_as = view.alias.get(t, t)
            if drawn_as in view.hidden:
                made_by = producer.get(drawn_as)
                if made_by is not None and made_by in unit_node:  # a fold's output: one edge from the fold
                    edge(unit_node[made_by], nid, "in", op["depth"])
                continue
            # x * x draws two edges (both inputs); into a fold, one is enough
            edge(_tensor_node(view, data, t), nid, "in" if unit in members else f"in{position}", op["depth"])
        for t in op["outputs"]:
            if view.alias.get(t, t) in view.hidden:
                continue
            dst = _tensor_node(view, data, t)
            if not view.nodes[dst]["cluster"] and data["tensors"][dst]["kind"] == "computed":
                view.nodes[dst]["cluster"] = path  # outputs sit with the op that made them
            edge(nid, dst, "out", op["depth"])


def _label_sweep(view, sweep, grads, data):
    """The sweep's targets, and (``grads``) each tensor node's final gradient: a variable's total; a 0 that
    an underflow made (the sweep's gradient became too small for the dtype) says so (``grad_note``)."""
    totals, underflowed, lost = {}, set(), False
    for step in sweep["steps"] if grads else ():
        totals.update(step["totals"])
        lost = lost or bool(step.get("underflow"))
        inputs = data["ops"][int(step["op"][2:])]["inputs"]
        for tid, norm in zip(inputs, step.get("grad_norms") or ()):
            if norm is None:
                continue
            if lost and norm == 0.0:
                underflowed.add(tid)
            else:
                underflowed.discard(tid)  # a gradient that is not 0 arrived after it
    for nid, node in view.nodes.items():
        if node["kind"] == "tensor" and nid in totals:
            node["grad"] = totals[nid]
            if nid in underflowed and _zero_text(totals[nid]):
                node["grad_note"] = "0 by underflow: too small for the dtype"
    for t in sweep["targets"]:
        nid = view.alias.get(t, t)
        if nid in view.nodes:
            view.nodes[nid]["target"] = True


def _zero_text(text):
    """True for a preview of zeros: ``0``, ``[0, 0]``, ``mean 0, min 0, max 0``."""
    return bool(text) and text.replace("mean", "").replace("min", "").replace("max", "").strip("[]0,. -") == ""


def _label_loop_growth(view, data, sweep):
    """A folded loop says how the gradient's norm changed across it (``gradient norm ×1e27 over the loop``),
    which the box would otherwise hide (:func:`tapeviz.viz.magnitude.loop_growth`)."""
    for fold in view.folds.values():
        if fold["key"].startswith("repeat:"):
            members = [data["ops"][int(op_id[2:])] for op_id in fold["ops"]]
            fold["growth"], fold["growth_ratio"] = magnitude.loop_growth(data, sweep, fold["key"], members)


def _apply_marks(view, marks):
    """Marks name trace ids (ops, tensors); draw them on whatever node shows them."""
    translated = {}
    for key, role in marks.items():
        nid = view.op_node.get(key, view.alias.get(key, key))
        if translated.get(nid) != "break":
            translated[nid] = role
    for nid, node in view.nodes.items():
        node["mark"] = translated.get(nid)
