"""Gradient rules of the scatter primitives: each is the adjoint of a gather_nd."""

from tapeviz.core.gradients import defgrad, described
from tapeviz.core.primitives import scatter as sc
from tapeviz.core.primitives.array import gather_nd, zeros_like
from tapeviz.core.primitives.scatter import tensor_scatter_nd_update


@defgrad(
    sc.SCATTER_ND,
    "d/d updates = gather_nd(upstream, indices)",
    local=described(None, "1 from each update to the slot it is scattered to"),
)
def _scatter_nd(op, needs, g):
    return None, gather_nd(g, op.inputs[0])


@defgrad(
    sc.TENSOR_SCATTER_UPDATE,
    "d/d tensor = upstream with the replaced slices zeroed,  d/d updates = gather_nd(upstream, indices)",
    local=described("1 outside the replaced slices, 0 inside", None, "1 from each update to its slot"),
)
def _tensor_scatter_update(op, needs, g):
    _, indices, updates = op.inputs
    grad_tensor = tensor_scatter_nd_update(g, indices, zeros_like(updates)) if needs[0] else None
    return grad_tensor, None, gather_nd(g, indices) if needs[2] else None


@defgrad(
    sc.TENSOR_SCATTER_ADD,
    "d/d tensor = upstream,  d/d updates = gather_nd(upstream, indices)",
    local=described("1", None, "1 from each update to its slot"),
)
def _tensor_scatter_add(op, needs, g):
    return g if needs[0] else None, None, gather_nd(g, op.inputs[1]) if needs[2] else None


@defgrad(
    sc.TENSOR_SCATTER_SUB,
    "d/d tensor = upstream,  d/d updates = -gather_nd(upstream, indices)",
    local=described("1", None, "-1 from each update to its slot"),
)
def _tensor_scatter_sub(op, needs, g):
    return g if needs[0] else None, None, -gather_nd(g, op.inputs[1]) if needs[2] else None
