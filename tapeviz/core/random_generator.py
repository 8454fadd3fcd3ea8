"""``tf.random.Generator``: a random stream whose whole state is one int64 Variable.

As in TF, the state is ``[counter_low, counter_high, key]`` (Philox; ThreeFry's
is ``[counter, key]``), every draw reads it and moves the counter on by 256 per
value drawn (so ``skip(n)`` lands where ``normal([n])`` would), and a
``tf.train.Checkpoint`` saves and restores it under TF's key
``<name>/_state_var``: the stream goes on from where it was saved. As in TF
a Generator is not a ``tf.Module``. ``from_seed`` lays the seed out in the
state as TF does, so ``g.state`` holds the same numbers as in TF.

The numbers are TF's: a draw reads the stream the state names (Philox-4x32,
key = the last word, counter = the words before it) with TF's distributions
(``tapeviz.core.philox``), and the ``stateless_*`` ops scramble their seed
into a stream as TF's do. **Differences:** ``alg='threefry'`` keeps TF's
state layout but draws with Philox; ``binomial`` draws TF's distribution
but not its numbers.
"""

import enum
import functools

import numpy as np

from tapeviz import backend as _backend
from tapeviz.core import dtypes as _dtypes
from tapeviz.core import philox as _philox
from tapeviz.core import replicas as _replicas
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.tensor import Tensor as _Tensor
from tapeviz.core.tensor import Variable as _Variable
from tapeviz.core.tensor import is_tensor as _is_tensor
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.core.tracing import host_call as _host_call

__all__ = [
    "Algorithm",
    "Generator",
    "get_global_generator",
    "set_global_generator",
    "stateless_normal",
    "stateless_uniform",
    "stateless_truncated_normal",
    "stateless_stream",
    "stateless_categorical",
    "draw_normal",
    "draw_truncated_normal",
    "draw_uniform",
    "draw_uniform_int",
    "draw_full_int",
    "generator_on_state",
    "METHOD_HOST_CALLS",
]

_COUNTER_STEP = 256  # TF moves the counter by 256 per value drawn
_WORD = 1 << 64


class Algorithm(enum.Enum):
    """``tf.random.Algorithm``: the counter-based generator a ``Generator`` uses."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_STATE_SIZE = {Algorithm.PHILOX: 3, Algorithm.THREEFRY: 2, Algorithm.AUTO_SELECT: 3}
_ALG_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY, "auto_select": Algorithm.AUTO_SELECT}


def _algorithm(alg):
    """``alg`` (None, a name, an ``Algorithm`` or its int) as an ``Algorithm``; None is Philox, as TF."""
    if alg is None:
        return Algorithm.PHILOX
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, str) and alg.lower() in _ALG_NAMES:
        return _ALG_NAMES[alg.lower()]
    if isinstance(alg, (int, np.integer)) and not isinstance(alg, bool) and int(alg) in (1, 2, 3):
        return Algorithm(int(alg))
    raise ValueError(
        f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox algorithm, "
        "threefry for the ThreeFry algorithm, and auto_select for auto-selection."
    )


def _signed(word):
    """A 64-bit word (0 <= word < 2**64) as the int64 that holds its bits."""
    return word - _WORD if word >= 1 << 63 else word


def _int_seed(seed):
    if _is_tensor(seed):
        seed = _backend.to_numpy(_to_array(seed))[()]
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, float, np.integer, np.floating)):
        raise TypeError(f"A random seed must be an integer, got {seed!r} of type {type(seed).__name__}.")
    return int(seed)


def _state_from_seed(seed, alg):
    """TF's layout of an int seed in a state of ``size`` int64 words: its two's-complement bits, low word first."""
    seed = _int_seed(seed)
    size = _STATE_SIZE[alg]
    bits = seed % (_WORD**size)  # a negative seed fills the high words with ones, as TF's
    return [_signed((bits >> (64 * i)) & (_WORD - 1)) for i in range(size)]


def _state_array(state, alg):
    """``state`` (a list, array or tensor) as int64 words of the algorithm's size; TF's error otherwise."""
    if _is_tensor(state) or isinstance(state, _Variable):
        array = np.asarray(_backend.to_numpy(_to_array(state)))
    else:
        array = np.asarray(state)
    if array.dtype.kind not in "iu":
        raise TypeError(f"A generator state must hold integers (int64), got dtype {array.dtype}.")
    size = _STATE_SIZE[alg]
    if array.shape != (size,):
        raise ValueError(f"Shapes {array.shape} and [{size}] are incompatible")
    return array.astype(np.int64)


def _shape(shape):
    """A draw's shape as a tuple of ints, with TF's errors for a scalar, float or negative shape."""
    if _is_tensor(shape):
        shape = _backend.to_numpy(_to_array(shape))
    array = np.asarray(shape)
    if array.ndim != 1:
        raise InvalidArgumentError(
            f"shape must be a vector of {{int32,int64}}, got shape {list(array.shape)} (write [3] for 3 values)"
        )
    if array.size and array.dtype.kind not in "iu":
        name = "float" if array.dtype.kind == "f" else str(array.dtype)
        raise InvalidArgumentError(
            f"Value for attr 'Tshape' of {name} is not in the list of allowed values: int32, int64"
        )
    dims = tuple(int(n) for n in array)
    for n in dims:
        if n < 0:
            raise InvalidArgumentError(f"Dimension {n} must be >= 0")
    return dims


def _host(value):
    if _is_tensor(value) or isinstance(value, _Variable):
        return np.asarray(_backend.to_numpy(_to_array(value)))
    return np.asarray(value)


def _tensor(array, dtype):
    return _Tensor(_backend.asarray(np.asarray(array).astype(dtype.as_numpy_dtype)))


def _float_dtype(dtype, method):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(
            f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}: Generator.{method} makes float tensors; "
            "pass dtype=tf.float32 (or float16/float64)."
        )
    return dtype


def _work(dtype):
    return np.float64 if dtype.name == "float64" else np.float32


METHOD_HOST_CALLS = "random.Generator."  # the stored graphs' names of a Generator's draws start so


def _traced_draw(method):
    """A Generator method a trace records as a stateful host call, named so that a stored graph may hold it.

    A dry trace (``get_concrete_function``, a ``tf.cond`` branch) draws and then puts the state back: it
    has the result's shape and dtype, and the stream has not moved, as TF's tracing runs nothing.
    """

    @functools.wraps(method)
    def peek(self, *args, **kwargs):
        words = self._words()
        try:
            return method(self, *args, **kwargs)
        finally:
            with _replicas.local_updates():
                self._state_var.assign(words)

    return _host_call(name=METHOD_HOST_CALLS + method.__name__, stateful=True, peek=peek)(method)


class Generator:
    """``tf.random.Generator``: seeded, splittable random streams (see the module docstring).

    Make one with ``Generator.from_seed(seed)``, ``from_non_deterministic_state()``,
    ``from_state(state, alg)``, ``from_key_counter(key, counter, alg)`` or
    ``Generator(copy_from=other)``; draw with ``normal``, ``uniform``,
    ``uniform_full_int``, ``truncated_normal``, ``binomial``; branch with
    ``split``; rewind with ``reset*`` and jump with ``skip``.

    Args:
        copy_from: a Generator to copy (its state and algorithm).
        state: the initial state (int64 words).
        alg: the algorithm: ``"philox"`` (default) or ``"threefry"`` (or a ``tf.random.Algorithm``).

    Raises:
        ValueError: ``copy_from`` with ``state`` or ``alg``, or a state of the wrong size.
        TypeError: a ``copy_from`` that is not a Generator.

    Example:
        >>> import tapeviz as tf
        >>> g = tf.random.Generator.from_seed(1)
        >>> a = g.normal([2])
        >>> g.reset_from_seed(1)
        >>> bool(tf.reduce_all(a == g.normal([2])))
        True
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("Generator(copy_from=...) takes neither `state` nor `alg`: they come from the copy.")
            if not isinstance(copy_from, Generator):
                raise TypeError(f"copy_from must be a tf.random.Generator, got {type(copy_from).__name__}.")
            self._alg = copy_from._alg
            words = copy_from._words()
        else:
            if state is None or alg is None:
                raise ValueError(
                    "tf.random.Generator needs `copy_from`, or both `state` and `alg`. "
                    "Usually: tf.random.Generator.from_seed(seed) or from_non_deterministic_state()."
                )
            self._alg = _algorithm(alg)
            words = _state_array(state, self._alg)
        # Made inside a tf.distribute scope: its state is mirrored, and each replica draws its own numbers.
        self._strategy = _replicas.current().strategy
        self._state_var = _Variable(np.asarray(words, np.int64), trainable=False, name="StateVar")

    # -- making one ----------------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is ``seed`` laid out as TF lays it out (``from_seed(1).state`` is [1, 0, 0]).

        Args:
            seed: an int.
            alg: the algorithm (Philox by default).

        Returns:
            A Generator.
        """
        alg = _algorithm(alg)
        return cls(state=_state_from_seed(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy: different numbers every run.

        Args:
            alg: the algorithm (Philox by default).

        Returns:
            A Generator.
        """
        alg = _algorithm(alg)
        words = np.random.default_rng().integers(-(1 << 63), (1 << 63) - 1, size=_STATE_SIZE[alg], dtype=np.int64)
        return cls(state=words, alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting at ``state`` (int64 words: 3 for Philox, 2 for ThreeFry).

        Args:
            state: the state's int64 words.
            alg: the algorithm the state is for.

        Returns:
            A Generator.
        """
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator from a scalar ``key`` and a ``counter`` (2 words for Philox, 1 for ThreeFry).

        Args:
            key: a scalar int.
            counter: the counter's words.
            alg: the algorithm.

        Returns:
            A Generator.
        """
        alg = _algorithm(alg)
        return cls(state=_key_counter_state(key, counter, alg), alg=alg)

    # -- state ---------------------------------------------------------------------------
    @property
    def state(self):
        """The int64 Variable holding the whole state (a checkpoint saves it)."""
        return self._state_var

    @property
    def algorithm(self):
        """The algorithm as TF's int: 1 Philox, 2 ThreeFry, 3 auto-select."""
        return self._alg.value

    @property
    def key(self):
        """The key word of the state, as a scalar int64 tensor."""
        return _Tensor(_backend.asarray(np.int64(self._words()[-1])))

    def _words(self):
        return np.asarray(_backend.to_numpy(_to_array(self._state_var)), np.int64)

    def _counter(self):
        words = [int(w) % _WORD for w in self._words()[:-1]]
        return sum(w << (64 * i) for i, w in enumerate(words))

    def _advance(self, values):
        """Move the counter on by 256 per value drawn, as TF does (carrying into the high word)."""
        words = self._words()
        size = len(words) - 1
        counter = (self._counter() + _COUNTER_STEP * int(values)) % (_WORD**size)
        new = [_signed((counter >> (64 * i)) & (_WORD - 1)) for i in range(size)] + [int(words[-1])]
        with _replicas.local_updates():  # each replica moves its own copy of a mirrored state, as TF's kernel
            self._state_var.assign(np.asarray(new, np.int64))

    def _key(self):
        """The key word; in a replica of the strategy the generator was made under, hashed with the replica id.

        As TF's ``_preprocess_key``: the key becomes the first 64-bit word of
        the Philox stream (that key, counter ``[replica_id, 0]``).
        """
        key = int(self._words()[-1]) % _WORD
        context = _replicas.current()
        if self._strategy is None or context.strategy is not self._strategy or context.replica_id is None:
            return key
        return int(_philox.full_int(_philox.Philox(key, int(context.replica_id)), 1, np.uint64)[0])

    def _stream(self, values):
        """The Philox stream at the current state, then the state moved past ``values`` values."""
        stream = _philox.Philox(self._key(), self._counter())
        self._advance(values)
        return stream

    def _numpy(self, values):
        """A NumPy Generator keyed by the current stream (for binomial), then the state moved on."""
        return np.random.Generator(np.random.Philox(key=self._stream(values).first_block()[:2]))

    def reset(self, state):
        """Set the state to ``state``.

        Args:
            state: the new state's int64 words.
        """
        self._state_var.assign(_state_array(state, self._alg))

    def reset_from_seed(self, seed):
        """Set the state as ``from_seed(seed)`` would (the stream starts again).

        Args:
            seed: an int.
        """
        self._state_var.assign(np.asarray(_state_from_seed(seed, self._alg), np.int64))

    def reset_from_key_counter(self, key, counter):
        """Set the state from a ``key`` and a ``counter``, as ``from_key_counter`` would.

        Args:
            key: a scalar int.
            counter: the counter's words.
        """
        self._state_var.assign(np.asarray(_key_counter_state(key, counter, self._alg), np.int64))

    @_traced_draw
    def skip(self, delta):
        """Move on as if ``delta`` values had been drawn; returns the state before the move, as TF.

        Args:
            delta: how many values to skip.

        Returns:
            The state before the move, as an int64 Tensor.
        """
        before = _Tensor(_backend.asarray(self._words()))
        self._advance(int(_host(delta)))
        return before

    # -- drawing -------------------------------------------------------------------------
    @_traced_draw  # inside tf.function: new numbers (and a new state) on every call, as TF
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Values from a normal distribution with ``mean`` and ``stddev``.

        Args:
            shape: the result's shape (a list of ints or a 1-D int tensor).
            mean: the distribution's mean.
            stddev: its standard deviation.
            dtype: a float dtype.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Tensor of ``shape`` and ``dtype``; the generator's state moves on.
        """
        dtype = _float_dtype(dtype, "normal")
        shape = _shape(shape)
        return draw_normal(self._stream(_count(shape)), shape, mean, stddev, dtype)

    @_traced_draw
    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values redrawn until within two standard deviations of the mean.

        Args:
            shape: the result's shape (a list of ints or a 1-D int tensor).
            mean: the distribution's mean.
            stddev: its standard deviation (before truncation).
            dtype: a float dtype.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Tensor of ``shape`` and ``dtype``; the generator's state moves on.
        """
        dtype = _float_dtype(dtype, "truncated_normal")
        shape = _shape(shape)
        return draw_truncated_normal(self._stream(_count(shape)), shape, mean, stddev, dtype)

    @_traced_draw
    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        """Uniform values in [minval, maxval): floats (maxval defaults to 1) or integers (give both bounds).

        Args:
            shape: the result's shape (a list of ints or a 1-D int tensor).
            minval: the lower bound, included.
            maxval: the upper bound, excluded (1 for floats when None).
            dtype: a float or integer dtype.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Tensor of ``shape`` and ``dtype``; the generator's state moves on.

        Raises:
            ValueError: an integer dtype with only one of ``minval`` and ``maxval``.
            TypeError: a dtype that is neither float nor integer.
        """
        dtype = _dtypes.as_dtype(dtype)
        shape = _shape(shape)
        if dtype.is_integer:
            if minval is None and maxval is None:
                return self._full_int(shape, dtype)
            if minval is None or maxval is None:
                raise ValueError(
                    f"For integer dtype {dtype}, minval and maxval must be both `None` or both non-`None`; "
                    f"got minval={minval} and maxval={maxval}"
                )
            _check_bounds(minval, maxval, dtype)  # before the draw: a refused draw does not move the stream
            return draw_uniform_int(self._stream(_count(shape)), shape, minval, maxval, dtype)
        if not dtype.is_floating:
            raise TypeError(
                f"Cannot convert 0 to EagerTensor of dtype {dtype.name}: Generator.uniform makes float or int tensors."
            )
        return draw_uniform(self._stream(_count(shape)), shape, minval, 1 if maxval is None else maxval, dtype)

    @_traced_draw
    def uniform_full_int(self, shape, dtype=_dtypes.int64, name=None):
        """Integers over the dtype's whole range (int32 or int64).

        **Difference:** TF's default dtype is uint64, which tapeviz does not
        have; the default here is int64 (the same 64 random bits, read signed).

        Args:
            shape: the result's shape (a list of ints or a 1-D int tensor).
            dtype: int32 or int64.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Tensor of ``shape`` and ``dtype``; the generator's state moves on.
        """
        return self._full_int(_shape(shape), _dtypes.as_dtype(dtype))

    def _full_int(self, shape, dtype):
        _check_full_int(dtype)
        return draw_full_int(self._stream(_count(shape)), shape, dtype)

    @_traced_draw
    def binomial(self, shape, counts, probs, dtype=_dtypes.int32, name=None):
        """Counts of successes in ``counts`` trials of probability ``probs`` (both broadcast to ``shape``).

        Args:
            shape: the result's shape (a list of ints or a 1-D int tensor).
            counts: the number of trials.
            probs: the probability of success.
            dtype: the result's integer dtype.
            name: TensorFlow's op name; accepted for compatibility, unused.

        Returns:
            A Tensor of ``shape`` and ``dtype``; the generator's state moves on.
        """
        dtype = _dtypes.as_dtype(dtype)
        shape = _shape(shape)
        rng = self._numpy(np.prod(shape, dtype=np.int64))
        counts = np.broadcast_to(_host(counts), shape)
        probs = np.broadcast_to(_host(probs), shape)
        return _tensor(rng.binomial(counts.astype(np.int64), probs), dtype)

    # -- branching -----------------------------------------------------------------------
    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops, as a [2, count] int64 tensor (the second row 0, as TF's).

        Args:
            count: how many seeds.

        Returns:
            A [2, count] int64 Tensor.
        """
        keys = np.asarray(_backend.to_numpy(_to_array(self._full_int((int(count),), _dtypes.int64))))
        return _Tensor(_backend.asarray(np.stack([keys, np.zeros_like(keys)])))

    def split(self, count=1):
        """``count`` new generators, each keyed by a number drawn from this one (which moves on).

        Args:
            count: how many generators.

        Returns:
            A list of ``count`` Generators.
        """
        keys = np.asarray(_backend.to_numpy(_to_array(self._full_int((int(count),), _dtypes.int64))))
        size = _STATE_SIZE[self._alg]
        return [Generator(state=[0] * (size - 1) + [int(k)], alg=self._alg) for k in keys]

    def __repr__(self):
        return f"<tf.random.Generator alg={self._alg.name.lower()} state={self._words().tolist()}>"


def generator_on_state(state, alg):
    """A Generator drawing from (and moving) the existing int64 Variable ``state``: a loaded graph's generator.

    Made outside every strategy, as TF's loaded functions draw: from the plain key.

    Args:
        state: an int64 Variable of the algorithm's size.
        alg: the algorithm (an ``Algorithm``, its int or name).

    Returns:
        A Generator sharing ``state``.

    Raises:
        ValueError: ``state`` is not an int64 Variable of the algorithm's size.
    """
    alg = _algorithm(alg)
    if not isinstance(state, _Variable) or state.dtype.name != "int64" or tuple(state.shape) != (_STATE_SIZE[alg],):
        raise ValueError(
            f"a generator's state must be an int64 Variable of {_STATE_SIZE[alg]} words, got {state!r:.80}"
        )
    generator = Generator.__new__(Generator)
    generator._alg = alg
    generator._strategy = None
    generator._state_var = state
    return generator


def _key_counter_state(key, counter, alg):
    key = _host(key)
    if key.shape != ():
        raise ValueError(f"Shapes {key.shape} and [] are incompatible")
    counter = _host(counter).astype(np.int64)
    size = _STATE_SIZE[alg] - 1
    if counter.shape != (size,):
        raise ValueError(f"Shapes {counter.shape} and [{size}] are incompatible")
    return [int(c) for c in counter] + [int(key)]


# -- the draws, shared by Generator and the stateless ops: TF's kernels, then TF's arithmetic in dtype --------


def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


def _as(value, dtype):
    return _host(value).astype(dtype.as_numpy_dtype)


def draw_normal(stream, shape, mean, stddev, dtype):
    """``normal * stddev + mean`` from ``stream``, as TF's StatelessRandomNormalV2 and its wrapper."""
    z = _philox.normal(stream, _count(shape), dtype.as_numpy_dtype).reshape(shape)
    return _tensor(z * _as(stddev, dtype) + _as(mean, dtype), dtype)


def draw_truncated_normal(stream, shape, mean, stddev, dtype):
    """``truncated_normal * stddev + mean`` from ``stream``."""
    z = _philox.truncated_normal(stream, _count(shape), dtype.as_numpy_dtype).reshape(shape)
    return _tensor(z * _as(stddev, dtype) + _as(mean, dtype), dtype)


def draw_uniform(stream, shape, minval, maxval, dtype):
    """``unit * (maxval - minval) + minval`` from ``stream``, in ``dtype``."""
    unit = _philox.uniform(stream, _count(shape), dtype.as_numpy_dtype).reshape(shape)
    low, high = _as(minval, dtype), _as(maxval, dtype)
    return _tensor(unit * (high - low) + low, dtype)


def draw_uniform_int(stream, shape, minval, maxval, dtype):
    """Integers in [minval, maxval) from ``stream`` (TF's ``minval + bits % range``)."""
    low, high = _check_bounds(minval, maxval, dtype)
    return _tensor(_philox.uniform_int(stream, _count(shape), low, high, dtype.as_numpy_dtype).reshape(shape), dtype)


def draw_full_int(stream, shape, dtype):
    """Integers over the whole range of int32/int64 (the raw random bits) from ``stream``."""
    return _tensor(_philox.full_int(stream, _count(shape), dtype.as_numpy_dtype).reshape(shape), dtype)


def _check_bounds(minval, maxval, dtype):
    low, high = _as(minval, dtype), _as(maxval, dtype)
    if np.any(low >= high):
        raise InvalidArgumentError(f"Need minval < maxval, got {low} >= {high}")
    return low, high


def _check_full_int(dtype):
    if dtype.name not in ("int32", "int64"):
        name = {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)
        raise InvalidArgumentError(
            f"Value for attr 'dtype' of {name} is not in the list of allowed values: int32, int64, uint32, uint64"
        )


class _Global:
    generator = None


def get_global_generator():
    """The generator ``tf.random`` code shares; made from OS entropy on first use, as TF's.

    Returns:
        The global Generator.
    """
    if _Global.generator is None:
        _Global.generator = Generator.from_non_deterministic_state()
    return _Global.generator


def set_global_generator(generator):
    """Replace the global generator (code holding the old one keeps using it, as in TF).

    Args:
        generator: a Generator.

    Raises:
        TypeError: something that is not a Generator.
    """
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator takes a tf.random.Generator, got {type(generator).__name__}.")
    _Global.generator = generator


# -- the stateless ops: the same seed gives the same tensor, every call ------------------------------


def stateless_stream(seed, alg="auto_select"):
    """The Philox stream a stateless op's ``seed`` (shape [2], int32/int64) names, scrambled as TF's; TF's errors."""
    _algorithm("auto_select" if alg is None else alg)
    if _is_tensor(seed):
        seed = _backend.to_numpy(_to_array(seed))
    array = np.asarray(seed)
    if array.dtype.kind not in "iu":
        name = "float" if array.dtype.kind == "f" else str(array.dtype)
        raise InvalidArgumentError(
            f"Value for attr 'Tseed' of {name} is not in the list of allowed values: int32, int64"
        )
    if array.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(array.shape)}")
    return _philox.key_counter_from_seed_pair(int(array[0]), int(array[1]))


@_host_call(name="random.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Normal values determined by ``seed`` alone (shape [2] ints): the same seed, the same tensor.

    Args:
        shape: the result's shape (a list of ints or a 1-D int tensor).
        seed: a shape [2] integer tensor: the numbers depend on it alone.
        mean: the distribution's mean.
        stddev: its standard deviation.
        dtype: a float dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.
        alg: the algorithm (``"auto_select"``: Philox).

    Returns:
        A Tensor of ``shape`` and ``dtype``.

    Example:
        >>> import tapeviz as tf
        >>> a = tf.random.stateless_normal([3], seed=[1, 2])
        >>> bool(tf.reduce_all(a == tf.random.stateless_normal([3], seed=[1, 2])))
        True
    """
    dtype = _float_dtype(dtype, "normal")
    return draw_normal(stateless_stream(seed, alg), _shape(shape), mean, stddev, dtype)


@_host_call(name="random.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Truncated normal values determined by ``seed`` alone.

    Args:
        shape: the result's shape (a list of ints or a 1-D int tensor).
        seed: a shape [2] integer tensor: the numbers depend on it alone.
        mean: the distribution's mean.
        stddev: its standard deviation (before truncation).
        dtype: a float dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.
        alg: the algorithm (``"auto_select"``: Philox).

    Returns:
        A Tensor of ``shape`` and ``dtype``.
    """
    dtype = _float_dtype(dtype, "truncated_normal")
    return draw_truncated_normal(stateless_stream(seed, alg), _shape(shape), mean, stddev, dtype)


@_host_call(name="random.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Uniform values determined by ``seed`` alone; integers need both bounds, or neither (the full range).

    Args:
        shape: the result's shape (a list of ints or a 1-D int tensor).
        seed: a shape [2] integer tensor: the numbers depend on it alone.
        minval: the lower bound, included.
        maxval: the upper bound, excluded (1 for floats when None).
        dtype: a float or integer dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.
        alg: the algorithm (``"auto_select"``: Philox).

    Returns:
        A Tensor of ``shape`` and ``dtype``.

    Raises:
        ValueError: an integer dtype with only one of ``minval`` and ``maxval``.
        TypeError: a dtype that is neither float nor integer.
    """
    dtype = _dtypes.as_dtype(dtype)
    if dtype.is_integer and (minval is None) != (maxval is None):
        raise ValueError(
            f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both None or not None. "
            f"Got `minval`={minval} and `maxval`={maxval}."
        )
    stream = stateless_stream(seed, alg)
    shape = _shape(shape)
    if dtype.is_integer:
        if minval is None:
            _check_full_int(dtype)
            return draw_full_int(stream, shape, dtype)
        return draw_uniform_int(stream, shape, minval, maxval, dtype)
    if not dtype.is_floating:
        raise TypeError(f"tf.random.stateless_uniform makes float or int tensors, not {dtype.name}.")
    return draw_uniform(stream, shape, minval, 1 if maxval is None else maxval, dtype)


@_host_call(name="random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=_dtypes.int64, name=None):
    """Class indices drawn from softmax of each row of ``logits``, determined by ``seed`` alone.

    Args:
        logits: a [batch, num_classes] tensor of unnormalized log-probabilities.
        num_samples: how many draws per row.
        seed: a shape [2] integer tensor: the numbers depend on it alone.
        dtype: the indices' dtype (int64 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A [batch, num_samples] Tensor of class indices.

    Raises:
        tf.errors.InvalidArgumentError: ``logits`` that is not a matrix.
    """
    logits = _host(logits)
    if logits.ndim != 2:
        raise InvalidArgumentError(f"logits should be a matrix, got shape {list(logits.shape)}")
    samples = _philox.categorical(stateless_stream(seed), logits, int(_host(num_samples)))
    return _tensor(samples, _dtypes.as_dtype(dtype))
