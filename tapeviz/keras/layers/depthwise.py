"""DepthwiseConv2D and SeparableConv2D: one filter bank per input channel (then a 1x1 mix), via keras.ops."""

from tapeviz.keras import activations, initializers, ops
from tapeviz.keras.layers.base import InputSpec, Layer

__all__ = ["DepthwiseConv2D", "SeparableConv2D"]


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


class DepthwiseConv2D(Layer):
    """Each input channel convolved with its own ``depth_multiplier`` filters: C * M output channels.

    Weights: ``kernel`` (kh, kw, C, M) and ``bias`` (C * M,), as Keras 3 names them.

    Args:
        kernel_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        depth_multiplier: output channels per input channel.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: the spacing of the kernel's taps: an int, or one per spatial axis.
        activation: applied to the output (a name or a function); None: linear.
        use_bias: add a bias.
        depthwise_initializer: the depthwise kernel's initializer.
        bias_initializer: the bias's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    _weight_names = ("depthwise", "bias")

    def __init__(
        self,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.kernel_size, self.strides = _pair(kernel_size), _pair(strides)
        self.padding, self.data_format = padding.lower(), data_format
        self.depth_multiplier, self.dilation_rate = int(depth_multiplier), _pair(dilation_rate)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(ndim=4)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape):
        channels = input_shape[self._channel_axis()]
        self.kernel = self.add_weight(  # Keras 3 names DepthwiseConv2D's weight "kernel"
            name="kernel",
            shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.bias = (
            self.add_weight(name="bias", shape=(channels * self.depth_multiplier,), initializer=self.bias_initializer)
            if self.use_bias
            else None
        )

    def call(self, inputs):
        x = ops.depthwise_conv(inputs, self.kernel, self.strides, self.padding, self.data_format, self.dilation_rate)
        if self.use_bias:
            x = x + (ops.reshape(self.bias, (1, -1, 1, 1)) if self.data_format == "channels_first" else self.bias)
        return self.activation(x)

    def get_config(self):
        return {
            **super().get_config(),
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "depth_multiplier": self.depth_multiplier,
            "dilation_rate": self.dilation_rate,
            "use_bias": self.use_bias,
        }


class SeparableConv2D(DepthwiseConv2D):
    """A depthwise convolution, then a 1x1 convolution to ``filters`` channels.

    Weights: ``depthwise_kernel`` (kh, kw, C, M), ``pointwise_kernel`` (1, 1, C * M, filters), ``bias``.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: the spacing of the kernel's taps: an int, or one per spatial axis.
        depth_multiplier: output channels per input channel of the depthwise step.
        activation: applied to the output (a name or a function); None: linear.
        use_bias: add a bias.
        depthwise_initializer: the depthwise kernel's initializer.
        pointwise_initializer: the pointwise kernel's initializer.
        bias_initializer: the bias's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    _weight_names = ("depthwise", "pointwise", "bias")

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1),
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(
            kernel_size,
            strides,
            padding,
            depth_multiplier,
            data_format,
            dilation_rate,
            activation,
            use_bias,
            depthwise_initializer,
            bias_initializer,
            **kwargs,
        )
        self.filters = int(filters)
        self.pointwise_initializer = initializers.get(pointwise_initializer)

    def build(self, input_shape):
        channels = input_shape[self._channel_axis()]
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1, 1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        self.bias = (
            self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer)
            if self.use_bias
            else None
        )

    def call(self, inputs):
        x = ops.separable_conv(
            inputs,
            self.depthwise_kernel,
            self.pointwise_kernel,
            self.strides,
            self.padding,
            self.data_format,
            self.dilation_rate,
        )
        if self.use_bias:
            x = x + (ops.reshape(self.bias, (1, -1, 1, 1)) if self.data_format == "channels_first" else self.bias)
        return self.activation(x)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters}
