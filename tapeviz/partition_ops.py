"""``tf.dynamic_partition`` and ``tf.dynamic_stitch``: split rows by a partition id, and merge rows by index.

Both are gathers of a flattened copy of their data (a real reshape, so the
gradient at the data is dense, as TF's). A partitioned row's gradient goes
back to its place. ``dynamic_stitch`` has TF's own gradient rule, a gather
of the upstream at each ``indices``: a row overwritten by a later one (a
repeated index) gets the gradient of the row that replaced it, as in TF 2.21.
"""

import numpy as _np

from tapeviz.core.custom_gradient import custom_gradient as _custom_gradient
from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.primitives.array import concat as _concat
from tapeviz.core.primitives.array import gather as _gather
from tapeviz.core.primitives.array import reshape as _reshape
from tapeviz.core.primitives.array import zeros as _zeros
from tapeviz.core.tensor import to_array as _to_array

__all__ = ["dynamic_partition", "dynamic_stitch"]


def _flat(x):
    """``x``'s entries as one axis, through a reshape that is never the identity (a 1-D ``x`` gets a unit axis)."""
    return _reshape(x, [-1] if x.ndim > 1 else [-1, 1])


def _elements(rows, row_size):
    """The flat positions of whole rows of ``row_size`` entries."""
    return (rows[:, None] * row_size + _np.arange(row_size)[None, :]).reshape(-1)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``num_partitions`` tensors: ``outputs[i]`` holds the rows of ``data`` whose ``partitions`` entry is ``i``,
    in order (``partitions``' shape is a prefix of ``data``'s).

    Args:
        data: a Tensor, or anything ``tf.constant`` converts.
        partitions: integers in [0, num_partitions), of a prefix of ``data``'s shape.
        num_partitions: the number of outputs.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A list of ``num_partitions`` Tensors.

    Raises:
        ValueError: ``partitions`` whose shape is not a prefix of ``data``'s.
        tf.errors.InvalidArgumentError: a partition id out of range.

    Example:
        >>> import tapeviz as tf
        >>> parts = tf.dynamic_partition(tf.constant([10.0, 20.0, 30.0, 40.0]), [0, 1, 0, 2], 3)
        >>> print([p.numpy().tolist() for p in parts])
        [[10.0, 30.0], [20.0], [40.0]]
    """
    x = _as_tensor(data)
    ids = _np.asarray(_to_array(_as_tensor(partitions)))
    if ids.dtype.kind not in "iu" or tuple(x.shape[: ids.ndim]) != ids.shape:
        raise ValueError(f"partitions must be integers of a prefix of data's shape {list(x.shape)}, got {ids.shape}")
    if ids.size and (ids.min() < 0 or ids.max() >= num_partitions):
        raise _InvalidArgumentError(
            f"partitions must be in [0, {num_partitions}) [Op:DynamicPartition]", "DynamicPartition"
        )
    rest = list(x.shape[ids.ndim :])
    row_size = int(_np.prod(rest, dtype=_np.int64))
    flat, order = _reshape(_flat(x), [-1]), ids.reshape(-1)
    return [
        _reshape(_gather(flat, _elements(_np.flatnonzero(order == part), row_size)), [-1, *rest])
        for part in range(int(num_partitions))
    ]


def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][j]] = data[m][j]``, of ``max(indices) + 1`` rows; with a repeated index the last wins.

    Args:
        indices: a list of integer tensors.
        data: a list of tensors, one per ``indices`` tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``max(indices) + 1`` rows.

    Raises:
        TypeError: indices that are not integers.
        ValueError: another number of ``data`` tensors than of ``indices``.

    Example:
        >>> import tapeviz as tf
        >>> merged = tf.dynamic_stitch([[0, 2], [1, 3]], [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])])
        >>> print(merged.numpy())
        [1. 3. 2. 4.]
    """
    index_arrays = [_np.asarray(_to_array(_as_tensor(i))) for i in indices]
    if any(i.dtype.kind not in "iu" for i in index_arrays):
        raise TypeError("dynamic_stitch's indices must be integers")
    values = [_as_tensor(d) for d in data]
    if len(index_arrays) != len(values) or not values:
        raise ValueError("dynamic_stitch needs one data tensor per indices tensor")
    rest = list(values[0].shape[index_arrays[0].ndim :])
    for i, d in zip(index_arrays, values):
        if tuple(d.shape) != i.shape + tuple(rest):
            raise _InvalidArgumentError(
                f"data shape {list(d.shape)} must be indices shape {list(i.shape)} + {rest} [Op:DynamicStitch]",
                "DynamicStitch",
            )
    flat_indices = _np.concatenate([i.reshape(-1) for i in index_arrays]).astype(_np.int64)
    rows = int(flat_indices.max()) + 1 if flat_indices.size else 0
    source = _np.full(rows, flat_indices.size, dtype=_np.int64)  # a row nobody writes: the zero row at the end
    source[flat_indices] = _np.arange(flat_indices.size)  # NumPy keeps the last write of a repeated index
    row_size = int(_np.prod(rest, dtype=_np.int64))

    @_custom_gradient
    def stitch(*parts):
        pieces = [_reshape(_flat(d), [-1]) for d in parts] + [_zeros([row_size], dtype=parts[0].dtype)]
        merged = _reshape(_gather(_concat(pieces, 0), _elements(source, row_size)), [rows, *rest])

        def grad_fn(upstream):  # TF's rule: every data row gets the upstream of its index
            return [_gather(upstream, i) for i in index_arrays]

        return merged, grad_fn

    return stitch(*values)
