"""``tf.dtypes``: the dtypes, ``DType`` and ``as_dtype``, and the casts (``cast``, ``saturate_cast``, ``complex``).

TF's quantized, resource, variant and bfloat16 dtypes are absent:
NumPy, tapeviz's only requirement, has no such element types.
"""

import numpy as _np

from tapeviz.core.dtypes import (  # noqa: F401
    DType,
    as_dtype,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.primitives.complex import complex  # noqa: F401
from tapeviz.core.primitives.complex import real as _real
from tapeviz.core.primitives.math import cast  # noqa: F401
from tapeviz.core.primitives.math import maximum as _maximum
from tapeviz.core.primitives.math import minimum as _minimum


def _below(a, b, dtype):
    """``a < b`` once both are of ``dtype``."""
    pair = _np.array([a, b], dtype=dtype)
    return pair[0] < pair[1]


def _limits(source, target):
    """The clamp's bounds in ``source``'s dtype, stepped inward where they round past ``target``'s range.

    Compared in the two dtypes' promoted NumPy type, as TF 2.21 does: float32's
    bound for int32 steps to 2147483520, float64's for int64 stays 2**63 (which
    then wraps, in TF as here).
    """
    np_source = source.as_numpy_dtype
    try:
        promoted = _np.promote_types(np_source, target.as_numpy_dtype)
    except TypeError:
        promoted = float
    low = np_source(_np.maximum(source.min, target.min))
    if _below(low, target.min, promoted):
        low = _np.nextafter(low, np_source(0), dtype=np_source)
    high = np_source(_np.minimum(float(source.max), float(target.max)))
    if _below(target.max, high, promoted):
        high = _np.nextafter(high, np_source(0), dtype=np_source)
    return low, high


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, first clamped to ``dtype``'s range so nothing wraps around.

    Complex to real keeps the real part, as TF does. The gradient flows through
    the clamp (zero where it clamped) and the cast.

    Args:
        value: a Tensor, or anything ``tf.constant`` converts.
        dtype: the target dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``dtype``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.dtypes.saturate_cast(tf.constant([300.0, -5.0, 1.5]), tf.uint8))
        tf.Tensor([255   0   1], shape=(3,), dtype=uint8)
    """
    value = _as_tensor(value)
    dtype = as_dtype(dtype)
    if value.dtype.is_complex and not dtype.is_complex:
        value = _real(value)
    source = value.dtype
    if not (dtype.is_complex or dtype.is_bool or source.is_bool):
        low, high = _limits(source, dtype)
        value = _minimum(_maximum(value, low), high)
    return cast(value, dtype)


__all__ = sorted(name for name in dir() if not name.startswith("_"))
