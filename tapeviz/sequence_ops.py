"""TF's ops that repeat, rotate, reverse or mask along an axis: ``repeat``, ``roll``, ``reverse_sequence``,
``sequence_mask``, ``unique``.

Each is composed of tapeviz ops with indices computed from the (known)
sizes, the way TF composes it, so values and gradients agree with TF's: a
repeated entry gets the sum of its copies' gradients, a rolled or reversed
one its own, and the gradient at the input is a dense tensor, as TF's.
"""

import numpy as _np

from tapeviz.array_ops import boolean_mask as _boolean_mask
from tapeviz.core import dtypes as _dtypes
from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.primitives.array import concat as _concat
from tapeviz.core.primitives.array import expand_dims as _expand_dims
from tapeviz.core.primitives.array import gather as _gather
from tapeviz.core.primitives.array import range as _range
from tapeviz.core.primitives.array import reshape as _reshape
from tapeviz.core.primitives.array import tile as _tile
from tapeviz.core.primitives.array import transpose as _transpose
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.primitives.math import less as _less
from tapeviz.core.primitives.math import reduce_max as _reduce_max
from tapeviz.core.primitives.sorting import unique, unique_with_counts  # noqa: F401
from tapeviz.core.scopes import name_scope as _name_scope
from tapeviz.core.tensor import host_value as _host_value
from tapeviz.core.tensor import to_array as _to_array

__all__ = ["repeat", "reverse_sequence", "roll", "sequence_mask", "unique", "unique_with_counts"]


def _ints(value, what):
    """A Python int or a 1-D NumPy int array from a number, list or tensor (read on the host: a trace
    that cannot keep the read runs eagerly, core.tensor.host_value)."""
    array = _np.asarray(
        _host_value(value, what) if hasattr(value, "dtype") and not isinstance(value, _np.ndarray) else value
    )
    if array.dtype.kind not in "iu":
        raise TypeError(f"{what} must be integers, got {array.dtype}")
    return array


def _axis(axis, rank, op):
    if not -rank <= axis < max(rank, 1):
        raise _InvalidArgumentError(f"axis {axis} is out of range for a tensor of rank {rank} [Op:{op}]", op)
    return axis % max(rank, 1)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's name
    """Each entry of ``input`` ``repeats`` times along ``axis`` (flattened first when ``axis`` is None), as ``tf.repeat``.

    ``repeats`` is one count for every entry or one per entry of that axis.
    Written as TF writes it (a tile of a new axis, then a mask of the copies
    each entry keeps), so the gradient is TF's: each entry gets the sum of its
    copies' gradients.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        repeats: a count for every entry, or one per entry of ``axis`` (>= 0).
        axis: the axis to repeat along; None flattens first.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor, longer along ``axis``.

    Raises:
        tf.errors.InvalidArgumentError: negative counts, or a list of another length than the axis.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.repeat(tf.constant([[1, 2], [3, 4]]), [1, 2], axis=0).numpy())
        [[1 2]
         [3 4]
         [3 4]]
    """
    with _name_scope(name or "Repeat"):
        x = _as_tensor(input)
        if axis is None:
            x, axis = _reshape(x, [-1]), 0
        axis = _axis(int(axis), x.ndim, "Repeat")
        shape = list(x.shape)
        counts = _ints(repeats, "repeats").reshape(-1)
        if counts.size not in (1, shape[axis]):
            raise _InvalidArgumentError(
                f"repeats has {counts.size} counts for an axis of size {shape[axis]}: give one count, or one per "
                "entry [Op:Repeat]",
                "Repeat",
            )
        if (counts < 0).any():
            raise _InvalidArgumentError("repeats must be >= 0 [Op:Repeat]", "Repeat")
        most = int(counts.max()) if counts.size else 0
        multiples = [1] * (x.ndim + 1)
        multiples[axis + 1] = most
        tiled = _tile(_expand_dims(x, axis + 1), multiples)  # every entry `most` times
        if counts.size == 1:
            return _reshape(tiled, [*shape[:axis], -1, *shape[axis + 1 :]])
        keep = _np.arange(most)[None, :] < counts[:, None]  # entry i keeps its first counts[i] copies
        moved = _moveaxis(tiled, axis, 0)  # [entries, copies, ...]
        kept = _boolean_mask(moved, keep)
        return _moveaxis(kept, 0, axis)


def _moveaxis(x, source, destination):
    order = list(range(x.ndim))
    order.insert(destination, order.pop(source))
    return x if order == sorted(order) else _transpose(x, order)


def roll(input, shift, axis, name=None):  # noqa: A002 - TF's name
    """``input`` rotated by ``shift`` places along ``axis`` (lists: each pair in turn), as ``tf.roll``.

    Two slices put back in the other order, so the gradient is the upstream
    rolled back, as TF's.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        shift: places to move (negative: backwards), or a list of them.
        axis: the axis, or a list of axes paired with ``shift``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``input``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: ``shift`` and ``axis`` of different lengths, or an axis out of range.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.roll(tf.range(5), shift=2, axis=0).numpy())
        [3 4 0 1 2]
    """
    with _name_scope(name or "Roll"):
        x = _as_tensor(input)
        shifts, axes = _ints(shift, "shift").reshape(-1), _ints(axis, "axis").reshape(-1)
        if shifts.size != axes.size:
            raise _InvalidArgumentError(
                f"shift and axis must have the same size, got {shifts.size} and {axes.size} [Op:Roll]", "Roll"
            )
        total = {}
        for step, ax in zip(shifts.tolist(), axes.tolist()):  # shifts of one axis add up, as TF's
            ax = _axis(ax, x.ndim, "Roll")
            total[ax] = total.get(ax, 0) + step
        for ax, step in total.items():
            size = x.shape[ax]
            cut = (size - step % size) % size if size else 0
            if cut:
                head = (slice(None),) * ax + (slice(cut, None),)
                tail = (slice(None),) * ax + (slice(None, cut),)
                x = _concat([x[head], x[tail]], axis=ax)
        return x


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=0, name=None):  # noqa: A002 - TF's name
    """For each ``i`` along ``batch_axis``, the first ``seq_lengths[i]`` entries along ``seq_axis`` reversed.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        seq_lengths: one length per entry along ``batch_axis``.
        seq_axis: the axis to reverse (required).
        batch_axis: the batch axis.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``input``'s shape.

    Raises:
        ValueError: no ``seq_axis``.
        tf.errors.InvalidArgumentError: lengths longer than the axis, or another number of them than the batch.
    """
    with _name_scope(name or "ReverseSequence"):
        x = _as_tensor(input)
        if seq_axis is None:
            raise ValueError("seq_axis is required")
        seq_axis, batch_axis = (
            _axis(int(seq_axis), x.ndim, "ReverseSequence"),
            _axis(int(batch_axis), x.ndim, "ReverseSequence"),
        )
        lengths = _ints(seq_lengths, "seq_lengths").reshape(-1)
        batch, steps = x.shape[batch_axis], x.shape[seq_axis]
        if lengths.size != batch or (lengths > steps).any() or (lengths < 0).any():
            raise _InvalidArgumentError(
                f"seq_lengths must have one length in [0, {steps}] per batch entry ({batch}) [Op:ReverseSequence]",
                "ReverseSequence",
            )
        # one flat gather: for each position of x, where along seq_axis its value comes from
        position = _np.indices(x.shape)
        step, row = position[seq_axis], position[batch_axis]
        length = lengths[row]
        source = _np.where(step < length, length - 1 - step, step)
        flat = _np.ravel_multi_index(tuple(source if d == seq_axis else position[d] for d in range(x.ndim)), x.shape)
        return _reshape(_gather(_reshape(x, [-1]), flat.reshape(-1)), x.shape)  # (the reshape keeps it dense)


def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool, name=None):
    """``mask[..., j] = j < lengths[...]``, of shape ``lengths.shape + [maxlen]`` (``maxlen``: the longest), as TF.

    Args:
        lengths: an integer tensor.
        maxlen: the mask's last dimension (``max(lengths)`` when None).
        dtype: the result's dtype (bool by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``lengths.shape + [maxlen]``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.sequence_mask([1, 3], maxlen=4))
        tf.Tensor(
        [[ True False False False]
         [ True  True  True False]], shape=(2, 4), dtype=bool)

    Example:
        >>> import tapeviz as tf
        >>> print(tf.sequence_mask([1, 3], 4).numpy())
        [[ True False False False]
         [ True  True  True False]]
    """
    with _name_scope(name or "SequenceMask"):
        lengths = _as_tensor(lengths)
        if maxlen is None:
            maxlen = _reduce_max(lengths) if _to_array(lengths).size else 0
        steps = _range(_cast(maxlen, lengths.dtype) if lengths.dtype.is_integer else maxlen, dtype=lengths.dtype)
        mask = _less(steps, _expand_dims(lengths, -1))
        return mask if _dtypes.as_dtype(dtype) == _dtypes.bool else _cast(mask, dtype)
