"""``tf.keras.initializers``: how a layer fills its weights when it builds them.

By name (``'glorot_uniform'``, ``'zeros'``, ``'he_normal'``...) or as objects
(``Constant(0.5)``, ``GlorotUniform(seed=1)``). Keras's formulas and
defaults, and Keras 3's numbers on TensorFlow: a random initializer draws
through ``keras.random`` with its seed (an int: the same values on every
call; a ``SeedGenerator``: new ones). An initializer made without a seed
takes ``keras.random.make_default_seed()`` when it is made, as Keras's: after
``keras.utils.set_random_seed`` a model gets Keras's weights, and after only
``tf.random.set_seed`` the same weights on every run.
"""

import math

import numpy as np

from tapeviz import backend as B
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.records import RecordsInit
from tapeviz.core.tensor import Tensor
from tapeviz.keras import random as keras_random
from tapeviz.keras import variables
from tapeviz.keras.saving.serialization_lib import resolve

__all__ = [
    "Initializer",
    "Zeros",
    "Ones",
    "Constant",
    "RandomUniform",
    "RandomNormal",
    "TruncatedNormal",
    "GlorotUniform",
    "GlorotNormal",
    "HeUniform",
    "HeNormal",
    "LecunUniform",
    "LecunNormal",
    "VarianceScaling",
    "Orthogonal",
    "Identity",
    "get",
]

# stddev of a standard normal truncated to [-2, 2]: rescale so the truncated draw has the asked stddev
_TRUNCATED_STDDEV = 0.87962566103423978


def _seed(seed):
    """An initializer's seed as Keras keeps it: an int or SeedGenerator; None becomes a default seed now."""
    if seed is None:
        return keras_random.make_default_seed()
    if isinstance(seed, keras_random.SeedGenerator) or (
        isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
    ):
        return seed
    raise ValueError(
        f"`seed` argument should be an instance of `keras.random.SeedGenerator()` or an integer. Received: seed={seed}"
    )


def _float(dtype):
    return as_dtype(dtype or "float32").name


def compute_fans(shape):
    """(fan_in, fan_out) as Keras computes them (conv kernels: times the receptive field)."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer(RecordsInit):
    """Base class: ``initializer(shape, dtype)`` returns a Tensor, as in TF."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {}

    def _finish(self, values, dtype):
        return Tensor(B.xp.asarray(np.asarray(values, dtype=as_dtype(dtype or "float32").as_numpy_dtype)))


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=None):
        return self._finish(np.zeros(shape), dtype)


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=None):
        return self._finish(np.ones(shape), dtype)


class Constant(Initializer):
    """Every element ``value`` (or ``value`` itself, when it has the right shape).

    Args:
        value: the constant value.
    """

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return self._finish(np.broadcast_to(np.asarray(self.value, dtype=np.float64), shape), dtype)

    def get_config(self):
        return {"value": self.value}


class RandomUniform(Initializer):
    """Uniform on [minval, maxval): Keras's default range is [-0.05, 0.05).

    Args:
        minval: the lower bound.
        maxval: the upper bound.
        seed: a seed for its random numbers.
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval = minval, maxval
        self._init_seed, self.seed = seed, _seed(seed)

    def __call__(self, shape, dtype=None):
        return keras_random.uniform(shape, self.minval, self.maxval, dtype=_float(dtype), seed=self.seed)


class RandomNormal(Initializer):
    """Normal with ``mean`` and ``stddev`` (0 and 0.05 by default).

    Args:
        mean: the mean.
        stddev: the standard deviation.
        seed: a seed for its random numbers.
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        self._init_seed, self.seed = seed, _seed(seed)

    def __call__(self, shape, dtype=None):
        return keras_random.normal(shape, self.mean, self.stddev, dtype=_float(dtype), seed=self.seed)


class TruncatedNormal(Initializer):
    """Normal redrawn outside two standard deviations (0 and 0.05 by default).

    Args:
        mean: the mean.
        stddev: the standard deviation.
        seed: a seed for its random numbers.
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        self._init_seed, self.seed = seed, _seed(seed)

    def __call__(self, shape, dtype=None):
        return keras_random.truncated_normal(shape, self.mean, self.stddev, dtype=_float(dtype), seed=self.seed)


class VarianceScaling(Initializer):
    """Variance ``scale / n`` where n is fan_in, fan_out or their average (``mode``).

    ``distribution`` 'truncated_normal', 'untruncated_normal' or 'uniform'.

    Args:
        scale: the variance's factor.
        mode: ``"fan_in"``, ``"fan_out"`` or ``"fan_avg"``.
        distribution: ``"truncated_normal"``, ``"untruncated_normal"`` or ``"uniform"``.
        seed: a seed for its random numbers.

    Raises:
        ValueError: an unknown ``mode`` or ``distribution``.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode!r}; use 'fan_in', 'fan_out' or 'fan_avg'.")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform", "normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution!r}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self._init_seed, self.seed = seed, _seed(seed)

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        dtype = _float(dtype)
        if self.distribution in ("truncated_normal", "normal"):
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            return keras_random.truncated_normal(shape, 0.0, stddev, dtype=dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return keras_random.normal(shape, 0.0, math.sqrt(variance), dtype=dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return keras_random.uniform(shape, -limit, limit, dtype=dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self._init_seed}


class GlorotUniform(VarianceScaling):
    """Uniform on ±sqrt(6 / (fan_in + fan_out)): Keras's default for kernels.

    Args:
        seed: a seed for its random numbers.
    """

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)).

    Args:
        seed: a seed for its random numbers.
    """

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    """Uniform on ±sqrt(6 / fan_in): suits ReLU layers.

    Args:
        seed: a seed for its random numbers.
    """

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


class HeNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in): suits ReLU layers.

    Args:
        seed: a seed for its random numbers.
    """

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    """Uniform on ±sqrt(3 / fan_in).

    Args:
        seed: a seed for its random numbers.
    """

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "uniform", seed)


class LecunNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in).

    Args:
        seed: a seed for its random numbers.
    """

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class Orthogonal(Initializer):
    """A random orthogonal matrix (times ``gain``), Keras's default for recurrent kernels.

    As Keras: a standard normal (rows = prod(shape[:-1]), cols = shape[-1])
    draw, its QR decomposition's Q with the signs of R's diagonal, transposed
    when there are fewer rows than columns.

    Args:
        gain: a multiplier of the orthogonal matrix.
        seed: a seed for its random numbers.
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        self._init_seed, self.seed = seed, _seed(seed)

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(
                f"The tensor to initialize must be at least two-dimensional. Received: shape={shape} of rank {len(shape)}."
            )
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = keras_random.normal(flat, seed=self.seed, dtype=_float(dtype)).numpy()
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return self._finish(self.gain * q.reshape(shape), dtype)

    def get_config(self):
        return {"gain": self.gain, "seed": self._init_seed}


class Identity(Initializer):
    """The identity matrix (times ``gain``), for 2-D shapes.

    Args:
        gain: a multiplier of the identity matrix.
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError(
                f"Identity matrix initializer can only be used for 2D matrices. Received: shape={shape} of rank {len(shape)}."
            )
        return self._finish(self.gain * np.eye(*shape), dtype)


_BY_NAME = {
    "orthogonal": Orthogonal,
    "identity": Identity,
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_uniform": RandomUniform,
    "uniform": RandomUniform,
    "random_normal": RandomNormal,
    "normal": RandomNormal,
    "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_uniform": HeUniform,
    "he_normal": HeNormal,
    "lecun_uniform": LecunUniform,
    "lecun_normal": LecunNormal,
    "variance_scaling": VarianceScaling,
}
for _cls in list(_BY_NAME.values()):
    _BY_NAME[_cls.__name__] = _cls


def get(identifier):
    """An initializer from a name, a class, an instance or a callable ``(shape, dtype) -> values``.

    Args:
        identifier: a name, a class, an instance, a callable, or None.

    Returns:
        An initializer (or None).
    """
    if identifier is None:
        return None
    return resolve(identifier, kind="initializer", table=_BY_NAME, base=Initializer)


variables.use_initializers(get)  # keras.Variable('zeros', shape=...) resolves the name here
