"""``tf.TensorSpec``: the shape (``None`` for any size) and dtype a tensor argument must have.

Used by ``tf.function(input_signature=[...])`` to check (and convert) the
arguments of each call, as TF does when it binds inputs to a traced function.
"""

import numpy as np

from tapeviz.core import dtypes
from tapeviz.core.tensor import TensorShape, convert_to_tensor, is_tensor

__all__ = ["TensorSpec"]


def _shape_text(shape):
    if shape is None:
        return "<unknown>"
    return "(" + ", ".join("None" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


class TensorSpec:
    """The type of a tensor: ``TensorSpec(shape, dtype=tf.float32, name=None)``.

    ``shape`` may hold ``None`` for a size that can vary (the batch), or be
    None altogether for any rank.

    Args:
        shape: the shape (None for an unknown size or rank).
        dtype: the dtype.
        name: the argument's name.
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = None if shape is None else TensorShape(None if n is None else int(n) for n in shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor: its shape and dtype.

        Args:
            tensor: a Tensor or Variable.
            name: the spec's name.

        Returns:
            A TensorSpec.
        """
        return cls(tuple(tensor.shape), tensor.dtype, name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, value):
        """True when ``value`` (a tensor, array or TensorSpec) has this dtype and a shape that fits.

        Args:
            value: a tensor, array or TensorSpec.

        Returns:
            A bool.
        """
        if isinstance(value, TensorSpec):
            other_shape, other_dtype = value.shape, value.dtype
        else:
            value = value if is_tensor(value) else np.asarray(value)
            other_shape, other_dtype = tuple(value.shape), dtypes.as_dtype(value.dtype)
        if other_dtype != self._dtype:
            return False
        return self._shape_fits(other_shape)

    def _shape_fits(self, shape):
        if self._shape is None or shape is None:
            return True
        if len(shape) != len(self._shape):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._shape, shape))

    def cast(self, value):
        """``value`` as a tensor of this spec, converting Python values and NumPy arrays to its dtype.

        A tensor of another dtype or an incompatible shape raises TF's TypeError.

        Args:
            value: a tensor, array or Python value.

        Returns:
            A Tensor of this spec.

        Raises:
            TypeError: a tensor of another dtype or a shape that does not fit.
        """
        tensor = convert_to_tensor(value) if is_tensor(value) else convert_to_tensor(value, dtype=self._dtype)
        if tensor.dtype != self._dtype or not self._shape_fits(tuple(tensor.shape)):
            raise TypeError(f"Can not cast {TensorSpec.from_tensor(tensor)!r} to {self!r}")
        return tensor

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self._dtype == other._dtype
            and self._name == other._name
            and (None if self._shape is None else tuple(self._shape))
            == (None if other._shape is None else tuple(other._shape))
        )

    def __hash__(self):
        return hash((None if self._shape is None else tuple(self._shape), self._dtype.name, self._name))

    def __repr__(self):
        name = "None" if self._name is None else repr(self._name)
        return f"TensorSpec(shape={_shape_text(self._shape)}, dtype={self._dtype!r}, name={name})"
