"""NumPy's type promotion, as ``tf.experimental.numpy`` applies it.

``tnp`` functions always promote their arguments to one dtype as NumPy would
(``int32 + float32 -> float64``); plain tensor operators do it only after
``tnp.experimental_enable_numpy_behavior()`` (``settings.enabled``), else they
keep TF's rule (mismatched dtypes are an error). A Python scalar is "weak", as
in TF: it keeps a tensor's dtype when it is of the same kind or a lower one
(``float32 + 1.5 -> float32``), and otherwise brings its default dtype
(``int32 + 1.5 -> float64``). With ``prefer_float32`` a Python float is a float32,
and not weak (``float16 + 1.5 -> float32``), as TF.
"""

import numbers

import numpy as np

from tapeviz.core import dtypes
from tapeviz.core.families import math as m
from tapeviz.core.tensor import convert_to_tensor

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


class _Settings:
    enabled = False  # tensor operators promote (experimental_enable_numpy_behavior)
    prefer_float32 = False  # a Python float (or a float list) is float32 rather than float64


settings = _Settings()


def default_float():
    """The dtype a Python float becomes: float64, or float32 under ``prefer_float32``."""
    return np.dtype(np.float32 if settings.prefer_float32 else np.float64)


def python_dtype(value):
    """The NumPy dtype a Python scalar or nested list becomes on its own (ints int64, floats float64)."""
    dtype = np.asarray(value).dtype
    if dtype.kind == "f" and dtype.itemsize == 8:
        return default_float()
    if dtype.kind == "c":
        return np.dtype(np.complex64 if settings.prefer_float32 else np.complex128)
    if dtype.kind == "i":
        return np.dtype(np.int64)
    return dtype


def _is_weak(value):
    # Under prefer_float32 TF types a Python float as a (strong) float32: float16 + 1.5 is float32.
    if isinstance(value, float) and settings.prefer_float32:
        return False
    return isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.generic)


def _strong_dtype(value):
    """The dtype of a tensor, variable, NumPy array or NumPy scalar; None for Python values."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    return np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype)


def result_dtype(*values):
    """The NumPy dtype NumPy (with TF's weak Python scalars) gives an op on ``values``."""
    strong = [d for d in map(_strong_dtype, values) if d is not None]
    others = [v for v in values if _strong_dtype(v) is None]
    if not strong:
        return np.result_type(*[python_dtype(v) for v in others])
    result = np.result_type(*strong)
    for value in others:
        own = python_dtype(value)
        if not _is_weak(value) or _KIND_RANK[own.kind] > _KIND_RANK[result.kind]:
            result = np.promote_types(result, own)
    return result


def promote(*values):
    """``values`` as tensors of their NumPy result dtype (tensors cast by a recorded Cast op)."""
    target = dtypes.as_dtype(result_dtype(*values))
    out = []
    for value in values:
        if _strong_dtype(value) is None or isinstance(value, (np.ndarray, np.generic)):
            out.append(convert_to_tensor(np.asarray(value, dtype=target.as_numpy_dtype)))
        else:
            tensor = convert_to_tensor(value)
            out.append(tensor if tensor.dtype == target else m.cast(tensor, target))
    return out
