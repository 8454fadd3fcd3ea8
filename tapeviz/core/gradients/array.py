"""Gradient rules of the shape and indexing primitives."""

import numpy as np

from tapeviz.core.gradients import defgrad, described, elementwise, unbroadcast
from tapeviz.core.indexed_slices import remember
from tapeviz.core.primitives import array as a
from tapeviz.core.primitives.math import reduce_sum
from tapeviz.core.recording import READ_VARIABLE
from tapeviz.core.tensor import Tensor


@defgrad(READ_VARIABLE, "d read(v)/dv = 1", local=elementwise("1"))
def _read_variable(op, needs, g):
    return (g,)


@defgrad(
    a.RESHAPE,
    "reshape the upstream back to x's shape",
    local=described("1 per element: the upstream reshaped back to x's shape"),
)
def _reshape(op, needs, g):
    return (a.reshape(g, op.inputs[0]._value.shape),)


@defgrad(
    a.BROADCAST_TO,
    "sum the upstream over the broadcast axes",
    local=described("1 per copy: the upstream summed over the broadcast axes"),
)
def _broadcast_to(op, needs, g):
    return (unbroadcast(g, op.inputs[0]),)


@defgrad(
    a.TRANSPOSE,
    "transpose the upstream back by the inverse permutation",
    local=described("1 per element: the upstream transposed back"),
)
def _transpose(op, needs, g):
    perm = op.attrs["perm"]
    inverse = [0] * len(perm)
    for position, axis in enumerate(perm):
        inverse[axis] = position
    return (a.transpose(g, inverse),)


@defgrad(
    a.STRIDED_SLICE,
    "scatter the upstream into zeros at the sliced positions",
    local=described("1 at the sliced positions, 0 elsewhere"),
)
def _strided_slice(op, needs, g):
    return (a.slice_grad(g, op.attrs["key"], op.inputs[0]._value.shape),)


@defgrad(a.SLICE_GRAD, "slice the upstream at the same positions", local=described("1 at the sliced positions"))
def _strided_slice_grad(op, needs, g):
    return (a.slice_tensor(g, op.attrs["key"]),)


@defgrad(
    a.PACK,
    "unstack the upstream: each input gets its slice",
    local=described(every="1: this input's slice of the upstream"),
)
def _pack(op, needs, g):
    parts = a.unstack(g, axis=op.attrs["axis"])
    return tuple(part if need else None for part, need in zip(parts, needs))


@defgrad(a.UNPACK, "stack the upstreams (zeros for unused outputs)", local=described("1: the upstreams stacked back"))
def _unpack(op, needs, *grads):
    return (a.stack(grads, axis=op.attrs["axis"]),)


@defgrad(
    a.CONCAT,
    "split the upstream back into the inputs' sizes along the axis",
    local=described(every="1: this input's piece of the upstream"),
)
def _concat(op, needs, g):
    axis = op.attrs["axis"]
    sizes = [t._value.shape[axis] for t in op.inputs]
    parts = a.split(g, sizes, axis=axis)
    return tuple(part if need else None for part, need in zip(parts, needs))


@defgrad(
    a.SPLIT,
    "concatenate the upstreams (zeros for unused pieces)",
    local=described("1: the upstreams concatenated back"),
)
def _split(op, needs, *grads):
    return (a.concat(list(grads), axis=op.attrs["axis"]),)


@defgrad(
    a.TILE,
    "sum the upstream over the copies: reshape to [copies, size] per axis, reduce",
    local=described("1 per copy: the upstream summed over the copies"),
)
def _tile(op, needs, g):

    shape = op.inputs[0]._value.shape
    split_shape = []
    for copies, n in zip(op.attrs["multiples"], shape):
        split_shape += [copies, n]
    summed = reduce_sum(a.reshape(g, split_shape), axis=list(range(0, 2 * len(shape), 2)))
    return (a.reshape(summed, shape),)


@defgrad(
    a.PAD,
    "slice the upstream back to the unpadded block",
    local=described("1 inside the unpadded block, 0 on the padding"),
)
def _pad(op, needs, g):
    key = tuple(slice(before, before + n) for (before, _), n in zip(op.attrs["paddings"], op.inputs[0]._value.shape))
    return (a.slice_tensor(g, key),)


@defgrad(
    a.REVERSE, "reverse the upstream along the same axes", local=described("1 per element: the upstream reversed back")
)
def _reverse(op, needs, g):
    return (a.reverse(g, list(op.attrs["axis"])),)


@defgrad(
    a.GATHER,
    "scatter-add the upstream into zeros at the gathered indices (dense, not IndexedSlices)",
    local=described("1 at each gathered index (summed where repeated)", None),
)
def _gather(op, needs, g):
    params, indices = op.inputs
    grad = a.gather_grad(g, indices, op.attrs["axis"], op.attrs["batch_dims"], params._value.shape)
    if op.attrs["axis"] == 0 and op.attrs["batch_dims"] == 0:  # TF returns these rows as IndexedSlices
        shape = params._value.shape
        if indices.ndim == 1:  # the common case: no op added to the sweep
            flat, rows = indices, g
        else:
            flat, rows = Tensor(indices._value.reshape(-1)), a.reshape(g, [-1, *shape[1:]])
        remember(grad, rows, flat, Tensor(np.asarray(shape, dtype=np.int32)))
    return grad, None


@defgrad(a.GATHER_GRAD, "gather the upstream at the same indices", local=described("1 at each gathered index", None))
def _gather_grad(op, needs, g):
    indices = op.inputs[1]
    return a.gather(g, indices, axis=op.attrs["axis"], batch_dims=op.attrs["batch_dims"]), None


@defgrad(
    a.GATHER_ND,
    "scatter-add the upstream into zeros at the gathered index tuples (dense)",
    local=described("1 at each gathered index tuple (summed where repeated)", None),
)
def _gather_nd(op, needs, g):
    params, indices = op.inputs
    return a.gather_nd_grad(g, indices, op.attrs["batch_dims"], params._value.shape), None


@defgrad(
    a.GATHER_ND_GRAD,
    "gather_nd the upstream at the same index tuples",
    local=described("1 at each gathered index tuple", None),
)
def _gather_nd_grad(op, needs, g):
    return a.gather_nd(g, op.inputs[1], batch_dims=op.attrs["batch_dims"]), None
