"""``tf.random``: seeded random tensors, with TensorFlow's own numbers.

Seeds follow TF's rules (``random_seed.get_seed``), and the numbers come from
TF's Philox kernels (``tapeviz.core.philox``), so a seeded program prints
what it prints on TensorFlow:

- ``set_seed(s)`` fixes the global seed, restarts the op-seed sequence (a
  Python ``random.Random(s)``, as TF's eager context) and forgets every
  kernel's position.
- A random op gets two seeds: the global one and its op seed: ``seed=`` if
  given, else the next number of that sequence. With only an op seed, the
  global seed is TF's default, 87654321. With neither, the numbers differ
  from run to run.
- As in TF's eager mode, an op with the same seeds (and dtype) reuses its
  kernel, whose stream moves on by 256 blocks per value drawn: the second
  ``uniform([2], seed=1)`` gives new numbers, the same ones as in TF.

Inside a ``tf.function`` the graph's rule holds instead: an op without a
seed takes the next number of its graph's own sequence (0, 1, 2... per
traced function, branch or loop body), the global seed is the one set when
the function was traced, and each op of the graph has its own kernel, which
moves on with every call (``set_seed`` restarts them). So two functions
with the same ops print the same numbers, as in TF.

Random ops are not recorded: they have no inputs to differentiate.
"""

import functools
import inspect
import random as _python_random
import secrets
import weakref

import numpy as np

from tapeviz import backend as _backend
from tapeviz.core import dtypes as _dtypes
from tapeviz.core import philox as _philox
from tapeviz.core import state as _core_state
from tapeviz.core.random_generator import (
    Algorithm,
    Generator,
    get_global_generator,
    set_global_generator,
    stateless_categorical,
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
    "categorical",
    "stateless_categorical",
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
_MAXINT32 = 2**31 - 1  # TF folds seeds below this


class _SeedState:
    """The global seed, the op-seed sequence it starts, and each kernel's position in its stream."""

    def __init__(self):
        self.seed = None
        self.op_seeds = _python_random.Random()
        self.kernels = {}  # (op, seeds, attrs) -> blocks its stream has used
        self.defaults = None  # the Random behind global_seed_random()
        self.peeking = False  # True while a dry trace draws: kernels stay where they are


_state = _SeedState()


def set_seed(seed):
    """Set the global random seed and restart all random sequences, as ``tf.random.set_seed``.

    ``set_seed(None)`` goes back to unseeded (different numbers every run).

    Args:
        seed: an int, or None.

    Example:
        >>> import tapeviz as tf
        >>> tf.random.set_seed(42)
        >>> a = tf.random.uniform([2])
        >>> tf.random.set_seed(42)
        >>> b = tf.random.uniform([2])
        >>> bool(tf.reduce_all(a == b))
        True
    """
    if seed is not None:
        seed = _int_seed(seed, "set_seed")
    _state.seed = seed
    _state.op_seeds = _python_random.Random(seed)
    _state.kernels = {}
    _state.defaults = None if seed is None else _python_random.Random(seed)


def global_seed_random():
    """A Python ``random.Random`` that ``set_seed`` restarts, or None when no global seed is set.

    For seeds TF leaves to chance (Keras's default seeds): a tapeviz program
    that sets the global seed then repeats itself run after run.
    """
    return _state.defaults


def get_global_seed():
    """The global seed set by ``set_seed``, or None.

    Returns:
        An int, or None.
    """
    return _state.seed


def _int_seed(seed, where):
    if _is_tensor(seed):
        seed = _backend.to_numpy(_to_array(seed))[()]
    try:
        value = int(seed)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: the seed must be an integer, got {seed!r}.") from None
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"{where}: the seed must be an integer, got {seed!r}.")
    if value != seed:
        raise ValueError(f"{where}: the seed must be a whole number, got {seed!r}.")
    return value


def get_seed(op_seed):
    """The (global, op) seed pair a random op uses, by TF's ``random_seed.get_seed``; (None, None) unseeded."""
    if _state.seed is not None:
        if op_seed is None:
            op_seed = _state.op_seeds.randint(0, _MAXINT32)  # the eager context's internal op seed
        seeds = _state.seed % _MAXINT32, _int_seed(op_seed, "random op") % _MAXINT32
    elif op_seed is not None:
        seeds = _DEFAULT_GLOBAL_SEED, _int_seed(op_seed, "random op") % _MAXINT32
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


_GRAPH_SEED = "graph"  # marks the seeds a traced random op was given: (_GRAPH_SEED, seed1, seed2, node key)
_graph_op_seeds = weakref.WeakKeyDictionary()  # each trace (graph) -> its next op seed


def _graph_seed(seed):
    """The seeds of a random op made inside a trace, by TF's graph rule (see the module docstring).

    A plain tuple, so a stored graph can hold it: its last number names the
    op's kernel, which every call of the graph moves on.
    """
    graph = _core_state.local.tracers[-1]
    if _state.seed is not None:
        if seed is None:
            seed = _graph_op_seeds.get(graph, 0)
            _graph_op_seeds[graph] = seed + 1
        seeds = _state.seed % _MAXINT32, _int_seed(seed, "random op") % _MAXINT32
    elif seed is not None:
        seeds = _DEFAULT_GLOBAL_SEED, _int_seed(seed, "random op") % _MAXINT32
    else:
        return None
    seeds = (0, _MAXINT32) if seeds == (0, 0) else seeds
    return (_GRAPH_SEED, *seeds, secrets.randbits(62))


def _random_op(name):
    """A host call (it runs again on every call of a traced function) whose seed a trace fixes by TF's
    graph rule when the op is traced."""

    def decorate(fn):
        traced = _host_call(name)(fn)
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            tracers = _core_state.local.tracers
            if not tracers:
                return traced(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.arguments["seed"] = _graph_seed(bound.arguments.get("seed"))
            if not any(tracer.dry for tracer in tracers):
                return traced(*bound.args, **bound.kwargs)
            _state.peeking = True  # a dry trace (a loop body, a branch) draws without moving the kernel on
            try:
                return traced(*bound.args, **bound.kwargs)
            finally:
                _state.peeking = False

        wrapper.host_function = fn
        return wrapper

    return decorate


def _is_graph_seed(seed):
    return isinstance(seed, tuple) and len(seed) == 4 and seed[0] == _GRAPH_SEED


def kernel_stream(op, seed, values, attrs=(), multiplier=_philox.RESERVED_BLOCKS_PER_VALUE):
    """The Philox stream one stateful random op draws from, moving its kernel on, as TF's eager kernels.

    ``op`` is TF's op name, ``attrs`` the other attributes that key TF's kernel
    cache (dtypes). The kernel reserves ``values * multiplier`` blocks. A
    traced op's seed (see ``_graph_seed``) names its own kernel.
    """
    if _is_graph_seed(seed):
        _, seed1, seed2, node = seed
        key = (op, _GRAPH_SEED, node, attrs)
    else:
        seed1, seed2 = get_seed(seed)
        key = (op, seed1, seed2, attrs)
    if seed1 is None:  # TF seeds such a kernel from the operating system
        return _philox.Philox(secrets.randbits(64), secrets.randbits(64) << 64)
    used = _state.kernels.get(key, 0)
    if not _state.peeking:
        _state.kernels[key] = used + int(values) * multiplier
    return _philox.Philox.from_seeds(seed1, seed2).skip(used)


def traced_shuffle_order(size):
    """The order ``tf.random.shuffle(tf.range(size))`` gives as the first random op of a traced function.

    A graph's op seeds count from 0, and its kernel starts afresh with each
    new iterator: Keras 3's ``fit(shuffle=True)`` on TensorFlow shuffles every
    epoch this way, so with a global seed each epoch sees this order.
    """
    if _state.seed is None:
        return np.random.default_rng().permutation(size)
    seeds = (_state.seed % _MAXINT32, 0)
    stream = _philox.Philox.from_seeds(*((0, _MAXINT32) if seeds == (0, 0) else seeds))
    return _philox.permutation(stream, size) if size > 1 else np.arange(size)


def generator(seed=None):
    """A NumPy Generator for code that needs one (permutations outside TF's ops), keyed by a Philox draw."""
    stream = kernel_stream("NumpyGenerator", seed, 1)
    return np.random.default_rng(stream.first_block())


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


def _host(value, dtype):
    """A scalar or array argument (minval, mean...) as a host NumPy value of ``dtype``, as TF converts it."""
    if _is_tensor(value):
        value = _backend.to_numpy(_to_array(value))
    return np.asarray(value).astype(dtype.as_numpy_dtype)


def _tensor(array, dtype):
    return _Tensor(_backend.asarray(np.asarray(array, dtype=dtype.as_numpy_dtype)))


def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


@_random_op("random.uniform")  # inside tf.function: new numbers on every call, as TF
def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    """Values drawn uniformly from [minval, maxval).

    Floats: ``maxval`` defaults to 1. Integers: ``maxval`` is required, and
    values are whole numbers in [minval, maxval).

    Args:
        shape: the result's shape (a list of ints or a 1-D int tensor).
        minval: the lower bound, included.
        maxval: the upper bound, excluded (1 for floats when None).
        dtype: a float or integer dtype (float32 by default).
        seed: the op seed; with ``tf.random.set_seed`` it makes the numbers repeat, as in TF.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape`` and ``dtype``.

    Raises:
        ValueError: an integer dtype without ``maxval``, or ``minval >= maxval`` for integers.
        TypeError: a dtype that is neither float nor integer.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.random.uniform([3], minval=0, maxval=10, dtype=tf.int32)
        >>> x.dtype, bool(tf.reduce_all((x >= 0) & (x < 10)))
        (tf.int32, True)
    """
    shape = _shape(shape)
    dtype = _dtypes.as_dtype(dtype)
    n = _count(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name} in tf.random.uniform.")
        low, high = _host(minval, dtype), _host(maxval, dtype)
        if np.any(low >= high):
            raise ValueError(f"tf.random.uniform needs minval < maxval, got minval={minval!r}, maxval={maxval!r}.")
        stream = kernel_stream("RandomUniformInt", seed, n, (dtype.name,))
        return _tensor(_philox.uniform_int(stream, n, low, high, dtype.as_numpy_dtype).reshape(shape), dtype)
    if not dtype.is_floating:
        raise TypeError(f"tf.random.uniform makes float or int tensors, not {dtype.name}.")
    minval_is_zero = isinstance(minval, int) and minval == 0  # TF skips the arithmetic for the plain [0, 1)
    maxval_is_one = maxval is None or (isinstance(maxval, int) and maxval == 1)
    stream = kernel_stream("RandomUniform", seed, n, (dtype.name,))
    unit = _philox.uniform(stream, n, dtype.as_numpy_dtype).reshape(shape)
    if minval_is_zero:
        return _tensor(unit if maxval_is_one else unit * _host(maxval, dtype), dtype)
    low, high = _host(minval, dtype), _host(1 if maxval is None else maxval, dtype)
    return _tensor(unit * (high - low) + low, dtype)


@_random_op("random.normal")  # inside tf.function: new numbers on every call, as TF
def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Values drawn from a normal distribution with ``mean`` and ``stddev``.

    Args:
        shape: the result's shape (a list of ints or a 1-D int tensor).
        mean: the distribution's mean (a number or a tensor that broadcasts).
        stddev: its standard deviation.
        dtype: a float dtype (float32 by default).
        seed: the op seed; with ``tf.random.set_seed`` it makes the numbers repeat, as in TF.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape`` and ``dtype``.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.random.normal([1000], mean=5.0, stddev=0.1, seed=1)
        >>> x.shape, bool(abs(float(tf.reduce_mean(x)) - 5.0) < 0.05)
        (TensorShape([1000]), True)
    """
    shape = _shape(shape)
    dtype = _float_dtype(dtype, "normal")
    n = _count(shape)
    z = _philox.normal(kernel_stream("RandomStandardNormal", seed, n, (dtype.name,)), n, dtype.as_numpy_dtype)
    return _tensor(z.reshape(shape) * _host(stddev, dtype) + _host(mean, dtype), dtype)


@_random_op("random.truncated_normal")  # inside tf.function: new numbers on every call, as TF
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values, redrawn until within two standard deviations of the mean (as TF).

    Args:
        shape: the result's shape (a list of ints or a 1-D int tensor).
        mean: the distribution's mean.
        stddev: its standard deviation (before truncation).
        dtype: a float dtype.
        seed: the op seed; with ``tf.random.set_seed`` it makes the numbers repeat, as in TF.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape`` and ``dtype``.
    """
    shape = _shape(shape)
    dtype = _float_dtype(dtype, "truncated_normal")
    n = _count(shape)
    stream = kernel_stream("TruncatedNormal", seed, n, (dtype.name,))
    z = _philox.truncated_normal(stream, n, dtype.as_numpy_dtype)
    return _tensor(z.reshape(shape) * _host(stddev, dtype) + _host(mean, dtype), dtype)


@_random_op("random.shuffle")  # inside tf.function: new numbers on every call, as TF
def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted, in TF's order (not differentiable).

    Args:
        value: a tensor of rank >= 1.
        seed: the op seed; with ``tf.random.set_seed`` it makes the numbers repeat, as in TF.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``value``'s shape.

    Raises:
        ValueError: a scalar ``value``.
    """
    array = _backend.to_numpy(_to_array(_convert(value)))
    if array.ndim == 0:
        raise ValueError("tf.random.shuffle needs a tensor of rank >= 1, got a scalar.")
    size = array.shape[0]
    if array.size <= 1 or size <= 1:
        return _Tensor(_backend.asarray(array))
    # TF reserves size - 1 words (in whole blocks) for its Fisher-Yates swaps
    stream = kernel_stream("RandomShuffle", seed, -(-(size - 1) // 4), (str(array.dtype),), multiplier=1)
    return _Tensor(_backend.asarray(array[_philox.permutation(stream, size)]))


@_random_op("random.categorical")  # inside tf.function: new numbers on every call, as TF
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """For each row of the 2-D ``logits``, ``num_samples`` class indices drawn from softmax(row) (int64).

    Args:
        logits: a [batch, num_classes] tensor of unnormalized log-probabilities.
        num_samples: how many draws per row.
        dtype: the indices' dtype (int64 by default).
        seed: the op seed; with ``tf.random.set_seed`` it makes the numbers repeat, as in TF.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A [batch, num_samples] Tensor of class indices.

    Raises:
        ValueError: ``logits`` that is not a matrix.
    """
    logits = _backend.to_numpy(_to_array(_convert(logits)))
    dtype = _dtypes.as_dtype(dtype or _dtypes.int64)
    if logits.ndim != 2:
        raise ValueError(f"logits should be a matrix, got shape {list(logits.shape)}")
    rows, samples = logits.shape[0], int(num_samples)
    # TF reserves two words per sample, samples rounded up to 4, per row, times 256
    stream = kernel_stream("Multinomial", seed, rows * (-(-samples // 4) * 4) * 2, (str(logits.dtype), dtype.name))
    return _tensor(_philox.categorical(stream, logits, samples), dtype)
