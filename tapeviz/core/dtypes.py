"""TensorFlow-style dtypes: ``tf.float32`` and friends, backed by NumPy dtypes."""

import numpy as np


class DType:
    """A tensor element type, printed and compared as TensorFlow does.

    Args:
        name: TensorFlow's name (``"float32"``).
        numpy_dtype: the NumPy dtype its tensors hold.
    """

    __slots__ = ("name", "as_numpy_dtype", "_kind")

    def __init__(self, name, numpy_dtype):
        self.name = name
        self.as_numpy_dtype = np.dtype(numpy_dtype).type
        self._kind = np.dtype(numpy_dtype).kind  # "f", "i", "u" or "b": checked on hot paths

    @property
    def is_floating(self):
        return self._kind == "f"

    @property
    def is_integer(self):
        return self._kind in "iu"

    @property
    def is_complex(self):
        return self._kind == "c"

    @property
    def real_dtype(self):
        """complex64 -> float32, complex128 -> float64; any other dtype is its own."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_bool(self):
        return self._kind == "b"

    @property
    def is_unsigned(self):
        """True for uint8/16/32/64."""
        return self._kind == "u"

    @property
    def is_numeric(self):
        """True for the number dtypes (not bool)."""
        return self._kind in "iufc"

    @property
    def is_quantized(self):
        """Always False: tapeviz has no quantized dtypes."""
        return False

    @property
    def is_numpy_compatible(self):
        """Always True: every tapeviz dtype is a NumPy dtype."""
        return True

    @property
    def size(self):
        """Bytes per element."""
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def limits(self):
        """TF's image intensity range ``(0, max)``: integers' max, 1 for float32/float64, True for bool."""
        if self.name not in _INTENSITY_MAX:
            raise ValueError(f"{self} does not have defined limits.")
        return (0, _INTENSITY_MAX[self.name])

    @property
    def base_dtype(self):
        return self

    def is_compatible_with(self, other):
        """True when ``other`` names the same dtype (TF's check before an assignment).

        Args:
            other: a DType or anything ``tf.as_dtype`` reads.

        Returns:
            A bool.
        """
        return self == as_dtype(other)

    @property
    def min(self):
        info = np.finfo if self.is_floating else np.iinfo
        if self._kind in "cbO":  # complex, bool, string
            raise TypeError(f"Cannot find minimum value of {self}.")
        return info(self.as_numpy_dtype).min

    @property
    def max(self):
        info = np.finfo if self.is_floating else np.iinfo
        if self._kind in "cbO":  # complex, bool, string
            raise TypeError(f"Cannot find maximum value of {self}.")
        return info(self.as_numpy_dtype).max

    def __eq__(self, other):
        try:
            return self.as_numpy_dtype is as_dtype(other).as_numpy_dtype
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        """``print(tf.float32)`` shows ``<dtype: 'float32'>``, as TF; the repr (in lists, the REPL) is ``tf.float32``."""
        return f"<dtype: '{self.name}'>"


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool = DType("bool", np.bool_)  # noqa: A001 - TF's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
string = DType("string", np.object_)  # bytes, in a NumPy object array (core.string_array)
half, double = float16, float64

_ALL = (
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool,
    complex64,
    complex128,
    string,
)
_BY_NUMPY = {d.as_numpy_dtype: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL} | {"half": float16, "double": float64}


# TF's dtype_range: the intensity an image of the dtype reaches (limits clips the minimum to 0, as TF).
_INTENSITY_MAX = {
    "bool": True,
    **{
        name: int(np.iinfo(name).max)
        for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
    },
    "float32": 1,
    "float64": 1,
}


def as_dtype(value):
    """A DType from a DType, a NumPy dtype or type, or a name like ``"float32"``.

    Args:
        value: a DType, a NumPy dtype or scalar type, or a name (``"float32"``).

    Returns:
        The DType.

    Raises:
        TypeError: something that names no dtype.

    Example:
        >>> import tapeviz as tf
        >>> tf.as_dtype("float32") is tf.float32
        True
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        found = _BY_NUMPY.get(np.dtype(value).type)
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"Cannot convert {value!r} to a tapeviz dtype; use one of " + ", ".join(d.name for d in _ALL))
    return found


def of_array(array):
    """The DType of a backend array."""
    return _BY_NUMPY[array.dtype.type]
