"""Activation layers: ReLU, LeakyReLU, Softmax, ELU (Keras 3's arguments and defaults)."""

import warnings

from tapeviz import nn
from tapeviz.core.primitives.math import cast, greater, where
from tapeviz.keras.layers.base import Layer
from tapeviz.math import clip_by_value

__all__ = ["ReLU", "LeakyReLU", "Softmax", "ELU"]


class ReLU(Layer):
    """``max(x, 0)``, with Keras's options: ``max_value`` caps it, ``negative_slope`` leaks below
    ``threshold`` (``x < threshold`` gives ``negative_slope * (x - threshold)``).

    Args:
        max_value: the largest output (None: no limit).
        negative_slope: the slope below the threshold (>= 0).
        threshold: where the output starts to follow the input.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a negative ``max_value`` or ``negative_slope``.

    Raises:
        ValueError: a negative ``max_value`` or ``negative_slope``.
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                f"negative_slope of a ReLU layer cannot be a negative value. Received: negative_slope={negative_slope}"
            )
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        # Keras 3's composition (activations.relu), so values and kink gradients agree.
        x, slope, threshold = inputs, self.negative_slope, self.threshold
        if slope != 0 and self.max_value is None and threshold == 0:
            return nn.leaky_relu(x, alpha=slope)
        negative_part = nn.relu(threshold - x) if slope != 0 else None
        clip_max = self.max_value is not None
        if threshold != 0:
            x = x * cast(greater(x, threshold), x.dtype)
        elif self.max_value == 6:
            x = nn.relu6(x)
            clip_max = False
        else:
            x = nn.relu(x)
        if clip_max:
            x = clip_by_value(x, 0.0, float(self.max_value))
        if negative_part is not None:
            x = x - slope * negative_part
        return x

    def get_config(self):
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class LeakyReLU(Layer):
    """``x`` where ``x > 0``, else ``negative_slope * x`` (Keras 3 default 0.3).

    ``alpha`` (tf.keras 2's name) is accepted with Keras 3's deprecation warning.

    Args:
        negative_slope: the slope for negative inputs (>= 0).
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a None or negative ``negative_slope``.

    Raises:
        ValueError: a None or negative ``negative_slope``.
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.", UserWarning, stacklevel=3)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                f"Expected a float. Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class Softmax(Layer):
    """Softmax over ``axis`` (default the last). A ``mask`` (True = keep) sends the masked entries to 0.

    Args:
        axis: the axis the probabilities sum to 1 along.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            # Keras adds a large negative number where the mask is False.
            inputs = inputs + (1.0 - cast(mask, inputs.dtype)) * -1e9
        if isinstance(self.axis, (tuple, list)):
            if len(self.axis) > 1:
                from tapeviz.math import exp, reduce_logsumexp

                return exp(inputs - reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
            return nn.softmax(inputs, axis=self.axis[0])
        return nn.softmax(inputs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class ELU(Layer):
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)`` (default alpha 1.0).

    Args:
        alpha: the scale of the negative part.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        y = nn.elu(inputs)
        return y if self.alpha == 1.0 else where(greater(inputs, 0), y, y * self.alpha)
