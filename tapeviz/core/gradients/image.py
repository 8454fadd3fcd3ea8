"""Gradient rules of the resize kernels: each kernel and its gradient are adjoint linear maps."""

from tapeviz.core.gradients import defgrad, described
from tapeviz.core.primitives import image as im


@defgrad(
    im.RESIZE_BILINEAR,
    "spread the upstream back onto the 4 source pixels with the bilinear weights",
    local=described("the bilinear weight of each source pixel"),
)
def _resize_bilinear(op, needs, g):
    return (im.resize_bilinear_grad(g, op.inputs[0]._value.shape),)


@defgrad(
    im.RESIZE_BILINEAR_GRAD,
    "bilinear resize of the upstream (the adjoint of the adjoint)",
    local=described("the bilinear weights (a resize of the upstream)"),
)
def _resize_bilinear_grad(op, needs, g):
    return (im.resize_bilinear(g, op.inputs[0]._value.shape[1:3]),)


@defgrad(
    im.RESIZE_NEAREST,
    "add each upstream value to the source pixel it was copied from",
    local=described("1 from each output pixel to the source pixel it copies"),
)
def _resize_nearest(op, needs, g):
    return (im.resize_nearest_grad(g, op.inputs[0]._value.shape),)


@defgrad(
    im.RESIZE_NEAREST_GRAD,
    "nearest-neighbour resize of the upstream",
    local=described("1 per source pixel (a nearest resize of the upstream)"),
)
def _resize_nearest_grad(op, needs, g):
    return (im.resize_nearest(g, op.inputs[0]._value.shape[1:3]),)
