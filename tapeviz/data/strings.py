"""The one string value tf.data hands out: a line of a text file, a CSV field, a file name.

tapeviz has no string tensors (``tf.constant("a")`` raises): the math never
needs them. Readers still yield text, so a string element is a ``bytes``
that also answers ``.numpy()``, ``.shape`` and ``.dtype`` and prints as TF
prints a string tensor. Batches of them are NumPy object arrays of bytes, as
TF's ``.numpy()`` gives.
"""

import numpy as np

__all__ = ["StringScalar", "StringSpec", "is_string_leaf", "as_string_leaf"]


class StringScalar(bytes):
    """A scalar string element of a dataset: ``bytes`` with ``.numpy()``, as TF's ``tf.string`` scalar."""

    shape = ()
    ndim = 0
    dtype = "string"

    def numpy(self):
        return bytes(self)

    def _tapeviz_tensor_(self):
        """The ``tf.string`` tensor of this text, for the ops that take tensors (``tf.strings``...)."""
        from tapeviz.core import string_array
        from tapeviz.core.tensor import Tensor

        return Tensor(string_array.scalar(bytes(self)))

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=string, numpy={bytes(self)!r}>"

    def __str__(self):
        return f"tf.Tensor({bytes(self)!r}, shape=(), dtype=string)"


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
    """An array slice as the element the user sees: a StringScalar, an object array of bytes."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bytes, str)):
        return StringScalar(_to_bytes(value))
    return value


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
