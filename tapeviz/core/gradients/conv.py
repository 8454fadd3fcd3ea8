"""Gradient rules of the convolution and pooling primitives.

The convolution and its two backprops are each linear in each input, so the
gradient of any of them is another of them: the three close under
differentiation, and derivatives of every order exist.
"""

from tapeviz.core.gradients import defgrad
from tapeviz.core.primitives import conv as c


@defgrad("Conv2D", "d conv(x,w)/dx = conv_backprop_input(g, w),  d/dw = conv_backprop_filter(x, g)")
def _conv2d(op, needs, g):
    x, w = op.inputs
    a = op.attrs
    gx = c.conv2d_backprop_input(x._value.shape, w, g, a["strides"], a["padding"]) if needs[0] else None
    gw = c.conv2d_backprop_filter(x, w._value.shape, g, a["strides"], a["padding"]) if needs[1] else None
    return gx, gw


@defgrad("Conv2DBackpropInput", "d/dg = conv(h, w),  d/dw = conv_backprop_filter(h, g)")
def _conv2d_backprop_input(op, needs, h):
    g, w = op.inputs
    a = op.attrs
    gg = c.conv2d(h, w, a["strides"], a["padding"]) if needs[0] else None
    gw = c.conv2d_backprop_filter(h, w._value.shape, g, a["strides"], a["padding"]) if needs[1] else None
    return gg, gw


@defgrad("Conv2DBackpropFilter", "d/dx = conv_backprop_input(g, h),  d/dg = conv(x, h)")
def _conv2d_backprop_filter(op, needs, h):
    x, g = op.inputs
    a = op.attrs
    gx = c.conv2d_backprop_input(x._value.shape, h, g, a["strides"], a["padding"]) if needs[0] else None
    gg = c.conv2d(x, h, a["strides"], a["padding"]) if needs[1] else None
    return gx, gg


@defgrad("MaxPool", "d maxpool(x)/dx = the upstream routed to each window's first max")
def _max_pool(op, needs, g):
    return (c.max_pool_grad(op.inputs[0], g, op.attrs),)


@defgrad("MaxPoolGrad", "d/dg = the upstream picked at each window's first max; d/dx = 0 (piecewise constant)")
def _max_pool_grad(op, needs, h):
    x, _ = op.inputs
    return None, (c.max_pool_grad_grad(x, h, op.attrs) if needs[1] else None)


@defgrad("MaxPoolGradGrad", "d/dh = the upstream routed to each window's first max; d/dx = 0")
def _max_pool_grad_grad(op, needs, g):
    x, _ = op.inputs
    return None, (c.max_pool_grad(x, g, op.attrs) if needs[1] else None)


@defgrad("AvgPool", "d avgpool(x)/dx = the upstream shared equally by each window's pixels (avg_pool_grad)")
def _avg_pool(op, needs, g):
    return (c.avg_pool_grad(op.inputs[0].shape, g, op.attrs),)


@defgrad("AvgPoolGrad", "d/dg = avgpool(upstream): the operation is linear, its transpose is the pooling")
def _avg_pool_grad(op, needs, h):
    attrs = {k: v for k, v in op.attrs.items() if k != "input_shape"}
    return (c.avg_pool2d(h, attrs["ksize"], attrs["strides"], attrs["padding"]),)
