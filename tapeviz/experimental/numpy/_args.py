"""Arguments of ``tnp`` functions made tensors of NumPy's result dtype, and dtype names read."""

import numpy as np

from tapeviz.core import dtypes, numpy_promotion
from tapeviz.core.tensor import convert_to_tensor


def promoted(*values):
    """``values`` as tensors of one dtype, the one NumPy's promotion gives (tensors cast, recorded)."""
    return numpy_promotion.promote(*values)


def tensor(value, dtype=None):
    """``value`` as a tensor: a tensor kept (cast to ``dtype`` when given), anything else as NumPy types it."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if hasattr(value, "dtype") and not isinstance(value, (np.ndarray, np.generic)):
        result = convert_to_tensor(value)
        if dtype is not None and result.dtype != dtype:
            from tapeviz.math import cast

            result = cast(result, dtype)
        return result
    target = dtype.as_numpy_dtype if dtype is not None else None
    if target is None and not isinstance(value, (np.ndarray, np.generic)):
        target = numpy_promotion.python_dtype(value)
    return convert_to_tensor(np.asarray(value, dtype=target))


def float_dtype(dtype):
    """The dtype a creation function uses when given none: NumPy's float64 (float32 if preferred)."""
    if dtype is None:
        return dtypes.as_dtype(numpy_promotion.default_float())
    return dtypes.as_dtype(dtype)


def numpy_result(function, *tensors):
    """The dtype NumPy's own ``function`` gives on empty arrays of ``tensors``' dtypes (its exact rule)."""
    empties = [np.zeros(1, t.dtype.as_numpy_dtype) for t in tensors]
    with np.errstate(all="ignore"):
        result = np.asarray(function(*empties)).dtype
    if numpy_promotion.settings.prefer_float32 and result == np.float64 and all(t.dtype.is_integer for t in tensors):
        result = np.dtype(np.float32)
    return dtypes.as_dtype(result)
