"""Making arrays as NumPy does: ``asarray``, ``zeros``, ``arange``, ``linspace``... (dtypes NumPy's)."""

import numpy as np

from tapeviz import array_ops
from tapeviz.core import dtypes
from tapeviz.core.primitives import array as _array
from tapeviz.core.primitives.math import cast
from tapeviz.core.primitives.math import identity as _identity
from tapeviz.experimental.numpy._args import float_dtype, tensor


def asarray(a, dtype=None):
    """``a`` as an ndarray (a ``tf.Tensor``); a tensor of that dtype comes back as it is."""
    return tensor(a, dtype)


def array(val, dtype=None, copy=True, ndmin=0):
    """``val`` as a new ndarray, with at least ``ndmin`` dimensions (leading ones added)."""
    result = tensor(val, dtype)
    if copy:
        result = _identity(result)
    missing = ndmin - result.ndim
    return _array.reshape(result, [1] * missing + list(result.shape)) if missing > 0 else result


def asanyarray(a, dtype=None):
    """As ``asarray`` (tapeviz has one ndarray type)."""
    return asarray(a, dtype)


def copy(a):
    """A copy of ``a`` (an Identity op, so gradients pass)."""
    return _identity(tensor(a))


def _shape(shape):
    return [int(shape)] if np.ndim(shape) == 0 else [int(n) for n in shape]


def zeros(shape, dtype=float):
    """Zeros of ``shape``; ``float`` (the default) is float64 as in NumPy."""
    return _array.zeros(_shape(shape), dtype=float_dtype(None if dtype is float else dtype))


def ones(shape, dtype=float):
    """Ones of ``shape``; float64 unless told."""
    return _array.ones(_shape(shape), dtype=float_dtype(None if dtype is float else dtype))


def empty(shape, dtype=float):
    """As ``zeros`` (tensors are never uninitialised)."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """``fill_value`` repeated to ``shape``; its dtype NumPy's unless told."""
    value = tensor(fill_value, dtype)
    return _array.broadcast_to(value, _shape(shape))


def _like(a, dtype):
    a = tensor(a)
    return a, (a.dtype if dtype is None else dtypes.as_dtype(dtype))


def zeros_like(a, dtype=None):
    """Zeros of ``a``'s shape (and dtype unless told)."""
    a, dtype = _like(a, dtype)
    return _array.zeros(list(a.shape), dtype=dtype)


def ones_like(a, dtype=None):
    """Ones of ``a``'s shape (and dtype unless told)."""
    a, dtype = _like(a, dtype)
    return _array.ones(list(a.shape), dtype=dtype)


def full_like(a, fill_value, dtype=None):
    """``fill_value`` in ``a``'s shape (and dtype unless told)."""
    a, dtype = _like(a, dtype)
    return _array.broadcast_to(tensor(fill_value, dtype), list(a.shape))


def arange(start, stop=None, step=1, dtype=None):
    """Values from ``start`` up to (not including) ``stop`` by ``step``; int64 for ints, as NumPy."""
    if stop is None:
        start, stop = 0, start
    values = [v.numpy() if hasattr(v, "numpy") else v for v in (start, stop, step)]
    dtype = dtypes.as_dtype(
        np.result_type(*[tensor(v).dtype.as_numpy_dtype for v in values]) if dtype is None else dtype
    )
    return _array.range(values[0], values[1], values[2], dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (float64 unless told)."""
    dtype = float_dtype(None if dtype is float else dtype)
    start, stop = cast(tensor(start), dtype), cast(tensor(stop), dtype)
    count = num if endpoint else num + 1
    result = array_ops.linspace(start, stop, count, axis=axis)
    if not endpoint:
        result = _array.gather(result, list(range(num)), axis=axis)
    step = (stop - start) / max(count - 1, 1)
    return (result, step) if retstep else result


def eye(N, M=None, k=0, dtype=float):
    """The identity (ones on diagonal ``k``) of ``N`` x ``M``, float64 unless told."""
    dtype = float_dtype(None if dtype is float else dtype)
    return _array.convert_to_tensor(np.eye(N, M, k, dtype=dtype.as_numpy_dtype))


def identity(n, dtype=float):
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)
