"""``tf.random``: seeded random tensors.

Seeds follow TF's two-level scheme. ``set_seed(s)`` fixes the global seed
and restarts every sequence, so a program that sets it draws the same
numbers on every run. An op's ``seed=`` picks its own sequence within that
(TF's "operation seed"): with the same global seed, the n-th call with
``seed=7`` always gives the same tensor. With neither seed, results differ
from run to run.

Values are drawn on the host by a NumPy ``Generator`` and then moved to the
active backend. Random ops are not recorded: they have no inputs to
differentiate.
"""

import numpy as np

from tapeviz import backend as _backend
from tapeviz.core import dtypes as _dtypes
from tapeviz.core.random_generator import (
    Algorithm,
    Generator,
    get_global_generator,
    set_global_generator,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)
from tapeviz.core.tensor import Tensor as _Tensor
from tapeviz.core.tensor import convert_to_tensor as _convert
from tapeviz.core.tensor import is_tensor as _is_tensor
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.core.tracing import host_call as _host_call

__all__ = [
    "set_seed",
    "get_global_seed",
    "uniform",
    "normal",
    "truncated_normal",
    "shuffle",
    "Algorithm",
    "Generator",
    "get_global_generator",
    "set_global_generator",
    "stateless_normal",
    "stateless_uniform",
    "stateless_truncated_normal",
]

_DEFAULT_GLOBAL_SEED = 87654321  # what TF uses when only an op seed is given


class _SeedState:
    """The global seed and how many draws each sequence has made since it was set."""

    def __init__(self):
        self.seed = None
        self.calls = 0  # draws without an op seed
        self.per_op_seed = {}  # op seed -> draws with it
        self.unseeded = None  # made on first use: numpy.random is slow to import


_state = _SeedState()


def set_seed(seed):
    """Set the global random seed and restart all random sequences, as ``tf.random.set_seed``.

    ``set_seed(None)`` goes back to unseeded (different numbers every run).
    """
    if seed is not None:
        seed = _int_seed(seed, "set_seed")
    _state.seed = seed
    _state.calls = 0
    _state.per_op_seed = {}


def get_global_seed():
    """The global seed set by ``set_seed``, or None."""
    return _state.seed


def _int_seed(seed, where):
    try:
        value = int(seed)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: the seed must be an integer, got {seed!r}.") from None
    if value != seed or value < 0:
        raise ValueError(f"{where}: the seed must be a non-negative integer, got {seed!r}.")
    return value


def generator(seed=None):
    """The NumPy Generator for one random op, following TF's global/op seed rules.

    Used by every op that draws numbers (here and ``tf.nn.dropout``).
    """
    if seed is None and _state.seed is None:
        if _state.unseeded is None:
            _state.unseeded = np.random.default_rng()
        return _state.unseeded
    base = _DEFAULT_GLOBAL_SEED if _state.seed is None else _state.seed
    if seed is None:
        key = [base, 0, _state.calls]
        _state.calls += 1
    else:
        seed = _int_seed(seed, "random op")
        count = _state.per_op_seed.get(seed, 0)
        _state.per_op_seed[seed] = count + 1
        key = [base, 1, seed, count]
    return np.random.default_rng(key)


def _shape(shape):
    if _is_tensor(shape):
        shape = _backend.to_numpy(_to_array(shape)).tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    try:
        result = tuple(int(n) for n in shape)
    except (TypeError, ValueError):
        raise TypeError(f"shape must be a list of ints, got {shape!r}.") from None
    if any(n < 0 for n in result):
        raise ValueError(f"shape must not have negative dimensions, got {list(result)}.")
    return result


def _float_dtype(dtype, op):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"tf.random.{op} makes float tensors; got dtype={dtype.name}. Use a float dtype.")
    return dtype


def _host(value):
    """A scalar or array argument (minval, mean...) as a host NumPy value."""
    if _is_tensor(value):
        return _backend.to_numpy(_to_array(value))
    return np.asarray(value)


def _tensor(array, dtype):
    return _Tensor(_backend.asarray(np.asarray(array, dtype=dtype.as_numpy_dtype)))


@_host_call("random.uniform")  # inside tf.function: new numbers on every call, as TF
def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    """Values drawn uniformly from [minval, maxval).

    Floats: ``maxval`` defaults to 1. Integers: ``maxval`` is required, and
    values are whole numbers in [minval, maxval).
    """
    shape = _shape(shape)
    dtype = _dtypes.as_dtype(dtype)
    rng = generator(seed)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name} in tf.random.uniform.")
        low, high = _host(minval), _host(maxval)
        if np.any(low >= high):
            raise ValueError(f"tf.random.uniform needs minval < maxval, got minval={minval!r}, maxval={maxval!r}.")
        return _tensor(rng.integers(low, high, size=shape), dtype)
    if not dtype.is_floating:
        raise TypeError(f"tf.random.uniform makes float or int tensors, not {dtype.name}.")
    low, high = _host(minval), _host(1 if maxval is None else maxval)
    work = np.float64 if dtype.name == "float64" else np.float32
    unit = rng.random(shape, dtype=work)
    return _tensor(low + (high - low) * unit, dtype)


@_host_call("random.normal")  # inside tf.function: new numbers on every call, as TF
def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Values drawn from a normal distribution with ``mean`` and ``stddev``."""
    shape = _shape(shape)
    dtype = _float_dtype(dtype, "normal")
    work = np.float64 if dtype.name == "float64" else np.float32
    z = generator(seed).standard_normal(shape, dtype=work)
    return _tensor(_host(mean) + _host(stddev) * z, dtype)


@_host_call("random.truncated_normal")  # inside tf.function: new numbers on every call, as TF
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values, redrawn until within two standard deviations of the mean (as TF)."""
    shape = _shape(shape)
    dtype = _float_dtype(dtype, "truncated_normal")
    rng = generator(seed)
    z = rng.standard_normal(shape)
    outside = np.abs(z) > 2.0
    while outside.any():  # each redraw keeps ~95%: a handful of rounds at most
        z[outside] = rng.standard_normal(int(outside.sum()))
        outside = np.abs(z) > 2.0
    return _tensor(_host(mean) + _host(stddev) * z, dtype)


@_host_call("random.shuffle")  # inside tf.function: new numbers on every call, as TF
def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted (not differentiable)."""
    array = _backend.to_numpy(_to_array(_convert(value)))
    if array.ndim == 0:
        raise ValueError("tf.random.shuffle needs a tensor of rank >= 1, got a scalar.")
    permuted = array[generator(seed).permutation(array.shape[0])]
    return _Tensor(_backend.asarray(permuted))
