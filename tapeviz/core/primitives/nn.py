"""Neural-network primitives; each kernel with its gradient rule (TF's conventions at kinks).

Only the ops whose fused kernel matters for speed or numerical stability are
primitives, as in TF: relu (and its gradient), softplus, softmax, log-softmax
and the two softmax cross-entropies. Every other activation and loss is a
composite in ``tapeviz.nn``.
"""

from tapeviz import backend as B
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import unary
from tapeviz.core.primitives.array.constants import zeros_like
from tapeviz.core.primitives.array.shapes import reshape
from tapeviz.core.primitives.math.arithmetic import cast
from tapeviz.core.primitives.math.elementary import exp, sigmoid
from tapeviz.core.primitives.math.reductions import reduce_sum
from tapeviz.core.rules import defgrad, described, elementwise

# -- activations --------------------------------------------------------------------


def _relu(x):
    return B.xp.maximum(x, 0)


def _relu_grad(g, y):
    # TF's ReluGrad multiplies by the mask (a NaN upstream stays NaN where relu
    # is flat); it is also ten times faster than a select here.
    return g * (y > 0)


relu = unary(
    "relu",
    "Relu",
    _relu,
    """max(x, 0). Its gradient at 0 is 0, as in TF.

Example:
    >>> import tapeviz as tf
    >>> print(tf.nn.relu([-1.0, 0.0, 2.0]))
    tf.Tensor([0. 0. 2.], shape=(3,), dtype=float32)
""",
)


@defgrad(relu, "d relu(x)/dx = 1 where x > 0, else 0 (0 at 0, as in TF)", local=elementwise("1 where x > 0"))
def _relu_rule(op, needs, g):
    return (relu_grad(g, op.outputs[0]),)


RELU_GRAD = Primitive("ReluGrad", _relu_grad)


def relu_grad(g, y):
    """The upstream ``g`` where relu's output ``y`` is positive, else 0 (TF's ReluGrad).

    One fused kernel for relu's backward step; it is linear in ``g``, so its
    own rule is itself again (which gives relu's second derivative, zero).
    """
    return execute(RELU_GRAD, (as_tensor(g), as_tensor(y)))


@defgrad(
    RELU_GRAD,
    "d relu_grad(g, y)/dg = 1 where y > 0, else 0;  d/dy = 0",
    local=elementwise("1 where y > 0", "0", symbols=("g", "y")),
)
def _relu_grad_rule(op, needs, h):
    _, y = op.inputs
    # d/dy is zero, not absent: TF returns zeros_like(y), so a second derivative through relu is 0, not None
    return (relu_grad(h, y) if needs[0] else None, zeros_like(y) if needs[1] else None)


def _softplus(x):
    # log(1 + e^x) = logaddexp(0, x): exact for large |x|, no overflow.
    return B.xp.logaddexp(B.xp.zeros((), dtype=x.dtype), x)


softplus = unary(
    "softplus",
    "Softplus",
    _softplus,
    "log(exp(x) + 1), computed stably (finite at +-1000). Its gradient is sigmoid(x).",
    floats_only=True,
)


@defgrad(softplus, "d softplus(x)/dx = sigmoid(x)", local=elementwise("sigmoid(x)"))
def _softplus_rule(op, needs, g):
    return (g * sigmoid(op.inputs[0]),)


# -- softmax ------------------------------------------------------------------------


def _shifted(x, axis):
    """x minus its max along ``axis`` (so exp never overflows), and exp of that."""
    shifted = x - B.xp.max(x, axis=axis, keepdims=True)
    return shifted, B.xp.exp(shifted)


def _softmax(x, axis):
    _, e = _shifted(x, axis)
    e /= B.xp.sum(e, axis=axis, keepdims=True)
    return e


def _log_softmax(x, axis):
    shifted, e = _shifted(x, axis)
    shifted -= B.xp.log(B.xp.sum(e, axis=axis, keepdims=True))
    return shifted


SOFTMAX = Primitive("Softmax", _softmax)
LOG_SOFTMAX = Primitive("LogSoftmax", _log_softmax)


def float_tensor(x, op, what="logits"):
    """``x`` as a float Tensor, or TF's TypeError naming the op."""
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(
            f"{op} needs float {what}, got a {x.dtype.name} tensor. Cast first, e.g. tf.cast({what}, tf.float32)."
        )
    return x


def axis_arg(axis, ndim, op):
    """TF's ``axis`` (None means -1) as a non-negative int, or a clear error."""
    axis = -1 if axis is None else int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{op}: axis {axis} is out of range for a tensor of rank {ndim} (use an axis in [{-ndim}, {ndim})).", op
        )
    return axis % ndim


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits), axis): probabilities along ``axis`` (default -1).

    Args:
        logits: a float tensor.
        axis: the axis the probabilities sum to 1 along (-1 when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``logits``'s shape and dtype.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.nn.softmax([0.0, 0.0, 0.0, 0.0]))
        tf.Tensor([0.25 0.25 0.25 0.25], shape=(4,), dtype=float32)
    """
    x = float_tensor(logits, "softmax")
    return execute(SOFTMAX, (x,), {"axis": axis_arg(axis, x.ndim, "softmax")})


@defgrad(
    SOFTMAX,
    "d softmax(x)/dx · g = (g - sum(g*y, axis)) * y",
    local=described("y·(1 - y) on the diagonal, -yi·yj off it (the softmax Jacobian)"),
)
def _softmax_rule(op, needs, g):
    y = op.outputs[0]
    axis = op.attrs["axis"]
    return ((g - reduce_sum(g * y, axis=axis, keepdims=True)) * y,)


def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits), axis)), computed stably, along ``axis`` (default -1).

    Args:
        logits: a float tensor.
        axis: the class axis (-1 when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``logits``'s shape.
    """
    x = float_tensor(logits, "log_softmax")
    return execute(LOG_SOFTMAX, (x,), {"axis": axis_arg(axis, x.ndim, "log_softmax")})


@defgrad(
    LOG_SOFTMAX,
    "d log_softmax(x)/dx · g = g - sum(g, axis) * exp(y)",
    local=described("1 - softmax(x) on the diagonal, -softmax(x) off it"),
)
def _log_softmax_rule(op, needs, g):
    y = op.outputs[0]
    axis = op.attrs["axis"]
    return (g - reduce_sum(g, axis=axis, keepdims=True) * exp(y),)


# -- fused softmax cross-entropies ------------------------------------------------------
#
# Each returns two outputs, as TF's kernels do: the loss, and ``backprop`` =
# softmax(logits) - labels, the loss's gradient with respect to the logits,
# which the forward pass gets almost for free. The rule then only multiplies
# by the upstream gradient: no softmax is computed twice.


def _softmax_cross_entropy(logits, labels, axis):
    shifted, e = _shifted(logits, axis)
    total = B.xp.sum(e, axis=axis, keepdims=True)
    e /= total  # softmax, in place
    shifted -= B.xp.log(total)  # log_softmax, in place
    loss = -B.xp.sum(labels * shifted, axis=axis)
    e -= labels  # backprop
    return loss, e


def _sparse_softmax_cross_entropy(logits, labels):
    classes = logits.shape[-1]
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        bad = int(labels.max()) if int(labels.max()) >= classes else int(labels.min())
        raise ValueError(
            f"Received a label value of {bad} which is outside the valid range of [0, {classes}). "
            "Sparse labels are class indices: 0 <= label < logits.shape[-1]."
        )
    shifted, e = _shifted(logits, -1)
    total = B.xp.sum(e, axis=-1, keepdims=True)
    e /= total  # softmax, in place
    rows = B.xp.arange(labels.size)
    flat_labels = labels.reshape(-1)
    picked = shifted.reshape(-1, classes)[rows, flat_labels].reshape(labels.shape)
    loss = B.xp.log(total[..., 0]) - picked
    e.reshape(-1, classes)[rows, flat_labels] -= 1  # backprop = softmax - one_hot(labels)
    return loss, e


SOFTMAX_CROSS_ENTROPY = Primitive("SoftmaxCrossEntropyWithLogits", _softmax_cross_entropy, n_outputs=2)
SPARSE_SOFTMAX_CROSS_ENTROPY = Primitive(
    "SparseSoftmaxCrossEntropyWithLogits", _sparse_softmax_cross_entropy, n_outputs=2
)

# The saved ``backprop`` output, handed on unchanged, as a recorded op of
# (logits, backprop[, labels]). The cross-entropy rules return it (times the
# upstream), so an outer tape sees how it depends on the logits and labels and
# differentiates it by its own rule: second order without extra work at first order.
CROSS_ENTROPY_BACKPROP = Primitive("SoftmaxCrossEntropyBackprop", lambda logits, backprop, *labels, axis: backprop)


def cross_entropy_backprop(logits, backprop, labels=None, axis=-1):
    """softmax(logits, axis) - labels, already computed as ``backprop``, as a recorded op.

    Costs nothing (the kernel returns ``backprop``); sparse labels are left
    out of the inputs since no gradient reaches class indices.
    """
    inputs = (logits, backprop) if labels is None else (logits, backprop, labels)
    return execute(CROSS_ENTROPY_BACKPROP, inputs, {"axis": axis % logits.ndim})


@defgrad(
    CROSS_ENTROPY_BACKPROP,
    "d(softmax(x) - labels)/dx · h = (h - sum(h*softmax(x))) * softmax(x),  d/dlabels · h = -h",
    local=described("the softmax Jacobian", None, "-1"),
)
def _cross_entropy_backprop_rule(op, needs, h):
    logits = op.inputs[0]
    axis = op.attrs["axis"]
    grads = [None] * len(op.inputs)  # never into `backprop`: it is a saved value
    if needs[0]:
        # The softmax Jacobian, through the Softmax op so that higher orders work too.
        s = softmax(logits, axis=axis)
        grads[0] = (h - reduce_sum(h * s, axis=axis, keepdims=True)) * s
    if len(op.inputs) == 3 and needs[2]:
        grads[2] = -h
    return tuple(grads)


def _check_same_shape(labels, logits):
    if labels._value.shape != logits._value.shape:
        raise InvalidArgumentError(
            "softmax_cross_entropy_with_logits: logits and labels must have the same shape, "
            f"got logits {tuple(logits.shape)} and labels {tuple(labels.shape)}. Labels are one "
            "probability distribution per example; for class indices use "
            "sparse_softmax_cross_entropy_with_logits.",
            "SoftmaxCrossEntropyWithLogits",
        )


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits), axis): one loss per example.

    ``labels`` holds a probability distribution along ``axis`` (each sums to
    1), as TF assumes: the gradient with respect to the logits is
    (softmax(logits) - labels) * upstream. Gradients flow into the labels too
    (-log_softmax(logits) * upstream); wrap them in ``tf.stop_gradient`` if
    they are targets you do not train. float16 logits are computed in float32.

    Args:
        labels: a distribution over the classes per example, of ``logits``'s shape
            (one-hot rows for hard labels).
        logits: unscaled scores (before the softmax), a float tensor.
        axis: the class axis (-1 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``logits``'s shape without ``axis``, one loss per example.

    Example:
        >>> import tapeviz as tf
        >>> labels = tf.constant([[1.0, 0.0], [0.0, 1.0]])
        >>> logits = tf.constant([[0.0, 0.0], [0.0, 10.0]])
        >>> loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        >>> [round(float(v), 4) for v in loss]
        [0.6931, 0.0]
    """
    logits = float_tensor(logits, "softmax_cross_entropy_with_logits")
    labels = as_tensor(labels)
    _check_same_shape(labels, logits)
    axis = axis_arg(axis, logits.ndim, "softmax_cross_entropy_with_logits")
    wide = logits.dtype.name == "float16"
    work = cast(logits, "float32") if wide else logits
    labels = cast(labels, work.dtype)
    loss = execute(SOFTMAX_CROSS_ENTROPY, (work, labels), {"axis": axis})[0]
    return cast(loss, "float16") if wide else loss


def _keep_axis(g, like, axis):
    """``g`` (a loss per example) reshaped to broadcast against ``like`` along ``axis``."""
    shape = list(like._value.shape)
    shape[axis] = 1
    return reshape(g, shape)


@defgrad(
    SOFTMAX_CROSS_ENTROPY,
    "d loss/d logits = (softmax(logits) - labels) * g,  d loss/d labels = -log_softmax(logits) * g",
    local=described("softmax(logits) - labels", "-log_softmax(logits)"),
)
def _softmax_cross_entropy_rule(op, needs, g, _g_backprop):
    # _g_backprop is always zero: gradients reach `backprop` through the
    # SoftmaxCrossEntropyBackprop op instead (see core.primitives.nn).
    logits, labels = op.inputs
    axis = op.attrs["axis"]
    g = _keep_axis(g, logits, axis)
    grad_logits = grad_labels = None
    if needs[0]:
        grad_logits = g * cross_entropy_backprop(logits, op.outputs[1], labels, axis=axis)
    if needs[1]:
        grad_labels = -g * log_softmax(logits, axis=axis)
    return grad_logits, grad_labels


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """-log_softmax(logits)[..., labels]: the loss for class indices ``labels``.

    ``labels`` is an int tensor of shape ``logits.shape[:-1]`` with values in
    [0, logits.shape[-1]); a value outside raises InvalidArgumentError (TF's
    CPU behaviour; its GPU kernel returns NaN instead). The gradient with
    respect to the logits is (softmax(logits) - one_hot(labels)) * upstream.

    Args:
        labels: integer class indices, of ``logits``'s shape without the last axis.
        logits: unscaled scores [..., num_classes], a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``labels``'s shape, one loss per example.

    Raises:
        TypeError: labels that are not integers.
        tf.errors.InvalidArgumentError: a label outside [0, num_classes), or shapes that do not match.

    Example:
        >>> import tapeviz as tf
        >>> loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=[[0.0, 0.0], [0.0, 0.0]])
        >>> [round(float(v), 4) for v in loss]
        [0.6931, 0.6931]
    """
    op = "sparse_softmax_cross_entropy_with_logits"
    logits = float_tensor(logits, op)
    labels = as_tensor(labels)
    if not labels.dtype.is_integer:
        raise TypeError(
            f"{op} needs int32 or int64 class indices as labels, got {labels.dtype.name}. "
            "For one-hot or soft labels use softmax_cross_entropy_with_logits."
        )
    if logits.ndim < 1 or labels._value.shape != logits._value.shape[:-1]:
        raise InvalidArgumentError(
            f"{op}: labels must have the shape of logits without its last axis, got logits "
            f"{tuple(logits.shape)} and labels {tuple(labels.shape)} (expected labels "
            f"{tuple(logits.shape)[:-1]}).",
            "SparseSoftmaxCrossEntropyWithLogits",
        )
    wide = logits.dtype.name == "float16"
    work = cast(logits, "float32") if wide else logits
    loss = execute(SPARSE_SOFTMAX_CROSS_ENTROPY, (work, labels))[0]
    return cast(loss, "float16") if wide else loss


@defgrad(
    SPARSE_SOFTMAX_CROSS_ENTROPY,
    "d loss/d logits = (softmax(logits) - one_hot(labels)) * g;  none for the int labels",
    local=described("softmax(logits) - one_hot(labels)", None),
)
def _sparse_softmax_cross_entropy_rule(op, needs, g, _g_backprop):
    logits = op.inputs[0]
    g = _keep_axis(g, logits, logits.ndim - 1)
    return (g * cross_entropy_backprop(logits, op.outputs[1]), None)


__all__ = [
    "relu",
    "relu_grad",
    "softplus",
    "softmax",
    "log_softmax",
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
]
