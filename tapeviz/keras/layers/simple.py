"""Small layers of Keras 3: Identity, Permute, RepeatVector, ActivityRegularization, UnitNormalization,
RMSNormalization, GaussianNoise, GaussianDropout, SpatialDropout1D/2D, PReLU, Dot (and ``dot``)."""

import math

from tapeviz.keras import initializers, ops, regularizers
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.base import Layer

__all__ = [
    "Identity",
    "Permute",
    "RepeatVector",
    "ActivityRegularization",
    "UnitNormalization",
    "RMSNormalization",
    "GaussianNoise",
    "GaussianDropout",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "PReLU",
    "Dot",
    "dot",
]


class Identity(Layer):
    """Returns its input unchanged."""

    def call(self, inputs):
        return inputs


class Permute(Layer):
    """Reorder the non-batch axes: ``dims`` are 1-based, as Keras (``Permute((2, 1))`` swaps the two).

    Args:
        dims: the new order of the axes (from 1; the batch stays first).
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: ``dims`` that is not a permutation of 1..n.

    Raises:
        ValueError: ``dims`` that is not a permutation of 1..n.
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be "
                f"consecutive and start from 1. Received dims={dims}"
            )

    def call(self, inputs):
        return ops.transpose(inputs, (0,) + self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features).

    Args:
        n: how many times to repeat.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs):
        return ops.repeat(ops.expand_dims(inputs, 1), self.n, axis=1)

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class ActivityRegularization(Layer):
    """Identity that adds ``l1 * sum|x| + l2 * sum x**2`` (divided by the batch size) to the losses.

    Args:
        l1: the L1 factor.
        l2: the L2 factor.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {**super().get_config(), "l1": self.l1, "l2": self.l2}


class UnitNormalization(Layer):
    """Scale each example to unit L2 norm along ``axis``.

    Args:
        axis: the axis (or axes) normalized to unit L2 norm.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return ops.normalize(ops.cast(inputs, self._dtype), axis=self.axis, order=2, epsilon=1e-12)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class RMSNormalization(Layer):
    """x / sqrt(mean(x**2) + epsilon) * scale, ``scale`` a weight along ``axis`` (ones at first).

    Args:
        axis: the axis normalized.
        epsilon: added to the mean square for stability.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, epsilon

    def build(self, input_shape):
        axes = self.axis if isinstance(self.axis, (list, tuple)) else [self.axis]
        self.scale = self.add_weight(name="scale", shape=tuple(input_shape[a] for a in axes), initializer="ones")

    def call(self, inputs):
        return ops.rms_normalization(
            ops.cast(inputs, self._dtype), scale=self.scale, axis=self.axis, epsilon=self.epsilon
        )

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


class GaussianNoise(Layer):
    """Adds N(0, stddev) noise in training; the identity otherwise.

    Args:
        stddev: the standard deviation of the noise (added only in training).
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.seed = stddev, seed
        if stddev > 0:  # as Keras: only then does it take a (default) seed
            self.seed_generator = keras_random.SeedGenerator(seed)

    def call(self, inputs, training=False):
        if training and self.stddev > 0:
            noise = keras_random.normal(tuple(inputs.shape), stddev=self.stddev, seed=self.seed_generator)
            return inputs + ops.cast(noise, inputs.dtype.name)
        return inputs

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(Layer):
    """Multiplies by N(1, rate / (1 - rate)) noise in training; the identity otherwise.

    Args:
        rate: the drop probability the noise's variance matches, in [0, 1].
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``rate`` outside [0, 1].

    Raises:
        ValueError: a ``rate`` outside [0, 1].
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate={rate}"
            )
        self.rate, self.seed = rate, seed
        if rate > 0:  # as Keras: only then does it take a (default) seed
            self.seed_generator = keras_random.SeedGenerator(seed)

    def call(self, inputs, training=False):
        if training and 0 < self.rate < 1:
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            noise = keras_random.normal(tuple(inputs.shape), mean=1.0, stddev=stddev, seed=self.seed_generator)
            return inputs * ops.cast(noise, inputs.dtype.name)
        return inputs

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class _SpatialDropout(Layer):
    """Dropout of whole channels: one draw per (example, channel), kept ones scaled by 1 / (1 - rate)."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate={rate}"
            )
        self.rate, self.seed = rate, seed
        if rate > 0:  # as Keras's Dropout, which it extends
            self.seed_generator = keras_random.SeedGenerator(seed)

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        shape = (inputs.shape[0],) + (1,) * (len(inputs.shape) - 2) + (inputs.shape[-1],)
        return keras_random.dropout(inputs, self.rate, noise_shape=shape, seed=self.seed_generator)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class SpatialDropout1D(_SpatialDropout):
    """Drops whole feature channels of (batch, steps, channels) inputs in training.

    Args:
        rate: the fraction of channels to drop, in [0, 1].
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``rate`` outside [0, 1].

    Raises:
        ValueError: a ``rate`` outside [0, 1].
    """


class SpatialDropout2D(_SpatialDropout):
    """Drops whole feature maps of (batch, rows, cols, channels) inputs in training.

    Args:
        rate: the fraction of channels to drop, in [0, 1].
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``rate`` outside [0, 1].

    Raises:
        ValueError: a ``rate`` outside [0, 1].
    """


class PReLU(Layer):
    """max(x, 0) + alpha * min(x, 0), ``alpha`` a weight per feature (zeros at first); ``shared_axes`` share it.

    Args:
        alpha_initializer: alpha's initializer.
        alpha_regularizer: a penalty on alpha.
        alpha_constraint: a constraint on alpha.
        shared_axes: the axes along which alpha is shared.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(
        self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None, **kwargs
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer if alpha_initializer != "Zeros" else "zeros")
        self.alpha_regularizer, self.alpha_constraint = alpha_regularizer, alpha_constraint
        self.shared_axes = (
            None if shared_axes is None else tuple([shared_axes] if isinstance(shared_axes, int) else shared_axes)
        )

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            shape[axis - 1] = 1
        self.alpha = self.add_weight(
            name="alpha",
            shape=tuple(shape),
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )

    def call(self, inputs):
        positive = ops.relu(inputs)
        negative = -self.alpha * ops.relu(-inputs)
        return positive + negative


class Dot(Layer):
    """The dot product of two (batch, ...) inputs along ``axes`` (an int or a pair); ``normalize`` makes it cosine.

    Args:
        axes: the axis (or one per input) to take the dot product along.
        normalize: L2-normalize along ``axes`` first (a cosine similarity).
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes, self.normalize = axes, normalize

    def build(self, input_shape):
        # checked while building, as Keras does: the error then carries no call arguments
        """Create the weights for inputs of ``input_shape``. Called once, by the first call.

        Args:
            input_shape: the shape of the first inputs, a list of two shapes.

        Raises:
            ValueError: not exactly two input shapes.
        """
        if not isinstance(input_shape[0], (tuple, list)) or len(input_shape) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on a list of 2 inputs. Received: input_shape={input_shape}"
            )

    def call(self, inputs):
        x1, x2 = inputs
        axes = [self.axes, self.axes] if isinstance(self.axes, int) else list(self.axes)
        axes = [a % len(x.shape) for a, x in zip(axes, (x1, x2))]
        if self.normalize:
            x1, x2 = ops.normalize(x1, axis=axes[0], epsilon=1e-12), ops.normalize(x2, axis=axes[1], epsilon=1e-12)
        # batched tensordot: move the summed axes last / first and multiply per example
        x1 = ops.moveaxis(x1, axes[0], -1)
        x2 = ops.moveaxis(x2, axes[1], 1)
        batch = x1.shape[0]
        a = ops.reshape(x1, (batch, -1, x1.shape[-1]))
        b = ops.reshape(x2, (batch, x2.shape[1], -1))
        out = ops.matmul(a, b)
        shape = tuple(x1.shape[1:-1]) + tuple(x2.shape[2:])
        out = ops.reshape(out, (batch,) + shape)
        return ops.expand_dims(out, 1) if not shape else out

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def dot(inputs, axes=-1, **kwargs):
    """The functional form of ``Dot``: ``dot([a, b], axes)``.

    Args:
        inputs: two tensors.
        axes: the axis (or one per input) of the dot product.
        **kwargs: the ``Dot`` layer's arguments (``normalize``, ``name``).

    Returns:
        The output tensor.
    """
    return Dot(axes=axes, **kwargs)(inputs)
