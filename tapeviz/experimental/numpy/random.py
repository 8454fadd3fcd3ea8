"""``tnp.random``: NumPy's random functions on tapeviz's random ops (float64 unless preferred float32)."""

from tapeviz import random as _random
from tapeviz.core import dtypes
from tapeviz.experimental.numpy._args import float_dtype


def seed(s):
    """Seed the random functions (sets the global seed, as TF's ``tnp.random.seed``)."""
    _random.set_seed(int(s))


def _shape(size):
    if size is None:
        return []
    return [int(size)] if isinstance(size, int) else [int(n) for n in size]


def standard_normal(size=None):
    """Standard normal samples of shape ``size`` (float64)."""
    return _random.normal(_shape(size), dtype=float_dtype(None))


def randn(*args):
    """Standard normal samples of shape ``args`` (``randn(2, 3)``), float64."""
    return standard_normal(args)


def uniform(low=0.0, high=1.0, size=None):
    """Samples uniform on ``[low, high)`` of shape ``size`` (float64)."""
    return _random.uniform(_shape(size), minval=low, maxval=high, dtype=float_dtype(None))


def rand(*size):
    """Samples uniform on ``[0, 1)`` of shape ``size`` (``rand(2, 3)``)."""
    return uniform(size=size)


def randint(low, high=None, size=None, dtype="int64"):
    """Integers uniform on ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
    if high is None:
        low, high = 0, low
    return _random.uniform(_shape(size), minval=low, maxval=high, dtype=dtypes.as_dtype(dtype))
