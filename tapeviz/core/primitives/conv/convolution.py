"""2-D convolution by im2col, and its two backprops; each kernel with its gradient rule.

The convolution and its two backprops are each linear in each input, so the
gradient of any of them is another of them: the three close under
differentiation, and derivatives of every order exist.
"""

from tapeviz import backend as B
from tapeviz.core.ops import as_tensors, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.conv.layout import (
    checked_data_format,
    conv_attrs,
    from_nhwc,
    geometry,
    nhwc_shape,
    pad_spatial,
    to_nhwc,
)
from tapeviz.core.rules import defgrad, described

# -- convolution kernels -------------------------------------------------------------
#
# Two ways to a kernel's products, chosen by the channel counts. Usually
# im2col: copy each output's kh*kw input windows side by side and make one
# matrix product with the filter, a block of images at a time, so the copy
# stays near _BLOCK_BYTES however large the batch (a whole-batch copy for a
# 7x7 kernel over 128 channels is over a gigabyte). Where the output side is
# narrow (a one-channel image), the copy would be kh*kw times the wide side:
# instead make one product of the wide side with every offset's filter at
# once, and add (or spread) the results along the windows.

_BLOCK_BYTES = 16 << 20  # 4 MB blocks measured slower (more, smaller products); 64 MB fall out of cache


def _check_conv(x, w):
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(f"conv2d needs a 4-D input (NHWC) and a 4-D filter (HWIO), got ranks {x.ndim} and {w.ndim}.")


class _Conv:
    """One convolution's geometry: input shape, kernel, strides, padding and dilations."""

    def __init__(self, x_shape, w_shape, strides, padding, dilations):
        self.x_shape, (self.kh, self.kw, self.c, self.f) = tuple(x_shape), w_shape
        self.strides, self.dilations = strides, dilations
        self.oh, self.ow, self.ph, self.pw = geometry(x_shape, (self.kh, self.kw), strides, padding, dilations)
        self.taps = self.kh * self.kw

    @property
    def narrow_output(self):
        """True when copying the output side per offset is cheaper than the input side once (f * taps <= 2c)."""
        return self.f * self.taps <= 2 * self.c

    def windows(self, padded):
        """(k, view): the (n, oh, ow, ...) view of a padded array each kernel offset k sees, row-major."""
        (sh, sw), (dh, dw), oh, ow = self.strides, self.dilations, self.oh, self.ow
        for i in range(self.kh):
            for j in range(self.kw):
                y, x = i * dh, j * dw
                yield i * self.kw + j, padded[:, y : y + sh * (oh - 1) + 1 : sh, x : x + sw * (ow - 1) + 1 : sw]

    def image_blocks(self, width, itemsize):
        """Ranges of images whose (images * oh * ow, width) block stays near _BLOCK_BYTES."""
        per_image = max(1, self.oh * self.ow * width * itemsize)
        step = max(1, _BLOCK_BYTES // per_image)
        n = self.x_shape[0]
        return [(start, min(n, start + step)) for start in range(0, n, step)]

    def padded_zeros(self, channels, dtype):
        n, h, w, _ = self.x_shape
        return B.xp.zeros((n, h + sum(self.ph), w + sum(self.pw), channels), dtype=dtype)

    def unpad(self, padded):
        h, w = self.x_shape[1:3]
        return padded[:, self.ph[0] : self.ph[0] + h, self.pw[0] : self.pw[0] + w]

    def im2col(self, padded, out):
        """Each output position's windows of ``padded`` (a block of images), side by side: (rows, taps * c)."""
        cols = out.reshape(padded.shape[0], self.oh, self.ow, self.taps, padded.shape[3])
        for k, window in self.windows(padded):
            cols[:, :, :, k] = window
        return out

    def spread_upstream(self, g):
        """(n, hp, wp, taps * f): the upstream placed where each offset's window reads (zeros elsewhere)."""
        spread = self.padded_zeros(self.taps * self.f, g.dtype)
        by_tap = spread.reshape(spread.shape[:3] + (self.taps, self.f))
        for k, window in self.windows(by_tap):
            window[..., k, :] = g
        return spread.reshape(-1, self.taps * self.f)


def _conv2d(x, w, strides, padding, dilations=(1, 1)):
    _check_conv(x, w)
    kh, kw, c, f = w.shape
    if x.shape[3] != c:
        raise ValueError(
            f"input depth {x.shape[3]} does not match the filter's input depth {c} (filter shape {list(w.shape)})."
        )
    conv = _Conv(x.shape, w.shape, strides, padding, dilations)
    padded = pad_spatial(x, conv.ph, conv.pw)
    dtype = B.xp.result_type(x.dtype, w.dtype)
    if conv.narrow_output:  # one product over the input, every offset's filter at once; then sum along windows
        products = B.matmul(padded.reshape(-1, c), w.reshape(conv.taps, c, f).transpose(1, 0, 2).reshape(c, -1))
        products = products.reshape(padded.shape[:3] + (conv.taps, f))
        out = B.xp.zeros((x.shape[0], conv.oh, conv.ow, f), dtype=dtype)
        for k, window in conv.windows(products):
            out += window[..., k, :]
        return out
    out = B.xp.empty((x.shape[0], conv.oh * conv.ow, f), dtype=dtype)
    blocks = conv.image_blocks(conv.taps * c, x.itemsize)
    buffer = B.xp.empty(((blocks[0][1]) * conv.oh * conv.ow, conv.taps * c), dtype=x.dtype)
    for start, stop in blocks:
        cols = conv.im2col(padded[start:stop], buffer[: (stop - start) * conv.oh * conv.ow])
        B.matmul(cols, w.reshape(-1, f), out=out[start:stop].reshape(-1, f))
    return out.reshape(x.shape[0], conv.oh, conv.ow, f)


def _conv2d_backprop_input(g, w, input_shape, strides, padding, dilations=(1, 1)):
    kh, kw, c, f = w.shape
    conv = _Conv(input_shape, w.shape, strides, padding, dilations)
    dtype = B.xp.result_type(g.dtype, w.dtype)
    by_tap_t = w.reshape(conv.taps, c, f).transpose(0, 2, 1)  # (taps, f, c): each offset's filter, transposed
    if conv.narrow_output:  # the upstream spread along the windows, then one product
        n, h, width, _ = input_shape
        padded = B.matmul(conv.spread_upstream(g), by_tap_t.reshape(-1, c))
        return conv.unpad(padded.reshape(n, h + sum(conv.ph), width + sum(conv.pw), c))
    # col2im a block of images at a time: every offset's product, added where its window lies.
    padded = conv.padded_zeros(c, dtype)
    all_taps = by_tap_t.transpose(1, 0, 2).reshape(f, conv.taps * c)
    for start, stop in conv.image_blocks(conv.taps * c, padded.itemsize):
        products = B.matmul(g[start:stop].reshape(-1, f), all_taps).reshape(
            stop - start, conv.oh, conv.ow, conv.taps, c
        )
        for k, window in conv.windows(padded[start:stop]):
            window += products[:, :, :, k]
    return conv.unpad(padded)


def _conv2d_backprop_filter(x, g, filter_shape, strides, padding, dilations=(1, 1)):
    kh, kw, c, f = filter_shape
    conv = _Conv(x.shape, filter_shape, strides, padding, dilations)
    padded = pad_spatial(x, conv.ph, conv.pw)
    dtype = B.xp.result_type(x.dtype, g.dtype)
    if conv.narrow_output:  # one pass over the input against the upstream spread along the windows
        products = B.matmul(padded.reshape(-1, c).T, conv.spread_upstream(g))  # (c, taps * f)
        return products.reshape(c, conv.taps, f).transpose(1, 0, 2).reshape(filter_shape)
    out = B.xp.zeros((conv.taps * c, f), dtype=dtype)
    blocks = conv.image_blocks(conv.taps * c, x.itemsize)
    buffer = B.xp.empty(((blocks[0][1]) * conv.oh * conv.ow, conv.taps * c), dtype=x.dtype)
    for start, stop in blocks:
        cols = conv.im2col(padded[start:stop], buffer[: (stop - start) * conv.oh * conv.ow])
        out += B.matmul(cols.T, g[start:stop].reshape(-1, f))
    return out.reshape(filter_shape)


CONV2D = Primitive("Conv2D", _conv2d)
CONV2D_BACKPROP_INPUT = Primitive("Conv2DBackpropInput", _conv2d_backprop_input)
CONV2D_BACKPROP_FILTER = Primitive("Conv2DBackpropFilter", _conv2d_backprop_filter)


def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as in TF) of ``input`` with HWIO ``filters``.

    ``padding`` is 'VALID' (no padding) or 'SAME' (output = ceil(input / stride)).
    ``dilations`` spaces the kernel's taps (d - 1 pixels between them).
    ``data_format`` 'NCHW' takes and gives (batch, channels, height, width):
    the convolution runs channels-last between two recorded transposes.

    Args:
        input: a (batch, height, width, in) tensor (NHWC).
        filters: a (kh, kw, in, out) tensor.
        strides: an int, a pair, or TF's 4-entry list.
        padding: ``"VALID"``, ``"SAME"``, or explicit pairs per axis.
        data_format: ``"NHWC"`` (or ``"NCHW"``).
        dilations: the spacing of the filter's taps.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A (batch, height', width', out) Tensor.

    Example:
        >>> import tapeviz as tf
        >>> tf.nn.conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 8]), strides=1, padding="SAME").shape
        TensorShape([1, 5, 5, 8])
    """
    data_format = checked_data_format(data_format, "conv2d")
    x, w = as_tensors(input, filters)
    attrs = conv_attrs(strides, padding, dilations, data_format)
    return from_nhwc(execute(CONV2D, (to_nhwc(x, data_format), w), attrs), data_format)


def _geometry(attrs):
    """The strides, padding and dilations a convolution was recorded with."""
    return attrs["strides"], attrs["padding"], attrs.get("dilations")


@defgrad(
    CONV2D,
    "d conv(x,w)/dx = conv_backprop_input(g, w),  d/dw = conv_backprop_filter(x, g)",
    local=described("w (a transposed convolution of the upstream)", "x (the upstream correlated with x)"),
)
def _conv2d_rule(op, needs, g):
    x, w = op.inputs
    s, p, d = _geometry(op.attrs)
    gx = conv2d_backprop_input(x.shape, w, g, s, p, d) if needs[0] else None
    gw = conv2d_backprop_filter(x, w.shape, g, s, p, d) if needs[1] else None
    return gx, gw


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides, padding, dilations=None, data_format="NHWC"):
    """The gradient of ``conv2d`` with respect to its input, of shape ``input_sizes``."""
    data_format = checked_data_format(data_format, "conv2d_backprop_input")
    g, w = as_tensors(out_backprop, filters)
    attrs = {"input_shape": nhwc_shape(input_sizes, data_format)}
    attrs.update(conv_attrs(strides, padding, dilations, data_format))
    return from_nhwc(execute(CONV2D_BACKPROP_INPUT, (to_nhwc(g, data_format), w), attrs), data_format)


@defgrad(
    CONV2D_BACKPROP_INPUT,
    "d/dg = conv(h, w),  d/dw = conv_backprop_filter(h, g)",
    local=described("w (a convolution of the upstream)", "h correlated with g"),
)
def _conv2d_backprop_input_rule(op, needs, h):
    g, w = op.inputs
    s, p, d = _geometry(op.attrs)
    gg = conv2d(h, w, s, p, dilations=d) if needs[0] else None
    gw = conv2d_backprop_filter(h, w.shape, g, s, p, d) if needs[1] else None
    return gg, gw


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, dilations=None, data_format="NHWC"):
    """The gradient of ``conv2d`` with respect to its filter, of shape ``filter_sizes``."""
    data_format = checked_data_format(data_format, "conv2d_backprop_filter")
    x, g = as_tensors(input, out_backprop)
    attrs = {"filter_shape": tuple(int(n) for n in filter_sizes)}
    attrs.update(conv_attrs(strides, padding, dilations, data_format))
    return execute(CONV2D_BACKPROP_FILTER, (to_nhwc(x, data_format), to_nhwc(g, data_format)), attrs)


@defgrad(
    CONV2D_BACKPROP_FILTER,
    "d/dx = conv_backprop_input(g, h),  d/dg = conv(x, h)",
    local=described("h (a transposed convolution)", "x correlated with the upstream"),
)
def _conv2d_backprop_filter_rule(op, needs, h):
    x, g = op.inputs
    s, p, d = _geometry(op.attrs)
    gx = conv2d_backprop_input(x.shape, h, g, s, p, d) if needs[0] else None
    gg = conv2d(x, h, s, p, dilations=d) if needs[1] else None
    return gx, gg
