"""``keras.backend``: Keras 3's few backend utilities (the settings of ``keras.config``, dtypes, uids).

Keras 3 keeps only these in ``keras.backend``; TF-Keras 2's long list of
backend functions (``K.dot``, ``K.mean``...) became ``keras.ops``.
"""

import numpy as np

from tapeviz.keras.config import (
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from tapeviz.keras.layers import base
from tapeviz.keras.utils import naming

_uids = {}  # prefix -> how many uids it handed out


def get_uid(prefix=""):
    """1, 2, 3... for each call with the same ``prefix`` (reset by ``clear_session``).

    Args:
        prefix: the name the count is for.

    Returns:
        An int.
    """
    _uids[prefix] = _uids.get(prefix, 0) + 1
    return _uids[prefix]


def clear_session(free_memory=True):
    """Forget the names handed out so far: the next ``Dense`` is named ``dense`` again, uids restart at 1.

    Args:
        free_memory: accepted for compatibility.
    """
    _uids.clear()
    naming.reset_names()


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic tensor of the functional API (``keras.Input`` or a layer's output on one).

    Args:
        x: anything.

    Returns:
        A bool.
    """
    return isinstance(x, base.KerasTensor)


_PYTHON_TYPES = {float: "float32", int: "int64", bool: "bool", str: "string"}
_NAMES = {
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
    "string",
    "complex64",
    "complex128",
}


def standardize_dtype(dtype=None):
    """A dtype's name as Keras writes it: ``float`` -> ``"float32"`` (floatx), ``int`` -> ``"int64"``.

    Raises:
        ValueError: a name that is no dtype (``Invalid dtype: foo``).

    Args:
        dtype: a dtype, a name, a Python type, or None (floatx).

    Returns:
        A dtype name.
    """
    if dtype is None:
        return floatx()
    if dtype in _PYTHON_TYPES:
        return floatx() if dtype is float else _PYTHON_TYPES[dtype]
    name = getattr(dtype, "name", None)
    if not isinstance(name, str):
        name = np.dtype(dtype).name if isinstance(dtype, type) and issubclass(dtype, np.generic) else str(dtype)
    if name not in _NAMES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return name


def is_float_dtype(dtype):
    """Whether ``dtype`` (any spelling ``standardize_dtype`` reads) is a float type.

    Args:
        dtype: a dtype or its name.

    Returns:
        A bool.
    """
    return standardize_dtype(dtype) in ("float16", "bfloat16", "float32", "float64")


def is_int_dtype(dtype):
    """Whether ``dtype`` is a signed or unsigned integer type.

    Args:
        dtype: a dtype or its name.

    Returns:
        A bool.
    """
    return standardize_dtype(dtype).startswith(("int", "uint"))


# Keras 3's promotion lattice, as its result_type gives it: unsigned/signed ints meet in the next signed
# width, any int with a float gives the float, two floats the wider one.
_WIDTH = {"8": 8, "16": 16, "32": 32, "64": 64}
_FLOAT_ORDER = ["float16", "bfloat16", "float32", "float64"]


def result_type(*dtypes):
    """The dtype Keras promotes ``dtypes`` to (``int32`` and ``float16`` give ``float16``); none gives floatx.

    Raises:
        ValueError: a name that is no dtype.

    Args:
        *dtypes: dtypes or their names.

    Returns:
        A dtype name.
    """
    names = [standardize_dtype(d) for d in dtypes]
    if not names:
        return floatx()
    floats = [n for n in names if n in _FLOAT_ORDER]
    if floats:
        if "float16" in floats and "bfloat16" in floats:
            return "float32"
        return max(floats, key=_FLOAT_ORDER.index)
    if all(n == "bool" for n in names):
        return "bool"
    ints = [n for n in names if n != "bool"]
    signed = [int(n[3:]) for n in ints if n.startswith("int")]
    unsigned = [int(n[4:]) for n in ints if n.startswith("uint")]
    if not signed:
        return f"uint{max(unsigned)}"
    width = max(signed)
    if unsigned and max(unsigned) >= width:
        width = min(2 * max(unsigned), 64)
    return f"int{width}"


__all__ = [
    "backend",
    "clear_session",
    "epsilon",
    "floatx",
    "get_uid",
    "image_data_format",
    "is_float_dtype",
    "is_int_dtype",
    "is_keras_tensor",
    "result_type",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "standardize_dtype",
]
