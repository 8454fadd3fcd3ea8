"""``tf.RaggedTensor`` and ``tf.ragged``: rows of different lengths, as flat ``values`` cut by ``row_splits``.

``values`` is a Tensor (one ragged dimension, ``[nrows, (ragged), ...uniform]``)
or itself a RaggedTensor (``ragged_rank`` 2 and more, ``[nrows, (r1), (r2), ...]``),
as in TF. Elementwise arithmetic works on the flat values, slicing
(``rt[1]``, ``rt[1:3]``, ``rt[:, 1:]``) gathers them, and reductions over the
ragged axis are composed of scatter_nd and gather, so gradients flow to the
values as in TF.
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

_INNER_INDEX = "Cannot index into an inner ragged dimension."  # TF's words for rt[:, 0]


def _splits(value):
    splits = np.asarray(value.numpy() if isinstance(value, Tensor) else value, dtype=np.int64).reshape(-1)
    return splits


def _nrows_of(values):
    if isinstance(values, RaggedTensor):
        return len(values._row_splits) - 1
    return values.shape[0] if values.ndim else 0


def _take(values, positions):
    """The rows of ``values`` (a Tensor or a RaggedTensor) at ``positions`` (gathered: gradients flow)."""
    positions = np.asarray(positions, dtype=np.int64)
    if isinstance(values, RaggedTensor):
        return values._take_rows(positions)
    return gather_nd(values, positions.reshape(-1, 1))


def _ranges(starts, stops):
    """The concatenation of ``range(start, stop)`` for each pair, as one int64 array."""
    lengths = np.maximum(stops - starts, 0)
    if not lengths.sum():
        return np.zeros([0], np.int64)
    return np.concatenate([np.arange(a, a + n, dtype=np.int64) for a, n in zip(starts, lengths)])


class RaggedTensor:
    """Rows of different lengths: ``values[row_splits[i]:row_splits[i+1]]`` is row i.

    Args:
        values: the rows' values, concatenated (a tensor, or a RaggedTensor for deeper levels).
        row_splits: where each row starts and ends in ``values`` (n + 1 ints from 0).
        _validate: internal (check the splits).

    Raises:
        tf.errors.InvalidArgumentError: splits that do not start at 0, decrease, or
            do not end at the number of values.
    """

    def __init__(self, values, row_splits, _validate=True):
        if not isinstance(values, (Tensor, RaggedTensor)):
            values = convert_to_tensor(values)
        row_splits = _splits(row_splits)
        if _validate:
            if row_splits.size == 0 or row_splits[0] != 0 or np.any(np.diff(row_splits) < 0):
                raise InvalidArgumentError(f"row_splits must start at 0 and never decrease, got {row_splits.tolist()}.")
            if (isinstance(values, Tensor) and values.ndim == 0) or row_splits[-1] != _nrows_of(values):
                raise InvalidArgumentError(
                    f"row_splits must end at the number of values ({_nrows_of(values)}), got {row_splits.tolist()}."
                )
        self._values = values
        self._row_splits = row_splits

    # -- building --------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """A RaggedTensor from ``values`` and where each row starts and ends.

        Args:
            values: the rows' values, concatenated.
            row_splits: n + 1 ints from 0 to ``len(values)``.
            name: accepted for TensorFlow compatibility, unused.
            validate: check the splits.

        Returns:
            A RaggedTensor.

        Example:
            >>> import tapeviz as tf
            >>> tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 3, 3, 4]).to_list()
            [[1, 2, 3], [], [4]]
        """
        return cls(values, row_splits, validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """A RaggedTensor from ``values`` and the length of each row.

        Args:
            values: the rows' values, concatenated.
            row_lengths: one length per row.
            name: accepted for TensorFlow compatibility, unused.
            validate: check them.

        Returns:
            A RaggedTensor.
        """
        lengths = _splits(row_lengths)
        return cls(values, np.concatenate([[0], np.cumsum(lengths)]), validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """A RaggedTensor from ``values`` and the row of each value.

        Args:
            values: the values.
            value_rowids: the row of each value (non-decreasing).
            nrows: the number of rows (one more than the largest id when None).
            name: accepted for TensorFlow compatibility, unused.
            validate: check them.

        Returns:
            A RaggedTensor.
        """
        ids = _splits(value_rowids)
        n = int(nrows) if nrows is not None else (int(ids.max()) + 1 if ids.size else 0)
        return cls.from_row_lengths(values, np.bincount(ids, minlength=n), validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """A RaggedTensor of ``ragged_rank = len(nested_row_splits)``: the outermost splits first.

        Args:
            flat_values: the innermost values.
            nested_row_splits: the splits of each level, outermost first.
            name: accepted for TensorFlow compatibility, unused.
            validate: check the splits.

        Returns:
            A RaggedTensor.
        """
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls(result, splits, validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        """As ``from_nested_row_splits``, from each level's row lengths.

        Args:
            flat_values: the innermost values.
            nested_row_lengths: the row lengths of each level, outermost first.
            name: accepted for TensorFlow compatibility, unused.
            validate: check them.

        Returns:
            A RaggedTensor.
        """
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    # -- what it holds ---------------------------------------------------------------------
    @property
    def values(self):
        """The rows' contents, concatenated: a Tensor, or a RaggedTensor when ``ragged_rank`` > 1."""
        return self._values

    @property
    def flat_values(self):
        """The innermost Tensor of values (``values`` of ``values``... down to a Tensor)."""
        values = self._values
        return values.flat_values if isinstance(values, RaggedTensor) else values

    @property
    def row_splits(self):
        return Tensor(self._row_splits)

    @property
    def nested_row_splits(self):
        """The row splits of every ragged dimension, outermost first (a tuple of int64 tensors)."""
        inner = self._values.nested_row_splits if isinstance(self._values, RaggedTensor) else ()
        return (self.row_splits, *inner)

    def row_lengths(self, axis=1, name=None):
        """The length of each row (``axis=1``); deeper axes give a RaggedTensor of lengths, as TF.

        Args:
            axis: the ragged axis (1: the rows).
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            An int64 Tensor (a RaggedTensor for a deeper axis).

        Raises:
            ValueError: an axis deeper than the ragged rank.
        """
        if axis == 1:
            return Tensor(np.diff(self._row_splits))
        if axis > 1 and isinstance(self._values, RaggedTensor):
            return RaggedTensor(self._values.row_lengths(axis - 1), self._row_splits, _validate=False)
        raise ValueError(f"row_lengths(axis={axis}) of a RaggedTensor of ragged_rank {self.ragged_rank}.")

    def nrows(self, out_type=None, name=None):
        """The number of rows.

        Args:
            out_type: the dtype (int64 by default).
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            A scalar Tensor.
        """
        return Tensor(np.int64(len(self._row_splits) - 1))

    def value_rowids(self, name=None):
        """The row of each value.

        Args:
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            An int64 Tensor.
        """
        return Tensor(self._rowids())

    def _rowids(self):
        return np.repeat(np.arange(len(self._row_splits) - 1, dtype=np.int64), np.diff(self._row_splits))

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def shape(self):
        inner = self._values.shape[1:] if isinstance(self._values, RaggedTensor) else self._values.shape[1:]
        return TensorShape([len(self._row_splits) - 1, None, *inner])

    @property
    def ragged_rank(self):
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    def with_values(self, new_values):
        """The same rows around ``new_values``.

        Args:
            new_values: as many values as before.

        Returns:
            A RaggedTensor.
        """
        return RaggedTensor(new_values, self._row_splits, _validate=False)

    def with_flat_values(self, new_values):
        """The same rows (at every ragged level) around ``new_values``.

        Args:
            new_values: the new innermost values, as many as the old.

        Returns:
            A RaggedTensor.
        """
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def _same_rows(self, other):
        mine, theirs = self.nested_row_splits, other.nested_row_splits
        return len(mine) == len(theirs) and all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(mine, theirs))

    def to_list(self):
        """The rows as nested Python lists.

        Returns:
            A list.
        """
        values = self._values
        items = values.to_list() if isinstance(values, RaggedTensor) else values.numpy().tolist()
        return [items[a:b] for a, b in zip(self._row_splits[:-1], self._row_splits[1:])]

    def numpy(self):
        """The rows as a NumPy object array of arrays, as TF gives them.

        Returns:
            A NumPy array.
        """
        values = self._values
        if isinstance(values, RaggedTensor):
            rows = [
                values._take_rows(np.arange(a, b)).numpy() for a, b in zip(self._row_splits[:-1], self._row_splits[1:])
            ]
        else:
            flat = values.numpy()
            rows = [flat[a:b] for a, b in zip(self._row_splits[:-1], self._row_splits[1:])]
        out = np.empty(len(rows), dtype=object)
        out[:] = rows
        return out

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, rows padded with ``default_value`` (0) to the longest row (or ``shape``).

        Args:
            default_value: the padding (0).
            name: accepted for TensorFlow compatibility, unused.
            shape: the dense shape to pad (or cut) to.

        Returns:
            A Tensor.
        """
        values = self._values
        if isinstance(values, RaggedTensor):  # the inner ragged dimensions first, then this one
            inner_shape = None if shape is None else [None, *list(shape)[2:]]
            values = values.to_tensor(default_value, shape=inner_shape)
        lengths = np.diff(self._row_splits)
        n = len(lengths)
        width = int(lengths.max()) if n and lengths.size else 0
        if shape is not None:
            n = n if shape[0] is None else int(shape[0])
            width = width if shape[1] is None else int(shape[1])
        ids = self._rowids()
        cols = np.arange(len(ids), dtype=np.int64) - self._row_splits[:-1][ids] if len(ids) else ids
        keep = (ids < n) & (cols < width)
        dense_shape = [n, width, *values.shape[1:]]
        where = np.stack([ids[keep], cols[keep]], axis=1).reshape(-1, 2)
        dense = scatter_nd(where, gather_nd(values, np.flatnonzero(keep).reshape(-1, 1)), dense_shape)
        if default_value is not None and default_value != 0:
            filled = np.ones(dense_shape[:2], dtype=bool)
            filled[ids[keep], cols[keep]] = False
            pad = np.where(filled.reshape(filled.shape + (1,) * (len(dense_shape) - 2)), default_value, 0)
            dense = add(dense, Tensor(np.broadcast_to(pad, dense_shape).astype(self.dtype.as_numpy_dtype)))
        return dense

    # -- elementwise -----------------------------------------------------------------------
    def _combine(self, other, op, reverse=False):
        if isinstance(other, RaggedTensor):
            if not self._same_rows(other):
                raise ValueError(
                    "Ragged tensors of different row lengths cannot be combined elementwise: "
                    f"{self.row_lengths().numpy().tolist()} vs {other.row_lengths().numpy().tolist()}."
                )
            other_values = other.flat_values
        else:
            other = convert_to_tensor(other, dtype=self.dtype)
            if other.ndim > len(self.flat_values.shape) - 1:
                raise ValueError("Only scalars (or uniform inner dimensions) combine with a RaggedTensor's rows.")
            other_values = other
        a, b = (other_values, self.flat_values) if reverse else (self.flat_values, other_values)
        return self.with_flat_values(op(a, b))

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
        return self.with_flat_values(-self.flat_values)

    # -- slicing ---------------------------------------------------------------------------
    def _take_rows(self, rows):
        """The rows at ``rows`` (an int array), as a RaggedTensor: their values are gathered."""
        starts, stops = self._row_splits[:-1][rows], self._row_splits[1:][rows]
        lengths = stops - starts
        return RaggedTensor(
            _take(self._values, _ranges(starts, stops)), np.concatenate([[0], np.cumsum(lengths)]), _validate=False
        )

    def _row(self, index):
        n = len(self._row_splits) - 1
        if not -n <= index < n:
            raise IndexError(f"Row key {index} out of bounds")
        index %= n
        return _take(self._values, np.arange(self._row_splits[index], self._row_splits[index + 1]))

    def __getitem__(self, key):
        """TF's slicing: ``rt[i]`` (a row), ``rt[i:j:k]`` (rows), ``rt[:, a:b]`` (within each row),
        ``rt[i, j]`` and deeper keys; an int on a ragged dimension after a slice is refused, as TF."""
        key = key if isinstance(key, tuple) else (key,)
        if not key:
            return self
        first, rest = key[0], key[1:]
        if first is Ellipsis or first is None:
            raise ValueError(
                "RaggedTensor slicing takes ints and slices (rt[1], rt[1:3], rt[:, 1:]); "
                "for `...` or tf.newaxis call to_tensor() first."
            )
        if isinstance(first, slice):
            rows = np.arange(len(self._row_splits) - 1)[first]
            picked = self._take_rows(rows)
            return picked._slice_inside(rest) if rest else picked
        row = self._row(int(first))
        return row[rest] if rest else row

    def _slice_inside(self, key):
        """``self[:, *key]``: ``key[0]`` cuts each row (a slice); the rest goes to the values."""
        first, rest = key[0], key[1:]
        if not isinstance(first, slice):
            raise ValueError(_INNER_INDEX)
        # each row's kept positions, as Python slices each row on its own (any step)
        kept = [
            a + np.arange(b - a, dtype=np.int64)[first] for a, b in zip(self._row_splits[:-1], self._row_splits[1:])
        ]
        positions = np.concatenate(kept) if kept else np.zeros([0], np.int64)
        values = _take(self._values, positions)
        if rest:  # the deeper dimensions, of every value kept
            values = values[(slice(None), *rest)]
        splits = np.concatenate([[0], np.cumsum([len(row) for row in kept])])
        return RaggedTensor(values, splits, _validate=False)

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
        if not first._same_rows(other):
            raise ValueError("map_flat_values: the RaggedTensors have different row lengths.")
    args = [a.flat_values if isinstance(a, RaggedTensor) else a for a in args]
    kwargs = {k: v.flat_values if isinstance(v, RaggedTensor) else v for k, v in kwargs.items()}
    return first.with_flat_values(op(*args, **kwargs))


def _depth(value):
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(item) for item in value), default=0)
    return 0


def _from_lists(pylist, ragged_rank, dtype):
    if ragged_rank == 0:
        if len(pylist) == 0:
            return convert_to_tensor(np.zeros([0], dtype=np.float32), dtype=dtype or "float32")
        if len({np.shape(item) for item in pylist}) > 1:
            raise ValueError(
                "tf.ragged.constant: the innermost lists differ in length below ragged_rank; "
                "pass a larger ragged_rank (or leave it out)."
            )
        return convert_to_tensor(list(pylist), dtype=dtype)
    lengths = [len(row) for row in pylist]
    flat = [item for row in pylist for item in row]
    return RaggedTensor.from_row_lengths(_from_lists(flat, ragged_rank - 1, dtype), lengths)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype="int64"):
    """A RaggedTensor from nested Python lists: every level of nesting but the last is ragged
    (``ragged_rank`` = depth - 1) unless ``ragged_rank`` says fewer, as TF."""
    if not isinstance(pylist, (list, tuple)) or not all(isinstance(row, (list, tuple)) for row in pylist):
        raise ValueError("tf.ragged.constant takes a list of rows (lists); use tf.constant for a flat list.")
    depth = _depth(pylist)
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - (len(inner_shape) if inner_shape else 0))
    if not 1 <= ragged_rank < max(depth, 2):
        raise ValueError(f"ragged_rank={ragged_rank} must be at least 1 and below the nesting depth {depth}.")
    return _from_lists(pylist, ragged_rank, dtype)


def _lowest(dtype):
    return dtype.min  # TF fills an empty row's max with the lowest finite value


def _highest(dtype):
    return dtype.max


def reduce(rt, kind, axis=None, keepdims=False):
    """``tf.reduce_<kind>`` of a RaggedTensor: over the ragged axis (1), all values (None) or the rows (0)."""
    if axis is None:
        values = rt.flat_values
        if kind == "mean":
            return divide(_reduce_sum(values), float(max(int(np.prod(values.shape)), 1)))
        return {"sum": _reduce_sum, "max": _reduce_max, "min": _reduce_min, "prod": _reduce_prod}[kind](values)
    if isinstance(rt.values, RaggedTensor):
        raise NotImplementedError(
            f"reduce_{kind} of a RaggedTensor of ragged_rank {rt.ragged_rank} over axis {axis} is not supported: "
            "reduce over everything (axis=None), or call to_tensor() first."
        )
    if axis < 0:
        axis += 2 + len(rt._values.shape) - 1
    values = rt._values
    n = len(rt._row_splits) - 1
    lengths = np.diff(rt._row_splits)
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
