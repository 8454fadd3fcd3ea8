"""Pooling layers beyond MaxPooling2D: average pooling, 1-D pooling and the global poolings (channels last)."""

from tapeviz.core.primitives import conv as _conv
from tapeviz.core.primitives.array import reshape
from tapeviz.core.primitives.math import reduce_max, reduce_mean
from tapeviz.keras.layers.base import InputSpec, Layer
from tapeviz.keras.layers.conv import checked_padding, pair, require_channels_last

__all__ = [
    "AveragePooling2D",
    "AvgPool2D",
    "AveragePooling1D",
    "MaxPooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling2D",
    "GlobalAveragePooling1D",
    "GlobalMaxPooling1D",
]


class AveragePooling2D(Layer):
    """The mean over ``pool_size`` windows moving by ``strides`` (default: the pool size).

    With ``padding='same'`` a border window averages its real pixels only, as in Keras.

    Args:
        pool_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, "AveragePooling2D")
        self.pool_size = pair(pool_size)
        self.strides = self.pool_size if strides is None else pair(strides)
        self.padding = checked_padding(padding)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        return _conv.avg_pool2d(inputs, self.pool_size, self.strides, self.padding.upper())


class _Pooling1D(Layer):
    """1-D pooling as 2-D pooling of height 1: (batch, steps, channels)."""

    pool = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, type(self).__name__)
        self.pool_size = int(pool_size[0] if isinstance(pool_size, (tuple, list)) else pool_size)
        strides = self.pool_size if strides is None else strides
        self.strides = int(strides[0] if isinstance(strides, (tuple, list)) else strides)
        self.padding = checked_padding(padding)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        n, steps, channels = inputs.shape
        image = reshape(inputs, (n, 1, steps, channels))
        out = type(self).pool(image, (1, self.pool_size), (1, self.strides), self.padding.upper())
        return reshape(out, (n, out.shape[2], channels))


class AveragePooling1D(_Pooling1D):
    """The mean over windows of ``pool_size`` steps.

    Args:
        pool_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    pool = staticmethod(_conv.avg_pool2d)


class MaxPooling1D(_Pooling1D):
    """The max over windows of ``pool_size`` steps.

    Args:
        pool_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    pool = staticmethod(_conv.max_pool2d)


class GlobalPooling(Layer):
    reduce = None
    spatial_axes = ()

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, type(self).__name__)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=len(self.spatial_axes) + 2)

    def call(self, inputs):
        return type(self).reduce(inputs, axis=list(self.spatial_axes), keepdims=self.keepdims)

    def get_config(self):
        return {**super().get_config(), "keepdims": self.keepdims}


class GlobalAveragePooling2D(GlobalPooling):
    """The mean over height and width: (batch, h, w, c) -> (batch, c)."""

    reduce = staticmethod(reduce_mean)
    spatial_axes = (1, 2)


class GlobalMaxPooling2D(GlobalPooling):
    """The max over height and width: (batch, h, w, c) -> (batch, c)."""

    reduce = staticmethod(reduce_max)
    spatial_axes = (1, 2)


class GlobalAveragePooling1D(GlobalPooling):
    """The mean over the steps: (batch, steps, c) -> (batch, c)."""

    reduce = staticmethod(reduce_mean)
    spatial_axes = (1,)


class GlobalMaxPooling1D(GlobalPooling):
    """The max over the steps: (batch, steps, c) -> (batch, c)."""

    reduce = staticmethod(reduce_max)
    spatial_axes = (1,)


AvgPool2D = AveragePooling2D
