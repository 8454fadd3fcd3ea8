"""ConvLSTM1D/2D/3D: an LSTM whose gates are convolutions, over (batch, steps, *spatial, channels) inputs.

Keras 3's cell, gates i, f, c, o along the kernels' last axis::

    z = conv(x, kernel) + bias + conv_same(h_prev, recurrent_kernel)
    i, f, o = sigmoid(z_i), sigmoid(z_f), sigmoid(z_o);   c = f * c_prev + i * tanh(z_c);   h = o * tanh(c)

The input convolution takes the layer's strides, padding and dilation; the recurrent one keeps the state's
size (stride 1, 'same'). The 1-D form is the 2-D one on a height of 1; the 3-D one runs ``tf.nn.conv3d``.
"""

import math

from tapeviz import volume_ops
from tapeviz.core.primitives.array import concat, expand_dims, split, squeeze, zeros
from tapeviz.core.primitives.conv import conv2d
from tapeviz.keras import activations, initializers
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.base import Layer
from tapeviz.keras.layers.conv import checked_padding, require_channels_last
from tapeviz.keras.layers.rnn import RNN, DropoutRNNCell, forget_gate_ones, lstm_gates, split_rnn_kwargs


def _conv(x, kernel, strides, padding, dilation):
    """The N-d convolution (N = 1, 2, 3) of channels-last ``x`` with ``kernel``."""
    rank = len(strides)
    if rank == 1:
        y = conv2d(expand_dims(x, 1), expand_dims(kernel, 0), (1,) + strides, padding, dilations=(1,) + dilation)
        return squeeze(y, axis=1)
    if rank == 2:
        return conv2d(x, kernel, strides, padding, dilations=dilation)
    return volume_ops.conv3d(x, kernel, strides, padding, dilations=dilation)


class ConvLSTMCell(DropoutRNNCell, Layer):
    """One step of a ConvLSTM (``rank`` 1, 2 or 3 spatial axes); its state is (h, c), each (batch, *spatial,
    filters). Its dropout masks are Keras's: one per gate, drawn once per call of the RNN layer."""

    dropout_mask_count = 4

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        require_channels_last(data_format, f"ConvLSTM{rank}D")
        self.seed = seed
        self.seed_generator = keras_random.SeedGenerator(seed)  # before the initializers, as Keras

        def n(value):
            return (value,) * rank if isinstance(value, int) else tuple(int(v) for v in value)

        self.rank, self.filters = rank, int(filters)
        self.kernel_size, self.strides, self.dilation_rate = n(kernel_size), n(strides), n(dilation_rate)
        self.padding = checked_padding(padding)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.spatial = None  # the state's spatial sizes, known once built

    @property
    def state_size(self):
        return [self.filters, self.filters]

    def build(self, input_shape):
        channels, sizes = input_shape[-1], tuple(input_shape[1:-1])
        gates = 4 * self.filters
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (channels, gates), initializer=self.kernel_initializer
        )
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel",
            shape=self.kernel_size + (self.filters, gates),
            initializer=self.recurrent_initializer,
        )
        self.bias = None
        if self.use_bias:
            initializer = forget_gate_ones(self.bias_initializer, self.filters) if self.unit_forget_bias else None
            self.bias = self.add_weight(name="bias", shape=(gates,), initializer=initializer or self.bias_initializer)
        self.spatial = tuple(
            math.ceil(size / s) if self.padding == "same" else (size - (k - 1) * d - 1) // s + 1
            for size, k, s, d in zip(sizes, self.kernel_size, self.strides, self.dilation_rate)
        )

    def get_initial_state(self, batch_size):
        return [zeros((batch_size,) + self.spatial + (self.filters,)) for _ in range(2)]

    def _gates(self, x, kernel, strides, padding, dilation, masks):
        """The convolution of ``x`` for all four gates: one conv, or one per gate on its own masked copy."""
        if masks is None:
            return _conv(x, kernel, strides, padding, dilation)
        kernels = split(kernel, 4, axis=-1)
        return concat([_conv(x * m, k, strides, padding, dilation) for m, k in zip(masks, kernels)], axis=-1)

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states
        input_masks, state_masks = self._masks_for(inputs, h_prev, training)
        padding = self.padding.upper()
        z = self._gates(self._as_float(inputs), self.kernel, self.strides, padding, self.dilation_rate, input_masks)
        if self.bias is not None:
            z = z + self.bias
        ones = (1,) * self.rank
        z = z + self._gates(h_prev, self.recurrent_kernel, ones, "SAME", ones, state_masks)
        return lstm_gates(z, c_prev, self.activation, self.recurrent_activation)


class _ConvLSTM(RNN):
    rank = None

    def __init__(self, filters, kernel_size, **kwargs):
        own = split_rnn_kwargs(kwargs)
        super().__init__(ConvLSTMCell(self.rank, filters, kernel_size, **kwargs), **own)
        self.input_spec = None


class ConvLSTM1D(_ConvLSTM):
    """A ConvLSTM over (batch, steps, width, channels): every step's gates are 1-D convolutions.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        **kwargs: the convolution's options (``strides``, ``padding``...) and the RNN's (``return_sequences``...).
    """

    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """A ConvLSTM over (batch, steps, height, width, channels): every step's gates are 2-D convolutions.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        **kwargs: the convolution's options (``strides``, ``padding``...) and the RNN's (``return_sequences``...).
    """

    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """A ConvLSTM over (batch, steps, depth, height, width, channels): the gates are 3-D convolutions.

    Args:
        filters: the number of output channels.
        kernel_size: the window's size: an int, or one per spatial axis.
        **kwargs: the convolution's options (``strides``, ``padding``...) and the RNN's (``return_sequences``...).
    """

    rank = 3
