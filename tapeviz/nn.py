"""``tf.nn``: activations, softmax and losses.

relu, softplus, softmax, log_softmax and the two softmax cross-entropies are
primitives (fused kernels, see ``tapeviz.core.primitives.nn``); everything
else here is a composite of tapeviz ops, differentiable with no rule of its
own, written so that gradients at kinks match TF's.
"""

import math as _pymath

from tapeviz import random as _random
from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.ops import as_tensors as _as_tensors
from tapeviz.core.primitives import conv as _conv
from tapeviz.core.primitives.array import gather as _gather
from tapeviz.core.primitives.array import reshape as _reshape
from tapeviz.core.primitives.array import zeros_like as _zeros_like
from tapeviz.core.primitives.conv import avg_pool2d, conv2d, max_pool2d  # noqa: F401  (re-exported)
from tapeviz.core.primitives.math import (
    erf as _erf,
)
from tapeviz.core.primitives.math import (
    exp as _exp,
)
from tapeviz.core.primitives.math import (
    expm1 as _expm1,
)
from tapeviz.core.primitives.math import (
    greater as _greater,
)
from tapeviz.core.primitives.math import (
    greater_equal as _greater_equal,
)
from tapeviz.core.primitives.math import (
    log1p as _log1p,
)
from tapeviz.core.primitives.math import (
    minimum as _minimum,
)
from tapeviz.core.primitives.math import (
    normalize_axis as _normalize_axis,
)
from tapeviz.core.primitives.math import (
    reduce_mean as _reduce_mean,
)
from tapeviz.core.primitives.math import (
    reduce_sum as _reduce_sum,
)
from tapeviz.core.primitives.math import (
    rsqrt as _rsqrt,
)
from tapeviz.core.primitives.math import (
    sigmoid,
    tanh,
)
from tapeviz.core.primitives.math import (
    square as _square,
)
from tapeviz.core.primitives.math import (
    squared_difference as _squared_difference,
)
from tapeviz.core.primitives.math import (
    where as _where,
)
from tapeviz.core.primitives.nn import (  # noqa: F401  (re-exported)
    log_softmax,
    relu,
    softmax,
    softmax_cross_entropy_with_logits,
    softplus,
    sparse_softmax_cross_entropy_with_logits,
)
from tapeviz.core.primitives.sorting import top_k  # noqa: F401  (re-exported)
from tapeviz.core.tensor import Tensor as _Tensor
from tapeviz.core.tensor import is_tensor as _is_tensor
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.core.tracing import host_call as _host_call
from tapeviz.distribute.losses import compute_average_loss, scale_regularization_loss  # noqa: F401 (TF's tf.nn names)
from tapeviz.math import l2_normalize, softsign, zero_fraction  # noqa: F401  (TF has them in tf.nn too)
from tapeviz.volume_ops import avg_pool3d, conv3d, conv3d_transpose, max_pool3d  # noqa: F401  (re-exported)

__all__ = [
    "compute_average_loss",
    "scale_regularization_loss",
    "conv3d",
    "conv3d_transpose",
    "max_pool3d",
    "avg_pool3d",
    "relu",
    "relu6",
    "leaky_relu",
    "elu",
    "selu",
    "gelu",
    "silu",
    "swish",
    "softplus",
    "softsign",
    "zero_fraction",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
    "l2_loss",
    "l2_normalize",
    "dropout",
    "bias_add",
    "moments",
    "batch_normalization",
    "conv2d",
    "max_pool2d",
    "top_k",
    "embedding_lookup",
    "avg_pool2d",
    "avg_pool",
    "max_pool",
    "conv2d_transpose",
    "conv1d",
    "convolution",
]


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` picked by ``ids`` (a gather along axis 0; dense gradient).

    Args:
        params: the table, [rows, ...].
        ids: integer row indices.
        max_norm: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``ids.shape + params.shape[1:]``.
    """
    if max_norm is not None:
        raise NotImplementedError(
            "embedding_lookup(max_norm=...) is not supported; clip the rows with tf.clip_by_norm."
        )
    return _gather(params, ids)


# -- activations --------------------------------------------------------------------


def relu6(features, name=None):
    """min(max(x, 0), 6). Its gradient is 1 only strictly inside (0, 6), as in TF.

    Args:
        features: a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.
    """
    x = _as_tensor(features)
    # min(6, relu(x)): at x == 6 the tie goes to the constant 6, so the gradient there is 0.
    return _minimum(6, relu(x))


def leaky_relu(features, alpha=0.2, name=None):
    """x where x > 0, else alpha * x. The gradient at 0 is alpha, as in TF.

    Args:
        features: a float tensor.
        alpha: the slope for negative inputs.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.
    """
    x = _as_tensor(features)
    return _where(_greater(x, 0), x, x * alpha)


def _negative_part(x):
    """expm1(x) evaluated at min(x, 0): the branch tf.where throws away stays finite,
    so its zeroed gradient cannot turn into 0 * inf = nan (the "tf.where trap")."""
    return _expm1(_minimum(x, 0))


def elu(features, name=None):
    """x where x > 0, else exp(x) - 1. The gradient at 0 is 1, as in TF.

    Args:
        features: a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.
    """
    x = _as_tensor(features)
    return _where(_greater(x, 0), x, _negative_part(x))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features, name=None):
    """scale * (x where x > 0, else alpha * (exp(x) - 1)), with SELU's fixed alpha and scale.

    Args:
        features: a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.
    """
    x = _as_tensor(features)
    # x >= 0 picks the linear branch at 0 too: selu'(0) = scale, as TF's SeluGrad.
    return _SELU_SCALE * _where(_greater_equal(x, 0), x, _SELU_ALPHA * _negative_part(x))


def gelu(features, approximate=False, name=None):
    """x * Phi(x), Phi the standard normal CDF: 0.5 x (1 + erf(x / sqrt 2)).

    ``approximate=True`` uses the tanh form
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3))).

    Args:
        features: a float tensor.
        approximate: use the tanh approximation.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.
    """
    x = _as_tensor(features)
    if approximate:
        inner = _pymath.sqrt(2.0 / _pymath.pi) * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1.0 + tanh(inner))
    return 0.5 * x * (1.0 + _erf(x * (1.0 / _pymath.sqrt(2.0))))


def silu(features, beta=1.0, name=None):
    """x * sigmoid(beta * x) (also called swish).

    Args:
        features: a float tensor.
        beta: the sigmoid's scale.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.
    """
    x = _as_tensor(features)
    return x * sigmoid(x if beta == 1.0 else beta * x)


swish = silu


# -- losses ---------------------------------------------------------------------------


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """The logistic loss of ``logits`` against ``labels`` in [0, 1], elementwise.

    max(x, 0) - x * z + log(1 + exp(-|x|)): finite for any logit. Written
    with selects on x >= 0 as TF does, so the gradient at x == 0 is the true
    sigmoid(0) - z (a relu and an abs there would each give a one-sided 0).

    Args:
        labels: targets in [0, 1], of ``logits``'s shape (by keyword, as TF requires).
        logits: unscaled scores (before the sigmoid).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``logits``'s shape, one loss per element (reduce it yourself).

    Raises:
        ValueError: ``labels`` or ``logits`` missing, or of different shapes.

    Example:
        >>> import tapeviz as tf
        >>> loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.0, 0.0])
        >>> print(loss)
        tf.Tensor([0.6931472 0.6931472], shape=(2,), dtype=float32)
    """
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits needs both labels= and logits= (by keyword).")
    x, z = _as_tensors(logits, labels)
    if _to_array(x).shape != _to_array(z).shape:
        raise ValueError(
            f"sigmoid_cross_entropy_with_logits: logits and labels must have the same shape, "
            f"got logits {tuple(x.shape)} and labels {tuple(z.shape)}."
        )
    zeros = _zeros_like(x)
    positive = _greater_equal(x, 0)
    relu_part = _where(positive, x, zeros)
    minus_abs = _where(positive, -x, x)
    return relu_part - x * z + _log1p(_exp(minus_abs))


def l2_loss(t, name=None):
    """sum(t ** 2) / 2: half the squared L2 norm, a scalar.

    Args:
        t: a Tensor, or anything ``tf.constant`` converts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A scalar Tensor.
    """
    return _reduce_sum(_square(_as_tensor(t))) * 0.5


# -- regularization and layers' helpers ------------------------------------------------


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each value with probability ``rate``; scale the kept ones by 1 / (1 - rate).

    The expected value is unchanged. The mask comes from ``tf.random``, so it
    repeats under ``tf.random.set_seed`` (and an op ``seed``). ``noise_shape``
    draws a mask that broadcasts, e.g. [batch, 1] drops whole rows; None
    entries take x's size. The gradient is the same mask and scale.

    Args:
        x: a float tensor.
        rate: the probability of zeroing each value, in [0, 1).
        noise_shape: the shape of the random mask (size 1 to share it along an axis).
        seed: the op seed.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape.

    Raises:
        ValueError: a non-float ``x``, or a ``rate`` outside [0, 1).
    """
    x = _as_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"dropout needs a float tensor, got {x.dtype.name}.")
    if _is_tensor(rate):
        rate = float(rate)
    if not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate!r}.")
    if rate == 0:
        return x  # TF returns the input unchanged, too
    _noise_shape(x, noise_shape)  # checked here, where the error belongs
    return x * _dropout_keep(x, rate, noise_shape, seed)


@_host_call("nn.dropout_keep")  # inside tf.function: a new mask on every call, sized by x
def _dropout_keep(x, rate, noise_shape, seed):
    """The scaled keep-mask of ``dropout``: 1 / (1 - rate) where kept, 0 where dropped."""
    shape = _noise_shape(x, noise_shape)
    draw = _random.uniform.host_function(shape, dtype=x.dtype, seed=seed)
    keep = (_to_array(draw) >= rate).astype(_to_array(x).dtype) * (1.0 / (1.0 - rate))
    return _Tensor(keep.astype(_to_array(x).dtype))


def _noise_shape(x, noise_shape):
    if noise_shape is None:
        return tuple(_to_array(x).shape)
    dims = [None if n is None else int(n) for n in noise_shape]
    if len(dims) != x.ndim:
        raise ValueError(f"dropout: noise_shape {list(noise_shape)} must have x's rank {x.ndim}.")
    shape = tuple(size if n is None else n for n, size in zip(dims, _to_array(x).shape))
    if any(n not in (1, size) for n, size in zip(shape, _to_array(x).shape)):
        raise ValueError(
            f"dropout: noise_shape {list(noise_shape)} must broadcast to x's shape {list(x.shape)} "
            "(each entry 1 or x's size)."
        )
    return shape


def bias_add(value, bias, data_format=None, name=None):
    """value + bias, ``bias`` a 1-D tensor of the channel size (last axis, or axis 1 for 'NC...').

    Args:
        value: a tensor of rank >= 2.
        bias: a 1-D tensor of the channel size.
        data_format: ``"N...C"`` (channels last, default) or ``"NC..."``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``value``'s shape.

    Raises:
        ValueError: a ``bias`` that is not 1-D, or a ``value`` of rank below 2.
        tf.errors.InvalidArgumentError: a bias of another length than the channels.
    """
    x, b = _as_tensors(value, bias)
    if b.ndim != 1:
        raise ValueError(f"bias_add: bias must be 1-D, got shape {tuple(b.shape)}.")
    if x.ndim < 2:
        raise ValueError(f"bias_add: value must have rank >= 2, got shape {tuple(x.shape)}.")
    channels_first = data_format is not None and data_format.startswith("NC")
    axis = 1 if channels_first else x.ndim - 1
    if _to_array(x).shape[axis] != _to_array(b).shape[0]:
        raise _InvalidArgumentError(
            f"bias_add: the bias has {_to_array(b).shape[0]} values but value has {_to_array(x).shape[axis]} "
            f"channels (shape {tuple(x.shape)}, data_format={data_format or 'N...C'}).",
            "BiasAdd",
        )
    if channels_first:
        b = _reshape(b, [-1] + [1] * (x.ndim - 2))
    return x + b


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of ``x`` over ``axes``.

    Unlike TF, the variance is not taken around a stop_gradient'ed mean:
    first derivatives are the same, and second derivatives are exact.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        axes: the axes to reduce.
        shift: accepted for TensorFlow compatibility.
        keepdims: keep the reduced axes with size 1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``(mean, variance)``, two Tensors.
    """
    x = _as_tensor(x)
    mean = _reduce_mean(x, axis=axes, keepdims=True)
    variance = _reduce_mean(_squared_difference(x, mean), axis=axes, keepdims=True)
    if not keepdims:
        reduced = _normalize_axis(axes, x.ndim)
        kept = [n for i, n in enumerate(_to_array(x).shape) if i not in reduced]
        mean, variance = _reshape(mean, kept), _reshape(variance, kept)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset; ``offset``/``scale`` may be None.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        mean: the mean, broadcasting against ``x``.
        variance: the variance, likewise.
        offset: the shift (beta), or None.
        scale: the scale (gamma), or None.
        variance_epsilon: added to the variance.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape.
    """
    x = _as_tensor(x)
    inv = _rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shifted = -mean * inv
    if offset is not None:
        shifted = offset + shifted
    return x * inv + shifted


def _rank4_only(input, what):
    if _as_tensor(input).ndim != 4:
        raise ValueError(f"tapeviz's tf.nn.{what} supports 4-D (NHWC) inputs only; use the 2-D form.")


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """``tf.nn.avg_pool`` for 4-D NHWC inputs (``avg_pool2d``).

    Args:
        input: a (batch, height, width, channels) tensor.
        ksize: the window's size (an int, or one per spatial axis, or TF's full list).
        strides: the window's step, likewise.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NHWC"`` (or None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the pooled spatial sizes.
    """
    _rank4_only(input, "avg_pool")
    return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """``tf.nn.max_pool`` for 4-D NHWC inputs (``max_pool2d``).

    Args:
        input: a (batch, height, width, channels) tensor.
        ksize: the window's size (an int, or one per spatial axis, or TF's full list).
        strides: the window's step, likewise.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NHWC"`` (or None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the pooled spatial sizes.
    """
    _rank4_only(input, "max_pool")
    return max_pool2d(input, ksize, strides, padding, data_format or "NHWC")


def conv2d_transpose(
    input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None, name=None
):
    """The transpose of ``conv2d`` (often called deconvolution): the gradient of a conv2d with respect to its input.

    ``filters`` is (height, width, output_channels, input_channels), as in TF;
    ``output_shape`` is the full shape of the result, in ``data_format``
    ('NHWC' or 'NCHW'). ``dilations`` spaces the kernel's taps.

    Args:
        input: a 4-D tensor.
        filters: a (kh, kw, out, in) tensor.
        output_shape: the output's shape (4 ints).
        strides: an int, a pair, or TF's 4-entry list.
        padding: ``"SAME"`` or ``"VALID"``.
        data_format: ``"NHWC"`` or ``"NCHW"``.
        dilations: the spacing of the filter's taps.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``output_shape``.

    Raises:
        ValueError: another data format, inputs that are not 4-D, or an ``output_shape`` they cannot give.
    """
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"conv2d_transpose: data_format must be 'NHWC' or 'NCHW', got {data_format!r}.")
    shape = [int(n) for n in (output_shape.numpy() if _is_tensor(output_shape) else output_shape)]
    x, w = _as_tensors(input, filters)
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(f"conv2d_transpose needs a 4-D input and a 4-D filter, got ranks {x.ndim} and {w.ndim}.")
    depth = x.shape[1 if data_format == "NCHW" else 3]
    if w.shape[3] != depth:
        raise ValueError(
            f"input depth {depth} does not match the filter's last axis {w.shape[3]} "
            f"(conv2d_transpose filters are (height, width, output_channels, input_channels))."
        )
    return _conv.conv2d_backprop_input(shape, w, x, strides, padding, dilations, data_format)


def _one_axis(value, what):
    """A 1-D stride or dilation: an int, [d], or TF's [1, d, 1]."""
    if value is None:
        return 1
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return int(value[0])
        if len(value) == 3 and value[0] == value[2] == 1:
            return int(value[1])
        raise ValueError(f"conv1d: {what} must be an int, [d] or [1, d, 1], got {list(value)}.")
    return int(value)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of (batch, width, channels) ``input`` with (width, in, out) ``filters``: a conv2d of height 1.

    ``data_format`` 'NCW' takes and gives (batch, channels, width).

    Args:
        input: a (batch, width, in) tensor.
        filters: a (width, in, out) tensor.
        stride: the step.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NWC"`` or ``"NCW"``.
        dilations: the spacing of the filter's taps.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A (batch, width', out) Tensor.

    Raises:
        ValueError: another data format, or inputs that are not 3-D.
    """
    if data_format not in ("NWC", "NCW", None):
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got {data_format!r}.")
    x, w = _as_tensors(input, filters)
    if x.ndim != 3 or w.ndim != 3:
        raise ValueError(f"conv1d needs a 3-D input and a 3-D filter, got ranks {x.ndim} and {w.ndim}.")
    stride, dilation = _one_axis(stride, "stride"), _one_axis(dilations, "dilations")
    kernel = _reshape(w, (1,) + tuple(w.shape))
    if data_format == "NCW":
        n, c, width = x.shape
        image = _reshape(x, (n, c, 1, width))
        out = conv2d(image, kernel, (1, stride), padding, data_format="NCHW", dilations=(1, dilation))
        return _reshape(out, (n, out.shape[1], out.shape[3]))
    n, width, c = x.shape
    out = conv2d(_reshape(x, (n, 1, width, c)), kernel, strides=(1, stride), padding=padding, dilations=(1, dilation))
    return _reshape(out, (n, out.shape[2], out.shape[3]))


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None):
    """``tf.nn.convolution`` for 1-D (rank 3) and 2-D (rank 4) inputs: ``conv1d`` or ``conv2d``.

    ``strides`` and ``dilations`` are an int or one per spatial axis;
    ``data_format`` 'NWC'/'NCW' or 'NHWC'/'NCHW' (channels last by default).

    Args:
        input: a rank-3 or rank-4 tensor.
        filters: the matching filter.
        strides: per spatial axis.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: channels last by default.
        dilations: per spatial axis.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        What ``conv1d`` or ``conv2d`` returns.

    Raises:
        ValueError: another rank, or strides/dilations of another length than the spatial axes.
    """
    x = _as_tensor(input)
    spatial = x.ndim - 2
    if spatial not in (1, 2):
        raise ValueError(f"tapeviz's convolution supports 1-D and 2-D inputs (rank 3 or 4), got rank {x.ndim}.")

    def per_axis(value, what):
        values = [1] * spatial if value is None else [value] * spatial if isinstance(value, int) else list(value)
        if len(values) != spatial:
            raise ValueError(f"convolution: {what} needs {spatial} value(s) for a rank-{x.ndim} input, got {value!r}.")
        return values

    strides, dilations = per_axis(strides, "strides"), per_axis(dilations, "dilations")
    if spatial == 1:
        return conv1d(x, filters, strides[0], padding, data_format or "NWC", dilations[0])
    return conv2d(x, filters, tuple(strides), padding, data_format or "NHWC", tuple(dilations))
