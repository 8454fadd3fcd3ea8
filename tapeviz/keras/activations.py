"""``tf.keras.activations``: activation functions by name, for ``Dense(..., activation='relu')``."""

from tapeviz import nn
from tapeviz.keras.saving.serialization_lib import resolve

__all__ = ["get", "linear", "relu", "softmax", "sigmoid", "tanh"]


def linear(x):
    """The identity: no activation.

    Args:
        x: a tensor.

    Returns:
        ``x``.
    """
    return x


def relu(x):
    """``max(x, 0)`` elementwise (``tf.nn.relu``); its gradient at 0 is 0, as in TensorFlow.

    Args:
        x: a tensor.

    Returns:
        A Tensor of ``x``'s shape.
    """
    return nn.relu(x)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` elementwise (``tf.nn.sigmoid``): squashes to (0, 1).

    Args:
        x: a tensor.

    Returns:
        A Tensor of ``x``'s shape.
    """
    return nn.sigmoid(x)


def tanh(x):
    """The hyperbolic tangent elementwise (``tf.nn.tanh``): squashes to (-1, 1).

    Args:
        x: a tensor.

    Returns:
        A Tensor of ``x``'s shape.
    """
    return nn.tanh(x)


def softmax(x, axis=-1):
    """Softmax over the last axis (Keras's default).

    Args:
        x: a tensor.
        axis: the axis that sums to 1.

    Returns:
        A Tensor of ``x``'s shape.
    """
    return nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """``log(softmax(x))`` over ``axis``, computed stably."""
    return nn.log_softmax(x, axis=axis)


_BY_NAME = {
    "linear": linear,
    None: linear,
    "relu": relu,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "softmax": softmax,
    "log_softmax": log_softmax,
}
for _name in ("elu", "selu", "gelu", "softplus", "softsign", "silu", "swish", "relu6", "leaky_relu"):
    if hasattr(nn, _name):
        _BY_NAME[_name] = getattr(nn, _name)


def get(identifier):
    """An activation function from a name ('relu', 'softmax'...), None (linear) or a callable.

    Args:
        identifier: a name, None, or a callable.

    Returns:
        The activation function.
    """
    return resolve(identifier, kind="activation function", table=_BY_NAME)
