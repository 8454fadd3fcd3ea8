"""The gradients of a recorded tape, step by step, recomputed from its entries without touching the tape.

The diagnosis needs the gradient arriving at every op and what each rule
produced, as arrays, whether or not ``gradient()`` ran, and whatever the tape
is (a non-persistent tape that already released its entries included: the
session recorder keeps them). ``replay`` walks the entries last to first and
applies each rule, as the core's sweep does, with the thread's tapes set
aside and at derivative order 1, so no tape records it and the session
recorder keeps none of its ops. A rule that raises ends the walk: what ran
so far is returned.
"""

import numpy as np

from tapeviz.core import state
from tapeviz.core.tensor import constant, convert_to_tensor, is_tensor

FLOAT_DTYPES = ("float", "half", "double", "bfloat", "complex")


class Step:
    """One op's backward step: the trace ``op`` (dict), ``upstream`` (an array or None per output),
    ``grads`` (an array or None per input), ``needs`` (which inputs want a gradient)."""

    __slots__ = ("op", "upstream", "grads", "needs")

    def __init__(self, op, upstream, grads, needs):
        self.op, self.upstream, self.grads, self.needs = op, upstream, grads, needs


def as_array(value):
    """A gradient (Tensor, IndexedSlices) as a NumPy array; None for None or a value not kept."""
    if value is None:
        return None
    try:
        return np.asarray((value if is_tensor(value) else convert_to_tensor(value)).numpy())  # via the backend
    except Exception:  # a summary the recorder kept instead of the array
        return None


def replay(graph, tape_id, target_tid):
    """The backward steps from ``target_tid`` over the ops ``tape_id`` recorded, in sweep order.

    Returns None when the entries hold no values (a sketch: recorded before
    ``tapeviz.viz`` was imported, or compacted past the recorder's budget).
    """
    tensors = graph.data["tensors"]
    ops = [op for op in graph.data["ops"] if tape_id in op["tapes"]]
    entries = [graph.entries.get(op["id"]) for op in ops]
    if any(entry is None or not all(map(is_tensor, entry.outputs)) for entry in entries):
        return None
    reachable = {tid for tid, info in tensors.items() if tape_id in info["watched_by"]}
    needs_of = []
    for op in ops:
        needs = tuple(tid in reachable for tid in op["inputs"])
        needs_of.append(needs)
        if True in needs and op["differentiable"]:
            reachable.update(t for t in op["outputs"] if tensors[t]["dtype"].startswith(FLOAT_DTYPES))
    seed = graph.value(target_tid)
    if seed is None or target_tid not in reachable:
        return []
    pending = {target_tid: np.ones_like(seed)}
    steps = []
    saved_depth = state.local.depth
    state.local.depth = 1  # the arithmetic of a sweep: no tape or recorder keeps it
    try:
        with state.no_tapes(), np.errstate(all="ignore"):
            for op, entry, needs in zip(reversed(ops), reversed(entries), reversed(needs_of)):
                rule = entry.primitive.rule
                if rule is None or True not in needs:
                    continue
                upstream = [pending.pop(t, None) for t in op["outputs"]]
                if all(u is None for u in upstream):
                    continue
                arrived = [
                    constant(u) if u is not None else constant(np.zeros_like(out.numpy()))
                    for u, out in zip(upstream, entry.outputs)
                ]
                try:
                    produced = rule(entry, needs, *arrived)
                except Exception:  # a rule that fails (a custom gradient's bug): the walk ends here
                    break
                if type(produced) is not tuple:
                    produced = tuple(produced) if isinstance(produced, list) else (produced,)
                grads = [as_array(g) if need else None for g, need in zip(produced, needs)]
                steps.append(Step(op, upstream, grads, needs))
                for tid, grad in zip(op["inputs"], grads):
                    if grad is not None:
                        pending[tid] = pending[tid] + grad if tid in pending else grad
    finally:
        state.local.depth = saved_depth
    return steps


def norm(arrays):
    """The Euclidean norm of the arrays together (None entries skipped), as a Python float."""
    total = 0.0
    with np.errstate(all="ignore"):
        for array in arrays:
            if array is not None and array.size:
                total += float(np.sum(np.abs(array.astype(np.float64)) ** 2))
    return float(np.sqrt(total))


def finite(arrays):
    """True when every element of every array (None skipped) is finite."""
    return all(array is None or bool(np.all(np.isfinite(array))) for array in arrays)
