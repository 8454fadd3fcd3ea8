"""``tf.keras.initializers``: how a layer fills its weights when it builds them.

By name (``'glorot_uniform'``, ``'zeros'``, ``'he_normal'``...) or as objects
(``Constant(0.5)``, ``GlorotUniform(seed=1)``). Keras's formulas and
defaults. A seeded initializer gives the same values on every call (as in
Keras 3); an unseeded one draws from ``tf.random``, so ``tf.random.set_seed``
makes a whole model's initial weights reproducible. (The random numbers are
NumPy's, so they differ from TF's own: only the distributions match.)
"""

import math

import numpy as np

from tapeviz import backend as B
from tapeviz import random as tf_random
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.records import RecordsInit
from tapeviz.core.tensor import Tensor
from tapeviz.keras.registry import resolve

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


def _rng(seed):
    if seed is not None:
        return np.random.default_rng(seed)
    make = getattr(tf_random, "generator", None)
    return make() if make is not None else np.random.default_rng()


def _truncated(rng, shape):
    z = rng.standard_normal(shape)
    outside = np.abs(z) > 2.0
    while outside.any():
        z[outside] = rng.standard_normal(int(outside.sum()))
        outside = np.abs(z) > 2.0
    return z


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
    """Every element ``value`` (or ``value`` itself, when it has the right shape)."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return self._finish(np.broadcast_to(np.asarray(self.value, dtype=np.float64), shape), dtype)

    def get_config(self):
        return {"value": self.value}


class RandomUniform(Initializer):
    """Uniform on [minval, maxval): Keras's default range is [-0.05, 0.05)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None):
        return self._finish(_rng(self.seed).uniform(self.minval, self.maxval, size=shape), dtype)


class RandomNormal(Initializer):
    """Normal with ``mean`` and ``stddev`` (0 and 0.05 by default)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return self._finish(self.mean + self.stddev * _rng(self.seed).standard_normal(shape), dtype)


class TruncatedNormal(Initializer):
    """Normal redrawn outside two standard deviations (0 and 0.05 by default)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return self._finish(self.mean + self.stddev * _truncated(_rng(self.seed), shape), dtype)


class VarianceScaling(Initializer):
    """Variance ``scale / n`` where n is fan_in, fan_out or their average (``mode``).

    ``distribution`` 'truncated_normal', 'untruncated_normal' or 'uniform'.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode!r}; use 'fan_in', 'fan_out' or 'fan_avg'.")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform", "normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution!r}.")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        rng = _rng(self.seed)
        if self.distribution in ("truncated_normal", "normal"):
            values = math.sqrt(variance) / _TRUNCATED_STDDEV * _truncated(rng, shape)
        elif self.distribution == "untruncated_normal":
            values = math.sqrt(variance) * rng.standard_normal(shape)
        else:
            limit = math.sqrt(3.0 * variance)
            values = rng.uniform(-limit, limit, size=shape)
        return self._finish(values, dtype)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


class GlorotUniform(VarianceScaling):
    """Uniform on ±sqrt(6 / (fan_in + fan_out)): Keras's default for kernels."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    """Uniform on ±sqrt(6 / fan_in): suits ReLU layers."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


class HeNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in): suits ReLU layers."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    """Uniform on ±sqrt(3 / fan_in)."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "uniform", seed)


class LecunNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in)."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class Orthogonal(Initializer):
    """A random orthogonal matrix (times ``gain``), Keras's default for recurrent kernels.

    As Keras: a standard normal (rows = prod(shape[:-1]), cols = shape[-1])
    draw, its QR decomposition's Q with the signs of R's diagonal, transposed
    when there are fewer rows than columns.
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(
                f"The tensor to initialize must be at least two-dimensional. Received: shape={shape} of rank {len(shape)}."
            )
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = _rng(self.seed).standard_normal(flat)
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return self._finish(self.gain * q.reshape(shape), dtype)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """The identity matrix (times ``gain``), for 2-D shapes."""

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
    """An initializer from a name, a class, an instance or a callable ``(shape, dtype) -> values``."""
    if identifier is None:
        return None
    return resolve(identifier, kind="initializer", table=_BY_NAME, base=Initializer)
