"""Conv2D, Conv2DTranspose, Conv1D and MaxPooling2D (channels last; the 2-D convolutions also channels first)."""

from tapeviz import nn as _nn
from tapeviz.core.primitives import conv as _conv
from tapeviz.core.primitives.array import pad as _pad_op
from tapeviz.keras import activations, config, initializers
from tapeviz.keras.layers.base import InputSpec, Layer


def pair(value):
    """A size or stride given as one int or two, as two (the pooling layers share these checks)."""
    return (value, value) if isinstance(value, int) else tuple(value)


def checked_padding(padding, allowed=("valid", "same")):
    """``padding`` lower-cased, or Keras's ValueError when it is not one of ``allowed``."""
    padding = str(padding).lower()
    if padding not in allowed:
        names = ", ".join(repr(p) for p in allowed)
        raise ValueError(f"The `padding` argument must be one of {names}. Received: padding={padding}")
    return padding


def require_channels_last(data_format, layer):
    """Refuse a data_format other than channels_last, naming ``layer``."""
    if (data_format or config.image_data_format()) != "channels_last":
        raise ValueError(f"tapeviz's {layer} supports data_format='channels_last' only.")


def _nn_format(data_format):
    """Keras's data_format as tf.nn's: 'NHWC' (channels_last, the default) or 'NCHW'."""
    data_format = data_format or config.image_data_format()  # keras.config's default when not given
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"The `data_format` argument must be one of 'channels_first', 'channels_last'. Received: {data_format}"
        )
    return "NCHW" if data_format == "channels_first" else "NHWC"


def _dilation(dilation_rate, strides):
    """Keras's rule: a dilated kernel moves by 1 (strides and dilation_rate both > 1 is refused)."""
    dilation_rate = pair(dilation_rate)
    if max(dilation_rate) > 1 and max(strides) > 1:
        raise ValueError(
            "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
            f"Received: strides={strides} and dilation_rate={dilation_rate}"
        )
    return dilation_rate


def _add_bias(x, bias, data_format):
    return _nn.bias_add(x, bias, data_format=data_format) if data_format == "NCHW" else x + bias


def _ones(value, layer, what):
    values = (value,) if isinstance(value, int) else tuple(value)
    if any(v != 1 for v in values):
        raise ValueError(f"tapeviz's {layer} supports {what}=1 only, got {value!r}.")


class Conv2D(Layer):
    """2-D convolution over (batch, height, width, channels) inputs.

    ``filters`` output channels, a ``kernel_size`` window moving by
    ``strides``; ``padding`` 'valid' (no padding) or 'same' (output size =
    ceil(input / stride)). Kernel (kh, kw, in, filters), 'glorot_uniform'.

    Args:
        filters: the number of output channels.
        kernel_size: the window's (height, width), or one int for both.
        strides: the step of the window, an int or a pair.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: the spacing of the window's taps.
        activation: applied to the output (a name or a function); None: linear.
        use_bias: add a bias per filter.
        kernel_initializer: the kernel's initializer.
        bias_initializer: the bias's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Example:
        >>> import tapeviz as tf
        >>> layer = tf.keras.layers.Conv2D(4, 3, padding="same")
        >>> layer(tf.zeros([2, 8, 8, 3])).shape
        TensorShape([2, 8, 8, 4])
    """

    _weight_names = ("kernel", "bias")

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.data_format = _nn_format(data_format)
        self.filters = int(filters)
        self.kernel_size = pair(kernel_size)
        self.strides = pair(strides)
        self.dilation_rate = _dilation(dilation_rate, self.strides)
        self.padding = checked_padding(padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        axis = 1 if self.data_format == "NCHW" else -1
        channels = input_shape[axis]
        self.kernel = self.add_weight(
            "kernel", self.kernel_size + (channels, self.filters), initializer=self.kernel_initializer
        )
        self.bias = (
            self.add_weight("bias", (self.filters,), initializer=self.bias_initializer) if self.use_bias else None
        )
        self.input_spec = InputSpec(ndim=4, axes={axis: channels})

    def call(self, inputs):
        x = _conv.conv2d(
            inputs,
            self.kernel,
            strides=self.strides,
            padding=self.padding.upper(),
            data_format=self.data_format,
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            x = _add_bias(x, self.bias, self.data_format)
        return self.activation(x)


class MaxPooling2D(Layer):
    """Max over ``pool_size`` windows moving by ``strides`` (default: the pool size).

    The gradient goes to the first maximum of each window, as in TF.

    Args:
        pool_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        require_channels_last(data_format, "MaxPooling2D")
        self.pool_size = pair(pool_size)
        self.strides = self.pool_size if strides is None else pair(strides)
        self.padding = checked_padding(padding)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        return _conv.max_pool2d(inputs, self.pool_size, self.strides, self.padding.upper())


class Conv2DTranspose(Layer):
    """The transpose of Conv2D (the gradient of a convolution with respect to its input).

    Each input pixel spreads a ``kernel_size`` patch into the output, the
    patches ``strides`` apart. Output size: ``input * stride`` ('same'),
    ``input * stride + max(kernel - stride, 0)`` ('valid'), or with
    ``output_padding`` Keras's ``(input - 1) * stride + kernel - 2 * pad +
    output_padding``. Kernel (kh, kw, filters, in_channels), as in Keras.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        output_padding: extra size added to each spatial output axis.
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
        strides=(1, 1),
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.data_format = _nn_format(data_format)
        self.filters = int(filters)
        self.kernel_size = pair(kernel_size)
        self.strides = pair(strides)
        self.dilation_rate = _dilation(dilation_rate, self.strides)
        self.padding = checked_padding(padding)
        self.output_padding = None if output_padding is None else pair(output_padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        axis = 1 if self.data_format == "NCHW" else -1
        channels = input_shape[axis]
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (self.filters, channels), initializer=self.kernel_initializer
        )
        self.bias = (
            self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer)
            if self.use_bias
            else None
        )
        self.input_spec = InputSpec(ndim=4, axes={axis: channels})

    def _length(self, size, axis):
        # Keras's rule, with the dilated kernel's span (k - 1) * d + 1 as the kernel size.
        k, s = (self.kernel_size[axis] - 1) * self.dilation_rate[axis] + 1, self.strides[axis]
        if self.output_padding is None:
            return size * s + (max(k - s, 0) if self.padding == "valid" else 0)
        pad = k // 2 if self.padding == "same" else 0
        return (size - 1) * s + k - 2 * pad + self.output_padding[axis]

    def call(self, inputs):
        if self.data_format == "NCHW":
            n, _, h, w = inputs.shape
            shape = (n, self.filters, self._length(h, 0), self._length(w, 1))
        else:
            n, h, w, _ = inputs.shape
            shape = (n, self._length(h, 0), self._length(w, 1), self.filters)
        x = _conv.conv2d_backprop_input(
            shape, self.kernel, inputs, self.strides, self.padding.upper(), self.dilation_rate, self.data_format
        )
        if self.use_bias:
            x = _add_bias(x, self.bias, self.data_format)
        return self.activation(x)


class Conv1D(Layer):
    """1-D convolution over (batch, steps, channels) inputs; kernel (kernel_size, in, filters).

    ``padding`` 'valid', 'same' or 'causal' (padded on the left only, so an
    output never sees later steps).

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        strides: the window's step: an int, or one per spatial axis (None: the pool size, for pooling).
        padding: ``"valid"`` (no padding) or ``"same"`` (the output keeps the input's size at stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: the spacing of the kernel's taps: an int, or one per spatial axis.
        groups: split the channels into this many groups convolved separately.
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
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        require_channels_last(data_format, "Conv1D")
        _ones(groups, "Conv1D", "groups")
        self.filters = int(filters)
        self.kernel_size = int(kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size)
        self.strides = int(strides[0] if isinstance(strides, (tuple, list)) else strides)
        self.dilation_rate = _dilation(dilation_rate, (self.strides,))[0]
        self.padding = checked_padding(padding, ("valid", "same", "causal"))
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        channels = input_shape[-1]
        self.kernel = self.add_weight(
            name="kernel", shape=(self.kernel_size, channels, self.filters), initializer=self.kernel_initializer
        )
        self.bias = (
            self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer)
            if self.use_bias
            else None
        )
        self.input_spec = InputSpec(ndim=3, axes={-1: channels})

    def call(self, inputs):
        padding = self.padding
        if padding == "causal":
            span = (self.kernel_size - 1) * self.dilation_rate + 1
            inputs = _pad_op(inputs, [[0, 0], [span - 1, 0], [0, 0]])
            padding = "valid"
        x = _nn.conv1d(inputs, self.kernel, self.strides, padding.upper(), dilations=self.dilation_rate)
        if self.use_bias:
            x = x + self.bias
        return self.activation(x)


MaxPool2D = MaxPooling2D
Convolution2DTranspose = Conv2DTranspose
Convolution1D = Conv1D
Convolution2D = Conv2D
