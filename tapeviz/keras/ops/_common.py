"""What every ``keras.ops`` function shares: Keras 3's dtype promotion, argument
conversion, and the name scope that draws a composite under its Keras name.

Keras 3 promotes dtypes where TF refuses to mix them (``ops.add(int32, 1.5)``
is float32, ``ops.sqrt(int32)`` is float32), on a JAX-like lattice: Python
numbers are weak (they take the tensor's kind when they can), NumPy arrays and
tensors are strong.
"""

import functools

import numpy as np

from tapeviz.core import dtypes
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitives.math import cast
from tapeviz.core.scopes import name_scope
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor, is_tensor

FLOATX = "float32"
_FLOATS = ("float16", "float32", "float64")


def keras_op(name):
    """Run the decorated composite inside ``name_scope(name)``: the visualizer folds it into one box named so."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with name_scope(name):
                return fn(*args, **kwargs)

        return wrapper

    return decorate


def dtype_name(x):
    """The dtype name of a tensor, variable, NumPy value or Python number, as Keras spells it."""
    if isinstance(x, (Tensor, Variable)):
        return x.dtype.name
    if isinstance(x, (np.ndarray, np.generic)):
        return np.dtype(x.dtype).name
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int32"
    if isinstance(x, float):
        return FLOATX
    return convert_to_tensor(x).dtype.name


def _is_weak(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def _kind(name):
    return "b" if name == "bool" else "f" if name in _FLOATS else "i"


def _promote_strong(names):
    floats = [n for n in names if _kind(n) == "f"]
    if floats:
        return max(floats, key=_FLOATS.index)
    ints = [n for n in names if _kind(n) == "i"]
    if ints:
        return np.result_type(*ints).name
    return "bool"


def result_type(*values):
    """Keras 3's result dtype for ``values`` (tensors, arrays, Python numbers, dtype names)."""
    strong, weak = [], []
    for v in values:
        if v is None:
            continue
        if isinstance(v, (str, dtypes.DType, np.dtype)):
            strong.append(dtypes.as_dtype(v).name if not isinstance(v, np.dtype) else v.name)
        elif _is_weak(v):
            weak.append(dtype_name(v))
        else:
            strong.append(dtype_name(v))
    if not strong:
        return _promote_strong(weak) if weak else FLOATX
    result = _promote_strong(strong)
    weak_kinds = {_kind(w) for w in weak}
    if "f" in weak_kinds and _kind(result) != "f":
        return FLOATX
    if "i" in weak_kinds and result == "bool":
        return "int32"
    return result


def tensor(x, dtype=None):
    """``x`` as a tensor; Python numbers take Keras's defaults (float32, int32), NumPy arrays their dtype."""
    if type(x).__name__ == "KerasTensor":
        raise TypeError(
            f"keras.ops on a symbolic tensor of the functional API ({x!r}) is not supported by tapeviz yet. "
            "Wrap the op in a layer: keras.layers.Lambda(lambda t: ops.sum(t))(x)."
        )
    if dtype is not None:
        dtype = dtypes.as_dtype(standardize_dtype(dtype))
        if is_tensor(x) or isinstance(x, Variable):
            x = convert_to_tensor(x)
            return x if x.dtype == dtype else cast(x, dtype)
        return convert_to_tensor(x, dtype=dtype)
    return convert_to_tensor(x)


def promoted(*values):
    """``values`` as tensors of one dtype, promoted as Keras 3 promotes them."""
    common = result_type(*values)
    return [tensor(v, common) for v in values]


def floating(x):
    """``x`` as a float (or complex) tensor: ints and bools become float32 (Keras's ``result_type(x.dtype, float)``).

    A complex tensor stays complex: casting it would drop the imaginary part.
    """
    x = tensor(x)
    return x if x.dtype.is_floating or x.dtype.is_complex else cast(x, FLOATX)


def real_floating(x, op):
    """``floating(x)`` for an op defined on real numbers only (it orders its input): a complex tensor is refused
    with TF's words, where NumPy's lexicographic order of complex numbers would give a meaningless number."""
    x = floating(x)
    if x.dtype.is_complex:
        raise InvalidArgumentError(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: keras.ops.{op} takes real "
            "input. Pass ops.real(x) or ops.abs(x)."
        )
    return x


def standardize_dtype(dtype):
    """A dtype name from a name, a tapeviz DType or a NumPy dtype; None stays None."""
    if dtype is None:
        return None
    if isinstance(dtype, dtypes.DType):
        return dtype.name
    if isinstance(dtype, str) and dtype in ("float", "int"):
        return {"float": FLOATX, "int": "int64"}[dtype]
    try:
        return dtypes.as_dtype(dtype).name
    except TypeError as exc:
        raise ValueError(f"Invalid dtype: {dtype}. {exc}") from None


def axes_tuple(axis):
    """``axis`` (None, an int, a list) as None or a tuple of ints."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return int(axis)
