"""Shape, indexing and constant-making ops (kernels only; rules in core.gradients).

This module defines ``tf.range``, which shadows Python's ``range`` here: code in
this module spells the builtin ``builtins.range``.
"""

import builtins

import numpy as np

from tapeviz import backend as B
from tapeviz.core import dtypes, ops
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.tensor import Tensor, convert_to_tensor


def _shape_arg(shape):
    """A shape given as a list, tuple, TensorShape or int tensor, as a tuple of ints."""
    if hasattr(shape, "_value"):
        shape = np.asarray(B.to_numpy(shape._value)).tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


# -- constants: not recorded (no tape watches them) ---------------------------------


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros."""
    return Tensor(B.xp.zeros(_shape_arg(shape), dtype=dtypes.as_dtype(dtype).as_numpy_dtype))


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones."""
    return Tensor(B.xp.ones(_shape_arg(shape), dtype=dtypes.as_dtype(dtype).as_numpy_dtype))


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (its dtype from ``value``)."""
    value = as_tensor(value)
    return Tensor(B.xp.full(_shape_arg(dims), value._value, dtype=value._value.dtype))


def zeros_like(input, dtype=None, name=None):
    """Zeros with the shape (and dtype, unless given) of ``input``."""
    x = as_tensor(input)
    return Tensor(B.xp.zeros(x._value.shape, dtype=dtypes.as_dtype(dtype).as_numpy_dtype if dtype else x._value.dtype))


def ones_like(input, dtype=None, name=None):
    """Ones with the shape (and dtype, unless given) of ``input``."""
    x = as_tensor(input)
    return Tensor(B.xp.ones(x._value.shape, dtype=dtypes.as_dtype(dtype).as_numpy_dtype if dtype else x._value.dtype))


# -- reshaping ---------------------------------------------------------------------

RESHAPE = Primitive("Reshape", lambda x, shape: B.xp.reshape(x, shape))
BROADCAST_TO = Primitive("BroadcastTo", lambda x, shape: B.xp.broadcast_to(x, shape))
TRANSPOSE = Primitive("Transpose", lambda x, perm: B.xp.transpose(x, perm))


def reshape(tensor, shape, name=None):
    """The same values in a new shape (one dimension may be -1)."""
    x = as_tensor(tensor)
    shape = _shape_arg(shape)
    if x._value.shape == shape:
        return x
    return execute(RESHAPE, (x,), {"shape": shape})


def broadcast_to(input, shape, name=None):
    """``input`` repeated along size-1 (or missing) dimensions to ``shape``."""
    x = as_tensor(input)
    shape = _shape_arg(shape)
    if x._value.shape == shape:
        return x
    return execute(BROADCAST_TO, (x,), {"shape": shape})


def transpose(a, perm=None, conjugate=False, name=None):
    """Permute dimensions (reverse them when ``perm`` is None)."""
    x = as_tensor(a)
    perm = tuple(builtins.range(x.ndim))[::-1] if perm is None else tuple(int(p) for p in perm)
    if sorted(perm) != list(builtins.range(x.ndim)):
        raise ValueError(f"transpose: perm {list(perm)} is not a permutation of the {x.ndim} axes.")
    return execute(TRANSPOSE, (x,), {"perm": perm})


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


STRIDED_SLICE = Primitive("StridedSlice", lambda x, key: B.xp.asarray(x[key]))
SLICE_GRAD = Primitive("StridedSliceGrad", lambda g, key, shape: _scatter_into_zeros(g, key, shape))


def slice_tensor(x, key):
    """``x[key]`` with NumPy semantics (ints, slices, None, ..., bool masks, int arrays)."""
    x = as_tensor(x)
    return execute(STRIDED_SLICE, (x,), {"key": _index_arrays(key)})


def slice_grad(g, key, shape):
    """Scatter ``g`` into zeros of ``shape`` at ``key``: the adjoint of slicing."""
    return execute(SLICE_GRAD, (as_tensor(g),), {"key": key, "shape": tuple(shape)})


PACK = Primitive("Pack", lambda *xs, axis: B.xp.stack(xs, axis=axis))
UNPACK = Primitive("Unpack", lambda x, axis: tuple(B.xp.moveaxis(x, axis, 0)), n_outputs=None)


def stack(values, axis=0, name=None):
    """Join tensors of one shape along a new axis."""
    tensors = [as_tensor(v) for v in values]
    if not tensors:
        raise ValueError("stack needs at least one tensor.")
    ops.same_dtype(*tensors, op="Pack")
    shapes = {t._value.shape for t in tensors}
    if len(shapes) > 1:
        raise ValueError(f"stack needs tensors of one shape, got shapes {sorted(shapes)}.")
    axis = int(axis)
    rank = tensors[0].ndim + 1
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for stacking rank-{rank - 1} tensors.")
    return execute(PACK, tuple(tensors), {"axis": axis % rank})


def unstack(value, num=None, axis=0, name=None):
    """Split a tensor along ``axis`` into a list of tensors one rank lower."""
    x = as_tensor(value)
    if x.ndim == 0:
        raise ValueError("Cannot unstack a scalar tensor.")
    axis = int(axis) % x.ndim
    if num is not None and num != x._value.shape[axis]:
        raise ValueError(f"unstack: num={num} but axis {axis} has size {x._value.shape[axis]}.")
    return execute(UNPACK, (x,), {"axis": axis})


def shape(input, out_type=dtypes.int32, name=None):
    """The shape as a 1-D int tensor."""
    x = as_tensor(input)
    return Tensor(B.xp.asarray(x._value.shape, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


def rank(input, name=None):
    """The number of dimensions, as an int32 scalar tensor."""
    return Tensor(B.xp.asarray(as_tensor(input).ndim, dtype=np.int32))


def size(input, out_type=dtypes.int32, name=None):
    """The number of elements, as a scalar tensor."""
    return Tensor(B.xp.asarray(as_tensor(input)._value.size, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


# -- helpers for argument checking ---------------------------------------------------------


def _invalid(message, op):
    """TF's error for bad arguments, naming the op as TF's eager messages do."""
    return InvalidArgumentError(f"{message} [Op:{op}]", op)


def _axis(axis, rank, op, extra=0):
    """``axis`` (an int or scalar int tensor) as a non-negative int in [0, rank + extra)."""
    axis = int(axis._value) if hasattr(axis, "_value") else int(axis)
    size = rank + extra
    if not -size <= axis < size:
        raise _invalid(f"axis {axis} is out of range [{-size}, {size}) for a tensor of rank {rank}.", op)
    return axis % size


def _int_list(values):
    """A list/tuple/int tensor of ints as a Python list of ints."""
    if hasattr(values, "_value"):
        values = np.asarray(B.to_numpy(values._value)).tolist()
    if isinstance(values, (int, np.integer)):
        return [int(values)]
    return [int(v) for v in values]


def _int_indices(indices, op):
    """``indices`` as an int32/int64 tensor; TF refuses float or bool indices."""
    indices = as_tensor(indices)
    if not indices.dtype.is_integer:
        raise TypeError(
            f"{op}: indices must be int32 or int64, got {indices.dtype.name}. "
            "Cast them first: tf.cast(indices, tf.int32)."
        )
    return indices


# -- adding and removing size-1 axes (compositions of reshape) ------------------------------


def expand_dims(input, axis, name=None):
    """Insert a size-1 axis at ``axis`` (in [-rank-1, rank]). Recorded as a Reshape."""
    x = as_tensor(input)
    shape = list(x._value.shape)
    position = _axis(axis, x.ndim, "ExpandDims", extra=1)
    shape.insert(position, 1)
    return reshape(x, shape)


def squeeze(input, axis=None, name=None):
    """Remove size-1 axes: all of them, or only those in ``axis``. Recorded as a Reshape."""
    x = as_tensor(input)
    shape = x._value.shape
    if axis is None:
        drop = {i for i, n in enumerate(shape) if n == 1}
    else:
        drop = {_axis(a, x.ndim, "Squeeze") for a in _int_list(axis)}
        for i in sorted(drop):
            if shape[i] != 1:
                raise _invalid(
                    f"Can not squeeze dim[{i}], expected a dimension of 1, got {shape[i]}. "
                    "Leave that axis out of `axis`.",
                    "Squeeze",
                )
    return reshape(x, [n for i, n in enumerate(shape) if i not in drop])


# -- joining and splitting -----------------------------------------------------------------

CONCAT = Primitive("ConcatV2", lambda *xs, axis: B.xp.concatenate(xs, axis=axis))
SPLIT = Primitive("SplitV", lambda x, sizes, axis: tuple(_split(x, sizes, axis)), n_outputs=None)


def _split(x, sizes, axis):
    ends = np.cumsum(sizes)[:-1].tolist()
    return B.xp.split(x, ends, axis=axis)


def concat(values, axis, name=None):
    """Join tensors along an existing ``axis``; the other dimensions must match."""
    tensors = [as_tensor(v) for v in values]
    if not tensors:
        raise ValueError("concat needs at least one tensor: tf.concat([x, y], axis).")
    ops.same_dtype(*tensors, op="ConcatV2")
    first = tensors[0]._value.shape
    axis = _axis(axis, len(first), "ConcatV2")
    for position, t in enumerate(tensors[1:], start=1):
        shape = t._value.shape
        if len(shape) != len(first):
            raise _invalid(
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = {list(first)} vs. "
                f"shape[{position}] = {list(shape)}",
                "ConcatV2",
            )
        for d, (m, n) in enumerate(zip(first, shape)):
            if d != axis and m != n:
                raise _invalid(
                    f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = {list(first)} "
                    f"vs. shape[{position}] = {list(shape)}. Only axis {axis} may differ.",
                    "ConcatV2",
                )
    if len(tensors) == 1:
        return tensors[0]
    return execute(CONCAT, tuple(tensors), {"axis": axis})


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Split ``value`` along ``axis`` into a list of tensors.

    ``num_or_size_splits`` is either a count (it must divide the axis evenly)
    or a list of sizes, one of which may be -1 (whatever is left).
    """
    x = as_tensor(value)
    if x.ndim == 0:
        raise ValueError("Cannot split a scalar tensor: it has no axis to split along.")
    axis = _axis(axis, x.ndim, "SplitV")
    length = x._value.shape[axis]
    count = num_or_size_splits
    if hasattr(count, "_value") and count.ndim == 0:
        count = int(count._value)
    if isinstance(count, (int, np.integer)):
        count = int(count)
        if count <= 0 or length % count:
            raise _invalid(
                f"Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {length}) and num_split {count}. "
                "Pass a list of sizes instead for uneven pieces.",
                "Split",
            )
        sizes = [length // count] * count
    else:
        sizes = _split_sizes(_int_list(count), length)
    if num is not None and int(num) != len(sizes):
        raise ValueError(f"split: num={num} but there are {len(sizes)} pieces.")
    return execute(SPLIT, (x,), {"sizes": tuple(sizes), "axis": axis})


def _split_sizes(sizes, length):
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    known = sum(s for s in sizes if s != -1)
    bad = len(unknown) > 1 or any(s < -1 for s in sizes)
    if unknown and not bad and known <= length:
        sizes[unknown[0]] = length - known
    elif bad or known != length:
        raise _invalid(
            f"Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: sizes {sizes} for a dimension of size {length}.",
            "SplitV",
        )
    return sizes


# -- repeating, padding, reversing ------------------------------------------------------------

TILE = Primitive("Tile", lambda x, multiples: B.xp.tile(x, multiples))
PAD = Primitive("Pad", lambda x, paddings, constant_values: B.xp.pad(x, paddings, constant_values=constant_values))
REVERSE = Primitive("ReverseV2", lambda x, axis: B.xp.flip(x, axis=axis))


def tile(input, multiples, name=None):
    """Repeat the whole tensor ``multiples[i]`` times along each axis i."""
    x = as_tensor(input)
    multiples = _int_list(multiples)
    if len(multiples) != x.ndim:
        raise _invalid(
            f"Expected multiples argument to be a vector of length {x.ndim} but got length "
            f"{len(multiples)}: give one multiple per axis.",
            "Tile",
        )
    if any(m < 0 for m in multiples):
        raise _invalid(f"Expected multiples to be non-negative, got {multiples}.", "Tile")
    return execute(TILE, (x,), {"multiples": tuple(multiples)})


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad each axis i with ``paddings[i] = [before, after]`` entries.

    ``mode`` is CONSTANT (fill with ``constant_values``), REFLECT (mirror,
    leaving out the edge; each pad < the axis size) or SYMMETRIC (mirror,
    repeating the edge; each pad <= the axis size), in any letter case.
    REFLECT and SYMMETRIC are recorded as one gather per padded axis rather
    than TF's MirrorPad op: same values and gradients.
    """
    x = as_tensor(tensor)
    pairs = np.asarray(B.to_numpy(paddings._value) if hasattr(paddings, "_value") else paddings)
    if pairs.shape != (x.ndim, 2) or pairs.dtype.kind not in "iu":
        raise _invalid(
            f"paddings must be a matrix of ints with shape [{x.ndim}, 2] (one [before, after] "
            f"pair per axis), got {pairs.tolist()}.",
            "Pad",
        )
    if (pairs < 0).any():
        raise _invalid(f"Paddings must be non-negative, got {pairs.tolist()}.", "Pad")
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    mode = str(mode).upper()
    if mode == "CONSTANT":
        fill_value = as_tensor(constant_values, dtype=x.dtype)
        if fill_value.ndim:
            raise ValueError("pad: constant_values must be a scalar.")
        return execute(PAD, (x,), {"paddings": pairs, "constant_values": _host(fill_value._value).item()})
    if mode in ("REFLECT", "SYMMETRIC"):
        return _mirror_pad(x, pairs, mode)
    raise ValueError(f"Unknown padding mode: {mode!r}. Use 'CONSTANT', 'REFLECT' or 'SYMMETRIC'.")


def _mirror_pad(x, pairs, mode):
    offset = 0 if mode == "REFLECT" else 1
    for axis, (before, after) in enumerate(pairs):
        n = x._value.shape[axis]
        limit = n - 1 + offset
        if before > limit or after > limit:
            relation = "less than" if mode == "REFLECT" else "no greater than"
            raise _invalid(
                f"paddings must be {relation} the dimension size: {before}, {after} not "
                f"{relation} {n} (axis {axis}, mode {mode}).",
                "MirrorPad",
            )
        if before == after == 0:
            continue
        positions = np.arange(-before, n + after)
        positions = np.where(positions < 0, -positions - offset, positions)
        positions = np.where(positions >= n, 2 * n - 2 + offset - positions, positions)
        x = gather(x, Tensor(B.xp.asarray(positions, dtype=np.int32)), axis=axis)
    return x


def reverse(tensor, axis, name=None):
    """Reverse the order of entries along each axis in ``axis``."""
    x = as_tensor(tensor)
    axes = [_axis(a, x.ndim, "ReverseV2") for a in _int_list(axis)]
    if len(set(axes)) != len(axes):
        raise _invalid(f"axis {_int_list(axis)} names an axis more than once.", "ReverseV2")
    return execute(REVERSE, (x,), {"axis": tuple(sorted(axes))})


# -- gathering ---------------------------------------------------------------------------------
# Both gathers reduce to "take rows of a 2-D-ish array at flat indices": a
# batch block of size N and the gathered axes are folded into axis 0. The
# gradient is the scatter-add of those rows back into zeros (dense, where TF
# returns IndexedSlices), itself a primitive whose gradient is the gather.


def _host(array):
    return np.asarray(B.to_numpy(array))


def _check_gather_range(indices, limit):
    host = _host(indices)
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
    """
    x = as_tensor(params)
    indices = _int_indices(indices, "GatherV2")
    b = int(batch_dims)
    if b < 0:
        b += indices.ndim
    if not 0 <= b <= indices.ndim or b > x.ndim - 1:
        raise ValueError(
            f"batch_dims={batch_dims} must be in [-{indices.ndim}, {indices.ndim}] (the rank of indices) "
            f"and less than the rank of params ({x.ndim})."
        )
    axis = b if axis is None else _axis(axis, x.ndim, "GatherV2")
    if axis < b:
        raise ValueError(f"batch_dims ({b}) must be less than or equal to axis ({axis}).")
    if x._value.shape[:b] != indices._value.shape[:b]:
        raise _invalid(
            f"params.shape[:{b}] = {list(x._value.shape[:b])} and indices.shape[:{b}] = "
            f"{list(indices._value.shape[:b])} must match: they are the batch dimensions.",
            "GatherV2",
        )
    return execute(GATHER, (x, indices), {"axis": axis, "batch_dims": b})


def gather_grad(g, indices, axis, batch_dims, params_shape):
    """The adjoint of ``gather``: ``g`` scatter-added into zeros of ``params_shape``."""
    attrs = {"axis": axis, "batch_dims": batch_dims, "params_shape": tuple(params_shape)}
    return execute(GATHER_GRAD, (as_tensor(g), indices), attrs)


def _nd_layout(params_shape, indices, batch_dims):
    """Flat row indices into params reshaped to [rows, rest...], checking the range."""
    xp = B.xp
    b = batch_dims
    depth = indices.shape[-1]
    indexed = params_shape[b : b + depth]
    n = int(np.prod(params_shape[:b], dtype=np.int64))
    host = _host(indices)
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
    """
    x = as_tensor(params)
    indices = _int_indices(indices, "GatherNd")
    b = int(batch_dims)
    if indices.ndim < 1 or not 0 <= b < indices.ndim:
        raise ValueError(
            f"gather_nd: indices must have rank >= 1 and batch_dims ({batch_dims}) less than its rank {indices.ndim}."
        )
    depth = indices._value.shape[-1]
    if b + depth > x.ndim:
        raise _invalid(
            f"index innermost dimension length must be <= params rank after the batch dims; saw: "
            f"{depth} vs. {x.ndim - b}.",
            "GatherNd",
        )
    if x._value.shape[:b] != indices._value.shape[:b]:
        raise _invalid(
            f"params and indices must have the same batch dimensions, got "
            f"{list(x._value.shape[:b])} and {list(indices._value.shape[:b])}.",
            "GatherNd",
        )
    return execute(GATHER_ND, (x, indices), {"batch_dims": b})


def gather_nd_grad(g, indices, batch_dims, params_shape):
    """The adjoint of ``gather_nd``: ``g`` scatter-added into zeros of ``params_shape``."""
    return execute(
        GATHER_ND_GRAD, (as_tensor(g), indices), {"batch_dims": batch_dims, "params_shape": tuple(params_shape)}
    )


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block starting at ``begin`` of shape ``size`` (-1: to the end of that axis)."""
    x = as_tensor(input_)
    begin, size = _int_list(begin), _int_list(size)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise _invalid(
            f"Expected begin and size arguments to be 1-D tensors of size {x.ndim}, "
            f"but got sizes {len(begin)} and {len(size)}.",
            "Slice",
        )
    key = []
    for axis, (start, length, n) in enumerate(zip(begin, size, x._value.shape)):
        stop = n if length == -1 else start + length
        if start < 0 or length < -1 or stop > n:
            raise _invalid(
                f"Expected begin[{axis}] = {start} and size[{axis}] = {length} to fit in dimension {axis} of size {n}.",
                "Slice",
            )
        key.append(builtins.slice(start, stop))
    return slice_tensor(x, tuple(key))


# -- constant-making ops that take shapes (not recorded) --------------------------------------


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """[start, start + delta, ...) up to ``limit`` (``range(n)`` counts 0..n-1).

    The dtype follows the arguments: int32 for Python ints, float32 when any
    is a float, or a tensor argument's dtype; ``dtype`` overrides it.
    """
    if limit is None:
        start, limit = 0, start
    values = [as_tensor(v) if hasattr(v, "_value") or isinstance(v, Tensor) else v for v in (start, limit, delta)]
    if dtype is None:
        dtype = _range_dtype(values)
    target = dtypes.as_dtype(dtype).as_numpy_dtype
    start, limit, delta = (v.numpy().item() if hasattr(v, "numpy") else v for v in values)
    if delta == 0:
        raise _invalid("Requires delta != 0: 0", "Range")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise _invalid(
            f"Requires start <= limit when delta > 0: {start}/{limit} (or start >= limit when delta < 0).", "Range"
        )
    return Tensor(B.xp.arange(start, limit, delta).astype(target))


def _range_dtype(values):
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
    best = dtypes.int32
    for v in values:
        if hasattr(v, "dtype") and isinstance(v, Tensor):
            kind = v.dtype
        elif isinstance(v, (float, np.floating)):
            kind = dtypes.float32
        else:
            continue
        if kind in order and order.index(kind) > order.index(best):
            best = kind
    return best


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix [num_rows, num_columns], repeated over ``batch_shape``."""
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    if rows < 0 or cols < 0:
        raise _invalid(f"num_rows and num_columns must be non-negative, got {rows} and {cols}.", "Eye")
    matrix = B.xp.eye(rows, cols, dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        matrix = B.xp.broadcast_to(matrix, tuple(_int_list(batch_shape)) + (rows, cols)).copy()
    return Tensor(matrix)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A new axis of length ``depth`` at ``axis`` (default last): ``on_value`` at each index.

    Defaults: on 1, off 0, float32 (or the dtype of ``on_value``/``off_value``).
    Indices outside [0, depth) give a row of ``off_value``, as in TF. Not
    differentiable (TF registers no gradient for OneHot), so not recorded.
    """
    indices = _int_indices(indices, "OneHot")
    if dtype is None:
        given = [as_tensor(v) for v in (on_value, off_value) if v is not None]
        dtype = given[0].dtype if given else dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    on = as_tensor(1 if on_value is None else on_value, dtype=dtype)._value
    off = as_tensor(0 if off_value is None else off_value, dtype=dtype)._value
    depth = int(depth._value) if hasattr(depth, "_value") else int(depth)
    if depth < 0:
        raise _invalid(f"depth must be non-negative, got: {depth}", "OneHot")
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= indices.ndim:
        raise _invalid(f"Expected axis to be -1 or between [0, {indices.ndim}).  But received: {axis}", "OneHot")
    xp = B.xp
    hot = indices._value[..., None] == xp.arange(depth)
    out = xp.where(hot, on, off).astype(dtype.as_numpy_dtype)
    return Tensor(xp.moveaxis(out, -1, axis) if axis != -1 else out)


__all__ = [
    "zeros",
    "ones",
    "fill",
    "zeros_like",
    "ones_like",
    "reshape",
    "broadcast_to",
    "transpose",
    "slice_tensor",
    "stack",
    "unstack",
    "shape",
    "rank",
    "size",
    "convert_to_tensor",
    "expand_dims",
    "squeeze",
    "concat",
    "split",
    "tile",
    "pad",
    "reverse",
    "gather",
    "gather_nd",
    "slice",
    "range",
    "eye",
    "one_hot",
]
