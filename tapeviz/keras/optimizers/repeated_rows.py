"""An IndexedSlices gradient whose indices repeat, applied as Keras 3 applies it.

Keras 3 (TF backend) does not sum the rows that share an index before an
update: its elementwise ops (``square``, ``abs``, clipping) act on each
occurrence's row, and the rows add up only where the result meets a dense
tensor. So for an Embedding batch that repeats a token, Adam's second moment
gets ``g1**2 + g2**2`` where the dense gradient would give ``(g1 + g2)**2``.
Linear updates (SGD, momentum) are the same either way. Without repeats,
the optimizers take the dense gradient: the numbers are identical.
"""

from tapeviz import backend as B
from tapeviz.core.tensor import to_array


class RepeatedRows:
    """``values[i]`` belongs to row ``indices[i]`` of a ``shape`` gradient; some indices repeat."""

    def __init__(self, values, indices, shape):
        self.values = values
        self.indices = indices
        self.shape = tuple(shape)
        self.dtype = values.dtype

    def astype(self, dtype):
        return RepeatedRows(B.xp.asarray(self.values, dtype=dtype), self.indices, self.shape)

    def map(self, fn):
        """``fn`` applied to every occurrence's row (Keras's elementwise op on IndexedSlices)."""
        return RepeatedRows(fn(self.values), self.indices, self.shape)

    def dense(self):
        """The rows scattered into zeros, repeats adding up (where Keras meets a dense tensor)."""
        return B.scatter_add(self.shape, self.indices, self.values, self.values.dtype)


def from_indexed_slices(slices):
    """A RepeatedRows when ``slices``' indices repeat, else None (the dense gradient gives the same numbers)."""
    indices = B.xp.asarray(to_array(slices.indices)).reshape(-1)
    if int(B.xp.unique(indices).size) == int(indices.size):
        return None
    shape = [int(n) for n in slices.dense_shape.numpy()]
    return RepeatedRows(to_array(slices.values), indices, shape)
