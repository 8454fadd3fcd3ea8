"""Indexing ops: strided slices, gather, gather_nd, slice; each kernel with its gradient rule.

``slice`` shadows Python's builtin here: code in this module spells it ``builtins.slice``.
"""

import builtins
import weakref

import numpy as np

from tapeviz import backend as B
from tapeviz.core import state
from tapeviz.core.families import array as a
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array.arguments import axis_index, host_array, int_indices, int_list, invalid_argument
from tapeviz.core.rules import defgrad, described
from tapeviz.core.tensor import Tensor, tensor_id

# -- indexing (differentiable) ----------------------------------------------------------


def _index_arrays(key):
    """A NumPy-style index with tensors in it replaced by backend arrays."""
    if isinstance(key, tuple):
        return tuple(_index_arrays(k) for k in key)
    if isinstance(key, list):
        return B.xp.asarray([k._value if hasattr(k, "_value") else k for k in key])
    if hasattr(key, "_value"):
        return key._value
    return key


def _scatter_into_zeros(g, key, shape):
    return B.scatter_add(shape, key, g, g.dtype)  # repeated indices in advanced indexing add up


# asanyarray: a string tensor's StringArray stays one (its scalars are 0-d arrays, not bare bytes)
STRIDED_SLICE = Primitive("StridedSlice", lambda x, key: B.xp.asanyarray(x[key]))
SLICE_GRAD = Primitive("StridedSliceGrad", lambda g, key, shape: _scatter_into_zeros(g, key, shape))


def slice_tensor(x, key):
    """``x[key]`` with NumPy semantics (ints, slices, None, ..., bool masks, int arrays).

    Args:
        x: a Tensor.
        key: what ``x[key]`` takes: ints, slices, None, ``...``, a bool mask or an int array.

    Returns:
        A Tensor (recorded; the gradient scatters back).
    """
    x = as_tensor(x)
    if state.local.tracers and _has_traced_scalar(key):
        return _slice_at_traced_indices(x, key if isinstance(key, tuple) else (key,))
    return execute(STRIDED_SLICE, (x,), {"key": _index_arrays(key)})


def _traced(value):
    return isinstance(value, Tensor) and any(tensor_id(value) in t.symbolic for t in state.local.tracers)


def _has_traced_scalar(key):
    entries = key if isinstance(key, tuple) else (key,)
    return any(_traced(k) and k.ndim == 0 and k.dtype.is_integer for k in entries)


def _slice_at_traced_indices(x, key):
    """``x[key]`` where some entries are scalar tensors computed from a trace's inputs (a loop's counter):
    those become gathers, which take the index as an input, so each run of the graph reads its own row
    (a strided slice would keep the index's value at trace time)."""
    static, positions, out_axis = [], [], 0
    consuming = sum(1 for k in key if k is not None and k is not Ellipsis)
    for k in key:
        if k is Ellipsis:
            out_axis += x.ndim - consuming
            static.append(k)
        elif k is None:
            out_axis += 1
            static.append(k)
        elif _traced(k) and k.ndim == 0 and k.dtype.is_integer:
            positions.append((out_axis, k))
            out_axis += 1
            static.append(builtins.slice(None))
        else:
            if isinstance(k, builtins.slice):
                out_axis += 1
            static.append(k)
    y = execute(STRIDED_SLICE, (x,), {"key": _index_arrays(tuple(static))})
    for axis, index in reversed(positions):  # the last axis first: the earlier ones keep their places
        y = gather(y, index, axis=axis)
    return y


@defgrad(
    STRIDED_SLICE,
    "scatter the upstream into zeros at the sliced positions",
    local=described("1 at the sliced positions, 0 elsewhere"),
)
def _strided_slice_rule(op, needs, g):
    return (slice_grad(g, op.attrs["key"], op.inputs[0]._value.shape),)


def slice_grad(g, key, shape):
    """Scatter ``g`` into zeros of ``shape`` at ``key``: the adjoint of slicing."""
    return execute(SLICE_GRAD, (as_tensor(g),), {"key": key, "shape": tuple(shape)})


@defgrad(SLICE_GRAD, "slice the upstream at the same positions", local=described("1 at the sliced positions"))
def _strided_slice_grad_rule(op, needs, g):
    return (slice_tensor(g, op.attrs["key"]),)


# -- gathering ---------------------------------------------------------------------------------
# Both gathers reduce to "take rows of a 2-D-ish array at flat indices": a
# batch block of size N and the gathered axes are folded into axis 0. The
# gradient is the scatter-add of those rows back into zeros (dense, where TF
# returns IndexedSlices), itself a primitive whose gradient is the gather.


def _check_gather_range(indices, limit):
    host = host_array(indices)
    bad = np.argwhere((host < 0) | (host >= limit))
    if bad.size:
        where = tuple(int(i) for i in bad[0])
        position = ",".join(map(str, where))
        raise IndexError(
            f"indices[{position}] = {int(host[where])} is not in [0, {limit}). "
            "Negative indices are not allowed either: wrap them first (tf.math.floormod)."
        )


def _gather_layout(params_shape, indices, axis, batch_dims):
    """Flat row indices, the rows shape, and the permutation from rows to output."""
    b = batch_dims
    n = int(np.prod(params_shape[:b], dtype=np.int64))
    rows = (n * params_shape[axis],) + params_shape[b:axis] + params_shape[axis + 1 :]
    starts = B.xp.arange(n, dtype=indices.dtype).reshape((n, 1)) * params_shape[axis]
    flat = (indices.reshape((n, -1)) + starts).reshape(-1) if n else indices.reshape(-1)
    # Taking rows gives [batch, index dims, params_shape[b:axis], rest]; TF's
    # output has the index dims after params_shape[b:axis].
    ni, nm = indices.ndim - b, axis - b
    perm = (
        list(builtins.range(b))
        + [b + ni + k for k in builtins.range(nm)]
        + [b + k for k in builtins.range(ni)]
        + list(builtins.range(b + ni + nm, len(rows) - 1 + indices.ndim))
    )
    taken_shape = params_shape[:b] + indices.shape[b:] + params_shape[b:axis] + params_shape[axis + 1 :]
    return flat, rows, perm, taken_shape


def _gather(params, indices, axis, batch_dims):
    xp = B.xp
    _check_gather_range(indices, params.shape[axis])
    moved = xp.moveaxis(params, axis, batch_dims)
    flat, rows, perm, taken_shape = _gather_layout(params.shape, indices, axis, batch_dims)
    taken = xp.take(moved.reshape(rows), flat, axis=0).reshape(taken_shape)
    return xp.transpose(taken, perm)


def _gather_grad(g, indices, axis, batch_dims, params_shape):
    xp = B.xp
    flat, rows, perm, taken_shape = _gather_layout(params_shape, indices, axis, batch_dims)
    taken = xp.transpose(g, tuple(int(i) for i in np.argsort(perm))).reshape((flat.shape[0],) + rows[1:])
    moved_shape = params_shape[:batch_dims] + (params_shape[axis],) + rows[1:]
    summed = B.scatter_add(rows, flat, taken, g.dtype).reshape(moved_shape)
    return xp.moveaxis(summed, batch_dims, axis)


GATHER = Primitive("GatherV2", _gather)
GATHER_GRAD = Primitive("GatherV2Grad", _gather_grad)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Entries of ``params`` along ``axis`` at ``indices`` (default axis: ``batch_dims``).

    Output shape: ``params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]``. With ``batch_dims=b`` the first b axes of
    ``params`` and ``indices`` are matched batch axes. Indices outside
    [0, params.shape[axis]) raise InvalidArgumentError, as TF does on CPU.

    Gradient: TF returns IndexedSlices; tapeviz returns a dense tensor, which
    convert_to_tensor accepts as is. Repeated indices add up.

    Args:
        params: the tensor to read from.
        indices: an integer tensor of positions along ``axis``.
        validate_indices: accepted for TensorFlow compatibility (indices are always checked).
        axis: the axis of ``params`` to index (``batch_dims`` by default).
        batch_dims: how many leading axes ``params`` and ``indices`` share.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``params``'s dtype and the shape above.

    Raises:
        ValueError: a ``batch_dims`` out of range or greater than ``axis``.
        tf.errors.InvalidArgumentError: an index out of range, or batch axes that differ.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.gather([10, 20, 30], [2, 0]))
        tf.Tensor([30 10], shape=(2,), dtype=int32)
        >>> print(tf.gather([[1, 2], [3, 4]], [1], axis=1))
        tf.Tensor(
        [[2]
         [4]], shape=(2, 1), dtype=int32)
    """
    x = as_tensor(params)
    indices = int_indices(indices, "GatherV2")
    b = int(batch_dims)
    if b < 0:
        b += indices.ndim
    if not 0 <= b <= indices.ndim or b > x.ndim - 1:
        raise ValueError(
            f"batch_dims={batch_dims} must be in [-{indices.ndim}, {indices.ndim}] (the rank of indices) "
            f"and less than the rank of params ({x.ndim})."
        )
    axis = b if axis is None else axis_index(axis, x.ndim, "GatherV2")
    if axis < b:
        raise ValueError(f"batch_dims ({b}) must be less than or equal to axis ({axis}).")
    if x._value.shape[:b] != indices._value.shape[:b]:
        raise invalid_argument(
            f"params.shape[:{b}] = {list(x._value.shape[:b])} and indices.shape[:{b}] = "
            f"{list(indices._value.shape[:b])} must match: they are the batch dimensions.",
            "GatherV2",
        )
    return execute(GATHER, (x, indices), {"axis": axis, "batch_dims": b})


@defgrad(
    GATHER,
    "scatter-add the upstream into zeros at the gathered indices (dense, not IndexedSlices)",
    local=described("1 at each gathered index (summed where repeated)", None),
)
def _gather_rule(op, needs, g):
    params, indices = op.inputs
    grad = gather_grad(g, indices, op.attrs["axis"], op.attrs["batch_dims"], params._value.shape)
    if op.attrs["axis"] == 0 and op.attrs["batch_dims"] == 0:  # TF returns these rows as IndexedSlices
        shape = params._value.shape
        if indices.ndim == 1:  # the common case: no op added to the sweep
            flat, rows = indices, g
        else:
            flat, rows = Tensor(indices._value.reshape(-1)), a.reshape(g, [-1, *shape[1:]])
        remember(grad, rows, flat, Tensor(np.asarray(shape, dtype=np.int32)))
    return grad, None


# id of a gather's dense gradient -> (values, indices, dense_shape), the rows it was made of:
# TF returns that gradient as IndexedSlices (core.indexed_slices reads them through slices_of).
_ROWS = {}


def remember(dense, values, indices, dense_shape):
    """Note that ``dense`` (a gather's gradient) is ``values`` at ``indices``; forgotten when ``dense`` goes."""
    key = tensor_id(dense)
    _ROWS[key] = (values, indices, dense_shape)
    weakref.finalize(dense, _ROWS.pop, key, None)


def slices_of(dense):
    """``(values, indices, dense_shape)`` when ``dense`` is a gather's gradient (still alive), else None."""
    return _ROWS.get(tensor_id(dense))


def gather_grad(g, indices, axis, batch_dims, params_shape):
    """The adjoint of ``gather``: ``g`` scatter-added into zeros of ``params_shape``."""
    attrs = {"axis": axis, "batch_dims": batch_dims, "params_shape": tuple(params_shape)}
    return execute(GATHER_GRAD, (as_tensor(g), indices), attrs)


@defgrad(GATHER_GRAD, "gather the upstream at the same indices", local=described("1 at each gathered index", None))
def _gather_grad_rule(op, needs, g):
    indices = op.inputs[1]
    return gather(g, indices, axis=op.attrs["axis"], batch_dims=op.attrs["batch_dims"]), None


def _nd_layout(params_shape, indices, batch_dims):
    """Flat row indices into params reshaped to [rows, rest...], checking the range."""
    xp = B.xp
    b = batch_dims
    depth = indices.shape[-1]
    indexed = params_shape[b : b + depth]
    n = int(np.prod(params_shape[:b], dtype=np.int64))
    host = host_array(indices)
    bad = np.argwhere(((host < 0) | (host >= np.asarray(indexed, dtype=np.int64))).any(axis=-1))
    if bad.size:
        where = tuple(int(i) for i in bad[0])
        raise IndexError(
            f"indices[{','.join(map(str, where))}] = {host[where].tolist()} does not index into "
            f"param shape {list(params_shape)}."
        )
    strides = np.cumprod((1,) + tuple(indexed[::-1]))[:-1][::-1].astype(np.int64)
    linear = (indices.astype(np.int64) * xp.asarray(strides)).sum(axis=-1)
    block = int(np.prod(indexed, dtype=np.int64))
    starts = xp.arange(n, dtype=np.int64).reshape((n,) + (1,) * (linear.ndim - b)) * block
    flat = (linear.reshape((n,) + linear.shape[b:]) + starts).reshape(-1)
    rows = (n * block,) + params_shape[b + depth :]
    out_shape = indices.shape[:-1] + params_shape[b + depth :]
    return flat, rows, out_shape


def _gather_nd(params, indices, batch_dims):
    flat, rows, out_shape = _nd_layout(params.shape, indices, batch_dims)
    return B.xp.take(params.reshape(rows), flat, axis=0).reshape(out_shape)


def _gather_nd_grad(g, indices, batch_dims, params_shape):
    flat, rows, _ = _nd_layout(params_shape, indices, batch_dims)
    updates = g.reshape((flat.shape[0],) + rows[1:])
    return B.scatter_add(rows, flat, updates, g.dtype).reshape(params_shape)


GATHER_ND = Primitive("GatherNd", _gather_nd)
GATHER_ND_GRAD = Primitive("GatherNdGrad", _gather_nd_grad)


def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of ``params`` at index tuples: ``indices[..., :]`` addresses ``params``.

    The last axis of ``indices`` (length k) indexes the first k axes of
    ``params`` after the ``batch_dims`` batch axes. Output shape:
    ``indices.shape[:-1] + params.shape[batch_dims + k:]``.

    Gradient: TF returns IndexedSlices; tapeviz returns a dense tensor, which
    convert_to_tensor accepts as is. Repeated indices add up.

    Args:
        params: the tensor to read from.
        indices: an integer tensor whose last axis holds index tuples.
        batch_dims: how many leading axes ``params`` and ``indices`` share.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``indices.shape[:-1] + params.shape[batch_dims + k:]``.

    Raises:
        ValueError: a ``batch_dims`` out of range.
        tf.errors.InvalidArgumentError: an index out of range, or tuples longer than ``params``'s rank.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.gather_nd([[1, 2], [3, 4]], [[0, 1], [1, 0]]))
        tf.Tensor([2 3], shape=(2,), dtype=int32)
    """
    x = as_tensor(params)
    indices = int_indices(indices, "GatherNd")
    b = int(batch_dims)
    if indices.ndim < 1 or not 0 <= b < indices.ndim:
        raise ValueError(
            f"gather_nd: indices must have rank >= 1 and batch_dims ({batch_dims}) less than its rank {indices.ndim}."
        )
    depth = indices._value.shape[-1]
    if b + depth > x.ndim:
        raise invalid_argument(
            f"index innermost dimension length must be <= params rank after the batch dims; saw: "
            f"{depth} vs. {x.ndim - b}.",
            "GatherNd",
        )
    if x._value.shape[:b] != indices._value.shape[:b]:
        raise invalid_argument(
            f"params and indices must have the same batch dimensions, got "
            f"{list(x._value.shape[:b])} and {list(indices._value.shape[:b])}.",
            "GatherNd",
        )
    return execute(GATHER_ND, (x, indices), {"batch_dims": b})


@defgrad(
    GATHER_ND,
    "scatter-add the upstream into zeros at the gathered index tuples (dense)",
    local=described("1 at each gathered index tuple (summed where repeated)", None),
)
def _gather_nd_rule(op, needs, g):
    params, indices = op.inputs
    return gather_nd_grad(g, indices, op.attrs["batch_dims"], params._value.shape), None


def gather_nd_grad(g, indices, batch_dims, params_shape):
    """The adjoint of ``gather_nd``: ``g`` scatter-added into zeros of ``params_shape``."""
    return execute(
        GATHER_ND_GRAD, (as_tensor(g), indices), {"batch_dims": batch_dims, "params_shape": tuple(params_shape)}
    )


@defgrad(
    GATHER_ND_GRAD,
    "gather_nd the upstream at the same index tuples",
    local=described("1 at each gathered index tuple", None),
)
def _gather_nd_grad_rule(op, needs, g):
    return gather_nd(g, op.inputs[1], batch_dims=op.attrs["batch_dims"]), None


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block starting at ``begin`` of shape ``size`` (-1: to the end of that axis).

    Args:
        input_: a Tensor, or anything ``tf.constant`` converts.
        begin: the start index per axis.
        size: the length per axis (-1: to the end).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``size`` (with -1 resolved).

    Raises:
        tf.errors.InvalidArgumentError: ``begin`` or ``size`` of another length than the
            rank, or a block outside the tensor.
    """
    x = as_tensor(input_)
    begin, size = int_list(begin), int_list(size)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise invalid_argument(
            f"Expected begin and size arguments to be 1-D tensors of size {x.ndim}, "
            f"but got sizes {len(begin)} and {len(size)}.",
            "Slice",
        )
    key = []
    for axis, (start, length, n) in enumerate(zip(begin, size, x._value.shape)):
        stop = n if length == -1 else start + length
        if start < 0 or length < -1 or stop > n:
            raise invalid_argument(
                f"Expected begin[{axis}] = {start} and size[{axis}] = {length} to fit in dimension {axis} of size {n}.",
                "Slice",
            )
        key.append(builtins.slice(start, stop))
    return slice_tensor(x, tuple(key))
