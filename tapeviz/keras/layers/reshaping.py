"""Reshaping layers: UpSampling1D/2D, ZeroPadding1D/2D, Cropping1D/2D (channels_last, as Keras's default)."""

from tapeviz.keras import ops
from tapeviz.keras.layers.base import Layer

__all__ = ["UpSampling1D", "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D", "Cropping1D", "Cropping2D"]


def edge_pairs(value, n, what):
    """``value`` (an int, n ints, or n (before, after) pairs) as n (before, after) pairs."""
    if isinstance(value, int):
        return [(value, value)] * n
    value = list(value)
    if len(value) != n:
        raise ValueError(f"`{what}` should have {n} elements. Received: {what}={value}.")
    return [(v, v) if isinstance(v, int) else tuple(v) for v in value]


def _channels_last(data_format, layer):
    if data_format not in (None, "channels_last"):
        raise ValueError(f"tapeviz's {layer} supports data_format='channels_last' only.")


class UpSampling1D(Layer):
    """Repeat each step ``size`` times: (batch, steps, features) -> (batch, steps * size, features).

    Args:
        size: how many times each step is repeated.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        return ops.repeat(inputs, self.size, axis=1)

    def get_config(self):
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    """Repeat rows and columns ``size`` times (nearest-neighbour upsampling).

    Args:
        size: the factor for rows and columns.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        interpolation: ``"nearest"`` only.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: an interpolation other than ``"nearest"``.

    Raises:
        ValueError: an interpolation other than ``"nearest"``.
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        _channels_last(data_format, "UpSampling2D")
        if interpolation != "nearest":
            raise ValueError(f"tapeviz's UpSampling2D supports interpolation='nearest' only, got {interpolation!r}.")
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.interpolation = interpolation

    def call(self, inputs):
        return ops.repeat(ops.repeat(inputs, self.size[0], axis=1), self.size[1], axis=2)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "interpolation": self.interpolation}


class ZeroPadding1D(Layer):
    """Zeros before and after the steps axis.

    Args:
        padding: zeros to add at each end: an int, or a pair.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = (padding, padding) if isinstance(padding, int) else tuple(padding)

    def call(self, inputs):
        return ops.pad(inputs, [(0, 0), self.padding, (0, 0)])

    def get_config(self):
        return {**super().get_config(), "padding": self.padding}


class ZeroPadding2D(Layer):
    """Zeros around the rows and columns: ``padding`` an int, (rows, cols), or ((top, bottom), (left, right)).

    Args:
        padding: zeros to add: an int, a pair (rows, columns), or two pairs.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        _channels_last(data_format, "ZeroPadding2D")
        self.padding = tuple(edge_pairs(padding, 2, "padding"))

    def call(self, inputs):
        return ops.pad(inputs, [(0, 0), *self.padding, (0, 0)])

    def get_config(self):
        return {**super().get_config(), "padding": self.padding}


class Cropping1D(Layer):
    """Drop ``cropping`` = (start, end) steps.

    Args:
        cropping: what to cut from the start and the end.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = (cropping, cropping) if isinstance(cropping, int) else tuple(cropping)

    def call(self, inputs):
        start, end = self.cropping
        return inputs[:, start : inputs.shape[1] - end, :]

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    """Drop rows and columns at the edges: ``cropping`` an int, (rows, cols), or ((top, bottom), (left, right)).

    Args:
        cropping: what to cut: two pairs (rows, columns) of (start, end).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        _channels_last(data_format, "Cropping2D")
        self.cropping = tuple(edge_pairs(cropping, 2, "cropping"))

    def call(self, inputs):
        (top, bottom), (left, right) = self.cropping
        return inputs[:, top : inputs.shape[1] - bottom, left : inputs.shape[2] - right, :]

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping}
