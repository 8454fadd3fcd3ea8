"""``tf.IndexedSlices``: the gradient of a gather, as rows (``values``) at ``indices`` of a ``dense_shape`` tensor.

As in TF, ``tape.gradient`` returns one for a source reached only through
``tf.gather`` (axis 0) or an embedding lookup; summed with a dense gradient
it becomes dense. tapeviz computes the dense gradient too (the recorded
GatherV2Grad op the visualizer shows), and ``tf.convert_to_tensor`` returns
that tensor, so higher-order gradients through it are exact. The gather's rule
notes which rows each such gradient is made of (``remember``, in
primitives/array/indexing.py, below the ops this module uses).
"""

import numpy as np

from tapeviz.core.primitives.array.indexing import remember, slices_of
from tapeviz.core.primitives.array.shapes import concat
from tapeviz.core.primitives.scatter import scatter_nd
from tapeviz.core.tensor import TensorShape

__all__ = ["IndexedSlices", "remember", "slices_of", "combine"]


class IndexedSlices:
    """``IndexedSlices(values, indices, dense_shape)``: ``values[i]`` is row ``indices[i]`` (rows repeat: they add).

    Args:
        values: the rows, a tensor [n, ...].
        indices: the row of each, an int tensor [n].
        dense_shape: the shape of the dense tensor they slice.
        _dense: internal (a dense form already computed).
    """

    def __init__(self, values, indices, dense_shape=None, _dense=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape
        self._dense = _dense

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return TensorShape([int(n) for n in self._dense_shape.numpy()])

    def _tapeviz_tensor_(self):
        """``tf.convert_to_tensor(slices)``: the dense gradient (rows scatter-added into zeros)."""
        if self._dense is None:
            shape = [int(n) for n in self._dense_shape.numpy()]
            self._dense = scatter_nd(np.asarray(self._indices.numpy()).reshape(-1, 1), self._values, shape)
        return self._dense

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(slices)``: the dense values. **Difference:** TF gives an object array; this is friendlier."""
        dense = np.asarray(self._tapeviz_tensor_().numpy())
        return dense if dtype is None else dense.astype(dtype)

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"

    __str__ = __repr__


def combine(grads):
    """The gradients met at a source as TF returns them: IndexedSlices when every one is a gather's, else None."""
    parts = [slices_of(g) for g in reversed(grads)]  # the sweep meets the last gather first; TF lists the first first
    if not parts or any(p is None for p in parts):
        return None
    dense = grads[0] if len(grads) == 1 else None
    if len(parts) == 1:
        values, indices, shape = parts[0]
    else:
        values = concat([p[0] for p in parts], 0)
        indices = concat([p[1] for p in parts], 0)
        shape = parts[0][2]
    return IndexedSlices(values, indices, shape, _dense=dense)
