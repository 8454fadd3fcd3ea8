"""Scattering slices into tensors at index tuples: ``tf.scatter_nd`` and the
``tf.tensor_scatter_nd_*`` family; each kernel with its gradient rule.

``indices[..., :]`` addresses the first ``indices.shape[-1]`` axes of the
result, as in ``tf.gather_nd``, whose adjoint ``scatter_nd`` is.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array.arguments import int_indices
from tapeviz.core.primitives.array.constants import zeros_like
from tapeviz.core.primitives.array.indexing import gather_nd
from tapeviz.core.primitives.math import cast, equal
from tapeviz.core.rules import defgrad, described


def _flat_rows(shape, indices):
    """Flat positions of each index tuple in ``shape`` reshaped to [rows, rest...].

    Checks the range as TF's CPU kernels do (negative indices are errors too).
    """
    depth = indices.shape[-1]
    indexed = shape[:depth]
    host = np.asarray(B.to_numpy(indices)).reshape(-1, depth).astype(np.int64)
    bad = np.flatnonzero(((host < 0) | (host >= np.asarray(indexed, dtype=np.int64))).any(axis=-1))
    if bad.size:
        i = int(bad[0])
        raise IndexError(
            f"indices[{i}] = {host[i].tolist()} does not index into shape {list(shape)}: "
            "every index must lie in [0, size) of its axis."
        )
    strides = np.cumprod((1,) + tuple(indexed[::-1]))[:-1][::-1].astype(np.int64)
    flat = B.xp.asarray(host @ strides if depth else np.zeros(len(host), dtype=np.int64))
    rows = (int(np.prod(indexed, dtype=np.int64)),) + tuple(shape[depth:])
    return flat, rows


def _scatter_nd(indices, updates, shape):
    flat, rows = _flat_rows(shape, indices)
    return B.scatter_add(rows, flat, updates.reshape((flat.shape[0],) + rows[1:]), updates.dtype).reshape(shape)


def _tensor_scatter(tensor, indices, updates, mode):
    flat, rows = _flat_rows(tensor.shape, indices)
    out = B.xp.array(tensor).reshape(rows)  # a copy: the kernel owns it
    slices = updates.reshape((flat.shape[0],) + rows[1:])
    if mode == "update":
        out[flat] = slices  # with repeated indices the last update wins, as on TF's CPU
    elif mode == "add":
        out += B.scatter_add(rows, flat, slices, out.dtype)
    else:
        out -= B.scatter_add(rows, flat, slices, out.dtype)
    return out.reshape(tensor.shape)


def _tensor_scatter_extreme(tensor, indices, updates, ufunc):
    """max/min of each slot with the updates scattered to it, on the host (NumPy's ufunc.at; no backend gap)."""
    flat, rows = _flat_rows(tensor.shape, indices)
    out = np.array(B.to_numpy(tensor)).reshape(rows)
    slices = np.asarray(B.to_numpy(updates)).reshape((flat.shape[0],) + rows[1:])
    ufunc.at(out, np.asarray(B.to_numpy(flat)), slices)
    return B.asarray(out.reshape(tensor.shape))


SCATTER_ND = Primitive("ScatterNd", _scatter_nd)
TENSOR_SCATTER_UPDATE = Primitive("TensorScatterUpdate", lambda t, i, u: _tensor_scatter(t, i, u, "update"))
TENSOR_SCATTER_ADD = Primitive("TensorScatterAdd", lambda t, i, u: _tensor_scatter(t, i, u, "add"))
TENSOR_SCATTER_SUB = Primitive("TensorScatterSub", lambda t, i, u: _tensor_scatter(t, i, u, "sub"))
TENSOR_SCATTER_MAX = Primitive("TensorScatterMax", lambda t, i, u: _tensor_scatter_extreme(t, i, u, np.maximum))
TENSOR_SCATTER_MIN = Primitive("TensorScatterMin", lambda t, i, u: _tensor_scatter_extreme(t, i, u, np.minimum))


def _int_indices(indices, op):
    """``int_indices``, and at least a vector (a scatter's indices index rows)."""
    indices = int_indices(indices, op)
    if indices.ndim < 1:
        raise InvalidArgumentError(f"indices must be at least a vector, got a scalar [Op:{op}]", op)
    return indices


def _check_updates(indices, updates, shape, op):
    """TF's shape rule: updates.shape = indices.shape[:-1] + shape[indices.shape[-1]:]."""
    outer = indices.ndim - 1
    ishape, ushape = list(indices._value.shape), list(updates._value.shape)
    depth = ishape[-1]
    if depth > len(shape):
        raise InvalidArgumentError(
            f"Index innermost dimension length must be <= output rank; saw: {depth} vs. {len(shape)} [Op:{op}]", op
        )
    expected = ishape[:-1] + list(shape[depth:])
    if ushape != expected:
        raise InvalidArgumentError(
            f"Dimensions [0,{outer}) of indices[shape={ishape}] must match dimensions [0,{outer}) of "
            f"updates[shape={ushape}], and updates must end with the output's shape after the indexed "
            f"axes: updates of shape {expected} are needed. [Op:{op}]",
            op,
        )


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeated indices add up).

    ``updates.shape`` must be ``indices.shape[:-1] + shape[indices.shape[-1]:]``.
    Differentiable in ``updates``: the gradient is ``gather_nd`` of the upstream.

    Args:
        indices: an integer tensor whose last axis holds index tuples into ``shape``.
        updates: the values, of shape ``indices.shape[:-1] + shape[k:]``.
        shape: the result's shape.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.scatter_nd([[1], [3]], [5.0, 7.0], [4]))
        tf.Tensor([0. 5. 0. 7.], shape=(4,), dtype=float32)
    """
    indices = _int_indices(indices, "ScatterNd")
    updates = as_tensor(updates)
    if hasattr(shape, "_value"):
        shape = np.asarray(B.to_numpy(shape._value)).tolist()
    shape = tuple(int(n) for n in ([shape] if isinstance(shape, (int, np.integer)) else shape))
    _check_updates(indices, updates, shape, "ScatterNd")
    return execute(SCATTER_ND, (indices, updates), {"shape": shape})


@defgrad(
    SCATTER_ND,
    "d/d updates = gather_nd(upstream, indices)",
    local=described(None, "1 from each update to the slot it is scattered to"),
)
def _scatter_nd_rule(op, needs, g):
    return None, gather_nd(g, op.inputs[0])


def _tensor_scatter_op(primitive, tensor, indices, updates):
    tensor = as_tensor(tensor)
    indices = _int_indices(indices, primitive.name)
    updates = as_tensor(updates, dtype=tensor.dtype)
    _check_updates(indices, updates, tuple(tensor._value.shape), primitive.name)
    return execute(primitive, (tensor, indices, updates))


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``.

    With repeated indices the last update wins (TF leaves it unspecified).
    Gradients: the upstream to ``tensor`` except at the replaced slices, and
    ``gather_nd`` of the upstream to ``updates``.

    Args:
        tensor: the tensor to copy.
        indices: an integer tensor whose last axis holds index tuples into ``tensor``.
        updates: the values, of shape ``indices.shape[:-1] + tensor.shape[k:]``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``tensor``'s shape (``tensor`` itself is unchanged).
    """
    return _tensor_scatter_op(TENSOR_SCATTER_UPDATE, tensor, indices, updates)


@defgrad(
    TENSOR_SCATTER_UPDATE,
    "d/d tensor = upstream with the replaced slices zeroed,  d/d updates = gather_nd(upstream, indices)",
    local=described("1 outside the replaced slices, 0 inside", None, "1 from each update to its slot"),
)
def _tensor_scatter_update_rule(op, needs, g):
    _, indices, updates = op.inputs
    grad_tensor = tensor_scatter_nd_update(g, indices, zeros_like(updates)) if needs[0] else None
    return grad_tensor, None, gather_nd(g, indices) if needs[2] else None


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (repeats add up).

    Args:
        tensor: the tensor to copy.
        indices: an integer tensor whose last axis holds index tuples into ``tensor``.
        updates: the values, of shape ``indices.shape[:-1] + tensor.shape[k:]``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``tensor``'s shape (``tensor`` itself is unchanged).
    """
    return _tensor_scatter_op(TENSOR_SCATTER_ADD, tensor, indices, updates)


@defgrad(
    TENSOR_SCATTER_ADD,
    "d/d tensor = upstream,  d/d updates = gather_nd(upstream, indices)",
    local=described("1", None, "1 from each update to its slot"),
)
def _tensor_scatter_add_rule(op, needs, g):
    return g if needs[0] else None, None, gather_nd(g, op.inputs[1]) if needs[2] else None


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices`` (repeats add up).

    Args:
        tensor: the tensor to copy.
        indices: an integer tensor whose last axis holds index tuples into ``tensor``.
        updates: the values, of shape ``indices.shape[:-1] + tensor.shape[k:]``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``tensor``'s shape (``tensor`` itself is unchanged).
    """
    return _tensor_scatter_op(TENSOR_SCATTER_SUB, tensor, indices, updates)


@defgrad(
    TENSOR_SCATTER_SUB,
    "d/d tensor = upstream,  d/d updates = -gather_nd(upstream, indices)",
    local=described("1", None, "-1 from each update to its slot"),
)
def _tensor_scatter_sub_rule(op, needs, g):
    return g if needs[0] else None, None, -gather_nd(g, op.inputs[1]) if needs[2] else None


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of ``tensor`` where each slot at ``indices`` keeps the largest of itself and its updates.

    Args:
        tensor: the tensor to copy.
        indices: an integer tensor whose last axis holds index tuples into ``tensor``.
        updates: the values, of shape ``indices.shape[:-1] + tensor.shape[k:]``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``tensor``'s shape (``tensor`` itself is unchanged).
    """
    return _tensor_scatter_op(TENSOR_SCATTER_MAX, tensor, indices, updates)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of ``tensor`` where each slot at ``indices`` keeps the smallest of itself and its updates.

    Args:
        tensor: the tensor to copy.
        indices: an integer tensor whose last axis holds index tuples into ``tensor``.
        updates: the values, of shape ``indices.shape[:-1] + tensor.shape[k:]``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``tensor``'s shape (``tensor`` itself is unchanged).
    """
    return _tensor_scatter_op(TENSOR_SCATTER_MIN, tensor, indices, updates)


def _tensor_scatter_extreme_rule(op, needs, g):
    """TF's rule: the upstream goes to whichever of tensor and updates equal the result, split evenly on ties."""
    tensor, indices, updates = op.inputs
    output = op.outputs[0]
    from_tensor = cast(equal(output, tensor), g.dtype)
    from_updates = cast(equal(gather_nd(output, indices), updates), g.dtype)
    winners = from_tensor + scatter_nd(indices, from_updates, output.shape)  # >= 1: the result is one of them
    grad_tensor = g * from_tensor / winners if needs[0] else None
    grad_updates = gather_nd(g / winners, indices) * from_updates if needs[2] else None
    return grad_tensor, None, grad_updates


for _primitive, _which in ((TENSOR_SCATTER_MAX, "largest"), (TENSOR_SCATTER_MIN, "smallest")):
    defgrad(
        _primitive,
        f"the upstream to the {_which} of each slot and its updates (ties split evenly)",
        local=described(
            f"1 where the tensor is the {_which}, 0 elsewhere", None, f"1 where the update is the {_which}"
        ),
    )(_tensor_scatter_extreme_rule)


__all__ = [
    "scatter_nd",
    "tensor_scatter_nd_update",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
]
