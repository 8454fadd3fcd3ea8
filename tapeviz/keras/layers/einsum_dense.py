"""EinsumDense: a dense layer written as an einsum equation, as Keras 3 has it.

``EinsumDense("abc,cde->abde", output_shape=(None, 4, 5), bias_axes="de")``
multiplies a ``(batch, b, c)`` input by a ``(c, d, e)`` kernel. The kernel's
sizes come from the equation: a letter the input has takes the input's size,
any other the size ``output_shape`` gives it. ``output_shape`` lists the
output's sizes after the batch axis, or after ``...`` where the output starts
with one (None: the input's size there).
"""

from tapeviz.core.primitives.linalg import einsum
from tapeviz.keras import activations, initializers
from tapeviz.keras.layers.base import Layer


def _parse(equation):
    """(input, kernel, output) letter strings; ``...`` kept as ``.``; a clear error for anything else."""
    try:
        inputs, output = equation.split("->")
        left, kernel = inputs.split(",")
    except ValueError:
        raise ValueError(
            f"Invalid einsum equation '{equation}'. Equations must be in the form [X],[Y]->[Z], ...[X],[Y]->...[Z], "
            "or [X]...,[Y]->[Z]...."
        ) from None
    return tuple(part.replace("...", ".") for part in (left.strip(), kernel.strip(), output.strip()))


def _sizes_of(spec, shape):
    """{letter: size} of an operand, its ``.`` standing for the axes not named."""
    if "." not in spec:
        return dict(zip(spec, shape))
    before, after = spec.split(".")
    sizes = dict(zip(before, shape[: len(before)]))
    sizes.update(zip(after, shape[len(shape) - len(after) :]))
    return sizes


class EinsumDense(Layer):
    """``einsum(equation, inputs, kernel) + bias``, then ``activation``; ``bias_axes``: the output letters the
    bias varies along (None: no bias).

    Args:
        equation: the einsum equation of the input and the kernel (``"ab,bc->ac"``).
        output_shape: the output's shape without the batch.
        activation: applied to the output (a name or a function); None: linear.
        bias_axes: the output axes (letters) that get a bias.
        kernel_initializer: the kernel's initializer.
        bias_initializer: the bias's initializer.
        **kwargs: the base Layer's arguments (``name``, ``dtype``, ``trainable``, ``input_shape``...).
    """

    _weight_names = ("kernel", "bias")

    def __init__(
        self,
        equation,
        output_shape,
        activation=None,
        bias_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        self.activation = activations.get(activation)
        self.bias_axes = bias_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self._specs = _parse(equation)

    def _output_sizes(self, input_sizes):
        """{letter: size} of every output letter but the batch's (and those under ``...``)."""
        _, _, output = self._specs
        named = output.split(".")[-1] if "." in output else output[1:]
        if len(named) != len(self.partial_output_shape):
            raise ValueError(
                f"Output shape {self.partial_output_shape} must have the same number of dimensions as the output "
                f"of the equation '{self.equation}' has after its batch axis ({len(named)})."
            )
        return {
            letter: input_sizes.get(letter) if size is None else int(size)
            for letter, size in zip(named, self.partial_output_shape)
        }

    def build(self, input_shape):
        """Create the weights for inputs of ``input_shape``. Called once, by the first call.

        Args:
            input_shape: the shape of the first inputs.

        Raises:
            ValueError: an input whose shape the equation does not name, or names differently.
        """
        left, kernel, output = self._specs
        input_sizes = _sizes_of(left, tuple(input_shape))
        sizes = {**input_sizes, **self._output_sizes(input_sizes)}
        missing = [letter for letter in kernel if sizes.get(letter) is None]
        if missing:
            raise ValueError(
                f"The kernel's axis '{missing[0]}' in '{self.equation}' is neither in the input nor in output_shape."
            )
        self.kernel = self.add_weight("kernel", tuple(sizes[c] for c in kernel), initializer=self.kernel_initializer)
        if self.bias_axes:
            letters = output.replace(".", "")
            unknown = [c for c in self.bias_axes if c not in letters]
            if unknown:
                raise ValueError(
                    f"Bias dimension '{unknown[0]}' was requested, but is not part of the output spec '{output}'."
                )
            first = min(letters.index(c) for c in self.bias_axes)
            shape = tuple(sizes[c] if c in self.bias_axes else 1 for c in letters[first:])
            self.bias = self.add_weight("bias", shape, initializer=self.bias_initializer)
        else:
            self.bias = None

    def call(self, inputs):
        x = einsum(self.equation, self._as_float(inputs), self.kernel)
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)
