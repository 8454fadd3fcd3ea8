"""TF's own initializers at the top level: ``tf.zeros_initializer``, ``ones_initializer``,
``constant_initializer``, ``random_normal_initializer``, ``random_uniform_initializer``.

Each is a class whose instances are called with a shape (and a dtype), as
TF's ``init_ops_v2`` classes; ``tf.initializers`` is Keras's namespace, as
in TF 2.21. The random ones draw from ``tf.random`` with their ``seed``.
"""

from tapeviz import random as _random
from tapeviz.core import dtypes as _dtypes
from tapeviz.core.primitives.array import ones as _ones
from tapeviz.core.primitives.array import zeros as _zeros
from tapeviz.core.tensor import constant as _constant

__all__ = [
    "constant_initializer",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "zeros_initializer",
]


class _Initializer:
    """What TF's initializers share: ``get_config`` / ``from_config`` over the constructor's arguments."""

    def get_config(self):
        """The constructor's arguments, so ``from_config`` makes the same initializer.

        Returns:
            A dict of the constructor's arguments.
        """
        return dict(vars(self))

    @classmethod
    def from_config(cls, config):
        """An initializer from ``get_config``'s dict.

        Args:
            config: the dict from ``get_config``.

        Returns:
            A new initializer.
        """
        return cls(**config)


class zeros_initializer(_Initializer):  # noqa: N801 - TF's name
    """``tf.zeros_initializer()(shape, dtype=tf.float32)``: zeros.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.zeros_initializer()(shape=[2]).numpy())
        [0. 0.]
    """

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        return _zeros(shape, dtype=dtype)


class ones_initializer(_Initializer):  # noqa: N801 - TF's name
    """``tf.ones_initializer()(shape, dtype=tf.float32)``: ones."""

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        return _ones(shape, dtype=dtype)


class constant_initializer(_Initializer):  # noqa: N801 - TF's name
    """``tf.constant_initializer(value)(shape, dtype=None)``: ``value`` filled or reshaped to ``shape``, as
    ``tf.constant(value, dtype, shape)`` (a list of ints stays int32 without a dtype, as in TF).

    Args:
        value: a number, or values of the shape it is called with.
        support_partition: accepted for TensorFlow compatibility.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.constant_initializer([1.0, 2.0, 3.0, 4.0])(shape=[2, 2]).numpy())
        [[1. 2.]
         [3. 4.]]
    """

    def __init__(self, value=0, support_partition=False):
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        return _constant(self.value, dtype=dtype, shape=shape)


class random_uniform_initializer(_Initializer):  # noqa: N801 - TF's name
    """``tf.random_uniform_initializer(minval=-0.05, maxval=0.05, seed=None)``: uniform draws.

    Args:
        minval: the lower bound.
        maxval: the upper bound.
        seed: the op seed.
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        return _random.uniform(shape, self.minval, self.maxval, dtype=dtype, seed=self.seed)


class random_normal_initializer(_Initializer):  # noqa: N801 - TF's name
    """``tf.random_normal_initializer(mean=0.0, stddev=0.05, seed=None)``: normal draws.

    Args:
        mean: the mean.
        stddev: the standard deviation.
        seed: the op seed.
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        return _random.normal(shape, self.mean, self.stddev, dtype=dtype, seed=self.seed)
