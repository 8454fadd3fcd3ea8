"""Layers that wrap layers: Lambda, Masking, TimeDistributed, Bidirectional."""

from tapeviz.core import nest
from tapeviz.keras import ops
from tapeviz.keras.layers.base import Layer

__all__ = ["Lambda", "Masking", "TimeDistributed", "Bidirectional"]


class Lambda(Layer):
    """A layer from a function of the inputs: ``Lambda(lambda x: x ** 2)``; ``arguments`` are passed as keywords.

    Its weights are none (a Lambda's function must not create variables, as in Keras).

    Args:
        function: the function of the inputs.
        output_shape: the output's shape, when it cannot be found by running the function.
        mask: the output's mask (or a function of the inputs and their mask).
        arguments: keyword arguments passed to ``function``.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``function`` that is not callable.

    Raises:
        ValueError: a ``function`` that is not callable.
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(f"Lambda's `function` must be callable. Received: function={function!r}")
        self.function, self.arguments = function, dict(arguments or {})
        self._lambda_output_shape = output_shape

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        if self._lambda_output_shape is None:
            return super().compute_output_shape(input_shape)
        shape = self._lambda_output_shape
        return shape(input_shape) if callable(shape) else (input_shape[0],) + tuple(shape)


class Masking(Layer):
    """Zero the timesteps whose features all equal ``mask_value``, and mask them for the next layers
    (an RNN then skips them), as Keras.

    Args:
        mask_value: the value that marks a time step to skip.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return ops.any(ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = ops.any(ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * ops.cast(keep, inputs.dtype.name)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}


class TimeDistributed(Layer):
    """Apply ``layer`` to every timestep of (batch, steps, ...) inputs, with one set of weights.

    Args:
        layer: the layer applied to every step.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: a ``layer`` that is not a Layer.

    Raises:
        ValueError: a ``layer`` that is not a Layer.
    """

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. Received: {layer}"
            )
        self.layer = layer

    def build(self, input_shape):
        """Create the weights for inputs of ``input_shape``. Called once, by the first call.

        Args:
            input_shape: the shape of the first inputs (batch, steps, ...).

        Raises:
            ValueError: an input of rank below 3.
        """
        if len(input_shape) < 3:
            raise ValueError(
                f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, received: {input_shape}"
            )
        self.layer.build((None,) + tuple(input_shape[2:]))
        self.layer.built = True

    def call(self, inputs, training=None):
        batch, steps = inputs.shape[0], inputs.shape[1]
        flat = ops.reshape(inputs, (batch * steps,) + tuple(inputs.shape[2:]))
        out = self.layer(flat, training=training)
        return nest.map_structure(lambda o: ops.reshape(o, (batch, steps) + tuple(o.shape[1:])), out)


class Bidirectional(Layer):
    """Run an RNN layer forwards and a copy of it backwards, and merge their outputs.

    ``merge_mode``: 'concat' (default), 'sum', 'mul', 'ave', or None (a list
    of both). The backward copy is made from the layer's constructor
    arguments with ``go_backwards`` flipped (or given as ``backward_layer``);
    with ``return_sequences`` its output is reversed back before merging.
    Weights: the forward layer's, then the backward layer's.

    Args:
        layer: the recurrent layer run forward.
        merge_mode: ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"`` or None (a list of both).
        weights: accepted for compatibility.
        backward_layer: the layer run backward (a copy of ``layer`` when None).
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).

    Raises:
        ValueError: an unknown ``merge_mode``.

    Raises:
        ValueError: an unknown ``merge_mode``.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        # as Keras 3, both directions are fresh layers made from ``layer``'s arguments (an unseeded one takes
        # new default seeds, in this order); ``layer`` itself runs neither way
        forward_layer = _copy(layer, "forward_" + layer.name.removeprefix("forward_"))
        if backward_layer is None:
            backward_layer = _copy(
                layer, "backward_" + layer.name.removeprefix("backward_"), not getattr(layer, "go_backwards", False)
            )
        layer, self.forward_layer, self.backward_layer = forward_layer, forward_layer, backward_layer
        for direction in (layer, backward_layer):  # masked steps output zeros in both directions, as Keras
            if hasattr(direction, "zero_output_for_mask"):
                direction.zero_output_for_mask = getattr(layer, "return_sequences", False)
        self.merge_mode = merge_mode
        self.return_sequences = getattr(layer, "return_sequences", False)
        self.return_state = getattr(layer, "return_state", False)

    def call(self, inputs, training=None, initial_state=None):
        forward = self.forward_layer(inputs, training=training)
        backward = self.backward_layer(inputs, training=training)
        forward_states = backward_states = []
        if self.return_state:
            forward, *forward_states = forward
            backward, *backward_states = backward
        if self.return_sequences:
            backward = ops.flip(backward, axis=1)
        if self.merge_mode == "concat":
            out = ops.concatenate([forward, backward], axis=-1)
        elif self.merge_mode == "sum":
            out = forward + backward
        elif self.merge_mode == "ave":
            out = (forward + backward) / 2.0
        elif self.merge_mode == "mul":
            out = forward * backward
        else:
            out = [forward, backward]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + list(forward_states) + list(backward_states)
        return out

    def compute_mask(self, inputs, mask=None):
        return mask if self.return_sequences else None

    def get_config(self):
        return {**super().get_config(), "merge_mode": self.merge_mode}


def _copy(layer, name, go_backwards=None):
    """The layer again, from its constructor arguments, named ``name`` (running backwards if ``go_backwards``)."""
    from tapeviz.keras.saving import config

    data = config.serialize(layer)
    kwargs = dict(data["kwargs"])
    if go_backwards is not None:
        kwargs["go_backwards"] = go_backwards
    kwargs["name"] = name
    return config.deserialize({**data, "kwargs": kwargs})
