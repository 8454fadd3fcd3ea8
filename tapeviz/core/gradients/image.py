"""Gradient rules of the resize kernels: each kernel and its gradient are adjoint linear maps."""

from tapeviz.core.gradients import defgrad
from tapeviz.core.primitives import image as im


@defgrad("ResizeBilinear", "spread the upstream back onto the 4 source pixels with the bilinear weights")
def _resize_bilinear(op, needs, g):
    return (im.resize_bilinear_grad(g, op.inputs[0]._value.shape),)


@defgrad("ResizeBilinearGrad", "bilinear resize of the upstream (the adjoint of the adjoint)")
def _resize_bilinear_grad(op, needs, g):
    return (im.resize_bilinear(g, op.inputs[0]._value.shape[1:3]),)


@defgrad("ResizeNearestNeighbor", "add each upstream value to the source pixel it was copied from")
def _resize_nearest(op, needs, g):
    return (im.resize_nearest_grad(g, op.inputs[0]._value.shape),)


@defgrad("ResizeNearestNeighborGrad", "nearest-neighbour resize of the upstream")
def _resize_nearest_grad(op, needs, g):
    return (im.resize_nearest(g, op.inputs[0]._value.shape[1:3]),)
