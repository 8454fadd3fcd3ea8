"""Animation frames as data: the reverse sweep step by step, and the forward recording.

Frames are *deltas* over ONE fixed layout (the topology does not change
during a sweep): a frame says only what changes on its step, so a 2,000-step
sweep costs 2,000 small dicts, not 2,000 copies of every badge. The same
frames drive the ipywidgets player, the kernel-free HTML file, the SVG frames
and the GIF, and tests check them as data::

    {"index", "kind": "seed" | "step" | "done" | "record",
     "node": the highlighted node id (or None), "op": op id, "sweep": sweep id,
     "caption": one line of plain text,
     "card": the chain-rule card (see tapeviz.viz.card) or None,
     "set": {node id: badge text} badges that change on this frame,
     "edges": {edge id: gradient text} edge labels that change on this frame,
     "flow": [edge ids] the edges the gradient runs along on this frame,
     "clear": True on the first frame of a sweep (badges and labels start afresh),
     "hidden": [node ids not yet recorded]  (recording frames only),
     "ask": [questions] what predict mode asks on a step (see tapeviz.viz.predict),
     "sent_norm", "nonfinite", "underflow": a step's largest gradient sent (L2 norm), "nan"/"inf"
       when its gradients hold one, a product that underflowed to 0 (the jump buttons: jump_targets),
     "upstream", "formula", "grads", "accumulated": the trace's step data}

:func:`state_at` replays the deltas: the badges and edge labels shown on a
frame. Variable reads are folded into their variable (the sweep's
``ReadVariableOp`` steps are bookkeeping without a node of their own), so a
read's gradient reaches the variable on the step that computes it;
``internals=True`` shows those steps too.
"""

from tapeviz.core import events as ev
from tapeviz.viz import card as cards
from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz import predict
from tapeviz.viz import view as views

READ = "ReadVariableOp"


def state_at(frames, index):
    """(badges, edge labels) shown on frame ``index``: the deltas of its sweep replayed."""
    badges, edges = {}, {}
    for frame in frames[: index + 1]:
        if frame.get("clear"):
            badges, edges = {}, {}
        badges.update(frame.get("set", {}))
        edges.update(frame.get("edges", {}))
    return badges, edges


def choose_sweeps(data, sweep="last", tape_id=None):
    """Indices of the sweeps to play: ``sweep`` is "last", "all" (every sweep of the trace, in
    order: a nested tape's first-order sweep, then the second-order one), an index or an id;
    ``tape_id`` makes "last" the last sweep of that tape (``player(inner_tape)``)."""
    sweeps = data["sweeps"]
    if sweep == "all":
        return list(range(len(sweeps)))
    indices = [i for i, s in enumerate(sweeps) if tape_id is None or s["tape"] == tape_id]
    if sweep == "last":
        return indices[-1:]
    if isinstance(sweep, int):
        return [range(len(sweeps))[sweep]]
    for i, s in enumerate(sweeps):
        if s["id"] == sweep:
            return [i]
    raise ValueError(f"No sweep {sweep!r} in this trace; it has {[s['id'] for s in sweeps]}.")


def edge_ids(view):
    """(src, dst) -> the SVG id dot.py gives the edge (``e<position>``), first one wins."""
    ids = {}
    for position, (src, dst, _kind, _depth) in enumerate(view.edges):
        ids.setdefault((src, dst), f"e{position}")
    return ids


class Namer:
    """What the player calls tensors and tapes: Python names where found, else what the picture shows."""

    def __init__(self, data, view, found):
        self.data, self.view, self.found = data, view, found

    def node(self, tid):
        return self.view.alias.get(tid, tid)

    def __call__(self, tid):
        node = self.node(tid)
        info = self.data["tensors"].get(node, {})
        if info.get("kind") == "variable":  # as the picture writes it: its own name, not the Python one
            return naming.variable_label(node, info, self.found)
        for key in (tid, node):
            if key in self.found:
                return self.found[key]
        return naming.shown(node, self.data, self.found)

    def symbol(self, tid):
        """What a rule's symbol becomes on a card: the name, or the value of an unnamed scalar constant (``2``)."""
        node = self.node(tid)
        info = self.data["tensors"].get(node, {})
        if tid not in self.found and node not in self.found and info.get("kind") == "leaf" and not info.get("seed_of"):
            if info.get("shape") == [] and info.get("preview"):
                return info["preview"]
        return self(tid)

    def tape(self, tape_id):
        if tape_id in self.found:
            return self.found[tape_id]
        for t in self.data["tapes"]:
            if t["id"] == tape_id:
                return t["label"]
        return tape_id


def sweep_frames(trace, sweep="last", view=None, tape=None, internals=False, names=None, start=0, **options):
    """Frames of the chosen sweep(s): the seed, one per backward step, and the result.

    ``tape``: a GradientTape whose own sweeps are played (the trace may hold
    an outer tape's sweeps too). ``names``: {trace id: label}; None looks the
    Python names up in the caller's namespace. ``internals``: show the
    variable reads' own steps. ``start``: the index of the first frame (frames before it play something else).
    """
    data = trace.data if hasattr(trace, "data") else trace
    tape_id = None
    if tape is not None and hasattr(trace, "records"):
        tape_id = {serial: tid for tid, serial in naming.tape_serials(trace).items()}.get(tape.serial)
    if not data["sweeps"] or (
        tape is not None and tape_id is not None and not any(s["tape"] == tape_id for s in data["sweeps"])
    ):
        raise ValueError(
            "This tape has no reverse sweep to play: call tape.gradient(...) first "
            "(with tapeviz.viz imported, so the sweep is recorded)."
        )
    chosen = choose_sweeps(data, sweep, tape_id)
    found = naming.lookup(trace) if names is None and hasattr(trace, "records") else (names or {})
    view = view or views.build(
        naming.relabel(data, found), sweep=data["sweeps"][chosen[-1]]["id"], grads=False, **options
    )
    namer = Namer(data, view, found)
    frames = []
    for index in chosen:
        frames += _one_sweep(trace, data, index, view, namer, internals, start=start + len(frames))
    return frames, view


def _one_sweep(trace, data, index, view, namer, internals, start):
    sweep = data["sweeps"][index]
    live = cards.sweep_events(trace, index)
    events = live[1] if live and len(live[1]) == len(sweep["steps"]) else None
    edges = edge_ids(view)
    target = namer(sweep["targets"][0]) if sweep["targets"] else "y"
    totals = {}
    vanished = None  # (frame, op, the exact product, output) where a gradient first underflowed to 0

    def badge(node, total):  # a big tensor's gradient by its mean: the card, a click away, has its min and max
        return fmt.badge_text(cards.ratio(target, namer(node)), fmt.preview_lines(total)[0])

    # The seed: d target / d target = 1 (or the output_gradients given).
    seeds = {}
    for position, (tid, seed) in enumerate(zip(sweep["targets"], sweep["seeds"])):
        value = None
        if live and live[0] is not None:
            given = live[0].output_gradients[position] if position < len(live[0].output_gradients) else None
            target_tensor = live[0].targets[position]
            value = (
                cards.array_of(given)
                if given is not None
                else (cards.np.ones(tuple(target_tensor.shape)) if hasattr(target_tensor, "shape") else None)
            )
        node = namer.node(tid)
        cards.accumulate(totals, node, value, seed, None)
        seeds[node] = badge(node, seed)
    tape_name = namer.tape(sweep["tape"])
    seed_text = ", ".join(f"{cards.ratio(namer(t), namer(t))} = {s}" for t, s in zip(sweep["targets"], sweep["seeds"]))
    frames = [
        {
            "index": start,
            "kind": "seed",
            "sweep": sweep["id"],
            "clear": True,
            "node": namer.node(sweep["targets"][0]) if sweep["targets"] else None,
            "op": None,
            "upstream": list(sweep["seeds"]),
            "formula": "",
            "grads": [],
            "accumulated": [],
            "caption": f"{tape_name}.gradient starts at the target with the seed {seed_text}: "
            f"the gradient of {target} with respect to itself.",
            "card": cards.seed_card([namer(t) for t in sweep["targets"]], sweep["seeds"]),
            "set": {n: b for n, b in seeds.items() if n in view.nodes},
            "edges": {},
            "flow": [],
        }
    ]
    for position, step in enumerate(sweep["steps"]):
        op = data["ops"][int(step["op"][2:])]
        event = events[position] if events is not None else None
        is_read = op["name"] == READ
        # A read's gradient already reached the variable with the step that made it.
        skip = range(len(op["inputs"])) if is_read else ()
        card = cards.step_card(op, step, event, namer, totals, namer.node, skip=skip)
        card["target"] = target
        lost = [row for row in card["rows"] if row.get("underflow")]
        if lost and vanished is None:
            vanished = (
                start + len(frames),
                op["name"],
                lost[0]["underflow"],
                op["outputs"] and namer(op["outputs"][0]),
            )
        if is_read and not internals:
            continue
        node = view.op_node.get(op["id"], op["id"])
        changed, labels, flow = {}, {}, []
        for row in card["rows"]:
            src = namer.node(row["tid"])
            if src in view.nodes and not is_read:
                changed[src] = badge(src, row["total"])
            edge = edges.get((src, node))
            if edge is not None and edge not in flow:
                labels[edge] = fmt.edge_label(step["grads"][row["position"]])
                flow.append(edge)
        for tid in op["outputs"]:
            edge = edges.get((node, namer.node(tid)))
            if edge is not None:
                flow.append(edge)
        frames.append(
            {
                "index": start + len(frames),
                "kind": "step",
                "sweep": sweep["id"],
                "node": node,
                "op": op["id"],
                "upstream": list(step["upstream"]),
                "formula": op["formula"],
                "grads": list(step["grads"]),
                "accumulated": list(step["accumulated"]),
                "caption": _caption(card, is_read) + _underflow_note(card) + _zero_note(step, vanished, lost),
                "card": card,
                "sent_norm": _largest(step.get("grad_norms") or ()),
                "nonfinite": _nonfinite(step),
                "underflow": bool(lost),
                "ask": predict.reverse_questions(card),
                "set": changed,
                "edges": labels,
                "flow": flow,
            }
        )
    results = sweep["results"] or []
    done = ", ".join(
        f"{cards.ratio(target, namer(s))} = {'None' if r is None else r}" for s, r in zip(sweep["sources"], results)
    )
    result_names = _result_names(live, namer)
    frames.append(
        {
            "index": start + len(frames),
            "kind": "done",
            "sweep": sweep["id"],
            "node": None,
            "op": None,
            "upstream": [],
            "formula": "",
            "grads": [],
            "accumulated": [],
            "card": None,
            "caption": f"Done: {done}"
            + (f" (returned as {result_names})" if result_names else "")
            + "."
            + _vanished_note(vanished),
            "set": {},
            "edges": {},
            "flow": [],
        }
    )
    return frames


def _caption(card, is_read):
    if is_read:
        return (
            f"{card['op']}: the read passes its gradient on to the variable "
            "(already counted there when it was computed)."
        )
    parts = []
    for row in card["rows"]:
        if row["elementwise"]:
            parts.append(f"{cards.wrt(row['input'])}: {cards.local_shown(row)}, {row['product']}")
        else:
            parts.append(f"{cards.wrt(row['input'])}: {row['product']}")
        if row["sum"]:
            parts.append(f"{row['into']} sums {row['sum']}")
    body = "; ".join(parts) or "no input needs a gradient"
    return f"{card['op']} \u2192 {card['outputs']}: upstream {card['upstream']}; {body}."


def _underflow_note(card):
    lost = [row for row in card["rows"] if row.get("underflow")]
    if not lost:
        return ""
    row = lost[0]
    return (
        f" Underflow: upstream \u00d7 local is {row['underflow']}, smaller than the dtype can hold,"
        f" so the gradient to {row['input']} became 0."
    )


def _zero_note(step, vanished, lost):
    """On a step whose upstream is 0 because an earlier product underflowed: why it is 0 (no factor was)."""
    if vanished is None or lost or step.get("norm") != 0.0:
        return ""
    frame, op, exact, _output = vanished
    return (
        f" The upstream is 0 because the gradient underflowed at step {frame} ({op}: the product was {exact},"
        " too small for the dtype); every gradient from here on is 0."
    )


def _largest(norms):
    """The largest finite norm among a step's gradients (the trace's: floats, "inf", "nan", None), or None."""
    finite = [n for n in norms if isinstance(n, float) and n == n]
    return max(finite) if finite else None


def _nonfinite(step):
    """ "nan" when a gradient arriving at or sent by this step holds a NaN, "inf" when an inf (and no NaN), else None."""
    norms = [step.get("norm"), *(step.get("grad_norms") or ())]
    return "nan" if "nan" in norms else ("inf" if "inf" in norms else None)


JUMPS = ("nan", "underflow", "largest")  # the player's buttons: first NaN (or inf), first underflow, largest gradient


def jump_targets(frames):
    """The frames the player's jump buttons go to: {"nan": the first step whose gradients hold a NaN (else
    the first with an inf), "underflow": the first step where upstream x local underflowed to 0,
    "largest": the step that sent the largest gradient (by L2 norm)}, each an index or None; and
    "nan_label": "first NaN" or "first inf", what that button says."""
    steps = [f for f in frames if f.get("kind") == "step"]
    nan = next((f["index"] for f in steps if f.get("nonfinite") == "nan"), None)
    inf = next((f["index"] for f in steps if f.get("nonfinite") == "inf"), None)
    sized = [f for f in steps if f.get("sent_norm") is not None]
    largest = max(sized, key=lambda f: f["sent_norm"])["index"] if sized else None
    return {
        "nan": nan if nan is not None else inf,
        "nan_label": "first inf" if nan is None and inf is not None else "first NaN",
        "underflow": next((f["index"] for f in steps if f.get("underflow")), None),
        "largest": largest,
    }


def _vanished_note(vanished):
    """The vanishing-gradient note on the last frame: where a gradient became 0 though nothing was 0."""
    if vanished is None:
        return ""
    frame, op, exact, _output = vanished
    return (
        f" Vanishing gradient: at step {frame} ({op}) the product upstream \u00d7 local was {exact}, too small"
        " for the dtype, and became 0; every gradient behind it is 0 too, though no factor was."
        " Fewer multiplications by small local derivatives, float64, or rescaling keeps it."
    )


def _result_names(live, namer):
    """The Python names the sweep's results were stored under (``dy_dx``), when found."""
    if not live or live[2] is None:
        return ""
    results = {i: r for i, r in enumerate(live[2].results) if r is not None}
    found = naming.by_identity(results, naming.namespace(3)) if results else {}
    return ", ".join(found[i] for i in sorted(found))


def backward_links(data, view, sweep_ids=None):
    """Dotted links (backward op node, forward op node): the ops a backward step ran, to the op it differentiated.

    A rule's ops are recorded (by an outer tape) before its step is announced,
    so the ops between two steps of a sweep belong to the second one.
    """
    links = []
    pending = {}
    wanted = set(sweep_ids) if sweep_ids else {s["id"] for s in data["sweeps"]}
    ops = data["ops"]
    for event in data["events"]:
        if event["kind"] == ev.SweepStarted.kind and event["sweep"] in wanted:
            pending[event["sweep"]] = []
        elif event["kind"] == ev.OpExecuted.kind:
            op = ops[int(event["op"][2:])]
            if op["depth"] > 0:
                for waiting in pending.values():
                    waiting.append(op["id"])
        elif event["kind"] == ev.BackwardStep.kind and event["sweep"] in pending:
            forward = view.op_node.get(event["op"])
            for backward_op in pending[event["sweep"]]:
                backward = view.op_node.get(backward_op)
                if (
                    backward in view.nodes
                    and forward in view.nodes
                    and backward != forward
                    and (backward, forward) not in links
                ):
                    links.append((backward, forward))
            pending[event["sweep"]] = []
        elif event["kind"] == ev.SweepFinished.kind:
            pending.pop(event["sweep"], None)
    return links


def _recorded(op, data, found, alias):
    """A recording step's caption, in the student's names: ``Recorded Mul on tape: #4 from x, #2.``

    ``alias``: the view's tensor -> the node drawing it (a variable's read is drawn as the variable).
    """

    def label(tid):
        return naming.label(alias.get(tid, tid), data, found)

    tapes = ", ".join(found.get(t, t) for t in op["tapes"]) or "no tape"
    scope = f" in scope {op['scope']}" if op["scope"] else ""
    if op["name"] == READ and op["inputs"]:
        return f"Recorded the read of {label(op['inputs'][0])}{scope} on {tapes}."
    made = ", ".join(label(t) for t in op["outputs"])
    used = ", ".join(label(t) for t in op["inputs"])
    return f"Recorded {op['name']}{scope} on {tapes}: {made}" + (f" from {used}." if used else ".")


def recording_frames(trace, view=None, **options):
    """Frames of the forward pass: ops appear on the tape in the order they ran."""
    data = trace.data if hasattr(trace, "data") else trace
    found = naming.lookup(trace) if hasattr(trace, "records") else {}
    view = view or views.build(naming.relabel(data, found), sweep=None, **options)
    shown_ops = [op for op in data["ops"] if view.op_node.get(op["id"]) in view.nodes]
    producer = {}
    for src, dst, direction, _depth in view.edges:
        if direction == "out":
            producer.setdefault(dst, src)
    appear = {}  # node id -> frame index where it appears
    for index, op in enumerate(shown_ops, start=1):
        # a variable's read is drawn as the variable, which exists before the tape starts: never hidden
        for node in [view.op_node[op["id"]], *(view.alias.get(t, t) for t in op["outputs"])]:
            if view.nodes.get(node, {}).get("role") != "variable":
                appear.setdefault(node, index)
    frames = []
    ordered = list(view.nodes)
    for index in range(len(shown_ops) + 1):
        hidden = [n for n in ordered if n in appear and appear[n] > index or (n not in appear and n in producer)]
        op = shown_ops[index - 1] if index else None
        caption = (
            "The tape starts empty; inputs and variables exist."
            if op is None
            else _recorded(op, data, found, view.alias)
        )
        frames.append(
            {
                "index": index,
                "kind": "record",
                "node": view.op_node[op["id"]] if op else None,
                "op": op["id"] if op else None,
                "caption": caption,
                "set": {},
                "edges": {},
                "flow": [],
                "card": None,
                "hidden": hidden,
                "clear": index == 0,
                "upstream": [],
                "formula": "",
                "grads": [],
                "accumulated": [],
            }
        )
    return frames, view
