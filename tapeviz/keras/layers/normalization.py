"""BatchNormalization, LayerNormalization and GroupNormalization."""

from tapeviz import math as tf_math
from tapeviz import nn as tf_nn
from tapeviz.core.primitives.array import reshape
from tapeviz.keras import initializers
from tapeviz.keras.layers.base import Layer


class BatchNormalization(Layer):
    """Normalize over the batch (training) or with moving statistics (inference), as Keras.

    Training: ``y = gamma * (x - mean) / sqrt(var + epsilon) + beta`` with the
    batch's mean and (biased) variance, and the moving statistics updated as
    ``moving = moving * momentum + batch * (1 - momentum)``. Inference uses
    the moving statistics. Defaults: momentum 0.99, epsilon 1e-3.
    ``gamma``, ``beta`` are trainable; ``moving_mean``, ``moving_variance`` not.

    Args:
        axis: the axis it works along.
        momentum: the momentum of the moving averages.
        epsilon: a small number added to the variance (or denominator) for stability.
        center: add a learned offset (beta).
        scale: multiply by a learned scale (gamma).
        beta_initializer: beta's initializer.
        gamma_initializer: gamma's initializer.
        moving_mean_initializer: the moving mean's initializer.
        moving_variance_initializer: the moving variance's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon, self.center, self.scale = axis, momentum, epsilon, center, scale
        self._inits = [
            initializers.get(i)
            for i in (gamma_initializer, beta_initializer, moving_mean_initializer, moving_variance_initializer)
        ]

    def build(self, input_shape):
        size = (input_shape[self.axis],)
        gamma, beta, mean, var = self._inits
        self.gamma = self.add_weight("gamma", size, initializer=gamma) if self.scale else None
        self.beta = self.add_weight("beta", size, initializer=beta) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", size, initializer=mean, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", size, initializer=var, trainable=False)

    def call(self, inputs, training=None):
        inputs = self._as_float(inputs)
        axis = self.axis % inputs.ndim
        reduce_axes = [a for a in range(inputs.ndim) if a != axis]
        shape = [1] * inputs.ndim
        shape[axis] = inputs.shape[axis]

        def shaped(v):
            return None if v is None else reshape(v, shape)

        if training:
            mean, variance = tf_nn.moments(inputs, axes=reduce_axes, keepdims=True)
            m = self.momentum
            # The moving statistics are state, not part of the gradient: assign plain values.
            self.moving_mean.assign(self.moving_mean.numpy() * m + reshape(mean, [-1]).numpy() * (1 - m))
            self.moving_variance.assign(self.moving_variance.numpy() * m + reshape(variance, [-1]).numpy() * (1 - m))
        else:
            mean, variance = shaped(self.moving_mean), shaped(self.moving_variance)
        return tf_nn.batch_normalization(inputs, mean, variance, shaped(self.beta), shaped(self.gamma), self.epsilon)


class LayerNormalization(Layer):
    """Normalize each example over ``axis`` (default the last), then scale by ``gamma`` and shift by ``beta``.

    Keras 3's formula and order: ``inv = rsqrt(var + epsilon) * gamma``,
    ``y = x * inv + (beta - mean * inv)``, with the mean and (biased)
    variance over ``axis``. Defaults: epsilon 1e-3, gamma ones, beta zeros.
    ``rms_scaling=True`` divides by the root mean square instead (no mean, no beta).

    Args:
        axis: the axis it works along.
        epsilon: a small number added to the variance (or denominator) for stability.
        center: add a learned offset (beta).
        scale: multiply by a learned scale (gamma).
        rms_scaling: divide by the root mean square only (no centering).
        beta_initializer: beta's initializer.
        gamma_initializer: gamma's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(
        self,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        rms_scaling=False,
        beta_initializer="zeros",
        gamma_initializer="ones",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon, self.center, self.scale, self.rms_scaling = epsilon, center, scale, rms_scaling
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)

    def _axes(self, ndim):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        return sorted(a % ndim for a in axes)

    def build(self, input_shape):
        axes = self._axes(len(input_shape))
        shape = tuple(input_shape[a] for a in axes)
        self.gamma = (
            self.add_weight(name="gamma", shape=shape, initializer=self.gamma_initializer)
            if self.scale or self.rms_scaling
            else None
        )
        self.beta = (
            self.add_weight(name="beta", shape=shape, initializer=self.beta_initializer)
            if self.center and not self.rms_scaling
            else None
        )

    def call(self, inputs):
        x = self._as_float(inputs)
        axes = self._axes(x.ndim)
        shape = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]

        def shaped(v):
            return None if v is None else reshape(v, shape)

        gamma, beta = shaped(self.gamma), shaped(self.beta)
        if self.rms_scaling:
            variance = tf_math.reduce_mean(tf_math.square(x), axis=axes, keepdims=True)
            return x * tf_math.rsqrt(variance + self.epsilon) * gamma
        mean, variance = tf_nn.moments(x, axes=axes, keepdims=True)
        inv = tf_math.rsqrt(variance + self.epsilon)
        if gamma is not None:
            inv = inv * gamma
        res = -mean * inv
        if beta is not None:
            res = res + beta
        return x * inv + res

    def get_config(self):
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
        }


class GroupNormalization(Layer):
    """Normalize each example over groups of channels: the channels along ``axis`` split into ``groups``,
    each group's mean and (biased) variance taken over its channels and every other non-batch axis.

    Then, per channel, ``gamma`` scales and ``beta`` shifts, as in Keras 3 (epsilon 1e-3). ``groups=-1``:
    one group per channel (instance normalization); ``groups=1``: layer normalization over all axes.

    Args:
        groups: the number of groups the channels are split into.
        axis: the axis it works along.
        epsilon: a small number added to the variance (or denominator) for stability.
        center: add a learned offset (beta).
        scale: multiply by a learned scale (gamma).
        beta_initializer: beta's initializer.
        gamma_initializer: gamma's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(
        self,
        groups=32,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.groups, self.axis, self.epsilon, self.center, self.scale = groups, axis, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)

    def build(self, input_shape):
        """Create the weights for inputs of ``input_shape``. Called once, by the first call.

        Args:
            input_shape: the shape of the first inputs.

        Raises:
            ValueError: an unknown channel size, or one that ``groups`` does not divide (or exceeds).
        """
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer received an input with shape {tuple(input_shape)}."
            )
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of channels ({channels})."
            )
        if channels % self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of channels ({channels})."
            )
        self.gamma = self.add_weight("gamma", (channels,), initializer=self.gamma_initializer) if self.scale else None
        self.beta = self.add_weight("beta", (channels,), initializer=self.beta_initializer) if self.center else None

    def call(self, inputs):
        x = self._as_float(inputs)
        shape = tuple(x.shape)
        axis = self.axis % len(shape)
        channels = shape[axis]
        # (batch, ..., groups, channels per group, ...): statistics over all but the batch and the group axis
        grouped = shape[:axis] + (self.groups, channels // self.groups) + shape[axis + 1 :]
        y = reshape(x, grouped)
        axes = [a for a in range(1, len(grouped)) if a != axis]
        mean, variance = tf_nn.moments(y, axes=axes, keepdims=True)
        y = reshape((y - mean) * tf_math.rsqrt(variance + self.epsilon), shape)
        per_channel = [1] * len(shape)
        per_channel[axis] = channels
        if self.gamma is not None:
            y = y * reshape(self.gamma, per_channel)
        if self.beta is not None:
            y = y + reshape(self.beta, per_channel)
        return y
