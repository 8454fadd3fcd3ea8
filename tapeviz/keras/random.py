"""``keras.random``: Keras 3's seeded random draws on tapeviz tensors.

Keras 3's rules: an int ``seed`` is stateless (the same seed gives the same
values on every call); a ``SeedGenerator`` advances its state on each draw;
``seed=None`` draws from a global SeedGenerator, which
``keras.utils.set_random_seed`` resets. As Keras 3 on TensorFlow, a draw
turns its seed into a pair of int32 (``[seed, 0]``, or the generator's
state, each modulo 2**31 - 2) and calls TF's stateless op with it, so
``normal``, ``uniform``, ``truncated_normal``, ``randint``, ``categorical``,
``dropout``, ``shuffle``, ``gamma`` and ``beta`` (TF's gamma kernel) give
Keras's numbers. ``binomial`` draws Keras's distribution from the same
seed, but not its numbers.

Default seeds (``SeedGenerator()``, an initializer without ``seed``) come
from Python's ``random``, as Keras's ``make_default_seed``. Where only
``tf.random.set_seed`` was called (TF's Keras leaves these to chance), they
come from a sequence that ``tf.random.set_seed`` restarts, so a seeded
tapeviz program builds the same model on every run.
"""

import contextlib as _contextlib
import random as _python_random

import numpy as np

from tapeviz import random as _tf_random
from tapeviz.core import philox as _philox
from tapeviz.core import philox_gamma as _philox_gamma
from tapeviz.core import random_generator as _draws
from tapeviz.core.dtypes import as_dtype as _as_dtype
from tapeviz.core.primitives import array as _pa
from tapeviz.core.scopes import name_scope as _name_scope
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import FLOATX, standardize_dtype, tensor

__all__ = [
    "SeedGenerator",
    "beta",
    "binomial",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]

# seeded_with: tf.random's Random when Keras last seeded; held: inside seed_generators_held()
_global = {"generator": None, "seeded_with": None, "held": False}
_KERAS_SEED_MOD = 2**31 - 2  # Keras's TF backend folds int64 seeds into int32 this way


def make_default_seed():
    """A seed for a draw given none, as Keras's ``make_default_seed`` (see the module docstring)."""
    source = _tf_random.global_seed_random()  # restarted by each tf.random.set_seed
    if source is None or source is _global["seeded_with"]:  # unseeded, or keras.utils.set_random_seed was last
        source = _python_random
    return source.randint(1, int(1e9))


class SeedGenerator:
    """A random state that advances on each draw: ``keras.random.normal((2,), seed=SeedGenerator(42))``.

    ``state`` is a non-trainable Variable [seed, counter]; ``next()`` returns
    the current state and moves the counter on.
    """

    _count = 0

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        if name is None:
            SeedGenerator._count += 1
            name = "seed_generator" if SeedGenerator._count == 1 else f"seed_generator_{SeedGenerator._count - 1}"
        self.name = name
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        from tapeviz.keras.variables import Variable

        self.state = Variable(
            np.array([int(seed), 0], np.int64), trainable=False, name="seed_generator_state", dtype="int64"
        )

    def next(self, ordered=True):
        """The current [seed, counter] state (a tensor); the state advances by one step (not while held)."""
        current = self.state.numpy().copy()
        if _global["held"]:  # a shape probe: Keras calls the layer symbolically and no state moves
            return _constant(current)
        if ordered:
            self.state.assign(current + np.array([0, 1], np.int64))
        else:
            self.state.assign((current + 1) * 5387 % 933199)
        return _constant(current)

    def get_config(self):
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<SeedGenerator name={self.name} state={self.state.numpy().tolist()}>"


@_contextlib.contextmanager
def seed_generators_held(held=True):
    """While held, draws leave every SeedGenerator's state as it was.

    Keras calls a layer on a KerasTensor symbolically (a trace whose state
    updates are dropped), so an RNN's dropout masks drawn there move nothing;
    tapeviz runs such calls on zero probes, inside this scope. A layer built
    there is built for real, so ``build`` runs with ``held=False``.

    Args:
        held: hold (True) or release (False) the generators inside the scope.

    Yields:
        None.
    """
    outer = _global["held"]
    _global["held"] = held
    try:
        yield
    finally:
        _global["held"] = outer


def global_seed_generator():
    """The SeedGenerator behind ``seed=None`` draws (made on first use)."""
    if _global["generator"] is None:
        _global["generator"] = SeedGenerator()
    return _global["generator"]


def reset_global_seed_generator(seed):
    """Forget the global SeedGenerator, as ``keras.utils.set_random_seed``: the next one is made from Python's random."""
    _global["generator"] = None
    _global["seeded_with"] = _tf_random.global_seed_random()  # after its tf.random.set_seed: Python's random rules


def draw_seed(seed):
    """The int32 seed pair a draw passes to TF's stateless ops, by Keras's rules (its state moves on)."""
    if isinstance(seed, SeedGenerator):
        state = seed.next().numpy()
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        state = np.array([int(seed), 0], np.int64)
    elif seed is None:
        state = global_seed_generator().next(ordered=False).numpy()
    else:
        raise ValueError(
            "Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
            f"Received: seed={seed} (of type {type(seed)})"
        )
    return np.mod(np.asarray(state, np.int64), _KERAS_SEED_MOD).astype(np.int32)


def _stream(seed):
    return _draws.stateless_stream(draw_seed(seed))


def _rng(seed):
    """A NumPy generator keyed by the draw's Philox stream (for the draws TF makes by other kernels)."""
    return np.random.Generator(np.random.Philox(key=_stream(seed).first_block()[:2]))


def _shape(shape):
    return tuple(int(n) for n in ([shape] if isinstance(shape, int) else shape))


def _float(dtype):
    name = standardize_dtype(dtype) or FLOATX
    if not np.issubdtype(np.dtype(name), np.floating):
        raise ValueError(f"A float dtype is needed for this draw, got {name}.")
    return name


def _host(value):
    """A bound or moment as a host value; Python numbers stay exact (TF casts them to the draw's dtype)."""
    if isinstance(value, (int, float, np.number)):
        return value
    from tapeviz.keras.ops.core import convert_to_numpy

    return convert_to_numpy(value)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Values from a normal distribution with ``mean`` and ``stddev`` (float32 unless ``dtype``)."""
    dtype = _as_dtype(_float(dtype))
    return _draws.draw_normal(_stream(seed), _shape(shape), _host(mean), _host(stddev), dtype)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Values drawn uniformly from [minval, maxval) (float32 unless ``dtype``)."""
    dtype = _as_dtype(_float(dtype))
    # Keras's TF backend passes tf.cast(bound, dtype): a Python float becomes a float32 tensor first
    low, high = (np.float32(v) if isinstance(v, float) else _host(v) for v in (minval, maxval))
    return _draws.draw_uniform(_stream(seed), _shape(shape), low, high, dtype)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers drawn uniformly from [minval, maxval) (int32 unless ``dtype``)."""
    name = standardize_dtype(dtype)
    work = _as_dtype(name if name in ("int32", "int64") else "int64")
    values = _draws.draw_uniform_int(_stream(seed), _shape(shape), _host(minval), _host(maxval), work)
    return _constant(values.numpy(), dtype=name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values, redrawn until within two standard deviations of the mean."""
    dtype = _as_dtype(_float(dtype))
    return _draws.draw_truncated_normal(_stream(seed), _shape(shape), _host(mean), _host(stddev), dtype)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """For each row of the 2-D ``logits``, ``num_samples`` class indices drawn from softmax(row), as TF's op."""
    logits = np.asarray(_host(logits))
    if logits.ndim != 2:
        raise ValueError(
            f"`logits` should be a 2-D tensor with shape [batch_size, num_classes]. Received: logits={logits.shape}"
        )
    samples = _philox.categorical(_stream(seed), logits, int(num_samples))
    return _constant(samples, dtype=standardize_dtype(dtype))


def _gamma_values(pair, shape, alpha, dtype):
    """TF's ``stateless_gamma`` for the int32 seed ``pair``: at least the dtype's tiny (TF takes that maximum)."""
    values = _philox_gamma.gamma(_draws.stateless_stream(pair), shape, alpha, dtype)
    return np.maximum(values, np.finfo(dtype).tiny)


def gamma(shape, alpha, dtype=None, seed=None):
    """Values from a gamma distribution with shape ``alpha`` (scale 1), TF's stateless gamma's numbers."""
    dtype = _float(dtype)
    return _constant(_gamma_values(draw_seed(seed), _shape(shape), _host(alpha), dtype), dtype=dtype)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Values from a binomial distribution (as floats, as Keras returns them)."""
    values = _rng(seed).binomial(np.asarray(_host(counts)).astype(np.int64), _host(probabilities), _shape(shape))
    return _constant(values.astype(np.float64), dtype=_float(dtype))


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Values from a beta distribution: X / (X + Y) for gamma draws X (``alpha``) and Y (``beta``), as Keras's
    TF backend (Y's seed is X's plus 12), so Keras's numbers."""
    dtype, shape = _float(dtype), _shape(shape)
    first = draw_seed(seed)
    second = (first.astype(np.int64) + 12).astype(np.int32)
    x = _gamma_values(first, shape, np.broadcast_to(np.asarray(_host(alpha), dtype), shape), dtype)
    y = _gamma_values(second, shape, np.broadcast_to(np.asarray(_host(beta), dtype), shape), dtype)
    return _constant((x / (x + y)).astype(dtype), dtype=dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each value zeroed with probability ``rate`` and the rest scaled by 1 / (1 - rate).

    Differentiable in ``inputs`` (a multiply by a fixed mask), drawn as
    "dropout". ``noise_shape`` entries of None take the input's size.
    """
    with _name_scope("dropout"):
        x = tensor(inputs)
        if rate == 1.0:
            return _pa.zeros_like(x)
        if rate == 0.0:
            return x
        if not 0 <= rate < 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate={rate}"
            )
        shape = (
            tuple(x.shape)
            if noise_shape is None
            else tuple(x.shape[i] if n is None else n for i, n in enumerate(noise_shape))
        )
        noise = _draws.draw_uniform(_stream(seed), shape, 0, 1, x.dtype).numpy()  # TF's stateless_dropout noise
        keep = noise >= np.asarray(rate, x.dtype.as_numpy_dtype)
        scale = _constant((keep / (1.0 - rate)).astype(x.dtype.as_numpy_dtype))
        return x * scale


def shuffle(x, axis=0, seed=None):
    """``x`` with its entries along ``axis`` randomly permuted (differentiable: a gather)."""
    with _name_scope("shuffle"):
        x = tensor(x)
        keys = _draws.draw_uniform(_stream(seed), (x.shape[axis],), 0, 1, _as_dtype("float32")).numpy()
        order = np.argsort(keys, kind="stable").astype(np.int32)  # Keras sorts uniform keys
        return _pa.gather(x, _constant(order), axis=axis % len(x.shape))
