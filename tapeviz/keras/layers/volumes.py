"""The 3-D layers: Conv3D and the 3-D pooling, padding, cropping and upsampling, on (batch, depth, height,
width, channels) inputs (channels_last), through ``tf.nn.conv3d`` / ``max_pool3d`` / ``avg_pool3d``."""

from tapeviz import volume_ops
from tapeviz.core.primitives.math import reduce_max, reduce_mean
from tapeviz.keras import activations, initializers, ops
from tapeviz.keras.layers.base import InputSpec, Layer
from tapeviz.keras.layers.conv import checked_padding, require_channels_last
from tapeviz.keras.layers.pooling import GlobalPooling
from tapeviz.keras.layers.reshaping import edge_pairs


def triple(value):
    """A size or stride given as one int or three, as three."""
    return (value,) * 3 if isinstance(value, int) else tuple(int(v) for v in value)


class Conv3D(Layer):
    """3-D convolution: ``filters`` output channels, a ``kernel_size`` window (depth, height, width) moving by
    ``strides``; ``padding`` 'valid' or 'same'. Kernel (kd, kh, kw, in, filters), 'glorot_uniform'.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: the spacing of the kernel's taps: an int, or one per spatial axis.
        activation: applied to the output (a name or a function); None: linear.
        use_bias: add a bias.
        kernel_initializer: the kernel's initializer.
        bias_initializer: the bias's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    _weight_names = ("kernel", "bias")

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1, 1),
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        require_channels_last(data_format, "Conv3D")
        self.filters = int(filters)
        self.kernel_size, self.strides, self.dilation_rate = triple(kernel_size), triple(strides), triple(dilation_rate)
        self.padding = checked_padding(padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(ndim=5)

    def build(self, input_shape):
        channels = input_shape[-1]
        self.kernel = self.add_weight(
            "kernel", self.kernel_size + (channels, self.filters), initializer=self.kernel_initializer
        )
        self.bias = (
            self.add_weight("bias", (self.filters,), initializer=self.bias_initializer) if self.use_bias else None
        )
        self.input_spec = InputSpec(ndim=5, axes={-1: channels})

    def call(self, inputs):
        x = volume_ops.conv3d(
            self._as_float(inputs), self.kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate
        )
        if self.use_bias:
            x = x + self.bias
        return self.activation(x)


class _Pooling3D(Layer):
    pool = None

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, type(self).__name__)
        self.pool_size = triple(pool_size)
        self.strides = self.pool_size if strides is None else triple(strides)
        self.padding = checked_padding(padding)
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs):
        return type(self).pool(inputs, self.pool_size, self.strides, self.padding.upper())


class MaxPooling3D(_Pooling3D):
    """The max over ``pool_size`` (depth, height, width) windows moving by ``strides`` (default: the pool size).

    Args:
        pool_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    pool = staticmethod(volume_ops.max_pool3d)


class AveragePooling3D(_Pooling3D):
    """The mean over ``pool_size`` windows; with 'same' a border window averages its real cells only.

    Args:
        pool_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    pool = staticmethod(volume_ops.avg_pool3d)


class GlobalAveragePooling3D(GlobalPooling):
    """The mean over depth, height and width: (batch, d, h, w, c) -> (batch, c)."""

    reduce = staticmethod(reduce_mean)
    spatial_axes = (1, 2, 3)


class GlobalMaxPooling3D(GlobalPooling):
    """The max over depth, height and width: (batch, d, h, w, c) -> (batch, c)."""

    reduce = staticmethod(reduce_max)
    spatial_axes = (1, 2, 3)


class UpSampling3D(Layer):
    """Repeat each cell ``size`` = (depth, height, width) times (nearest neighbour).

    Args:
        size: the factor per spatial axis.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, "UpSampling3D")
        self.size = triple(size)

    def call(self, inputs):
        for axis, times in enumerate(self.size, start=1):
            inputs = ops.repeat(inputs, times, axis=axis)
        return inputs


class ZeroPadding3D(Layer):
    """Zeros around depth, height and width: ``padding`` an int, three ints, or three (before, after) pairs.

    Args:
        padding: zeros to add per spatial axis: an int, a triple, or three pairs.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, "ZeroPadding3D")
        self.padding = tuple(edge_pairs(padding, 3, "padding"))

    def call(self, inputs):
        return ops.pad(inputs, [(0, 0), *self.padding, (0, 0)])


class Cropping3D(Layer):
    """Drop cells at the edges of depth, height and width: an int, three ints, or three (before, after) pairs.

    Args:
        cropping: what to cut: three pairs of (start, end).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, "Cropping3D")
        self.cropping = tuple(edge_pairs(cropping, 3, "cropping"))

    def call(self, inputs):
        (d0, d1), (h0, h1), (w0, w1) = self.cropping
        depth, height, width = inputs.shape[1:4]
        return inputs[:, d0 : depth - d1, h0 : height - h1, w0 : width - w1, :]


Convolution3D = Conv3D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
