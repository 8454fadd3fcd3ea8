"""Gradient rules of the neural-network primitives. TF's conventions at kinks."""

from tapeviz.core.gradients import defgrad, described, elementwise
from tapeviz.core.primitives import nn
from tapeviz.core.primitives.array import reshape, zeros_like
from tapeviz.core.primitives.math import exp, reduce_sum, sigmoid


def _keep_axis(g, like, axis):
    """``g`` (a loss per example) reshaped to broadcast against ``like`` along ``axis``."""
    shape = list(like._value.shape)
    shape[axis] = 1
    return reshape(g, shape)


@defgrad(nn.relu, "d relu(x)/dx = 1 where x > 0, else 0 (0 at 0, as in TF)", local=elementwise("1 where x > 0"))
def _relu(op, needs, g):
    return (nn.relu_grad(g, op.outputs[0]),)


@defgrad(
    nn.RELU_GRAD,
    "d relu_grad(g, y)/dg = 1 where y > 0, else 0;  d/dy = 0",
    local=elementwise("1 where y > 0", "0", symbols=("g", "y")),
)
def _relu_grad(op, needs, h):
    _, y = op.inputs
    # d/dy is zero, not absent: TF returns zeros_like(y), so a second derivative through relu is 0, not None
    return (nn.relu_grad(h, y) if needs[0] else None, zeros_like(y) if needs[1] else None)


@defgrad(nn.softplus, "d softplus(x)/dx = sigmoid(x)", local=elementwise("sigmoid(x)"))
def _softplus(op, needs, g):
    return (g * sigmoid(op.inputs[0]),)


@defgrad(
    nn.SOFTMAX,
    "d softmax(x)/dx · g = (g - sum(g*y, axis)) * y",
    local=described("y·(1 - y) on the diagonal, -yi·yj off it (the softmax Jacobian)"),
)
def _softmax(op, needs, g):
    y = op.outputs[0]
    axis = op.attrs["axis"]
    return ((g - reduce_sum(g * y, axis=axis, keepdims=True)) * y,)


@defgrad(
    nn.LOG_SOFTMAX,
    "d log_softmax(x)/dx · g = g - sum(g, axis) * exp(y)",
    local=described("1 - softmax(x) on the diagonal, -softmax(x) off it"),
)
def _log_softmax(op, needs, g):
    y = op.outputs[0]
    axis = op.attrs["axis"]
    return (g - reduce_sum(g, axis=axis, keepdims=True) * exp(y),)


@defgrad(
    nn.SOFTMAX_CROSS_ENTROPY,
    "d loss/d logits = (softmax(logits) - labels) * g,  d loss/d labels = -log_softmax(logits) * g",
    local=described("softmax(logits) - labels", "-log_softmax(logits)"),
)
def _softmax_cross_entropy(op, needs, g, _g_backprop):
    # _g_backprop is always zero: gradients reach `backprop` through the
    # SoftmaxCrossEntropyBackprop op instead (see core.primitives.nn).
    logits, labels = op.inputs
    axis = op.attrs["axis"]
    g = _keep_axis(g, logits, axis)
    grad_logits = grad_labels = None
    if needs[0]:
        grad_logits = g * nn.cross_entropy_backprop(logits, op.outputs[1], labels, axis=axis)
    if needs[1]:
        grad_labels = -g * nn.log_softmax(logits, axis=axis)
    return grad_logits, grad_labels


@defgrad(
    nn.SPARSE_SOFTMAX_CROSS_ENTROPY,
    "d loss/d logits = (softmax(logits) - one_hot(labels)) * g;  none for the int labels",
    local=described("softmax(logits) - one_hot(labels)", None),
)
def _sparse_softmax_cross_entropy(op, needs, g, _g_backprop):
    logits = op.inputs[0]
    g = _keep_axis(g, logits, logits.ndim - 1)
    return (g * nn.cross_entropy_backprop(logits, op.outputs[1]), None)


@defgrad(
    nn.CROSS_ENTROPY_BACKPROP,
    "d(softmax(x) - labels)/dx · h = (h - sum(h*softmax(x))) * softmax(x),  d/dlabels · h = -h",
    local=described("the softmax Jacobian", None, "-1"),
)
def _cross_entropy_backprop(op, needs, h):
    logits = op.inputs[0]
    axis = op.attrs["axis"]
    grads = [None] * len(op.inputs)  # never into `backprop`: it is a saved value
    if needs[0]:
        # The softmax Jacobian, through the Softmax op so that higher orders work too.
        s = nn.softmax(logits, axis=axis)
        grads[0] = (h - reduce_sum(h * s, axis=axis, keepdims=True)) * s
    if len(op.inputs) == 3 and needs[2]:
        grads[2] = -h
    return tuple(grads)
