"""Gradient rule of top_k (and so of tf.sort, which is made of it)."""

from tapeviz.core.gradients import defgrad, described
from tapeviz.core.primitives import sorting as so
from tapeviz.core.primitives.array import gather_grad


@defgrad(
    so.TOP_K,
    "scatter the upstream of the values back to where they were taken from",
    local=described("1 at each of the k largest entries, 0 elsewhere", None),
)
def _top_k(op, needs, g_values, _g_indices):
    x = op.inputs[0]
    indices = op.outputs[1]
    last = x.ndim - 1
    # The values are x gathered along the last axis, batched over the others.
    return (gather_grad(g_values, indices, last, last, x._value.shape),)
