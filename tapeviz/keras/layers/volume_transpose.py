"""Conv3DTranspose: the transpose of Conv3D on (batch, depth, height, width, channels), through
``tf.nn.conv3d_transpose``."""

from tapeviz.keras import activations, initializers
from tapeviz.keras.layers.base import InputSpec, Layer
from tapeviz.keras.layers.conv import checked_padding, require_channels_last
from tapeviz.keras.layers.volumes import triple
from tapeviz.volume_ops import conv3d_transpose

__all__ = ["Conv3DTranspose", "Convolution3DTranspose"]


def transposed_length(size, kernel, stride, padding, output_padding, dilation):
    """Keras's ``deconv_output_length``: the output size along one axis of a transposed convolution."""
    kernel = (kernel - 1) * dilation + 1
    if output_padding is None:
        return size * stride + (max(kernel - stride, 0) if padding == "valid" else 0)
    pad = kernel // 2 if padding == "same" else 0
    return (size - 1) * stride + kernel - 2 * pad + output_padding


class Conv3DTranspose(Layer):
    """The transpose of Conv3D: each input cell spreads a ``kernel_size`` (depth, height, width) patch into the
    output, the patches ``strides`` apart. Kernel (kd, kh, kw, filters, in_channels), as Keras 3; output sizes by
    Keras's rule (``input * stride`` for 'same'; ``output_padding`` as Keras).

    Args:
        filters: the number of output channels.
        kernel_size: the patch's (depth, height, width), or one int.
        strides: the step between patches.
        padding: ``"valid"`` or ``"same"``.
        output_padding: extra output size per axis.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: the spacing of the kernel's taps.
        activation: applied to the output; None: linear.
        use_bias: add a bias.
        kernel_initializer: the kernel's initializer.
        bias_initializer: the bias's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``...).

    Raises:
        ValueError: ``strides`` and ``dilation_rate`` both above 1.
    """

    _weight_names = ("kernel", "bias")

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=(1, 1, 1),
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        require_channels_last(data_format, "Conv3DTranspose")
        self.filters = int(filters)
        self.kernel_size, self.strides, self.dilation_rate = triple(kernel_size), triple(strides), triple(dilation_rate)
        if max(self.dilation_rate) > 1 and max(self.strides) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.padding = checked_padding(padding)
        self.output_padding = None if output_padding is None else triple(output_padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(ndim=5)

    def build(self, input_shape):
        channels = input_shape[-1]
        self.kernel = self.add_weight(
            "kernel", self.kernel_size + (self.filters, channels), initializer=self.kernel_initializer
        )
        self.bias = (
            self.add_weight("bias", (self.filters,), initializer=self.bias_initializer) if self.use_bias else None
        )
        self.input_spec = InputSpec(ndim=5, axes={-1: channels})

    def _transposed_shape(self, input_shape):
        sizes = [
            transposed_length(
                input_shape[1 + axis],
                self.kernel_size[axis],
                self.strides[axis],
                self.padding,
                None if self.output_padding is None else self.output_padding[axis],
                self.dilation_rate[axis],
            )
            for axis in range(3)
        ]
        return (input_shape[0], *sizes, self.filters)

    def call(self, inputs):
        x = conv3d_transpose(
            self._as_float(inputs),
            self.kernel,
            self._transposed_shape(inputs.shape),
            self.strides,
            self.padding.upper(),
            dilations=self.dilation_rate,
        )
        if self.use_bias:
            x = x + self.bias
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape``, by Keras's rule (the batch may be None).

        Args:
            input_shape: a shape tuple (the batch may be None).

        Returns:
            The output's shape, a tuple.
        """
        return self._transposed_shape(tuple(input_shape))


Convolution3DTranspose = Conv3DTranspose
