"""``tf.RaggedTensor`` and ``tf.ragged``: rows of different lengths, as flat ``values`` cut by ``row_splits``.

One ragged dimension (``[nrows, (ragged), ...uniform]``), which is what
most code builds. Elementwise arithmetic works on the flat values, and
reductions over the ragged axis are composed of scatter_nd and gather, so
gradients flow to the values as in TF.
"""

import numpy as np

from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitives.array import gather_nd, reshape, stack
from tapeviz.core.primitives.math import add, divide, multiply, subtract
from tapeviz.core.primitives.math import pow as _pow
from tapeviz.core.primitives.math import reduce_max as _reduce_max
from tapeviz.core.primitives.math import reduce_min as _reduce_min
from tapeviz.core.primitives.math import reduce_prod as _reduce_prod
from tapeviz.core.primitives.math import reduce_sum as _reduce_sum
from tapeviz.core.primitives.scatter import scatter_nd
from tapeviz.core.tensor import Tensor, TensorShape, convert_to_tensor

__all__ = ["RaggedTensor", "constant", "map_flat_values", "reduce"]


def _splits(value):
    splits = np.asarray(value.numpy() if isinstance(value, Tensor) else value, dtype=np.int64).reshape(-1)
    return splits


class RaggedTensor:
    """Rows of different lengths: ``values[row_splits[i]:row_splits[i+1]]`` is row i."""

    def __init__(self, values, row_splits, _validate=True):
        values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        row_splits = _splits(row_splits)
        if _validate:
            if row_splits.size == 0 or row_splits[0] != 0 or np.any(np.diff(row_splits) < 0):
                raise InvalidArgumentError(f"row_splits must start at 0 and never decrease, got {row_splits.tolist()}.")
            if values.ndim == 0 or row_splits[-1] != values.shape[0]:
                raise InvalidArgumentError(
                    f"row_splits must end at the number of values ({values.shape[0] if values.ndim else 0}), got "
                    f"{row_splits.tolist()}."
                )
        self._values = values
        self._row_splits = row_splits

    # -- building --------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        return cls(values, row_splits, validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = _splits(row_lengths)
        return cls(values, np.concatenate([[0], np.cumsum(lengths)]), validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        ids = _splits(value_rowids)
        n = int(nrows) if nrows is not None else (int(ids.max()) + 1 if ids.size else 0)
        return cls.from_row_lengths(values, np.bincount(ids, minlength=n), validate=validate)

    # -- what it holds ---------------------------------------------------------------------
    @property
    def values(self):
        return self._values

    flat_values = values

    @property
    def row_splits(self):
        return Tensor(self._row_splits)

    def row_lengths(self, axis=1, name=None):
        return Tensor(np.diff(self._row_splits))

    def nrows(self, out_type=None, name=None):
        return Tensor(np.int64(len(self._row_splits) - 1))

    def value_rowids(self, name=None):
        return Tensor(self._rowids())

    def _rowids(self):
        return np.repeat(np.arange(len(self._row_splits) - 1, dtype=np.int64), np.diff(self._row_splits))

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return TensorShape([len(self._row_splits) - 1, None, *self._values.shape[1:]])

    @property
    def ragged_rank(self):
        return 1

    def with_values(self, new_values):
        return RaggedTensor(new_values, self._row_splits, _validate=False)

    def to_list(self):
        flat = self._values.numpy()
        return [flat[a:b].tolist() for a, b in zip(self._row_splits[:-1], self._row_splits[1:])]

    def numpy(self):
        flat = self._values.numpy()
        rows = [flat[a:b] for a, b in zip(self._row_splits[:-1], self._row_splits[1:])]
        out = np.empty(len(rows), dtype=object)
        out[:] = rows
        return out

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, rows padded with ``default_value`` (0) to the longest row (or ``shape``)."""
        lengths = np.diff(self._row_splits)
        n = len(lengths)
        width = int(lengths.max()) if n and lengths.size else 0
        if shape is not None:
            n = n if shape[0] is None else int(shape[0])
            width = width if shape[1] is None else int(shape[1])
        ids = self._rowids()
        cols = np.arange(len(ids), dtype=np.int64) - self._row_splits[:-1][ids] if len(ids) else ids
        keep = (ids < n) & (cols < width)
        dense_shape = [n, width, *self._values.shape[1:]]
        where = np.stack([ids[keep], cols[keep]], axis=1).reshape(-1, 2)
        dense = scatter_nd(where, gather_nd(self._values, np.flatnonzero(keep).reshape(-1, 1)), dense_shape)
        if default_value is not None and default_value != 0:
            filled = np.ones(dense_shape[:2], dtype=bool)
            filled[ids[keep], cols[keep]] = False
            pad = np.where(filled.reshape(filled.shape + (1,) * (len(dense_shape) - 2)), default_value, 0)
            dense = add(dense, Tensor(np.broadcast_to(pad, dense_shape).astype(self.dtype.as_numpy_dtype)))
        return dense

    # -- elementwise -----------------------------------------------------------------------
    def _combine(self, other, op, reverse=False):
        if isinstance(other, RaggedTensor):
            if not np.array_equal(other._row_splits, self._row_splits):
                raise ValueError(
                    "Ragged tensors of different row lengths cannot be combined elementwise: "
                    f"{np.diff(self._row_splits).tolist()} vs {np.diff(other._row_splits).tolist()}."
                )
            other_values = other._values
        else:
            other = convert_to_tensor(other, dtype=self.dtype)
            if other.ndim > len(self._values.shape) - 1:
                raise ValueError("Only scalars (or uniform inner dimensions) combine with a RaggedTensor's rows.")
            other_values = other
        a, b = (other_values, self._values) if reverse else (self._values, other_values)
        return self.with_values(op(a, b))

    def __add__(self, other):
        return self._combine(other, add)

    def __radd__(self, other):
        return self._combine(other, add, reverse=True)

    def __sub__(self, other):
        return self._combine(other, subtract)

    def __rsub__(self, other):
        return self._combine(other, subtract, reverse=True)

    def __mul__(self, other):
        return self._combine(other, multiply)

    def __rmul__(self, other):
        return self._combine(other, multiply, reverse=True)

    def __truediv__(self, other):
        return self._combine(other, divide)

    def __pow__(self, other):
        return self._combine(other, _pow)

    def __neg__(self):
        return self.with_values(-self._values)

    def __getitem__(self, row):
        if isinstance(row, int):
            n = len(self._row_splits) - 1
            if not -n <= row < n:
                raise IndexError(f"row {row} out of range for a RaggedTensor of {n} rows.")
            row %= n
            start, stop = self._row_splits[row], self._row_splits[row + 1]
            return gather_nd(self._values, np.arange(start, stop).reshape(-1, 1))
        raise NotImplementedError("RaggedTensor indexing takes one row number (rt[i]); slice with to_tensor() first.")

    def __repr__(self):
        return f"<tf.RaggedTensor {self.to_list()}>"

    def __str__(self):
        return repr(self)


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensor arguments (rows kept)."""
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        raise ValueError("map_flat_values needs at least one RaggedTensor argument.")
    first = ragged[0]
    for other in ragged[1:]:
        if not np.array_equal(other._row_splits, first._row_splits):
            raise ValueError("map_flat_values: the RaggedTensors have different row lengths.")
    args = [a._values if isinstance(a, RaggedTensor) else a for a in args]
    kwargs = {k: v._values if isinstance(v, RaggedTensor) else v for k, v in kwargs.items()}
    return first.with_values(op(*args, **kwargs))


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype="int64"):
    """A RaggedTensor from nested Python lists (one ragged dimension)."""
    if not isinstance(pylist, (list, tuple)) or not all(isinstance(row, (list, tuple)) for row in pylist):
        raise ValueError("tf.ragged.constant takes a list of rows (lists); use tf.constant for a flat list.")
    lengths = [len(row) for row in pylist]
    flat = [item for row in pylist for item in row]
    if any(isinstance(item, (list, tuple)) for item in flat):
        inner = {np.shape(item) for item in flat}
        if len(inner) != 1:
            raise NotImplementedError("More than one ragged dimension is not supported by tapeviz's RaggedTensor.")
    if flat:
        values = convert_to_tensor(flat, dtype=dtype)
    else:
        values = convert_to_tensor(np.zeros([0], dtype=np.float32), dtype=dtype or "float32")
    return RaggedTensor.from_row_lengths(values, lengths)


def _lowest(dtype):
    return dtype.min  # TF fills an empty row's max with the lowest finite value


def _highest(dtype):
    return dtype.max


def reduce(rt, kind, axis=None, keepdims=False):
    """``tf.reduce_<kind>`` of a RaggedTensor: over the ragged axis (1), all values (None) or the rows (0)."""
    if axis is not None and axis < 0:
        axis += 2 + len(rt._values.shape) - 1
    values = rt._values
    n = len(rt._row_splits) - 1
    lengths = np.diff(rt._row_splits)
    if axis is None:
        result = {"sum": _reduce_sum, "max": _reduce_max, "min": _reduce_min, "prod": _reduce_prod}.get(kind)
        if kind == "mean":
            return divide(_reduce_sum(values), float(values.shape[0]))
        return result(values)
    if axis == 1:
        ids = rt._rowids().reshape(-1, 1)
        if kind in ("sum", "mean"):
            summed = scatter_nd(ids, values, [n, *values.shape[1:]])
            if kind == "sum":
                out = summed
            else:
                counts = lengths.reshape((n,) + (1,) * (values.ndim - 1)).astype(values.dtype.as_numpy_dtype)
                out = divide(summed, Tensor(counts))
        else:
            fold = {"max": _reduce_max, "min": _reduce_min, "prod": _reduce_prod}[kind]
            empty = {"max": _lowest, "min": _highest, "prod": lambda d: 1}[kind](values.dtype)
            rows = []
            for i in range(n):
                start, stop = rt._row_splits[i], rt._row_splits[i + 1]
                if stop > start:
                    rows.append(fold(gather_nd(values, np.arange(start, stop).reshape(-1, 1)), axis=0))
                else:
                    rows.append(Tensor(np.full(values.shape[1:], empty, dtype=values.dtype.as_numpy_dtype)))
            out = stack(rows) if rows else Tensor(np.zeros([0, *values.shape[1:]], values.dtype.as_numpy_dtype))
        return reshape(out, [n, 1, *values.shape[1:]]) if keepdims else out
    if axis == 0 and kind in ("sum", "mean"):
        dense = rt.to_tensor()
        summed = _reduce_sum(dense, axis=0, keepdims=keepdims)
        if kind == "sum":
            return summed
        width = dense.shape[1]
        counts = np.array([(lengths > j).sum() for j in range(width)], dtype=values.dtype.as_numpy_dtype)
        counts = counts.reshape((width,) + (1,) * (values.ndim - 1))
        return divide(summed, Tensor(counts.reshape(summed.shape)))
    raise NotImplementedError(
        f"reduce_{kind} of a RaggedTensor over axis {axis} is not supported: reduce over the ragged axis (1), "
        "over everything (None), or sum/mean over the rows (0); or call to_tensor() first."
    )
