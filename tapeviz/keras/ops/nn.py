"""``keras.ops.nn``: activations, losses, normalization, convolution and pooling, as Keras 3 defines them.

Composed of tapeviz's primitives (differentiable on the tape, no rule of their
own), each inside a name scope with its Keras name. Convolutions take Keras's
layouts: ``channels_last`` inputs (``channels_first`` is transposed around the
NHWC primitive), HWIO kernels; a dilation is composed by spreading the kernel.
"""

import math as _pymath

import numpy as np

from tapeviz import math as _tm
from tapeviz import nn as _tn
from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives import conv as _conv
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops import numpy as _knp
from tapeviz.keras.ops._common import FLOATX, floating, keras_op, promoted, real_floating, standardize_dtype, tensor

EPSILON = 1e-7  # keras.config.epsilon()


def _activation(name, fn, doc, real_only=False):
    @keras_op(name)
    def op(x):
        return fn(real_floating(x, name) if real_only else floating(x))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


@keras_op("relu")
def relu(x):
    """max(x, 0); an int tensor stays int, as in Keras."""
    x = tensor(x)
    return _tn.relu(x if x.dtype.is_integer else real_floating(x, "relu"))


@keras_op("relu6")
def relu6(x):
    """min(max(x, 0), 6); an int tensor stays int, as in Keras."""
    x = tensor(x)
    return _tn.relu6(x if x.dtype.is_integer else real_floating(x, "relu6"))


sigmoid = _activation("sigmoid", _tm.sigmoid, "1 / (1 + exp(-x)).")
softplus = _activation("softplus", _tm.softplus, "log(1 + exp(x)).")


@keras_op("softsign")
def softsign(x):
    """x / (1 + |x|); its gradient 1 / (1 + |x|)^2, as TF's SoftsignGrad (0 at +-inf, not inf/inf)."""
    from tapeviz.core.custom_gradient import custom_gradient

    @custom_gradient
    def fn(value):
        return _tn.softsign(value), lambda upstream: upstream / _tm.square(1.0 + _tm.abs(value))

    return fn(floating(x))


silu = _activation("silu", _tn.silu, "x * sigmoid(x).")
swish = _activation("swish", _tn.silu, "x * sigmoid(x) (silu).")
log_sigmoid = _activation("log_sigmoid", _tm.log_sigmoid, "log(sigmoid(x)), stable.")
selu = _activation("selu", _tn.selu, "scale * elu(x, alpha), SELU's constants.", real_only=True)
hard_sigmoid = _activation("hard_sigmoid", lambda x: _tn.relu6(x + 3.0) / 6.0, "relu6(x + 3) / 6.", real_only=True)
hard_silu = _activation("hard_silu", lambda x: x * (_tn.relu6(x + 3.0) / 6.0), "x * hard_sigmoid(x).", real_only=True)
hard_swish = _activation("hard_swish", lambda x: x * (_tn.relu6(x + 3.0) / 6.0), "x * hard_sigmoid(x).", real_only=True)
hard_tanh = _activation(
    "hard_tanh", lambda x: _tm.minimum(_tm.maximum(x, -1.0), 1.0), "x clipped to [-1, 1].", real_only=True
)
tanh_shrink = _activation("tanh_shrink", lambda x: x - _tm.tanh(x), "x - tanh(x).")
sparse_plus = _activation(
    "sparse_plus",
    lambda x: _tm.where(
        _tm.less_equal(x, -1.0), _pa.zeros_like(x), _tm.where(_tm.greater_equal(x, 1.0), x, 0.25 * (x + 1.0) ** 2)
    ),
    "0 for x <= -1, (x + 1)**2 / 4 for -1 < x < 1, x for x >= 1.",
    real_only=True,
)
sparse_sigmoid = _activation(
    "sparse_sigmoid",
    lambda x: _tm.where(
        _tm.less_equal(x, -1.0),
        _pa.zeros_like(x),
        _tm.where(_tm.greater_equal(x, 1.0), _pa.ones_like(x), 0.5 * (x + 1.0)),
    ),
    "0 for x <= -1, (x + 1) / 2 inside, 1 for x >= 1.",
    real_only=True,
)


@keras_op("leaky_relu")
def leaky_relu(x, negative_slope=0.2):
    """x where x >= 0, else negative_slope * x."""
    return _tn.leaky_relu(real_floating(x, "leaky_relu"), alpha=negative_slope)


@keras_op("elu")
def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = real_floating(x, "elu")
    out = _tn.elu(x)
    return out if alpha == 1.0 else _tm.where(_tm.greater(x, 0), x, alpha * out)


@keras_op("celu")
def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    x = real_floating(x, "celu")
    return _tm.maximum(x, 0.0) + alpha * _tm.expm1(_tm.minimum(x, 0.0) / alpha)


@keras_op("gelu")
def gelu(x, approximate=True):
    """x * Phi(x); Keras's default is the tanh approximation (``approximate=True``)."""
    return _tn.gelu(real_floating(x, "gelu"), approximate=approximate)


@keras_op("glu")
def glu(x, axis=-1):
    """a * sigmoid(b), a and b the two halves of ``x`` along ``axis``."""
    x = floating(x)
    if x.shape[axis] % 2:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}")
    a, b = _knp.split(x, 2, axis=axis)
    return a * _tm.sigmoid(b)


@keras_op("hard_shrink")
def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0."""
    x = floating(x)
    return _tm.where(_tm.greater(_tm.abs(x), threshold), x, _pa.zeros_like(x))


@keras_op("soft_shrink")
def soft_shrink(x, threshold=0.5):
    """x - threshold above it, x + threshold below -threshold, else 0."""
    x = real_floating(x, "soft_shrink")
    return _tm.where(
        _tm.greater(x, threshold),
        x - threshold,
        _tm.where(_tm.less(x, -threshold), x + threshold, _pa.zeros_like(x)),
    )


@keras_op("threshold")
def threshold(x, threshold, default_value):
    """x where x > threshold, else ``default_value``."""
    x = floating(x)
    return _tm.where(_tm.greater(x, threshold), x, _pa.zeros_like(x) + default_value)


@keras_op("squareplus")
def squareplus(x, b=4):
    """(x + sqrt(x**2 + b)) / 2."""
    x = floating(x)
    return (x + _tm.sqrt(x * x + float(b))) / 2.0


@keras_op("softmax")
def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along ``axis`` (a tuple of axes normalises over them jointly)."""
    x = floating(x)
    if isinstance(axis, (list, tuple)):
        return _tm.exp(x - _tm.reduce_logsumexp(x, axis=list(axis), keepdims=True))
    return _tm.softmax(x, axis=axis)


@keras_op("log_softmax")
def log_softmax(x, axis=-1):
    """x - logsumexp(x) along ``axis``."""
    x = floating(x)
    if isinstance(axis, (list, tuple)):
        return x - _tm.reduce_logsumexp(x, axis=list(axis), keepdims=True)
    return _tm.log_softmax(x, axis=axis)


@keras_op("sparsemax")
def sparsemax(x, axis=-1):
    """The Euclidean projection of ``x`` onto the simplex along ``axis`` (sparse probabilities)."""
    x = floating(x)
    x = _knp.moveaxis(x, axis, -1)
    z = _tm.negative(_knp.sort(_tm.negative(x), axis=-1))  # descending
    n = x.shape[-1]
    k = _constant(np.arange(1, n + 1, dtype=x.dtype.as_numpy_dtype))
    bound = 1.0 + k * z
    cumulative = _tm.cumsum(z, axis=-1)
    support = _cast(_tm.greater(bound, cumulative), x.dtype)
    k_z = _tm.reduce_sum(support, axis=-1, keepdims=True)
    tau = (_tm.reduce_sum(support * z, axis=-1, keepdims=True) - 1.0) / k_z
    return _knp.moveaxis(_tm.maximum(x - tau, 0.0), -1, axis)


# -- encodings ------------------------------------------------------------------------


_ONE_HOT_INDEX_DTYPES = ("uint8", "int8", "int32", "int64")  # what tf.one_hot takes


@keras_op("one_hot")
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """A new axis of length ``num_classes`` holding 1 at each index (float32 unless ``dtype``)."""
    if sparse:
        raise ValueError("tapeviz has no sparse tensors: call one_hot with sparse=False.")
    x = tensor(x)
    if x.dtype.name not in _ONE_HOT_INDEX_DTYPES:  # Keras casts what tf.one_hot refuses (floats truncate)
        x = _cast(x, "int32")
    return _pa.one_hot(x, num_classes, axis=axis, dtype=standardize_dtype(dtype) or FLOATX)


@keras_op("multi_hot")
def multi_hot(inputs, num_classes, axis=-1, dtype=None, sparse=False):
    """1 for every class present in each row of ``inputs`` (float32 unless ``dtype``)."""
    x = tensor(inputs)
    if len(x.shape) == 1:
        x = _pa.reshape(x, [1, -1])
        return _pa.reshape(multi_hot(x, num_classes, axis, dtype, sparse), [-1])
    hot = one_hot(x, num_classes, axis=-1, dtype=dtype, sparse=sparse)
    out = _tm.reduce_max(hot, axis=-2)
    return _knp.moveaxis(out, -1, axis) if axis != -1 else out


# -- losses -------------------------------------------------------------------------------


@keras_op("binary_crossentropy")
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy; probabilities are clipped to [eps, 1 - eps], as Keras does."""
    target, output = promoted(floating(target), floating(output))
    if from_logits:
        return _tn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _tm.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -(target * _tm.log(output) + (1.0 - target) * _tm.log(1.0 - output))


def _check_same_shape(target, output, name):
    if tuple(target.shape) != tuple(output.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. "
            f"Received: target.shape={target.shape}, output.shape={output.shape}"
        )


@keras_op("categorical_crossentropy")
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """-sum(target * log(output)) along ``axis``; probabilities are renormalised and clipped first, as Keras does."""
    target, output = promoted(floating(target), floating(output))
    _check_same_shape(target, output, "categorical_crossentropy")
    if from_logits:
        return -_tm.reduce_sum(target * _tm.log_softmax(output, axis=axis), axis=axis)
    output = output / _tm.reduce_sum(output, axis=axis, keepdims=True)
    output = _tm.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -_tm.reduce_sum(target * _tm.log(output), axis=axis)


@keras_op("sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """``categorical_crossentropy`` with integer class labels (a trailing axis of size 1 is dropped)."""
    target, output = tensor(target), floating(output)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = _pa.squeeze(target, axis=[-1])
    if target.dtype.name not in _ONE_HOT_INDEX_DTYPES:
        target = _cast(target, "int32")
    if from_logits:
        logp = _tm.log_softmax(output, axis=axis)
    else:
        output = output / _tm.reduce_sum(output, axis=axis, keepdims=True)
        logp = _tm.log(_tm.clip_by_value(output, EPSILON, 1.0 - EPSILON))
    hot = _pa.one_hot(target, output.shape[axis], axis=axis, dtype=output.dtype)
    return -_tm.reduce_sum(hot * logp, axis=axis)


@keras_op("psnr")
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio: 20 log10(max_val) - 10 log10(mse)."""
    a, b = promoted(floating(x1), floating(x2))
    mse = _tm.reduce_mean(_tm.square(a - b))
    return 20.0 * _pymath.log10(max_val) - 10.0 * _tm.log(mse) / _pymath.log(10.0)


# -- normalization -------------------------------------------------------------------------


@keras_op("moments")
def moments(x, axes, keepdims=False, synchronized=False):
    """(mean, variance) of ``x`` over ``axes``; float16 inputs are reduced in float32, as Keras does."""
    x = floating(x)
    in_dtype = x.dtype
    if in_dtype.name == "float16":
        x = _cast(x, "float32")
    mean, variance = _tn.moments(x, axes=list(axes) if isinstance(axes, (list, tuple)) else [axes], keepdims=keepdims)
    if in_dtype.name == "float16":
        mean, variance = _cast(mean, in_dtype), _cast(variance, in_dtype)
    return mean, variance


def _along(v, x, axis):
    """A 1-D statistic reshaped to broadcast along ``axis`` of ``x``."""
    if v is None:
        return None
    v = tensor(v, x.dtype.name)
    if len(v.shape) == 1 and len(x.shape) > 1:
        shape = [1] * len(x.shape)
        shape[axis] = -1
        v = _pa.reshape(v, shape)
    return v


@keras_op("batch_normalization")
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, the statistics along ``axis``."""
    x = floating(x)
    return _tn.batch_normalization(
        x, _along(mean, x, axis), _along(variance, x, axis), _along(offset, x, axis), _along(scale, x, axis), epsilon
    )


@keras_op("layer_normalization")
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """(x - mean) / sqrt(var + epsilon) over ``axis``, times ``gamma`` plus ``beta`` (epsilon 1e-7 by default)."""
    x = floating(x)
    epsilon = EPSILON if epsilon is None else epsilon
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    mean, variance = _tn.moments(x, axes=axes, keepdims=True)
    out = (x - mean) * _tm.rsqrt(variance + epsilon)
    if gamma is not None:
        out = out * tensor(gamma, x.dtype.name)
    if beta is not None:
        out = out + tensor(beta, x.dtype.name)
    return out


@keras_op("rms_normalization")
def rms_normalization(x, scale=1, axis=-1, epsilon=None):
    """x / sqrt(mean(x**2) + epsilon) over ``axis``, times ``scale`` (epsilon 1e-7 by default)."""
    x = floating(x)
    epsilon = EPSILON if epsilon is None else epsilon
    out = x * _tm.rsqrt(_tm.reduce_mean(_tm.square(x), axis=axis, keepdims=True) + epsilon)
    return out * tensor(scale, x.dtype.name)


@keras_op("normalize")
def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its L``order`` norm along ``axis`` (at least ``epsilon``)."""
    x = floating(x)
    epsilon = EPSILON if epsilon is None else epsilon
    if order == 2:
        return _tm.l2_normalize(x, axis=axis, epsilon=epsilon * epsilon)
    norm = _tm.reduce_sum(_tm.abs(x) ** float(order), axis=axis, keepdims=True) ** (1.0 / order)
    return x / _tm.maximum(norm, epsilon)


# -- convolution and pooling -------------------------------------------------------------


def _tuple(value, n, what):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"`{what}` must be an int or a tuple of {n} ints, got {value}.")
    return value


def _channels_last(x, data_format, spatial):
    if data_format == "channels_first":
        return _pa.transpose(x, [0] + list(range(2, 2 + spatial)) + [1])
    if data_format not in (None, "channels_last"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}.")
    return x


def _restore(x, data_format, spatial):
    if data_format == "channels_first":
        return _pa.transpose(x, [0, spatial + 1] + list(range(1, spatial + 1)))
    return x


def _as_2d(x, kernel, spatial):
    """A 1-D convolution's (N, W, C) input and (W, I, O) kernel raised to height 1."""
    if spatial == 1:
        return _pa.expand_dims(x, 1), _pa.expand_dims(kernel, 0) if kernel is not None else None
    if spatial != 2:
        raise ValueError(f"tapeviz's keras.ops convolutions and pools take 1-D and 2-D inputs, got {spatial}-D.")
    return x, kernel


def _dilate(kernel, rates):
    """The kernel spread out by ``rates`` (zeros between taps): a dilated conv is a plain conv with it."""
    for axis, rate in enumerate(rates):
        if rate == 1:
            continue
        size = kernel.shape[axis]
        spread = _pa.stack([kernel] + [_pa.zeros_like(kernel)] * (rate - 1), axis=axis + 1)
        shape = list(kernel.shape)
        shape[axis] = size * rate
        kernel = _pa.reshape(spread, shape)
        keep = [slice(None)] * len(shape)
        keep[axis] = slice(0, (size - 1) * rate + 1)
        kernel = kernel[tuple(keep)]
    return kernel


def _padding(padding):
    padding = padding.lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same', got {padding!r}.")
    return padding.upper()


@keras_op("conv")
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """An N-D convolution (N = 1 or 2) of ``inputs`` with a (spatial..., in, out) ``kernel``."""
    x, kernel = promoted(floating(inputs), floating(kernel))
    spatial = len(x.shape) - 2
    x = _channels_last(x, data_format, spatial)
    strides, rates = _tuple(strides, spatial, "strides"), _tuple(dilation_rate, spatial, "dilation_rate")
    if _any_true(r > 1 for r in rates) and _any_true(s > 1 for s in strides):
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`.")
    kernel = _dilate(kernel, rates)
    x2, k2 = _as_2d(x, kernel, spatial)
    out = _conv.conv2d(x2, k2, strides=(1,) + strides if spatial == 1 else strides, padding=_padding(padding))
    if spatial == 1:
        out = _pa.squeeze(out, axis=[1])
    return _restore(out, data_format, spatial)


def _any_true(values):
    for v in values:
        if v:
            return True
    return False


def _depthwise_as_full(kernel):
    """A (..., C, M) depthwise kernel as the block-diagonal (..., C, C*M) kernel of one ordinary conv."""
    channels, multiplier = kernel.shape[-2], kernel.shape[-1]
    eye = _constant(np.eye(channels, dtype=kernel.dtype.as_numpy_dtype))
    spread = _pa.expand_dims(kernel, -2) * _pa.reshape(eye, [channels, channels, 1])  # (..., C, C, M)
    return _pa.reshape(spread, list(kernel.shape[:-2]) + [channels, channels * multiplier])


@keras_op("depthwise_conv")
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Each input channel convolved with its own (spatial..., 1, multiplier) filters: output channel c*M + m."""
    x, kernel = promoted(floating(inputs), floating(kernel))
    return conv(x, _depthwise_as_full(kernel), strides, padding, data_format, dilation_rate)


@keras_op("separable_conv")
def separable_conv(
    inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None, dilation_rate=1
):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution."""
    depthwise = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(depthwise, pointwise_kernel, 1, "valid", data_format)


def _pool(name, primitive):
    @keras_op(name)
    def op(inputs, pool_size, strides=None, padding="valid", data_format=None):
        x = floating(inputs)
        spatial = len(x.shape) - 2
        x = _channels_last(x, data_format, spatial)
        size = _tuple(pool_size, spatial, "pool_size")
        step = size if strides is None else _tuple(strides, spatial, "strides")
        x2, _ = _as_2d(x, None, spatial)
        if spatial == 1:
            size, step = (1,) + size, (1,) + step
        out = primitive(x2, ksize=[1, *size, 1], strides=[1, *step, 1], padding=_padding(padding))
        if spatial == 1:
            out = _pa.squeeze(out, axis=[1])
        return _restore(out, data_format, spatial)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"``keras.ops.{name}(inputs, pool_size, strides=None, padding='valid', data_format=None)``, 1-D or 2-D."
    )
    return op


max_pool = _pool("max_pool", _conv.max_pool2d)
average_pool = _pool("average_pool", _conv.avg_pool2d)


@keras_op("depth_to_space")
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move channel blocks into (block_size x block_size) spatial tiles."""
    x = _channels_last(tensor(x), data_format, 2)
    n, h, w, c = x.shape
    b = block_size
    out = _pa.reshape(x, [n, h, w, b, b, c // (b * b)])
    out = _pa.transpose(out, [0, 1, 3, 2, 4, 5])
    return _restore(_pa.reshape(out, [n, h * b, w * b, c // (b * b)]), data_format, 2)


@keras_op("space_to_depth")
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move (block_size x block_size) spatial tiles into channels."""
    x = _channels_last(tensor(x), data_format, 2)
    n, h, w, c = x.shape
    b = block_size
    out = _pa.reshape(x, [n, h // b, b, w // b, b, c])
    out = _pa.transpose(out, [0, 1, 3, 2, 4, 5])
    return _restore(_pa.reshape(out, [n, h // b, w // b, b * b * c]), data_format, 2)


@keras_op("dot_product_attention")
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False, **kwargs):
    """softmax(Q K^T * scale + bias, masked) V for (batch, length, heads, dim) inputs, as Keras."""
    q, k, v = promoted(floating(query), floating(key), floating(value))
    scale = 1.0 / _pymath.sqrt(q.shape[-1]) if scale is None else scale
    logits = _knp.einsum("BTNH,BSNH->BNTS", q, k) * scale
    if bias is not None:
        logits = logits + tensor(bias, logits.dtype.name)
    keep = None
    if mask is not None:
        keep = _cast(tensor(mask), "bool")
    if is_causal:
        t, s = logits.shape[-2], logits.shape[-1]
        causal = _constant(np.tril(np.ones((t, s), bool)))
        keep = causal if keep is None else _tm.logical_and(keep, causal)
    if keep is not None:
        big = np.finfo(logits.dtype.as_numpy_dtype).min / 2
        keep = _pa.broadcast_to(keep, list(logits.shape))
        logits = _tm.where(keep, logits, _pa.zeros_like(logits) + big)
    weights = _tm.softmax(logits, axis=-1)
    return _knp.einsum("BNTS,BSNH->BTNH", weights, v)


@keras_op("conv_transpose")
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None, dilation_rate=1):
    """The transpose of ``conv`` for 2-D inputs: ``kernel`` is (h, w, out_channels, in_channels), as Keras."""
    from tapeviz import nn as tapeviz_nn

    x, kernel = promoted(floating(inputs), floating(kernel))
    if len(x.shape) != 4:
        raise ValueError(f"tapeviz's conv_transpose takes 2-D (4-D tensor) inputs, got rank {len(x.shape)}.")
    if output_padding is not None or _tuple(dilation_rate, 2, "dilation_rate") != (1, 1):
        raise ValueError("tapeviz's conv_transpose supports output_padding=None and dilation_rate=1 only.")
    x = _channels_last(x, data_format, 2)
    sh, sw = _tuple(strides, 2, "strides")
    kh, kw = kernel.shape[0], kernel.shape[1]
    n, h, w = x.shape[0], x.shape[1], x.shape[2]
    if padding.lower() == "same":
        out_h, out_w = h * sh, w * sw
    else:
        out_h, out_w = (h - 1) * sh + kh, (w - 1) * sw + kw
    out = tapeviz_nn.conv2d_transpose(
        x, kernel, [n, out_h, out_w, kernel.shape[2]], (sh, sw), padding=_padding(padding)
    )
    return _restore(out, data_format, 2)


__all__ = sorted(
    n
    for n, v in dict(globals()).items()
    if not n.startswith("_")
    and callable(v)
    and n not in ("_any_true", "floating", "keras_op", "promoted", "standardize_dtype", "tensor", "np", "FLOATX")
)
