"""Text in tf.data: a line of a text file, a CSV field, a file name, a generator's strings.

A string element is a ``tf.string`` tensor, as in TF (``.numpy()`` gives ``bytes``, or an
object array of bytes for a batch); inside the pipeline, batching and slicing work on the
NumPy object arrays of bytes behind those tensors.
"""

import numpy as np

from tapeviz.core import string_array
from tapeviz.core.tensor import Tensor

__all__ = ["StringSpec", "is_string_leaf", "as_string_leaf", "element"]


def _to_bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def is_string_leaf(value):
    """Text a dataset keeps as strings: str/bytes, or a list/array of them."""
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SU" or (
            value.dtype == object and value.size and isinstance(value.flat[0], (str, bytes))
        )
    if isinstance(value, list) and value:
        return all(is_string_leaf(v) for v in value)
    return False


def as_string_leaf(value):
    """A string leaf as a NumPy object array of bytes (0-d for one string)."""
    array = np.asarray(value, dtype=object)
    out = np.empty(array.shape, dtype=object)
    for index, item in np.ndenumerate(array):
        out[index] = _to_bytes(item)
    return out


def element(value):
    """Text (bytes, str, an array of them) as the element the user sees: a ``tf.string`` tensor."""
    return Tensor(string_array.from_python(value))


class StringSpec:
    """The element_spec of string elements (TF's ``TensorSpec(..., dtype=tf.string)``)."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self.dtype = "string"

    def __eq__(self, other):
        return isinstance(other, StringSpec) and other.shape == self.shape

    def __hash__(self):
        return hash(self.shape)

    def __repr__(self):
        dims = ", ".join("None" if n is None else str(n) for n in self.shape) + ("," if len(self.shape) == 1 else "")
        return f"TensorSpec(shape=({dims}), dtype=tf.string, name=None)"
