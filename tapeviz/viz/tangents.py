"""Forward mode step by step: the tangent player's frames.

Where the reverse player walks a tape backwards from the seed ``dy/dy = 1``,
this one walks it *forwards*, in the order the ops ran: the primals start
with their tangents (``dx/dt = 1``: ``x`` moves as ``x + t*v``), and each op
turns its inputs' tangents into its output's (``dy/dt``), along the arrows.
That is what ``tf.autodiff.ForwardAccumulator`` computes; tapeviz computes
it from the reverse rules by the double-VJP trick, here one op at a time
(:func:`tapeviz.core.forward.op_jvp`), so every frame's tangent is the
library's own number, and the card (:mod:`tapeviz.viz.tangent_card`) shows
the arithmetic that gives it where the op is elementwise.

The frames have the reverse player's shape (see :mod:`tapeviz.viz.frames`):
deltas over one layout, ``set`` (badges ``dy/dt = 6``), ``edges`` (the
tangent on each arrow it travels), ``flow``; plus ``answer`` (the number
predict mode asks for: the output's tangent) and ``tangents`` (previews of
the outputs' tangents).
"""

import numpy as np

from tapeviz.core import events as ev
from tapeviz.core.forward import op_jvp
from tapeviz.core.tensor import convert_to_tensor, is_tensor, tensor_id
from tapeviz.viz import format as fmt
from tapeviz.viz import frames as framing
from tapeviz.viz import names as naming
from tapeviz.viz import predict
from tapeviz.viz import tangent_card as tcards
from tapeviz.viz import view as views

READ = framing.READ


def _float64(tensor):
    return np.asarray(tensor.numpy(), dtype=np.float64)


def _as_tangent(primal, tangent):
    """``tangent`` as a Tensor of the primal's dtype and shape, or a clear error."""
    value = tangent.numpy() if is_tensor(tangent) else np.asarray(tangent)
    shape = tuple(primal.shape)
    if tuple(np.shape(value)) != shape:
        raise ValueError(
            f"A tangent of shape {tuple(np.shape(value))} was given for a primal of shape {shape}: "
            "each tangent has its primal's shape (a direction to move the primal in)."
        )
    if not primal.dtype.is_floating:
        raise TypeError(f"Only floating-point primals have tangents; got one of dtype {primal.dtype.name}.")
    return convert_to_tensor(np.asarray(value, dtype=primal.dtype.as_numpy_dtype))


def default_primals(data, tape_id):
    """What a tape watched, in the order it was watched (the primals when none are given)."""
    return [e["tensor"] for e in data["events"] if e["kind"] == ev.Watched.kind and e["tape"] == tape_id]


def forward_frames(trace, primals, tangents, tape=None, internals=False, names=None, who=None, **options):
    """Frames of forward mode over ``trace``'s ops: the primals' tangents, one step per op, the result.

    ``primals``: Tensors/Variables (or trace ids); ``tangents``: one per primal
    (Tensors, arrays or numbers of the primal's shape). ``tape``: only that
    tape's ops are played and drawn. ``who``: the accumulator's name for
    the captions. Returns ``(frames, view, tangents)``: ``tangents`` maps the
    trace id of every tensor that moves with the primals to its tangent (a Tensor).
    """
    data = trace.data
    objects = trace.objects
    if not objects:
        raise ValueError(
            "The tangent player needs the recorded values: pass the ForwardAccumulator or the "
            "tape itself, not a trace loaded from JSON."
        )
    tape_id = None
    if tape is not None:
        tape_id = {serial: tid for tid, serial in naming.tape_serials(trace).items()}.get(tape.serial)
    ops = [op for op in data["ops"] if tape_id is None or tape_id in op["tapes"]]
    if not ops:
        raise ValueError(
            "This tape recorded no ops to push a tangent through: compute something from the "
            "primals inside the `with` block."
        )
    ids = {tensor_id(obj): tid for tid, obj in objects["tensors"].items()}
    found = naming.lookup(trace) if names is None else dict(names)
    shown = dict(data, ops=ops) if tape_id is not None else data
    view = views.build(naming.relabel(shown, found), sweep=None, grads=False, **options)
    namer = framing.Namer(data, view, found)
    edges = framing.edge_ids(view)
    by_position = {}
    for position, (src, dst, kind, _depth) in enumerate(view.edges):
        by_position.setdefault((src, dst, kind), f"e{position}")

    live = {}  # tid -> tangent (Tensor) of every tensor that moves with the primals
    seeds = []  # (tid or None, name, tangent preview)
    if len(primals) != len(tangents):
        raise ValueError(f"Got {len(primals)} primals but {len(tangents)} tangents: give one tangent per primal.")
    for position, (primal, tangent) in enumerate(zip(primals, tangents)):
        tid = primal if isinstance(primal, str) else ids.get(tensor_id(primal))
        obj = objects["tensors"][tid] if tid is not None else primal
        value = _as_tangent(obj, tangent)
        if tid is not None:
            live[tid] = value
        seeds.append((tid, namer(tid) if tid is not None else f"primal {position}", fmt.preview(_float64(value))))

    def badge(tid, tangent_text):
        return fmt.badge_text(tcards.rate(namer(tid)), tangent_text)

    first = next((tid for tid, _n, _t in seeds if tid is not None), None)
    seed_text = ", ".join(f"{tcards.rate(name)} = {t}" for _tid, name, t in seeds)
    moves = ", ".join(f"{name} + t\u00b7{t}" for _tid, name, t in seeds)
    frames = [
        {
            "index": 0,
            "kind": "seed",
            "sweep": "forward",
            "clear": True,
            "node": namer.node(first) if first is not None else None,
            "op": None,
            "upstream": [],
            "formula": "",
            "grads": [],
            "accumulated": [],
            "answer": None,
            "tangents": [],
            "caption": (
                f"{who or 'Forward mode'} starts at the primals with their tangents, {seed_text}: the inputs "
                f"move as {moves}, and every value computed from them moves at its own rate d(value)/dt, "
                "carried forward along the arrows."
            ),
            "card": tcards.seed_card([name for _tid, name, _t in seeds], [t for _tid, _n, t in seeds]),
            "set": {
                namer.node(tid): badge(tid, t)
                for tid, _n, t in seeds
                if tid is not None and namer.node(tid) in view.nodes
            },
            "edges": {},
            "flow": [],
        }
    ]
    produced = []  # tids whose tangent a step computed, in order
    consumed = set()
    for op in ops:
        incoming = [live.get(tid) for tid in op["inputs"]]
        if not any(t is not None for t in incoming):
            continue  # nothing here moves with the primals
        consumed.update(tid for tid, t in zip(op["inputs"], incoming) if t is not None)
        entry = objects["entries"].get(op["id"])
        if entry is None or not all(is_tensor(t) for t in (*entry.inputs, *entry.outputs)):
            raise ValueError(
                f"The tape no longer holds the values of {op['name']} ({op['id']}), so no tangent can "
                "be pushed through it: record with tf.GradientTape(persistent=True), or use "
                "tf.autodiff.ForwardAccumulator and pass it to the player."
            )
        outgoing = op_jvp(entry, incoming)
        for tid, tangent in zip(op["outputs"], outgoing):
            if tangent is not None:
                live[tid] = tangent
                produced.append(tid)
        if op["name"] == READ and not internals:
            continue  # the read is drawn as its variable, which already shows the tangent
        inputs64 = [None if t is None else _float64(t) for t in incoming]
        outputs64 = [None if t is None else _float64(t) for t in outgoing]
        card = tcards.step_card(op, entry, inputs64, outputs64, namer)
        node = view.op_node.get(op["id"], op["id"])
        changed, labels, flow = {}, {}, []
        for row in card["rows"]:
            src = namer.node(row["tid"])
            # x * x draws one edge per input: each carries its own tangent
            edge = by_position.get((src, node, f"in{row['position']}")) or edges.get((src, node))
            if edge is not None and edge not in flow:
                labels[edge] = fmt.edge_label(row["tangent"])
                flow.append(edge)
        for tid, tangent in zip(op["outputs"], outputs64):
            dst = namer.node(tid)
            edge = edges.get((node, dst))
            if edge is not None and tangent is not None:
                flow.append(edge)
            if tangent is not None and dst in view.nodes and op["name"] != READ:
                changed[dst] = badge(tid, fmt.preview(tangent))
        answer = None
        if outputs64 and outputs64[0] is not None and np.size(outputs64[0]) == 1:
            answer = float(np.reshape(outputs64[0], ()))
        frames.append(
            {
                "index": len(frames),
                "kind": "step",
                "sweep": "forward",
                "node": node,
                "op": op["id"],
                "upstream": [],
                "formula": op["formula"],
                "grads": [],
                "accumulated": [],
                "tangents": list(card["totals"]),
                "answer": answer,
                "ask": predict.tangent_questions(card, answer),
                "caption": tcards.caption(card),
                "card": card,
                "set": changed,
                "edges": labels,
                "flow": flow,
            }
        )
    results = [tid for tid in produced if tid not in consumed and namer.node(tid) in view.nodes] or produced[-1:]
    done = ", ".join(f"{tcards.rate(namer(tid))} = {fmt.preview(_float64(live[tid]))}" for tid in results)
    jvp_of = ", ".join(namer(tid) for tid in results)
    frames.append(
        {
            "index": len(frames),
            "kind": "done",
            "sweep": "forward",
            "node": None,
            "op": None,
            "upstream": [],
            "formula": "",
            "grads": [],
            "accumulated": [],
            "card": None,
            "answer": None,
            "tangents": [],
            "caption": (
                f"Done: {done or 'no value moves with the primals'}"
                + (f", what {who}.jvp({jvp_of}) returns" if who and done else "")
                + (
                    ": the derivative along the tangent, which reverse mode gives as the gradient dotted "
                    "with the tangent."
                    if done
                    else "."
                )
            ),
            "set": {},
            "edges": {},
            "flow": [],
        }
    )
    return frames, view, live
