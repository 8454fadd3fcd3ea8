"""Merging layers: combine a list of inputs into one (Concatenate, Add, Subtract, Multiply, Average, Maximum, Minimum).

Each has a functional form too (``keras.layers.concatenate([a, b])``).
"""

from tapeviz.core.primitives.array import concat
from tapeviz.core.primitives.math import maximum as _maximum
from tapeviz.core.primitives.math import minimum as _minimum
from tapeviz.keras.layers.base import Layer

__all__ = [
    "Concatenate",
    "Add",
    "Subtract",
    "Multiply",
    "Average",
    "Maximum",
    "Minimum",
    "concatenate",
    "add",
    "subtract",
    "multiply",
    "average",
    "maximum",
    "minimum",
]


class _Merge(Layer):
    """A layer called on a list of at least two tensors."""

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                f"A merge layer should be called on a list of at least 2 inputs. Got {len(inputs) if isinstance(inputs, (list, tuple)) else 1} inputs. "
                f"Full input_shape received: {[tuple(t.shape) for t in inputs] if isinstance(inputs, (list, tuple)) else tuple(inputs.shape)}"
            )
        return list(inputs)

    def call(self, inputs):
        inputs = self._check(inputs)
        result = inputs[0]
        for x in inputs[1:]:
            result = self._merge(result, x)
        return self._finish(result, len(inputs))

    def _finish(self, result, count):
        return result


class Add(_Merge):
    """The elementwise sum of the inputs."""

    def _merge(self, a, b):
        return a + b


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    def call(self, inputs):
        """``inputs[0] - inputs[1]``.

        Args:
            inputs: a list of exactly two tensors.

        Returns:
            Their difference.

        Raises:
            ValueError: not exactly two inputs.
        """
        inputs = self._check(inputs)
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    """The elementwise product of the inputs."""

    def _merge(self, a, b):
        return a * b


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, a, b):
        return a + b

    def _finish(self, result, count):
        return result / count


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    def _merge(self, a, b):
        return _maximum(a, b)


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    def _merge(self, a, b):
        return _minimum(a, b)


class Concatenate(_Merge):
    """Join the inputs along ``axis`` (default the last); the other axes must agree.

    Args:
        axis: the axis to join along.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        """Join the inputs along ``axis``.

        Args:
            inputs: a list of tensors of one rank.

        Returns:
            The joined tensor.

        Raises:
            ValueError: inputs whose shapes differ outside ``axis``.
        """
        inputs = self._check(inputs)
        shapes = [tuple(t.shape) for t in inputs]
        rank = len(shapes[0])
        axis = self.axis % rank
        for shape in shapes[1:]:
            if len(shape) != rank or any(a != b for i, (a, b) in enumerate(zip(shape, shapes[0])) if i != axis):
                raise ValueError(
                    "A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. "
                    f"Received: input_shape={shapes}"
                )
        return concat(inputs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _functional(layer_class):
    def merge(inputs, **kwargs):
        return layer_class(**kwargs)(inputs)

    merge.__name__ = layer_class.__name__.lower()
    merge.__doc__ = (
        f"Functional form of ``{layer_class.__name__}``: ``{merge.__name__}([a, b], **kwargs)``.\n\n"
        "Args:\n    inputs: a list of tensors (symbolic or eager).\n"
        f"    **kwargs: the ``{layer_class.__name__}`` layer's arguments (``name``...).\n\n"
        "Returns:\n    The output tensor.\n"
    )
    return merge


concatenate = _functional(Concatenate)
add = _functional(Add)
subtract = _functional(Subtract)
multiply = _functional(Multiply)
average = _functional(Average)
maximum = _functional(Maximum)
minimum = _functional(Minimum)
