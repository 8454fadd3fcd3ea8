"""2-D convolution, max and average pooling, NHWC (kernels only; rules in core.gradients.conv).

The convolution is im2col: gather every kernel-sized window of the (padded)
input into one matrix, then do a single matrix product with the filter.
The gather is a loop over the kernel's kh*kw offsets, each one a strided
slice, so it works on NumPy and CuPy alike and never loops over pixels.

Eight primitives, as in TensorFlow, so that every rule is written in tapeviz
ops and second derivatives exist:

- ``Conv2D(x, w)``                      the forward convolution;
- ``Conv2DBackpropInput(g, w)``         its gradient with respect to x;
- ``Conv2DBackpropFilter(x, g)``        its gradient with respect to w;
- ``MaxPool(x)``                        the forward pooling;
- ``MaxPoolGrad(x, g)`` / ``MaxPoolGradGrad(x, h)``  its gradient and that
  gradient's own gradient (routing to / picking from the window's first max);
- ``AvgPool(x)`` / ``AvgPoolGrad(g)``   average pooling and its gradient (each
  the other's transpose: both linear).

A transposed convolution (``conv2d_transpose``, Keras's Conv2DTranspose) is
``Conv2DBackpropInput`` itself, as in TF.
"""

from tapeviz import backend as B
from tapeviz.core.ops import as_tensor, as_tensors, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives import array as _array
from tapeviz.core.rules import defgrad, described

# -- geometry ------------------------------------------------------------------------


def _pair(value, name):
    """An int or a pair (or TF's 4-element NHWC list) as a (height, width) pair."""
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return (value[0], value[0])
    if len(value) == 2:
        return value
    if len(value) == 4:  # TF's [1, h, w, 1]
        if value[0] != 1 or value[3] != 1:
            raise ValueError(f"{name} over the batch or channel axis is not supported, got {list(value)}.")
        return value[1:3]
    raise ValueError(f"{name} must be an int or a list of 1, 2 or 4 ints, got {value!r}.")


def _padding(padding):
    padding = str(padding).upper()
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}.")
    return padding


def _out_and_pads(size, k, s, padding):
    """Output length and (before, after) padding along one axis, by TF's rule.

    'SAME': out = ceil(size / s), padded so the windows cover the input, the
    odd pixel of padding going after (bottom/right), as TF does.
    """
    if padding == "VALID":
        if size < k:
            raise ValueError(f"The window ({k}) is larger than the input ({size}) with padding 'VALID'.")
        return (size - k) // s + 1, (0, 0)
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, (total // 2, total - total // 2)


def geometry(x_shape, k_hw, strides, padding, dilations=(1, 1)):
    """(out_h, out_w, pad_h, pad_w) for an NHWC input shape.

    A dilated kernel spans (k - 1) * d + 1 pixels, and that span is what the
    output size and the padding see.
    """
    span_h, span_w = (k_hw[0] - 1) * dilations[0] + 1, (k_hw[1] - 1) * dilations[1] + 1
    oh, ph = _out_and_pads(x_shape[1], span_h, strides[0], padding)
    ow, pw = _out_and_pads(x_shape[2], span_w, strides[1], padding)
    return oh, ow, ph, pw


def _pad(x, ph, pw, value=0):
    if ph == (0, 0) and pw == (0, 0):
        return x
    # A filled buffer and one slice assignment: ten times faster than xp.pad here.
    n, h, w, c = x.shape
    shape = (n, h + ph[0] + ph[1], w + pw[0] + pw[1], c)
    # zeros (calloc) is measurably cheaper than full(shape, 0).
    out = B.xp.zeros(shape, dtype=x.dtype) if value == 0 else B.xp.full(shape, value, dtype=x.dtype)
    out[:, ph[0] : ph[0] + h, pw[0] : pw[0] + w, :] = x
    return out


def _window(array, i, j, oh, ow, strides):
    """The (n, oh, ow, c) slice of the padded input seen by kernel offset (i, j)."""
    sh, sw = strides
    return array[:, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw, :]


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
    padded = _pad(x, conv.ph, conv.pw)
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
    padded = _pad(x, conv.ph, conv.pw)
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


def _spatial(value, name, data_format="NHWC"):
    """strides or dilations as a (height, width) pair; TF's 4-element form follows ``data_format``."""
    if value is None:
        return (1, 1)
    if data_format == "NCHW" and not isinstance(value, int) and len(value) == 4:
        value = [value[0], value[2], value[3], value[1]]  # as NHWC
    return _pair(value, name)


def _data_format(data_format, what):
    if data_format not in ("NHWC", "NCHW", None):
        raise ValueError(f"{what}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}.")
    return data_format or "NHWC"


def _conv_attrs(strides, padding, dilations, data_format="NHWC"):
    attrs = {"strides": _spatial(strides, "strides", data_format), "padding": _padding(padding)}
    dilations = _spatial(dilations, "dilations", data_format)
    if min(dilations) < 1 or min(attrs["strides"]) < 1:
        raise ValueError(f"strides and dilations must be positive, got {attrs['strides']} and {dilations}.")
    if dilations != (1, 1):  # recorded only when used, so undilated ops read as before
        attrs["dilations"] = dilations
    return attrs


def _nhwc(x, data_format):
    """An NCHW tensor viewed as NHWC (a recorded transpose, so gradients flow through it)."""
    return x if data_format == "NHWC" else _array.transpose(x, (0, 2, 3, 1))


def _back_to(y, data_format):
    return y if data_format == "NHWC" else _array.transpose(y, (0, 3, 1, 2))


def _nhwc_shape(shape, data_format):
    shape = tuple(int(n) for n in shape)
    return shape if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as in TF) of ``input`` with HWIO ``filters``.

    ``padding`` is 'VALID' (no padding) or 'SAME' (output = ceil(input / stride)).
    ``dilations`` spaces the kernel's taps (d - 1 pixels between them).
    ``data_format`` 'NCHW' takes and gives (batch, channels, height, width):
    the convolution runs channels-last between two recorded transposes.
    """
    data_format = _data_format(data_format, "conv2d")
    x, w = as_tensors(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, data_format)
    return _back_to(execute(CONV2D, (_nhwc(x, data_format), w), attrs), data_format)


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
    gx = c.conv2d_backprop_input(x.shape, w, g, s, p, d) if needs[0] else None
    gw = c.conv2d_backprop_filter(x, w.shape, g, s, p, d) if needs[1] else None
    return gx, gw


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides, padding, dilations=None, data_format="NHWC"):
    """The gradient of ``conv2d`` with respect to its input, of shape ``input_sizes``."""
    data_format = _data_format(data_format, "conv2d_backprop_input")
    g, w = as_tensors(out_backprop, filters)
    attrs = {"input_shape": _nhwc_shape(input_sizes, data_format)}
    attrs.update(_conv_attrs(strides, padding, dilations, data_format))
    return _back_to(execute(CONV2D_BACKPROP_INPUT, (_nhwc(g, data_format), w), attrs), data_format)


@defgrad(
    CONV2D_BACKPROP_INPUT,
    "d/dg = conv(h, w),  d/dw = conv_backprop_filter(h, g)",
    local=described("w (a convolution of the upstream)", "h correlated with g"),
)
def _conv2d_backprop_input_rule(op, needs, h):
    g, w = op.inputs
    s, p, d = _geometry(op.attrs)
    gg = c.conv2d(h, w, s, p, dilations=d) if needs[0] else None
    gw = c.conv2d_backprop_filter(h, w.shape, g, s, p, d) if needs[1] else None
    return gg, gw


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, dilations=None, data_format="NHWC"):
    """The gradient of ``conv2d`` with respect to its filter, of shape ``filter_sizes``."""
    data_format = _data_format(data_format, "conv2d_backprop_filter")
    x, g = as_tensors(input, out_backprop)
    attrs = {"filter_shape": tuple(int(n) for n in filter_sizes)}
    attrs.update(_conv_attrs(strides, padding, dilations, data_format))
    return execute(CONV2D_BACKPROP_FILTER, (_nhwc(x, data_format), _nhwc(g, data_format)), attrs)


@defgrad(
    CONV2D_BACKPROP_FILTER,
    "d/dx = conv_backprop_input(g, h),  d/dg = conv(x, h)",
    local=described("h (a transposed convolution)", "x correlated with the upstream"),
)
def _conv2d_backprop_filter_rule(op, needs, h):
    x, g = op.inputs
    s, p, d = _geometry(op.attrs)
    gx = c.conv2d_backprop_input(x.shape, h, g, s, p, d) if needs[0] else None
    gg = c.conv2d(x, h, s, p, dilations=d) if needs[1] else None
    return gx, gg


# -- max pooling kernels ----------------------------------------------------------------
#
# Each window's gradient goes to its first max in row-major order, as in TF.
# Both the gradient and its own gradient work from one boolean mask per
# window offset (i, j), True where that offset holds its window's first max.
# Windows that tile the input exactly (the usual 2x2 pool) get those masks
# from kh*kw strided views and a few whole-array comparisons; other windows
# (overlapping or 'SAME'-padded) from a sweep over the offsets. A NaN counts
# as the max on the tiled path (np.max and np.argmax's rule); on the swept
# path only a NaN at the first offset does.


def _tiles(x, ksize, strides, padding):
    """True when the windows tile the input exactly (VALID, stride = window, sizes divide)."""
    return (
        padding == "VALID"
        and tuple(ksize) == tuple(strides)
        and x.shape[1] % ksize[0] == 0
        and x.shape[2] % ksize[1] == 0
    )


def _windows(array, ksize, strides, oh, ow):
    """The (n, oh, ow, c) views of ``array`` seen by each window offset, row-major."""
    kh, kw = ksize
    return [_window(array, i, j, oh, ow, strides) for i in range(kh) for j in range(kw)]


def _running_max(views):
    """The elementwise max of the views, folded left to right.

    That is the order ``max`` over the window axes takes, so even the sign of
    a zero max comes out the same.
    """
    if len(views) == 1:
        return views[0].copy()
    best = B.xp.maximum(views[0], views[1])
    for view in views[2:]:
        B.xp.maximum(best, view, out=best)
    return best


def _first_max_hits(views, best):
    """One mask per view: True where it holds its window's first max (the first NaN if the max is NaN)."""
    nan_max = None  # where the max is NaN: == cannot find those, isnan can
    if best.dtype.kind in "fc":
        nan_max = B.xp.isnan(best)
        if not nan_max.any():  # the usual case: skip the extra work per view
            nan_max = None
    hits, taken = [], None
    for view in views[:-1]:
        hit = B.xp.equal(view, best)
        if nan_max is not None:
            hit |= B.xp.isnan(view) & nan_max
        if taken is None:
            taken = hit.copy()
        else:
            B.xp.greater(hit, taken, out=hit)  # hit and not taken: a tie goes to the earlier offset
            B.xp.logical_or(taken, hit, out=taken)
        hits.append(hit)
    # Every window has exactly one first max: the last offset holds it when no other does.
    hits.append(B.xp.ones(best.shape, dtype=bool) if taken is None else ~taken)
    return hits


def _argmax_windows(x, ksize, strides, padding):
    """For each output position, the window's max and which offset (i*kw + j) holds it first."""
    kh, kw = ksize
    oh, ow, ph, pw = geometry(x.shape, ksize, strides, padding)
    # Padding never wins: TF pools 'SAME' windows over the real pixels only.
    xp_ = _pad(x, ph, pw, value=-B.xp.inf)
    best = _window(xp_, 0, 0, oh, ow, strides)
    where = B.xp.zeros(best.shape, dtype=B.xp.int32)
    for i in range(kh):
        for j in range(kw):
            if i == j == 0:
                continue
            candidate = _window(xp_, i, j, oh, ow, strides)
            better = candidate > best  # strictly: ties keep the earlier offset, as TF
            best = B.xp.where(better, candidate, best)
            where = B.xp.where(better, i * kw + j, where)
    return best, where, (oh, ow, ph, pw)


def _first_max_masks(x, ksize, strides, padding):
    """One mask per window offset (row-major), True where it holds its window's first max; and the geometry."""
    oh, ow, ph, pw = geometry(x.shape, ksize, strides, padding)
    if _tiles(x, ksize, strides, padding):
        views = _windows(x, ksize, strides, oh, ow)
        return _first_max_hits(views, _running_max(views)), (oh, ow, ph, pw)
    _, where, _ = _argmax_windows(x, ksize, strides, padding)
    return [where == k for k in range(ksize[0] * ksize[1])], (oh, ow, ph, pw)


def _bits(array):
    """A view of ``array``'s raw bits as unsigned ints of the same width."""
    return array.view(f"u{array.dtype.itemsize}")


def _has_bits(dtype):
    return dtype.itemsize <= 8  # complex128 and longdouble have no unsigned int that wide


def _keep_where(values, hit, out):
    """``values`` where ``hit``, +0 elsewhere, written into ``out`` bit for bit.

    ``values * hit`` would give -0.0 for a negative value and NaN for an
    infinite one; multiplying the raw bits by 1 or 0 gives the value or +0.
    """
    if _has_bits(values.dtype):
        B.xp.multiply(_bits(values), hit, out=_bits(out))
    else:
        out[...] = B.xp.where(hit, values, B.xp.zeros((), dtype=values.dtype))
    return out


def _pick(views, hits):
    """Each output's value from the one view whose mask is True there, bit for bit."""
    if not _has_bits(views[0].dtype):
        out = views[0].copy()
        for view, hit in zip(views[1:], hits[1:]):
            out = B.xp.where(hit, view, out)
        return out
    out = B.xp.zeros(hits[0].shape, dtype=views[0].dtype)
    picked = B.xp.empty_like(out)
    for view, hit in zip(views, hits):
        _keep_where(view, hit, picked)
        B.xp.bitwise_or(_bits(out), _bits(picked), out=_bits(out))  # the others are +0: all-zero bits
    return out


def _max_pool(x, ksize, strides, padding):
    if x.ndim != 4:
        raise ValueError(f"max_pool2d needs a 4-D input (NHWC), got rank {x.ndim}.")
    if _tiles(x, ksize, strides, padding):
        oh, ow, _, _ = geometry(x.shape, ksize, strides, padding)
        return _running_max(_windows(x, ksize, strides, oh, ow))
    return _argmax_windows(x, ksize, strides, padding)[0]


def _max_pool_grad(x, g, ksize, strides, padding):
    """Route each output's gradient to the first max of its window."""
    hits, (oh, ow, ph, pw) = _first_max_masks(x, ksize, strides, padding)
    if _tiles(x, ksize, strides, padding):
        # Every pixel lies in exactly one window: write each offset's share, no zeros or sums.
        out = B.xp.empty(x.shape, dtype=g.dtype)
        for out_view, hit in zip(_windows(out, ksize, strides, oh, ow), hits):
            _keep_where(g, hit, out_view)
        return out
    n, h, w, c = x.shape
    out = B.xp.zeros((n, h + sum(ph), w + sum(pw), c), dtype=g.dtype)
    routed = B.xp.empty(g.shape, dtype=g.dtype)
    for window, hit in zip(_windows(out, ksize, strides, oh, ow), hits):
        window += _keep_where(g, hit, routed)  # windows overlap: sum, in offset order
    return out[:, ph[0] : ph[0] + h, pw[0] : pw[0] + w, :]


def _max_pool_grad_grad(x, h, ksize, strides, padding):
    """Pick, for each output position, ``h`` at the first max of its window."""
    hits, (oh, ow, ph, pw) = _first_max_masks(x, ksize, strides, padding)
    return _pick(_windows(_pad(h, ph, pw), ksize, strides, oh, ow), hits)


MAX_POOL = Primitive("MaxPool", _max_pool)
MAX_POOL_GRAD = Primitive("MaxPoolGrad", _max_pool_grad)
MAX_POOL_GRAD_GRAD = Primitive("MaxPoolGradGrad", _max_pool_grad_grad)


def _pool_attrs(ksize, strides, padding):
    ksize = _pair(ksize, "ksize")
    strides = ksize if strides is None else _pair(strides, "strides")
    return {"ksize": ksize, "strides": strides, "padding": _padding(padding)}


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Max over each ``ksize`` window of NHWC ``input``, moving by ``strides``.

    Where a window holds the maximum more than once, the gradient goes to the
    first one (row-major), as in TF.
    """
    if data_format != "NHWC":
        raise ValueError(f"tapeviz's max_pool2d supports data_format='NHWC' only, got {data_format!r}.")
    return execute(MAX_POOL, (as_tensor(input),), _pool_attrs(ksize, strides, padding))


@defgrad(
    MAX_POOL,
    "d maxpool(x)/dx = the upstream routed to each window's first max",
    local=described("1 at each window's first maximum, 0 elsewhere"),
)
def _max_pool_rule(op, needs, g):
    return (c.max_pool_grad(op.inputs[0], g, op.attrs),)


def max_pool_grad(input, grad, attrs):
    """The gradient of ``max_pool2d`` at ``input`` for the upstream ``grad``."""
    x, g = as_tensors(input, grad)
    return execute(MAX_POOL_GRAD, (x, g), attrs)


@defgrad(
    MAX_POOL_GRAD,
    "d/dg = the upstream picked at each window's first max; d/dx = 0 (piecewise constant)",
    local=described(None, "1 at each window's first maximum"),
)
def _max_pool_grad_rule(op, needs, h):
    x, _ = op.inputs
    return None, (c.max_pool_grad_grad(x, h, op.attrs) if needs[1] else None)


def max_pool_grad_grad(input, grad, attrs):
    """The gradient of ``max_pool_grad`` with respect to its upstream: ``grad`` at each window's first max."""
    x, h = as_tensors(input, grad)
    return execute(MAX_POOL_GRAD_GRAD, (x, h), attrs)


@defgrad(
    MAX_POOL_GRAD_GRAD,
    "d/dh = the upstream routed to each window's first max; d/dx = 0",
    local=described(None, "1 at each window's first maximum"),
)
def _max_pool_grad_grad_rule(op, needs, g):
    x, _ = op.inputs
    return None, (c.max_pool_grad(x, g, op.attrs) if needs[1] else None)


# -- average pooling kernels ----------------------------------------------------------------
#
# Average pooling is linear: y = A x, where each output is the mean of its
# window's real pixels ('SAME' padding is not counted, as in TF). Its
# gradient is A^T g (AvgPoolGrad: each output's upstream shared equally by
# its window's pixels), and AvgPoolGrad's own gradient is A again, so the two
# primitives close under differentiation.


def _window_counts(x_shape, ksize, strides, padding, dtype):
    """How many real (unpadded) pixels each window holds, shaped (1, oh, ow, 1)."""
    oh, ow, ph, pw = geometry(x_shape, ksize, strides, padding)
    ones = _pad(B.xp.ones((1, x_shape[1], x_shape[2], 1), dtype=dtype), ph, pw)
    counts = B.xp.zeros((1, oh, ow, 1), dtype=dtype)
    for view in _windows(ones, ksize, strides, oh, ow):
        counts += view
    return counts


def _avg_pool(x, ksize, strides, padding):
    if x.ndim != 4:
        raise ValueError(f"avg_pool2d needs a 4-D input (NHWC), got rank {x.ndim}.")
    if x.dtype.kind not in "fc":
        raise TypeError(
            f"avg_pool2d needs a floating-point input (TF has no AvgPool kernel for {x.dtype}); cast it first."
        )
    oh, ow, ph, pw = geometry(x.shape, ksize, strides, padding)
    total = B.xp.zeros((x.shape[0], oh, ow, x.shape[3]), dtype=x.dtype)
    for view in _windows(_pad(x, ph, pw), ksize, strides, oh, ow):
        total += view
    return total / _window_counts(x.shape, ksize, strides, padding, x.dtype)


def _avg_pool_grad(g, input_shape, ksize, strides, padding):
    """Each output's upstream, divided by its window's size, added to every pixel of the window."""
    n, h, w, c = input_shape
    oh, ow, ph, pw = geometry(input_shape, ksize, strides, padding)
    share = g / _window_counts(input_shape, ksize, strides, padding, g.dtype)
    out = B.xp.zeros((n, h + sum(ph), w + sum(pw), c), dtype=g.dtype)
    for window in _windows(out, ksize, strides, oh, ow):
        window += share  # windows may overlap: sum
    return out[:, ph[0] : ph[0] + h, pw[0] : pw[0] + w, :]


AVG_POOL = Primitive("AvgPool", _avg_pool)
AVG_POOL_GRAD = Primitive("AvgPoolGrad", _avg_pool_grad)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The mean over each ``ksize`` window of NHWC ``input``, moving by ``strides``.

    With 'SAME' padding, a window at the border averages its real pixels
    only (the padding is not counted), as in TF.
    """
    if data_format != "NHWC":
        raise ValueError(f"tapeviz's avg_pool2d supports data_format='NHWC' only, got {data_format!r}.")
    return execute(AVG_POOL, (as_tensor(input),), _pool_attrs(ksize, strides, padding))


@defgrad(
    AVG_POOL,
    "d avgpool(x)/dx = the upstream shared equally by each window's pixels (avg_pool_grad)",
    local=described("1/(window size) for each pixel of each window it falls in"),
)
def _avg_pool_rule(op, needs, g):
    return (c.avg_pool_grad(op.inputs[0].shape, g, op.attrs),)


def avg_pool_grad(input_shape, grad, attrs):
    """The gradient of ``avg_pool2d`` for an input of ``input_shape`` and the upstream ``grad``."""
    return execute(AVG_POOL_GRAD, (as_tensor(grad),), {"input_shape": tuple(int(n) for n in input_shape), **attrs})


@defgrad(
    AVG_POOL_GRAD,
    "d/dg = avgpool(upstream): the operation is linear, its transpose is the pooling",
    local=described("1/(window size) over each window (the pooling itself)"),
)
def _avg_pool_grad_rule(op, needs, h):
    attrs = {k: v for k, v in op.attrs.items() if k != "input_shape"}
    return (c.avg_pool2d(h, attrs["ksize"], attrs["strides"], attrs["padding"]),)


# What the rules above call from other families, imported last: those families import this one.
from tapeviz.core.primitives import conv as c  # noqa: E402
