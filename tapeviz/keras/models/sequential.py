"""``Sequential``: a Model that is a plain stack of layers."""

from tapeviz.keras.layers.base import KerasTensor, Layer, probe_output_shape
from tapeviz.keras.layers.core import InputLayer
from tapeviz.keras.models.functional import adjust_rank
from tapeviz.keras.models.model import Model


class Sequential(Model):
    """A plain stack of layers, each feeding the next, as ``tf.keras.Sequential``.

    Give the input shape (``tf.keras.Input(shape=...)`` first, or
    ``input_shape=`` on the first layer) to build it at once; otherwise it
    builds on its first call.

    Args:
        layers: the layers, in order (a ``tf.keras.Input`` may come first).
        name: the model's name.
        trainable: whether its weights are trained.

    Example:
        >>> import tapeviz as tf
        >>> model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(8, activation="relu"),
        ...                              tf.keras.layers.Dense(1)])
        >>> model.output_shape
        (None, 1)
        >>> model.count_params()
        49
    """

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self._input_shape = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        """Append a layer (or a ``tf.keras.Input``).

        Args:
            layer: a Layer, or a ``tf.keras.Input`` (as the first layer only).

        Raises:
            ValueError: an Input after the first layer, or a layer already in the model.
            TypeError: something that is not a Layer.
        """
        if isinstance(layer, KerasTensor):
            if self._layers:
                raise ValueError("An Input can only be the first layer of a Sequential model.")
            self._input_shape = layer.shape
            layer = layer.input_layer
        elif isinstance(layer, InputLayer):
            self._input_shape = (None,) + layer.shape
        elif not isinstance(layer, Layer):
            raise TypeError(
                f"Only instances of `keras.Layer` can be added to a Sequential model. Received: {layer!r} (of type {type(layer).__name__})"
            )
        if any(layer is existing for existing in self._layers):
            raise ValueError(f"The layer {layer.name} is already in the model.")
        if self._input_shape is None and not self._layers and getattr(layer, "_input_shape_arg", None):
            self._input_shape = (None,) + layer._input_shape_arg
        self._layers.append(layer)
        if self._input_shape is not None:
            self._build_now()

    _lists_layers_when_saved = True

    def pop(self):
        """Remove the last layer.

        Returns:
            The layer removed.

        Raises:
            TypeError: a model with no layers.
        """
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        return self._layers.pop()

    def _build_now(self):
        """Build on a zero batch; unknown sizes (``input_shape=(None, None, 3)``) stay None in ``output_shape``."""
        shape, _ = probe_output_shape(
            lambda probe: Layer.__call__(self, probe, training=False), KerasTensor(tuple(self._input_shape))
        )
        self.__dict__["_output_shape"] = shape

    @property
    def inputs(self):
        """``[KerasTensor]``: the model's symbolic input, as Keras 3 gives it once the input shape is known."""
        return self._symbolic()[0]

    @property
    def outputs(self):
        """``[KerasTensor]``: the last layer's symbolic output."""
        return self._symbolic()[1]

    @property
    def input_shape(self):
        """The input shape with its batch (None), once an Input or a call gave it."""
        if self._input_shape is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined input shape yet.")
        return tuple(self._input_shape)

    def _symbolic(self):
        if self._input_shape is None:
            raise AttributeError(
                f"Sequential model '{self.name}' has no defined inputs yet: give it an Input (or call it on data) first."
            )
        from tapeviz.keras.layers.core import Input

        x = start = Input(batch_shape=tuple(self._input_shape))
        for layer in self._layers:
            x = layer(x)
        return [start], [x]

    def call(self, inputs, training=None):
        x = inputs if self._input_shape is None else adjust_rank(inputs, self._input_shape)  # as Keras 3's Functional
        for layer in self._layers:
            x = layer(x, training=training)
        return x
