"""Core layers: Dense, Flatten, Dropout, Activation, Embedding, Reshape and Input."""

import numpy as np

from tapeviz.core.primitives.array import gather, reshape
from tapeviz.core.primitives.linalg import matmul
from tapeviz.core.primitives.math import cast
from tapeviz.keras import activations, initializers
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.base import InputSpec, KerasTensor, Layer

__all__ = ["Dense", "Flatten", "Dropout", "Activation", "Embedding", "Reshape", "InputLayer", "Input"]


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``, the kernel of shape (input_dim, units).

    Kernel initialized 'glorot_uniform' and bias 'zeros' by default, as in
    Keras. Inputs of rank > 2 are multiplied along their last axis.

    Args:
        units: the number of outputs (a positive integer).
        activation: a function or its name (``"relu"``); None: linear.
        use_bias: add a bias vector.
        kernel_initializer: an initializer or its name.
        bias_initializer: an initializer or its name.
        kernel_regularizer: a regularizer whose penalty joins ``model.losses``.
        bias_regularizer: likewise for the bias.
        kernel_constraint, bias_constraint: constraints applied after each optimizer step.
        activity_regularizer: a regularizer of the output (divided by the batch size).
        **kwargs: ``name``, ``input_shape``, ``dtype``... as for every layer.

    Returns:
        The layer; called on a ``[batch, ..., input_dim]`` tensor it returns
        ``[batch, ..., units]``.

    Raises:
        ValueError: ``units`` that is not a positive integer.

    Example:
        >>> import tapeviz as tf
        >>> layer = tf.keras.layers.Dense(3, activation="relu")
        >>> layer(tf.ones((4, 2))).shape
        TensorShape([4, 3])
        >>> layer.kernel.shape
        TensorShape([2, 3])
    """

    _weight_names = ("kernel", "bias")
    supports_masking = True

    def __init__(
        self,
        units,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not isinstance(units, (int, np.integer)) or units <= 0:
            raise ValueError(
                f"Received an invalid value for `units`, expected a positive integer. Received: units={units}"
            )
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.kernel = self.add_weight("kernel", (input_dim, self.units), initializer=self.kernel_initializer)
        self.bias = self.add_weight("bias", (self.units,), initializer=self.bias_initializer) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs):
        inputs = self._as_float(inputs)
        if inputs.ndim == 2:
            x = matmul(inputs, self.kernel)
        else:  # multiply along the last axis: fold the leading axes into one
            lead = tuple(inputs.shape)[:-1]
            x = reshape(matmul(reshape(inputs, (-1, inputs.shape[-1])), self.kernel), lead + (self.units,))
        if self.use_bias:
            x = x + self.bias
        return self.activation(x)


class Flatten(Layer):
    """Flatten every axis but the batch: (batch, a, b, ...) -> (batch, a*b*...)."""

    def call(self, inputs):
        if inputs.ndim == 1:
            return reshape(inputs, (-1, 1))
        return reshape(inputs, (inputs.shape[0], -1))


class Reshape(Layer):
    """Reshape every example to ``target_shape`` (the batch axis is kept).

    Args:
        target_shape: the output's shape without the batch.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0],) + self.target_shape)


class Activation(Layer):
    """Apply an activation function ('relu', 'softmax'... or a callable).

    Args:
        activation: the activation: a name (``"relu"``) or a function.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Dropout(Layer):
    """Zero a fraction ``rate`` of the inputs at random during training, scaling the rest by 1/(1-rate).

    At inference (``training`` False or not given, ``model.predict``) it
    passes inputs through unchanged, as in Keras.

    Args:
        rate: the fraction of inputs to zero, in [0, 1].
        noise_shape: the shape of the random mask (size 1 to share it along an axis).
        seed: a seed for the mask.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``rate`` outside [0, 1].

    Example:
        >>> import tapeviz as tf
        >>> layer = tf.keras.layers.Dropout(0.5)
        >>> print(layer(tf.ones([4])))  # not training: unchanged
        tf.Tensor([1. 1. 1. 1.], shape=(4,), dtype=float32)
    """

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate={rate}"
            )
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        if rate > 0:  # as Keras: made now, so an unseeded one takes its default seed in Keras's order
            self.seed_generator = keras_random.SeedGenerator(seed)

    def call(self, inputs, training=None):
        if training and self.rate > 0:
            return keras_random.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed_generator)
        return inputs


class Embedding(Layer):
    """Look up rows of an (input_dim, output_dim) table for integer inputs.

    The table is initialized 'uniform' (on [-0.05, 0.05)) as in Keras; its
    gradient is dense here (TF's is an IndexedSlices with the same values).

    Args:
        input_dim: the number of rows (the largest index + 1).
        output_dim: the length of each row.
        embeddings_initializer: the table's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    _weight_names = ("embeddings",)

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", **kwargs):
        mask_zero = kwargs.pop("mask_zero", False)
        super().__init__(**kwargs)
        self.mask_zero = mask_zero
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings", (self.input_dim, self.output_dim), initializer=self.embeddings_initializer
        )

    def compute_mask(self, inputs, mask=None):
        """With ``mask_zero=True``, the positions whose index is not 0 (0 is padding), as Keras.

        Args:
            inputs: the integer inputs.
            mask: the incoming mask (ignored).

        Returns:
            A bool Tensor of ``inputs``'s shape, or None without ``mask_zero``.
        """
        if not self.mask_zero:
            return None
        from tapeviz.keras import ops

        return ops.not_equal(inputs, 0)

    def call(self, inputs):
        if inputs.dtype.is_floating:
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs)


class InputLayer(Layer):
    """The input of a Sequential model: fixes the shape of each example.

    Args:
        shape: one example's shape.
        batch_size: a fixed batch size.
        dtype: the dtype of its variables and computations (floatx when None).
        input_shape: Keras 2's name for ``shape``.
        name: the object's name.
        **kwargs: accepted for compatibility.

    Raises:
        ValueError: no ``shape``.

    Raises:
        ValueError: no ``shape``.
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, input_shape=None, name=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        shape = shape if shape is not None else input_shape
        if shape is None:
            raise ValueError("An InputLayer needs a `shape` (the shape of one example, without the batch).")
        self.shape = tuple(shape)
        self.built = True

    def call(self, inputs):
        return inputs


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None, **kwargs):  # noqa: N802 (Keras's name)
    """A symbolic input of ``shape`` (one example's shape; None for a size known only at call time,
    ``Input(shape=(None, 3))``), or of ``batch_shape`` (the batch included): starts a Sequential or a
    functional model.

    Args:
        shape: one example's shape (a tuple; None for a size known at call time).
        batch_size: a fixed batch size.
        dtype: the inputs' dtype (floatx by default).
        name: the input's name.
        batch_shape: the shape with the batch, instead of ``shape`` and ``batch_size``.
        **kwargs: Keras 2's ``tensor``, ``sparse``..., accepted for compatibility.

    Returns:
        A ``KerasTensor``, a symbolic tensor to call layers on (the functional API).

    Raises:
        ValueError: both ``shape`` and ``batch_shape``, or neither.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.keras.Input(shape=(28, 28, 1))
        >>> x.shape
        (None, 28, 28, 1)
    """
    if batch_shape is not None:
        if shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        batch_shape = tuple(batch_shape)
        shape, batch_size = batch_shape[1:], batch_shape[0]
    if shape is None:
        raise ValueError(
            "Please provide to Input a `shape` argument. Note that `shape` does not include the batch dimension."
        )
    if isinstance(shape, int):
        shape = (shape,)
    tensor = KerasTensor((batch_size,) + tuple(shape), dtype or "float32", name=name or "input")
    tensor.input_layer = InputLayer(shape=shape, name=name)
    return tensor
