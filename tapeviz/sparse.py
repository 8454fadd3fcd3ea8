"""``tf.SparseTensor`` and ``tf.sparse``: a tensor stored as its nonzero entries.

A SparseTensor is ``indices`` (int64, one row per entry), ``values`` and
``dense_shape``. The ops are composed of tapeviz primitives (gather,
scatter_nd), so gradients flow to ``values`` and to dense operands as in TF,
and any tape records them. Indices are data, never differentiated.
"""

import numpy as np

from tapeviz.core.primitives.array import broadcast_to, concat, gather_nd, reshape, transpose
from tapeviz.core.primitives.math import add as _add
from tapeviz.core.primitives.math import cast, multiply
from tapeviz.core.primitives.math import reduce_sum as _reduce
from tapeviz.core.primitives.scatter import scatter_nd
from tapeviz.core.tensor import Tensor, TensorShape, convert_to_tensor

__all__ = [
    "SparseTensor",
    "add",
    "from_dense",
    "reduce_sum",
    "reorder",
    "sparse_dense_matmul",
    "to_dense",
]


def _ints(value):
    if isinstance(value, Tensor):
        return value.numpy().astype(np.int64)
    return np.asarray(value, dtype=np.int64)


class SparseTensor:
    """``SparseTensor(indices, values, dense_shape)``: ``values[i]`` sits at ``indices[i]`` of a ``dense_shape`` tensor.

    Args:
        indices: an int tensor [N, rank]: where each value sits.
        values: a tensor [N].
        dense_shape: the dense tensor's shape.

    Raises:
        ValueError: ``indices`` that is not [N, rank], ``values`` not one per index, or an index out of bounds.
    """

    def __init__(self, indices, values, dense_shape):
        indices = _ints(indices)
        dense_shape = _ints(dense_shape).reshape(-1)
        values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        if indices.ndim != 2 or indices.shape[1] != dense_shape.size:
            raise ValueError(
                f"indices must be a matrix of shape [N, {dense_shape.size}] (one row per value), got shape "
                f"{list(indices.shape)}."
            )
        if values.ndim != 1 or values.shape[0] != indices.shape[0]:
            raise ValueError(
                f"values must be a vector of length N = {indices.shape[0]} (one per index row), got shape "
                f"{list(values.shape)}."
            )
        if indices.size and (np.any(indices < 0) or np.any(indices >= dense_shape)):
            raise ValueError(f"An index of the SparseTensor is out of bounds for dense_shape {dense_shape.tolist()}.")
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape

    @property
    def indices(self):
        return Tensor(self._indices)

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return Tensor(self._dense_shape)

    @property
    def shape(self):
        return TensorShape([int(n) for n in self._dense_shape])

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def ndim(self):
        return int(self._dense_shape.size)

    def with_values(self, new_values):
        """The same indices and shape with other values.

        Args:
            new_values: one value per index.

        Returns:
            A SparseTensor.
        """
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __add__(self, other):
        return add(self, other)

    def __mul__(self, other):
        """Elementwise by a scalar or a dense tensor (gathered at the indices), as TF's ``sp * dense``."""
        other = convert_to_tensor(other, dtype=self.dtype)
        if other.ndim == 0:
            return self.with_values(multiply(self._values, other))
        dense = broadcast_to(other, [int(n) for n in self._dense_shape])
        return self.with_values(multiply(self._values, gather_nd(dense, self._indices)))

    def __repr__(self):
        return f"SparseTensor(indices={self.indices!s}, values={self._values!s}, dense_shape={self.dense_shape!s})"

    __str__ = __repr__


def from_dense(tensor, name=None):
    """The nonzero entries of ``tensor`` (row-major order) as a SparseTensor."""
    tensor = convert_to_tensor(tensor)
    indices = np.argwhere(tensor.numpy() != 0).astype(np.int64)
    return SparseTensor(indices, gather_nd(tensor, indices), list(tensor.shape))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: ``values`` at ``indices``, ``default_value`` (0) elsewhere.

    With ``validate_indices`` (the default), repeated indices raise, as TF.
    """
    if validate_indices and len({tuple(row) for row in sp_input._indices.tolist()}) != len(sp_input._indices):
        raise ValueError("indices of the SparseTensor are repeated: tf.sparse.to_dense needs each index once.")
    shape = [int(n) for n in sp_input._dense_shape]
    dense = scatter_nd(sp_input._indices, sp_input.values, shape)
    if default_value is not None and default_value != 0:
        present = np.zeros(shape, dtype=bool)
        if sp_input._indices.size:
            present[tuple(sp_input._indices.T)] = True
        fill = np.where(present, 0, default_value).astype(sp_input.dtype.as_numpy_dtype)
        dense = _add(dense, Tensor(fill))
    return dense


def reorder(sp_input, name=None):
    """The same SparseTensor with its entries in row-major (canonical) order."""
    order = np.lexsort(sp_input._indices.T[::-1]) if sp_input._indices.size else np.arange(0)
    return SparseTensor(
        sp_input._indices[order], gather_nd(sp_input.values, order.reshape(-1, 1)), sp_input._dense_shape
    )


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` for a rank-2 SparseTensor and a dense matrix (or dense @ sparse when ``sp_a`` is dense).

    Composed as gather + scale + scatter-add, so gradients reach ``sp_a.values`` and ``b``.
    """
    if not isinstance(sp_a, SparseTensor):  # dense @ sparse: (sparseᵀ @ denseᵀ)ᵀ
        if not isinstance(b, SparseTensor):
            raise TypeError("sparse_dense_matmul needs a SparseTensor as one of its operands.")
        return transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a))
    b = convert_to_tensor(b, dtype=sp_a.dtype)
    if b.ndim != 2 or sp_a.ndim != 2:
        raise ValueError("sparse_dense_matmul multiplies a rank-2 SparseTensor by a rank-2 dense tensor.")
    if adjoint_b:
        b = transpose(b)
    rows, cols = sp_a._indices[:, 0], sp_a._indices[:, 1]
    n_rows, inner = int(sp_a._dense_shape[0]), int(sp_a._dense_shape[1])
    if adjoint_a:
        rows, cols, n_rows, inner = cols, rows, inner, n_rows
    if b.shape[0] != inner:
        raise ValueError(
            f"Cannot multiply A and B because inner dimension does not match: {inner} vs. {b.shape[0]}. Did you "
            f"forget a transpose? Dimensions of A: [{n_rows}, {inner}) and B: {list(b.shape)}"
        )
    # gather_nd, not gather: TF's gradient for b here is dense, not IndexedSlices
    scaled = multiply(gather_nd(b, cols.reshape(-1, 1)), reshape(sp_a.values, [-1, 1]))
    return scatter_nd(rows.reshape(-1, 1), scaled, [n_rows, int(b.shape[1])])


def reduce_sum(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """The sum of the entries (over ``axis``); a dense tensor, as TF's default."""
    if output_is_sparse:
        return from_dense(reduce_sum(sp_input, axis=axis, keepdims=keepdims))
    if axis is None and not keepdims:
        return _reduce(sp_input.values, None, False)
    return _reduce(to_dense(sp_input, validate_indices=False), axis, keepdims)


def add(a, b, threshold=0, name=None):
    """``a + b``: two SparseTensors give a SparseTensor (entries at the same index summed); with a dense one, dense."""
    if not isinstance(a, SparseTensor):
        a, b = b, a
    if not isinstance(b, SparseTensor):
        return _add(to_dense(a, validate_indices=False), convert_to_tensor(b, dtype=a.dtype))
    if list(a._dense_shape) != list(b._dense_shape):
        raise ValueError(
            f"Incompatible shapes for tf.sparse.add: {a._dense_shape.tolist()} and {b._dense_shape.tolist()}."
        )
    indices = np.concatenate([a._indices, b._indices])
    values = concat([a.values, cast(b.values, a.dtype)], 0)
    unique, segment = np.unique(indices, axis=0, return_inverse=True)
    summed = scatter_nd(segment.reshape(-1, 1), values, [len(unique)])
    if threshold:
        keep = np.abs(summed.numpy()) >= threshold
        unique, summed = unique[keep], gather_nd(summed, np.flatnonzero(keep).reshape(-1, 1))
    return SparseTensor(unique.reshape(-1, a.ndim), summed, a._dense_shape)
