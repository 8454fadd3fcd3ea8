"""Shape ops: reshape, broadcast, transpose, stack, expand/squeeze, concat/split, tile, pad, reverse; each kernel with its gradient rule."""

import builtins

import numpy as np

from tapeviz import backend as B
from tapeviz.core import dtypes, ops
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.families import complex_numbers
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array import symbolic_shapes
from tapeviz.core.primitives.array.arguments import axis_index, host_array, int_list, invalid_argument, shape_arg
from tapeviz.core.primitives.array.indexing import gather, slice_tensor
from tapeviz.core.rules import defgrad, described
from tapeviz.core.tensor import Tensor, first_tensor, host_value

# -- reshaping ---------------------------------------------------------------------

RESHAPE = Primitive("Reshape", lambda x, shape: B.xp.reshape(x, shape))
BROADCAST_TO = Primitive("BroadcastTo", lambda x, shape: B.xp.broadcast_to(x, shape))
TRANSPOSE = Primitive("Transpose", lambda x, perm: B.xp.transpose(x, perm))


def reshape(tensor, shape, name=None):
    """The same values in a new shape (one dimension may be -1).

    Args:
        tensor: a Tensor, or anything ``tf.constant`` converts.
        shape: the new shape (a list of ints or a 1-D int tensor); one entry may be
            -1, inferred from the size.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape`` with ``tensor``'s values in row-major order.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.reshape(tf.range(6), [2, -1]))
        tf.Tensor(
        [[0 1 2]
         [3 4 5]], shape=(2, 3), dtype=int32)
    """
    x = as_tensor(tensor)
    if symbolic_shapes.is_symbolic(shape):  # a size computed from a traced input: the trace reads it per call
        return symbolic_shapes.reshape(x, shape)
    shape = shape_arg(shape)
    if x._value.shape == shape:
        return x
    try:
        return execute(RESHAPE, (x,), {"shape": shape})
    except InvalidArgumentError:  # NumPy refused: TF's message, or TF's answer where TF infers more
        resolved = _tf_reshape_target(x._value.shape, shape)
        return execute(RESHAPE, (x,), {"shape": resolved})


def _tf_reshape_target(in_shape, shape):
    """``shape`` with its -1 resolved by TF's rules, or TF's InvalidArgumentError for it.

    Called only once NumPy has refused: for the messages, and for an empty tensor
    whose -1 TF infers from the input's non-zero sizes ((0, 3) -> [0, -1] is (0, 3)).
    """
    size = int(np.prod(in_shape, dtype=np.int64))
    unknown, product = None, 1
    for i, n in enumerate(shape):
        if n == -1:
            if unknown is not None:
                raise invalid_argument(f"Only one input size may be -1, not both {unknown} and {i}", "Reshape")
            unknown = i
        elif n < 0:
            raise invalid_argument(f"Size {i} must be non-negative, not {n}", "Reshape")
        else:
            product *= n
    if unknown is None:
        raise invalid_argument(
            f"Input to reshape is a tensor with {size} values, but the requested shape has {product}", "Reshape"
        )
    if product > 0:
        if size % product:
            raise invalid_argument(
                f"Input to reshape is a tensor with {size} values, but the requested shape requires a multiple of "
                f"{product}",
                "Reshape",
            )
        missing = size // product
    elif size:
        raise invalid_argument(
            f"Input to reshape is a tensor with {size} values, but the requested shape has 0", "Reshape"
        )
    else:
        given = int(np.prod([n for n in shape if n > 0], dtype=np.int64))
        have = int(np.prod([n for n in in_shape if n > 0], dtype=np.int64))
        if have % given:
            raise invalid_argument(
                "Reshape cannot infer the missing input size for an empty tensor unless all specified input sizes "
                "are non-zero",
                "Reshape",
            )
        missing = have // given
    return tuple(missing if i == unknown else n for i, n in enumerate(shape))


_RESHAPE_BACK = "reshape the upstream back to x's shape"
_RESHAPE_BACK_LOCAL = described("1 per element: the upstream reshaped back to x's shape")


@defgrad(RESHAPE, _RESHAPE_BACK, local=_RESHAPE_BACK_LOCAL)
def _reshape_rule(op, needs, g):
    return (reshape(g, op.inputs[0]._value.shape),)


def broadcast_to(input, shape, name=None):
    """``input`` repeated along size-1 (or missing) dimensions to ``shape``.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        shape: the target shape; ``input``'s shape must broadcast to it.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape``.
    """
    x = as_tensor(input)
    if symbolic_shapes.is_symbolic(shape):  # sizes read from a traced input: the trace reads them per call
        return symbolic_shapes.broadcast_to(x, shape)
    shape = shape_arg(shape)
    if x._value.shape == shape:
        return x
    return execute(BROADCAST_TO, (x,), {"shape": shape})


@defgrad(
    BROADCAST_TO,
    "sum the upstream over the broadcast axes",
    local=described("1 per copy: the upstream summed over the broadcast axes"),
)
def _broadcast_to_rule(op, needs, g):
    return (m.unbroadcast(g, op.inputs[0]),)


def transpose(a, perm=None, conjugate=False, name=None):
    """Permute dimensions (reverse them when ``perm`` is None).

    Args:
        a: a Tensor, or anything ``tf.constant`` converts.
        perm: the new order of the axes; None reverses them.
        conjugate: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor whose axis ``i`` is ``a``'s axis ``perm[i]``.

    Raises:
        ValueError: a ``perm`` that is not a permutation of ``a``'s axes.

    Example:
        >>> import tapeviz as tf
        >>> tf.transpose(tf.zeros([2, 3, 4]), perm=[2, 0, 1]).shape
        TensorShape([4, 2, 3])
    """
    x = as_tensor(a)
    perm = tuple(builtins.range(x.ndim))[::-1] if perm is None else tuple(int(p) for p in perm)
    if sorted(perm) != list(builtins.range(x.ndim)):
        raise ValueError(f"transpose: perm {list(perm)} is not a permutation of the {x.ndim} axes.")
    out = execute(TRANSPOSE, (x,), {"perm": perm})
    return complex_numbers.conj(out) if conjugate and x._value.dtype.kind == "c" else out


@defgrad(
    TRANSPOSE,
    "transpose the upstream back by the inverse permutation",
    local=described("1 per element: the upstream transposed back"),
)
def _transpose_rule(op, needs, g):
    perm = op.attrs["perm"]
    inverse = [0] * len(perm)
    for position, axis in enumerate(perm):
        inverse[axis] = position
    return (transpose(g, inverse),)


PACK = Primitive("Pack", lambda *xs, axis: B.xp.stack(xs, axis=axis))
UNPACK = Primitive("Unpack", lambda x, axis: tuple(B.xp.moveaxis(x, axis, 0)), n_outputs=None)


def stack(values, axis=0, name=None):
    """Join tensors of one shape along a new axis.

    Args:
        values: a list of tensors of one shape and dtype.
        axis: where the new axis goes (in [-rank-1, rank]).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of rank one more than the inputs', with ``len(values)`` at ``axis``.

    Raises:
        ValueError: an empty ``values``, tensors of different shapes, or an ``axis``
            out of range.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.stack([[1, 2], [3, 4]], axis=1))
        tf.Tensor(
        [[1 3]
         [2 4]], shape=(2, 2), dtype=int32)
    """
    tensors = ops.as_matching_tensors(list(values))  # Python values take the first tensor's dtype, as TF
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


def auto_pack(values):
    """A (nested) list or tuple holding tensors as one Tensor, as TF's ``convert_to_tensor`` packs it: a
    Pack per level (tapes and traces record it, so gradients reach each tensor); ``stack`` converts the
    Python values of each level to its tensors' dtype, and a tensor of another dtype is Pack's error.

    Args:
        values: a list or tuple with a Tensor or Variable somewhere in it.

    Returns:
        A Tensor of the nest's shape.
    """
    return stack([auto_pack(v) if type(v) in (list, tuple) and first_tensor(v) is not None else v for v in values])


@defgrad(
    PACK,
    "unstack the upstream: each input gets its slice",
    local=described(every="1: this input's slice of the upstream"),
)
def _pack_rule(op, needs, g):
    parts = unstack(g, axis=op.attrs["axis"])
    return tuple(part if need else None for part, need in zip(parts, needs))


def unstack(value, num=None, axis=0, name=None):
    """Split a tensor along ``axis`` into a list of tensors one rank lower.

    Args:
        value: a Tensor, or anything ``tf.constant`` converts, of rank >= 1.
        num: the length of ``axis``, checked when given.
        axis: the axis to unstack along.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A list of ``value.shape[axis]`` Tensors.

    Raises:
        ValueError: a scalar ``value``, or ``num`` that is not the axis's length.

    Example:
        >>> import tapeviz as tf
        >>> [t.numpy().tolist() for t in tf.unstack([[1, 2], [3, 4]], axis=1)]
        [[1, 3], [2, 4]]
    """
    x = as_tensor(value)
    if x.ndim == 0:
        raise ValueError("Cannot unstack a scalar tensor.")
    axis = int(axis) % x.ndim
    if num is not None and num != x._value.shape[axis]:
        raise ValueError(f"unstack: num={num} but axis {axis} has size {x._value.shape[axis]}.")
    return execute(UNPACK, (x,), {"axis": axis})


@defgrad(UNPACK, "stack the upstreams (zeros for unused outputs)", local=described("1: the upstreams stacked back"))
def _unpack_rule(op, needs, *grads):
    return (stack(grads, axis=op.attrs["axis"]),)


def shape(input, out_type=dtypes.int32, name=None):
    """The shape as a 1-D int tensor.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        out_type: the dtype of the result (int32 by default, or int64).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A 1-D Tensor of the sizes (``x.shape`` gives them as a TensorShape instead).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.shape(tf.zeros([2, 3])))
        tf.Tensor([2 3], shape=(2,), dtype=int32)
    """
    x = as_tensor(input)
    if symbolic_shapes.is_symbolic(x):  # traced: a node, so each call reads its own sizes
        return symbolic_shapes.shape(x, out_type)
    return Tensor(B.xp.asarray(x._value.shape, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


def rank(input, name=None):
    """The number of dimensions, as an int32 scalar tensor.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A scalar int32 Tensor.
    """
    if symbolic_shapes.is_symbolic(input):
        return symbolic_shapes.rank(as_tensor(input))
    return Tensor(B.xp.asarray(as_tensor(input).ndim, dtype=np.int32))


def size(input, out_type=dtypes.int32, name=None):
    """The number of elements, as a scalar tensor.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        out_type: the result's dtype (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A scalar Tensor.
    """
    if symbolic_shapes.is_symbolic(input):
        return symbolic_shapes.size(as_tensor(input), out_type)
    return Tensor(B.xp.asarray(as_tensor(input)._value.size, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


# -- adding and removing size-1 axes (compositions of reshape) ------------------------------


def expand_dims(input, axis, name=None):
    """Insert a size-1 axis at ``axis`` (in [-rank-1, rank]). Recorded as a Reshape.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        axis: where the new axis goes.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of rank one more, the same values.

    Example:
        >>> import tapeviz as tf
        >>> tf.expand_dims([1.0, 2.0], axis=-1).shape
        TensorShape([2, 1])
    """
    x = as_tensor(input)
    shape = list(x._value.shape)
    position = axis_index(axis, x.ndim, "ExpandDims", extra=1)
    shape.insert(position, 1)
    return reshape(x, shape)


def squeeze(input, axis=None, name=None):
    """Remove size-1 axes: all of them, or only those in ``axis``. Recorded as a Reshape.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        axis: an int or list of ints: the axes to remove (each of size 1); None removes every size-1 axis.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the same values and fewer axes.

    Raises:
        tf.errors.InvalidArgumentError: an ``axis`` whose size is not 1.

    Example:
        >>> import tapeviz as tf
        >>> tf.squeeze(tf.zeros([1, 3, 1])).shape
        TensorShape([3])
    """
    x = as_tensor(input)
    shape = x._value.shape
    if axis is None:
        drop = {i for i, n in enumerate(shape) if n == 1}
    else:
        drop = {axis_index(a, x.ndim, "Squeeze") for a in int_list(axis)}
        for i in sorted(drop):
            if shape[i] != 1:
                raise invalid_argument(
                    f"Can not squeeze dim[{i}], expected a dimension of 1, got {shape[i]}. "
                    "Leave that axis out of `axis`.",
                    "Squeeze",
                )
    if not drop:
        return x
    return execute(SQUEEZE, (x,), {"axes": tuple(sorted(drop))})


# The axes it drops, not the sizes it keeps: a trace of it serves every size of the other axes.
SQUEEZE = Primitive("Squeeze", lambda x, axes: B.xp.squeeze(x, axis=axes))
defgrad(SQUEEZE, _RESHAPE_BACK, local=_RESHAPE_BACK_LOCAL)(_reshape_rule)  # its gradient is Reshape's


# -- joining and splitting -----------------------------------------------------------------

CONCAT = Primitive("ConcatV2", lambda *xs, axis: B.xp.concatenate(xs, axis=axis))
SPLIT = Primitive("SplitV", lambda x, sizes, axis: tuple(_split(x, sizes, axis)), n_outputs=None)


def _split(x, sizes, axis):
    ends = np.cumsum(sizes)[:-1].tolist()
    return B.xp.split(x, ends, axis=axis)


def concat(values, axis, name=None):
    """Join tensors along an existing ``axis``; the other dimensions must match.

    Args:
        values: a list of tensors of one dtype and rank.
        axis: the axis to join along (negative counts from the end).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor whose ``axis`` is the sum of the inputs'.

    Raises:
        ValueError: an empty ``values``.
        tf.errors.InvalidArgumentError: tensors of other ranks, or other sizes
            outside ``axis``, or of two dtypes.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.concat([[1, 2], [3]], axis=0))
        tf.Tensor([1 2 3], shape=(3,), dtype=int32)
    """
    tensors = ops.as_matching_tensors(list(values))
    if not tensors:
        raise ValueError("concat needs at least one tensor: tf.concat([x, y], axis).")
    ops.same_dtype(*tensors, op="ConcatV2")
    first = tensors[0]._value.shape
    axis = axis_index(axis, len(first), "ConcatV2")
    for position, t in enumerate(tensors[1:], start=1):
        shape = t._value.shape
        if len(shape) != len(first):
            raise invalid_argument(
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = {list(first)} vs. "
                f"shape[{position}] = {list(shape)}",
                "ConcatV2",
            )
        for d, (size, other) in enumerate(zip(first, shape)):
            if d != axis and size != other:
                raise invalid_argument(
                    f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = {list(first)} "
                    f"vs. shape[{position}] = {list(shape)}. Only axis {axis} may differ.",
                    "ConcatV2",
                )
    if len(tensors) == 1:
        return tensors[0]
    return execute(CONCAT, tuple(tensors), {"axis": axis})


@defgrad(
    CONCAT,
    "split the upstream back into the inputs' sizes along the axis",
    local=described(every="1: this input's piece of the upstream"),
)
def _concat_rule(op, needs, g):
    axis = op.attrs["axis"]
    sizes = [t._value.shape[axis] for t in op.inputs]
    parts = split(g, sizes, axis=axis)
    return tuple(part if need else None for part, need in zip(parts, needs))


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Split ``value`` along ``axis`` into a list of tensors.

    ``num_or_size_splits`` is either a count (it must divide the axis evenly)
    or a list of sizes, one of which may be -1 (whatever is left).

    Args:
        value: a Tensor, or anything ``tf.constant`` converts.
        num_or_size_splits: a number of equal pieces, or a list of sizes (one may be -1).
        axis: the axis to split along.
        num: the number of pieces, checked when given.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A list of Tensors.

    Raises:
        ValueError: a scalar ``value``, or ``num`` that is not the number of pieces.
        tf.errors.InvalidArgumentError: a count that does not divide the axis, or sizes
            that do not add up to it.

    Example:
        >>> import tapeviz as tf
        >>> [t.numpy().tolist() for t in tf.split(tf.range(5), [2, -1])]
        [[0, 1], [2, 3, 4]]
    """
    x = as_tensor(value)
    if x.ndim == 0:
        raise ValueError("Cannot split a scalar tensor: it has no axis to split along.")
    axis = axis_index(axis, x.ndim, "SplitV")
    length = x._value.shape[axis]
    count = num_or_size_splits
    if hasattr(count, "_value") and count.ndim == 0:
        count = int(count._value)
    if isinstance(count, (int, np.integer)):
        count = int(count)
        if count <= 0 or length % count:
            raise invalid_argument(
                f"Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {length}) and num_split {count}. "
                "Pass a list of sizes instead for uneven pieces.",
                "Split",
            )
        sizes = [length // count] * count
    else:
        sizes = _split_sizes(int_list(count), length)
    if num is not None and int(num) != len(sizes):
        raise ValueError(f"split: num={num} but there are {len(sizes)} pieces.")
    return execute(SPLIT, (x,), {"sizes": tuple(sizes), "axis": axis})


@defgrad(
    SPLIT,
    "concatenate the upstreams (zeros for unused pieces)",
    local=described("1: the upstreams concatenated back"),
)
def _split_rule(op, needs, *grads):
    return (concat(list(grads), axis=op.attrs["axis"]),)


def _split_sizes(sizes, length):
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    known = sum(s for s in sizes if s != -1)
    bad = len(unknown) > 1 or any(s < -1 for s in sizes)
    if unknown and not bad and known <= length:
        sizes[unknown[0]] = length - known
    elif bad or known != length:
        raise invalid_argument(
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
    """Repeat the whole tensor ``multiples[i]`` times along each axis i.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        multiples: one non-negative count per axis.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor whose axis i is ``multiples[i]`` times longer.

    Raises:
        tf.errors.InvalidArgumentError: ``multiples`` of another length than the rank, or negative.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.tile([1, 2], [3]))
        tf.Tensor([1 2 1 2 1 2], shape=(6,), dtype=int32)
    """
    x = as_tensor(input)
    multiples = int_list(multiples)
    if len(multiples) != x.ndim:
        raise invalid_argument(
            f"Expected multiples argument to be a vector of length {x.ndim} but got length "
            f"{len(multiples)}: give one multiple per axis.",
            "Tile",
        )
    if any(m < 0 for m in multiples):
        raise invalid_argument(f"Expected multiples to be non-negative, got {multiples}.", "Tile")
    return execute(TILE, (x,), {"multiples": tuple(multiples)})


@defgrad(
    TILE,
    "sum the upstream over the copies: reshape to [copies, size] per axis, reduce",
    local=described("1 per copy: the upstream summed over the copies"),
)
def _tile_rule(op, needs, g):

    shape = op.inputs[0]._value.shape
    split_shape = []
    for copies, n in zip(op.attrs["multiples"], shape):
        split_shape += [copies, n]
    summed = m.reduce_sum(reshape(g, split_shape), axis=list(range(0, 2 * len(shape), 2)))
    return (reshape(summed, shape),)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad each axis i with ``paddings[i] = [before, after]`` entries.

    ``mode`` is CONSTANT (fill with ``constant_values``), REFLECT (mirror,
    leaving out the edge; each pad < the axis size) or SYMMETRIC (mirror,
    repeating the edge; each pad <= the axis size), in any letter case.
    REFLECT and SYMMETRIC are recorded as one gather per padded axis rather
    than TF's MirrorPad op: same values and gradients.

    Args:
        tensor: a Tensor, or anything ``tf.constant`` converts.
        paddings: an int array of shape ``[rank, 2]``: entries before and after, per axis.
        mode: ``"CONSTANT"``, ``"REFLECT"`` or ``"SYMMETRIC"`` (any case).
        constant_values: the scalar to pad with in CONSTANT mode.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor, each axis longer by its two paddings.

    Raises:
        tf.errors.InvalidArgumentError: ``paddings`` of another shape than ``[rank, 2]``,
            negative, or too large for REFLECT/SYMMETRIC.
        ValueError: an unknown ``mode``, or ``constant_values`` that is not a scalar.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.pad([[1, 2]], [[0, 0], [1, 2]]))
        tf.Tensor([[0 1 2 0 0]], shape=(1, 5), dtype=int32)
    """
    x = as_tensor(tensor)
    pairs = np.asarray(B.to_numpy(host_value(paddings, "Pad's paddings")) if hasattr(paddings, "_value") else paddings)
    if pairs.shape != (x.ndim, 2) or pairs.dtype.kind not in "iu":
        raise invalid_argument(
            f"paddings must be a matrix of ints with shape [{x.ndim}, 2] (one [before, after] "
            f"pair per axis), got {pairs.tolist()}.",
            "Pad",
        )
    if (pairs < 0).any():
        raise invalid_argument(f"Paddings must be non-negative, got {pairs.tolist()}.", "Pad")
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    mode = str(mode).upper()
    if mode == "CONSTANT":
        fill_value = as_tensor(constant_values, dtype=x.dtype)
        if fill_value.ndim:
            raise ValueError("pad: constant_values must be a scalar.")
        return execute(PAD, (x,), {"paddings": pairs, "constant_values": host_array(fill_value._value).item()})
    if mode in ("REFLECT", "SYMMETRIC"):
        return _mirror_pad(x, pairs, mode)
    raise ValueError(f"Unknown padding mode: {mode!r}. Use 'CONSTANT', 'REFLECT' or 'SYMMETRIC'.")


@defgrad(
    PAD,
    "slice the upstream back to the unpadded block",
    local=described("1 inside the unpadded block, 0 on the padding"),
)
def _pad_rule(op, needs, g):
    key = tuple(slice(before, before + n) for (before, _), n in zip(op.attrs["paddings"], op.inputs[0]._value.shape))
    return (slice_tensor(g, key),)


def _mirror_pad(x, pairs, mode):
    offset = 0 if mode == "REFLECT" else 1
    for axis, (before, after) in enumerate(pairs):
        n = x._value.shape[axis]
        limit = n - 1 + offset
        if before > limit or after > limit:
            relation = "less than" if mode == "REFLECT" else "no greater than"
            raise invalid_argument(
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
    """Reverse the order of entries along each axis in ``axis``.

    Args:
        tensor: a Tensor, or anything ``tf.constant`` converts.
        axis: an int or list of ints: the axes to reverse.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``tensor``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: an axis named twice or out of range.
    """
    x = as_tensor(tensor)
    axes = [axis_index(a, x.ndim, "ReverseV2") for a in int_list(axis)]
    if len(set(axes)) != len(axes):
        raise invalid_argument(f"axis {int_list(axis)} names an axis more than once.", "ReverseV2")
    return execute(REVERSE, (x,), {"axis": tuple(sorted(axes))})


@defgrad(
    REVERSE, "reverse the upstream along the same axes", local=described("1 per element: the upstream reversed back")
)
def _reverse_rule(op, needs, g):
    return (reverse(g, list(op.attrs["axis"])),)
