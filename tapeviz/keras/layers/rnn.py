"""Recurrent layers: ``RNN`` runs a cell over the steps of a sequence; SimpleRNN, LSTM and GRU are RNNs of Keras 3's cells.

Inputs are (batch, steps, features). A cell maps (input at one step, states)
to (output, new states); the layer loops over the steps in Python, so the
tape records every step, which the visualizer can show unrolled. The cells'
formulas, weight layouts and defaults are Keras 3's (LSTM gates i, f, c, o;
GRU gates z, r, h with ``reset_after=True``; recurrent kernels initialized
'orthogonal'), so weights taken from Keras with ``set_weights`` give
Keras's outputs. ``dropout`` and ``recurrent_dropout`` draw Keras 3's masks
from the cell's SeedGenerator (DropoutRNNCell), so seeded runs drop the same
units as Keras.
"""

import numpy as np

from tapeviz.core.primitives.array import concat, expand_dims, ones_like, split, stack, unstack, zeros
from tapeviz.core.primitives.linalg import matmul
from tapeviz.core.primitives.math import cast
from tapeviz.core.scopes import name_scope
from tapeviz.keras import activations, initializers
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.base import InputSpec, Layer, own_path

__all__ = ["RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU"]


class DropoutRNNCell:
    """Keras 3's dropout masks of a recurrent cell (a mixin for a Layer with ``dropout``, ``recurrent_dropout``
    and ``seed_generator``).

    A mask is drawn from ``seed_generator`` the first time it is asked for while
    its rate is above 0 and kept until reset: the RNN layer asks for both before
    its first step (at inference too, so the generator moves on) and resets them
    after its last, so every step of a call drops the same units. With
    ``dropout_mask_count`` set (LSTM and GRU when ``implementation=1``, which
    ``recurrent_dropout`` implies; ConvLSTM) each gate gets its own mask.
    """

    dropout_mask_count = None
    _dropout_mask = None
    _recurrent_dropout_mask = None

    def _create_dropout_mask(self, step_input, rate):
        ones = ones_like(step_input)
        if self.dropout_mask_count is None:
            return keras_random.dropout(ones, rate, seed=self.seed_generator)
        return [keras_random.dropout(ones, rate, seed=self.seed_generator) for _ in range(self.dropout_mask_count)]

    def get_dropout_mask(self, step_input):
        """The inputs' mask (or one per gate), drawn at the first request while ``dropout`` > 0.

        Args:
            step_input: one step's inputs (the mask takes their shape and dtype).

        Returns:
            A Tensor, a list of them (one per gate), or None when ``dropout`` is 0.
        """
        if self._dropout_mask is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_input):
        """The recurrent state's mask (or one per gate), drawn at the first request while ``recurrent_dropout`` > 0.

        Args:
            step_input: the state (the mask takes its shape and dtype).

        Returns:
            A Tensor, a list of them (one per gate), or None when ``recurrent_dropout`` is 0.
        """
        if self._recurrent_dropout_mask is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._create_dropout_mask(step_input, self.recurrent_dropout)
        return self._recurrent_dropout_mask

    def _masks_for(self, inputs, h_prev, training):
        """The (input, recurrent) masks a training step applies: Keras's only for rates strictly between 0 and 1."""
        x_masks = self.get_dropout_mask(inputs) if training and 0.0 < self.dropout < 1.0 else None
        h_masks = self.get_recurrent_dropout_mask(h_prev) if training and 0.0 < self.recurrent_dropout < 1.0 else None
        return x_masks, h_masks

    def reset_dropout_mask(self):
        """Forget the inputs' mask (the next request draws a new one)."""
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        """Forget the recurrent state's mask (the next request draws a new one)."""
        self._recurrent_dropout_mask = None


def projected(x, kernel, masks, gates):
    """``x @ kernel``; with dropout ``masks``, x times the mask, or with one mask per gate, each gate's columns
    of the kernel times its own masked copy of x (Keras's ``implementation=1``)."""
    if masks is None:
        return matmul(x, kernel)
    if not isinstance(masks, list):
        return matmul(x * masks, kernel)
    return concat([matmul(x * m, k) for m, k in zip(masks, split(kernel, gates, axis=-1))], axis=-1)


class _Cell(DropoutRNNCell, Layer):
    """What the cells share: units, initializers, state sizes and Keras's dropout masks."""

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, got {units}."
            )
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        # Keras makes these in this order, each taking a default seed from Python's random when given none
        if self.seed_generator_first:
            self.seed_generator = keras_random.SeedGenerator(seed)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        if not self.seed_generator_first:
            self.seed_generator = keras_random.SeedGenerator(seed)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed

    state_count = 1
    seed_generator_first = False  # SimpleRNNCell makes its SeedGenerator before its initializers

    @property
    def state_size(self):
        return [self.units] * self.state_count if self.state_count > 1 else self.units

    def get_initial_state(self, batch_size):
        """The zero state for a batch.

        Args:
            batch_size: the batch size.

        Returns:
            A list of zero Tensors, one per state.
        """
        return [zeros((batch_size, self.units)) for _ in range(self.state_count)]

    def _kernels(self, input_dim, gates):
        self.kernel = self.add_weight(
            name="kernel", shape=(input_dim, gates * self.units), initializer=self.kernel_initializer
        )
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel", shape=(self.units, gates * self.units), initializer=self.recurrent_initializer
        )

    def get_config(self):
        return {
            **super().get_config(),
            "units": self.units,
            "use_bias": self.use_bias,
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)``.

    Args:
        units: the size of the output (or hidden state).
        activation: the output's activation.
        use_bias: add a bias.
        kernel_initializer: the kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        dropout: the dropout rate of the inputs (or attention scores).
        recurrent_dropout: the dropout rate of the recurrent state.
        seed: a seed for its random numbers.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: ``units`` that is not a positive integer.

    Raises:
        ValueError: ``units`` that is not a positive integer.
    """

    seed_generator_first = True

    def build(self, input_shape):
        self._kernels(input_shape[-1], 1)
        self.bias = (
            self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer)
            if self.use_bias
            else None
        )

    def call(self, inputs, states, training=None):
        h_prev = states[0]
        # as Keras's SimpleRNNCell: the masks are asked for (so drawn) at inference too, applied in training
        x_mask, h_mask = self.get_dropout_mask(inputs), self.get_recurrent_dropout_mask(h_prev)
        x = inputs * x_mask if training and x_mask is not None else inputs
        if training and h_mask is not None:
            h_prev = h_prev * h_mask
        h = matmul(x, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        output = self.activation(h + matmul(h_prev, self.recurrent_kernel))
        return output, [output]


class LSTMCell(_Cell):
    """Long short-term memory, Keras 3's form (gates i, f, c, o in that order along the kernels' last axis)::

        z = x @ kernel + h_prev @ recurrent_kernel + bias
        i, f, o = sigmoid(z_i), sigmoid(z_f), sigmoid(z_o);   c = f * c_prev + i * tanh(z_c);   h = o * tanh(c)

    ``unit_forget_bias=True`` starts the forget gate's bias at 1.

    Args:
        units: the size of the output (or hidden state).
        activation: applied to the output (a name or a function); None: linear.
        recurrent_activation: the gates' activation.
        use_bias: add a bias.
        kernel_initializer: the kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        unit_forget_bias: start the forget gate's bias at 1.
        implementation: 1 computes each gate apart, with its own dropout masks (as ``recurrent_dropout`` > 0
            implies); 2 (default) all gates in one product, with one input mask.
        **kwargs: ``dropout``, ``recurrent_dropout``, ``seed`` (see SimpleRNNCell) and the base Layer's arguments
            (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    state_count = 2

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        implementation=2,
        **kwargs,
    ):
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer, **kwargs
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = 1 if self.recurrent_dropout != 0.0 else implementation
        if self.implementation == 1:  # one dropout mask per gate, as Keras
            self.dropout_mask_count = 4

    def build(self, input_shape):
        self._kernels(input_shape[-1], 4)
        if not self.use_bias:
            self.bias = None
            return
        initializer = forget_gate_ones(self.bias_initializer, self.units) if self.unit_forget_bias else None
        self.bias = self.add_weight(
            name="bias", shape=(4 * self.units,), initializer=initializer or self.bias_initializer
        )

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states
        x_masks, h_masks = self._masks_for(inputs, h_prev, training)
        z = projected(inputs, self.kernel, x_masks, 4) + projected(h_prev, self.recurrent_kernel, h_masks, 4)
        if self.bias is not None:
            z = z + self.bias
        return lstm_gates(z, c_prev, self.activation, self.recurrent_activation)


def lstm_gates(z, c_prev, activation, recurrent_activation):
    """An LSTM step from its pre-activations ``z`` (gates i, f, c, o along the last axis): ``(h, [h, c])``."""
    z_i, z_f, z_c, z_o = split(z, 4, axis=-1)
    i = recurrent_activation(z_i)
    f = recurrent_activation(z_f)
    c = f * c_prev + i * activation(z_c)
    o = recurrent_activation(z_o)
    h = o * activation(c)
    return h, [h, c]


def forget_gate_ones(base, units):
    """Keras's ``unit_forget_bias``: the bias initializer with the forget gate's quarter set to 1."""

    def initializer(shape, dtype=None):
        parts = [
            np.asarray(base((units,), dtype=dtype)),
            np.ones((units,)),
            np.asarray(base((2 * units,), dtype=dtype)),
        ]
        return np.concatenate(parts).astype(dtype or "float32")

    return initializer


class GRUCell(_Cell):
    """Gated recurrent unit, Keras 3's form (gates z, r, h along the kernels' last axis).

    With ``reset_after=True`` (the default) the reset gate multiplies the
    recurrent term after its matrix product, and the bias is (2, 3 * units):
    an input bias and a recurrent bias::

        x_z, x_r, x_h = split(x @ kernel + b_in);   r_z, r_r, r_h = split(h_prev @ recurrent_kernel + b_rec)
        z = sigmoid(x_z + r_z);   r = sigmoid(x_r + r_r);   hh = tanh(x_h + r * r_h)
        h = z * h_prev + (1 - z) * hh

    Args:
        units: the size of the output (or hidden state).
        activation: applied to the output (a name or a function); None: linear.
        recurrent_activation: the gates' activation.
        use_bias: add a bias.
        kernel_initializer: the kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        reset_after: apply the reset gate after the matrix product (Keras 3's default, cuDNN-compatible).
        implementation: 1 computes each gate apart, with its own dropout masks (as ``recurrent_dropout`` > 0
            implies); 2 (default) all gates in one product, with one input mask.
        **kwargs: ``dropout``, ``recurrent_dropout``, ``seed`` (see SimpleRNNCell) and the base Layer's arguments
            (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        reset_after=True,
        implementation=2,
        **kwargs,
    ):
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer, **kwargs
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after
        self.implementation = 1 if self.recurrent_dropout != 0.0 else implementation
        if self.implementation == 1:  # one dropout mask per gate, as Keras
            self.dropout_mask_count = 3

    def build(self, input_shape):
        self._kernels(input_shape[-1], 3)
        if self.use_bias:
            shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self.bias = self.add_weight(name="bias", shape=shape, initializer=self.bias_initializer)
        else:
            self.bias = None

    def call(self, inputs, states, training=None):
        h_prev = states[0]
        x_masks, h_masks = self._masks_for(inputs, h_prev, training)
        u = self.units
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = unstack(self.bias, axis=0)
            else:
                input_bias = self.bias
        matrix_x = projected(inputs, self.kernel, x_masks, 3)
        if input_bias is not None:
            matrix_x = matrix_x + input_bias
        x_z, x_r, x_h = split(matrix_x, 3, axis=-1)
        if self.reset_after:
            inner = projected(h_prev, self.recurrent_kernel, h_masks, 3)
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
        else:
            first_two = h_masks[:2] if isinstance(h_masks, list) else h_masks
            inner = projected(h_prev, self.recurrent_kernel[:, : 2 * u], first_two, 2)
        r_z, r_r = inner[:, :u], inner[:, u : 2 * u]
        z = self.recurrent_activation(x_z + r_z)
        r = self.recurrent_activation(x_r + r_r)
        if self.reset_after:
            r_h = r * inner[:, 2 * u :]
        else:
            h_candidate = h_prev if h_masks is None else h_prev * (h_masks[2] if isinstance(h_masks, list) else h_masks)
            r_h = matmul(r * h_candidate, self.recurrent_kernel[:, 2 * u :])
        hh = self.activation(x_h + r_h)
        h = z * h_prev + (1 - z) * hh
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "reset_after": self.reset_after}


class RNN(Layer):
    """Run ``cell`` over the steps of (batch, steps, features) inputs.

    Returns the last output (batch, units), or every step's (batch, steps,
    units) with ``return_sequences=True``; with ``return_state=True`` a list
    ``[output, *final_states]``. ``initial_state`` (a list of tensors) is
    given at call time; ``go_backwards`` runs the steps in reverse (and
    returns the reversed sequence, as Keras). ``stateful=True`` keeps the
    final states as the next call's initial states, until ``reset_states()``.

    Args:
        cell: a cell layer (``SimpleRNNCell``...) with a ``state_size``.
        return_sequences: return every step's output (else the last).
        return_state: also return the final state.
        go_backwards: run over the steps in reverse.
        stateful: accepted for compatibility.
        unroll: accepted for compatibility.
        zero_output_for_mask: give masked steps a zero output (else the previous one).
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``cell`` that is not a layer with a ``state_size``.

    Raises:
        ValueError: a ``cell`` that is not a layer with a ``state_size``.
    """

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
            raise ValueError(
                f"Argument `cell` should have a `call` method and a `state_size` attribute. Received: cell={cell}"
            )
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self.zero_output_for_mask = zero_output_for_mask
        self.states = None
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, input_shape):
        step_shape = (input_shape[0],) + tuple(input_shape[2:])
        with name_scope(self.cell.name), own_path(self.cell):
            self.cell.build(step_shape)
        self.cell.built = True

    def call(self, inputs, initial_state=None, mask=None, training=None):
        batch = inputs.shape[0]
        if initial_state is not None:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        elif self.stateful and self.states is not None:
            states = list(self.states)
        else:
            states = self.cell.get_initial_state(batch)
        steps = unstack(inputs, axis=1)
        keep = None if mask is None else unstack(expand_dims(cast(mask, inputs.dtype), -1), axis=1)
        if self.go_backwards:
            steps = steps[::-1]
            keep = None if keep is None else keep[::-1]
        if isinstance(self.cell, DropoutRNNCell):  # drawn before the first step, at inference too, as Keras
            self.cell.get_dropout_mask(steps[0])
            self.cell.get_recurrent_dropout_mask(states[0])
        outputs = []
        try:
            for t, x_t in enumerate(steps):
                output, new_states = self.cell(x_t, states, training=training)
                if keep is not None:  # a masked step keeps the previous output and states, as Keras
                    previous = outputs[-1] if outputs and not self.zero_output_for_mask else output * 0.0
                    output = keep[t] * output + (1.0 - keep[t]) * previous
                    new_states = [keep[t] * n + (1.0 - keep[t]) * o for n, o in zip(new_states, states)]
                states = new_states
                outputs.append(output)
        finally:
            if isinstance(self.cell, DropoutRNNCell):
                self.cell.reset_dropout_mask()
                self.cell.reset_recurrent_dropout_mask()
        if self.stateful:
            self.states = [s for s in states]
        result = stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return [result] + list(states) if self.return_state else result

    def compute_mask(self, inputs, mask=None):
        """The sequence output keeps the input's mask; a last-step output has none (as Keras).

        Args:
            inputs: the layer's inputs.
            mask: the inputs' mask.

        Returns:
            ``mask`` with ``return_sequences``, else None.
        """
        return mask if self.return_sequences else None

    def reset_states(self):
        """Forget the states a ``stateful`` RNN carried over (the next call starts from zeros)."""
        self.states = None

    reset_state = reset_states

    def get_config(self):
        return {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
        }


def split_rnn_kwargs(kwargs):
    """The RNN layer's own keyword arguments, apart from the cell's."""
    own = {
        k: kwargs.pop(k)
        for k in (
            "return_sequences",
            "return_state",
            "go_backwards",
            "stateful",
            "unroll",
            "name",
            "trainable",
            "dtype",
            "input_shape",
            "zero_output_for_mask",
        )
        if k in kwargs
    }
    return own


class SimpleRNN(RNN):
    """A fully connected RNN: ``h = tanh(x @ kernel + bias + h_prev @ recurrent_kernel)`` (SimpleRNNCell).

    Args:
        units: the size of the output (or hidden state).
        **kwargs: the cell's options (``activation``, ``use_bias``, initializers, ``dropout``...) and the RNN's (``return_sequences``, ``return_state``, ``go_backwards``...).
    """

    def __init__(self, units, **kwargs):
        own = split_rnn_kwargs(kwargs)
        super().__init__(SimpleRNNCell(units, **kwargs), **own)


class LSTM(RNN):
    """Long short-term memory (LSTMCell): Keras 3's defaults (tanh, sigmoid gates, unit_forget_bias).

    Args:
        units: the size of the hidden state.
        **kwargs: the RNN's and cell's options (``activation``, ``return_sequences``,
            ``return_state``, ``go_backwards``, ``dropout``...) and the base Layer's.
    """

    def __init__(self, units, **kwargs):
        own = split_rnn_kwargs(kwargs)
        super().__init__(LSTMCell(units, **kwargs), **own)


class GRU(RNN):
    """Gated recurrent unit (GRUCell): Keras 3's defaults (reset_after=True).

    Args:
        units: the size of the output (or hidden state).
        **kwargs: the cell's options (``activation``, ``recurrent_activation``, ``reset_after``...) and the RNN's (``return_sequences``, ``return_state``...).
    """

    def __init__(self, units, **kwargs):
        own = split_rnn_kwargs(kwargs)
        super().__init__(GRUCell(units, **kwargs), **own)


for _layer in (SimpleRNN, LSTM, GRU):
    for _attr in (
        "units",
        "activation",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
        "dropout",
        "recurrent_dropout",
    ):
        setattr(_layer, _attr, property(lambda self, _a=_attr: getattr(self.cell, _a)))
del _layer, _attr
