"""Max and average pooling, and their gradients; each kernel with its gradient rule."""

from tapeviz import backend as B
from tapeviz.core.ops import as_tensor, as_tensors, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.conv.layout import geometry, hw_pair, pad_spatial, padding_mode, window_view
from tapeviz.core.rules import defgrad, described

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
    return [window_view(array, i, j, oh, ow, strides) for i in range(kh) for j in range(kw)]


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
    xp_ = pad_spatial(x, ph, pw, value=-B.xp.inf)
    best = window_view(xp_, 0, 0, oh, ow, strides)
    where = B.xp.zeros(best.shape, dtype=B.xp.int32)
    for i in range(kh):
        for j in range(kw):
            if i == j == 0:
                continue
            candidate = window_view(xp_, i, j, oh, ow, strides)
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
    return _pick(_windows(pad_spatial(h, ph, pw), ksize, strides, oh, ow), hits)


MAX_POOL = Primitive("MaxPool", _max_pool)
MAX_POOL_GRAD = Primitive("MaxPoolGrad", _max_pool_grad)
MAX_POOL_GRAD_GRAD = Primitive("MaxPoolGradGrad", _max_pool_grad_grad)


def _pool_attrs(ksize, strides, padding):
    ksize = hw_pair(ksize, "ksize")
    strides = ksize if strides is None else hw_pair(strides, "strides")
    return {"ksize": ksize, "strides": strides, "padding": padding_mode(padding)}


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Max over each ``ksize`` window of NHWC ``input``, moving by ``strides``.

    Where a window holds the maximum more than once, the gradient goes to the
    first one (row-major), as in TF.

    Args:
        input: a (batch, height, width, channels) tensor.
        ksize: the window's size (an int, or one per spatial axis, or TF's full list).
        strides: the window's step, likewise.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NHWC"`` only.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the pooled spatial sizes.

    Raises:
        ValueError: another data format.
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
    return (max_pool_grad(op.inputs[0], g, op.attrs),)


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
    return None, (max_pool_grad_grad(x, h, op.attrs) if needs[1] else None)


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
    return None, (max_pool_grad(x, g, op.attrs) if needs[1] else None)


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
    ones = pad_spatial(B.xp.ones((1, x_shape[1], x_shape[2], 1), dtype=dtype), ph, pw)
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
    for view in _windows(pad_spatial(x, ph, pw), ksize, strides, oh, ow):
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

    Args:
        input: a (batch, height, width, channels) tensor.
        ksize: the window's size (an int, or one per spatial axis, or TF's full list).
        strides: the window's step, likewise.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NHWC"`` only.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the pooled spatial sizes.

    Raises:
        ValueError: another data format.
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
    return (avg_pool_grad(op.inputs[0].shape, g, op.attrs),)


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
    return (avg_pool2d(h, attrs["ksize"], attrs["strides"], attrs["padding"]),)
