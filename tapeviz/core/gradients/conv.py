"""Gradient rules of the convolution and pooling primitives.

The convolution and its two backprops are each linear in each input, so the
gradient of any of them is another of them: the three close under
differentiation, and derivatives of every order exist.
"""

from tapeviz.core.gradients import defgrad, described
from tapeviz.core.primitives import conv as c


def _geometry(attrs):
    """The strides, padding and dilations a convolution was recorded with."""
    return attrs["strides"], attrs["padding"], attrs.get("dilations")


@defgrad(
    c.CONV2D,
    "d conv(x,w)/dx = conv_backprop_input(g, w),  d/dw = conv_backprop_filter(x, g)",
    local=described("w (a transposed convolution of the upstream)", "x (the upstream correlated with x)"),
)
def _conv2d(op, needs, g):
    x, w = op.inputs
    s, p, d = _geometry(op.attrs)
    gx = c.conv2d_backprop_input(x.shape, w, g, s, p, d) if needs[0] else None
    gw = c.conv2d_backprop_filter(x, w.shape, g, s, p, d) if needs[1] else None
    return gx, gw


@defgrad(
    c.CONV2D_BACKPROP_INPUT,
    "d/dg = conv(h, w),  d/dw = conv_backprop_filter(h, g)",
    local=described("w (a convolution of the upstream)", "h correlated with g"),
)
def _conv2d_backprop_input(op, needs, h):
    g, w = op.inputs
    s, p, d = _geometry(op.attrs)
    gg = c.conv2d(h, w, s, p, dilations=d) if needs[0] else None
    gw = c.conv2d_backprop_filter(h, w.shape, g, s, p, d) if needs[1] else None
    return gg, gw


@defgrad(
    c.CONV2D_BACKPROP_FILTER,
    "d/dx = conv_backprop_input(g, h),  d/dg = conv(x, h)",
    local=described("h (a transposed convolution)", "x correlated with the upstream"),
)
def _conv2d_backprop_filter(op, needs, h):
    x, g = op.inputs
    s, p, d = _geometry(op.attrs)
    gx = c.conv2d_backprop_input(x.shape, h, g, s, p, d) if needs[0] else None
    gg = c.conv2d(x, h, s, p, dilations=d) if needs[1] else None
    return gx, gg


@defgrad(
    c.MAX_POOL,
    "d maxpool(x)/dx = the upstream routed to each window's first max",
    local=described("1 at each window's first maximum, 0 elsewhere"),
)
def _max_pool(op, needs, g):
    return (c.max_pool_grad(op.inputs[0], g, op.attrs),)


@defgrad(
    c.MAX_POOL_GRAD,
    "d/dg = the upstream picked at each window's first max; d/dx = 0 (piecewise constant)",
    local=described(None, "1 at each window's first maximum"),
)
def _max_pool_grad(op, needs, h):
    x, _ = op.inputs
    return None, (c.max_pool_grad_grad(x, h, op.attrs) if needs[1] else None)


@defgrad(
    c.MAX_POOL_GRAD_GRAD,
    "d/dh = the upstream routed to each window's first max; d/dx = 0",
    local=described(None, "1 at each window's first maximum"),
)
def _max_pool_grad_grad(op, needs, g):
    x, _ = op.inputs
    return None, (c.max_pool_grad(x, g, op.attrs) if needs[1] else None)


@defgrad(
    c.AVG_POOL,
    "d avgpool(x)/dx = the upstream shared equally by each window's pixels (avg_pool_grad)",
    local=described("1/(window size) for each pixel of each window it falls in"),
)
def _avg_pool(op, needs, g):
    return (c.avg_pool_grad(op.inputs[0].shape, g, op.attrs),)


@defgrad(
    c.AVG_POOL_GRAD,
    "d/dg = avgpool(upstream): the operation is linear, its transpose is the pooling",
    local=described("1/(window size) over each window (the pooling itself)"),
)
def _avg_pool_grad(op, needs, h):
    attrs = {k: v for k, v in op.attrs.items() if k != "input_shape"}
    return (c.avg_pool2d(h, attrs["ksize"], attrs["strides"], attrs["padding"]),)
