"""Image kernels, each with its gradient rule: bilinear and nearest-neighbour
resizing with TF 2's half-pixel centres, and TF's AdjustContrastv2.

Images are [batch, height, width, channels]. The resize kernels and their
gradients (scatter-adds) are adjoint pairs, as GatherV2 and its grad are.
AdjustContrastv2 has no gradient in TF: asking for one raises its LookupError.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.rules import defgrad, described

# -- where each output pixel samples the input (computed in float32, as TF's kernels do) --------


def _scale(in_size, out_size):
    return np.float32(in_size) / np.float32(out_size)


def _bilinear_taps(in_size, out_size):
    """Lower and upper source rows and the weight of the upper one, for each output row."""
    centres = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * _scale(in_size, out_size) - np.float32(0.5)
    floor = np.floor(centres)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(centres), in_size - 1).astype(np.int64)
    return lower, upper, centres - floor


def _nearest_taps(in_size, out_size):
    centres = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * _scale(in_size, out_size)
    return np.clip(np.floor(centres).astype(np.int64), 0, in_size - 1)


def _shaped(weights, axis, ndim, dtype):
    shape = [1] * ndim
    shape[axis] = -1
    return B.xp.asarray(weights.astype(dtype).reshape(shape))


def _take(x, index, axis):
    return B.xp.take(x, B.xp.asarray(index), axis=axis)


def _add_into(values, index, size, axis):
    """zeros with ``size`` along ``axis``, with ``values`` added at ``index`` along it."""
    moved = B.xp.moveaxis(values, axis, 0)
    summed = B.scatter_add((size,) + moved.shape[1:], B.xp.asarray(index), moved, values.dtype)
    return B.xp.moveaxis(summed, 0, axis)


# -- bilinear ----------------------------------------------------------------------------------


def _resize_bilinear(x, size):
    """TF's ResizeBilinear (half_pixel_centers): width first, then height, in TF's order of operations."""
    (h, w), dtype = size, x.dtype
    lo, hi, lerp = _bilinear_taps(x.shape[2], w)
    left, right = _take(x, lo, 2), _take(x, hi, 2)
    rows = left + (right - left) * _shaped(lerp, 2, 4, dtype)
    lo, hi, lerp = _bilinear_taps(x.shape[1], h)
    top, bottom = _take(rows, lo, 1), _take(rows, hi, 1)
    return top + (bottom - top) * _shaped(lerp, 1, 4, dtype)


def _resize_bilinear_grad(g, original_shape):
    _, height, width, _ = original_shape
    dtype = g.dtype
    lo, hi, lerp = _bilinear_taps(height, g.shape[1])
    weight = _shaped(lerp, 1, 4, dtype)
    rows = _add_into(g * (1 - weight), lo, height, 1) + _add_into(g * weight, hi, height, 1)
    lo, hi, lerp = _bilinear_taps(width, g.shape[2])
    weight = _shaped(lerp, 2, 4, dtype)
    return _add_into(rows * (1 - weight), lo, width, 2) + _add_into(rows * weight, hi, width, 2)


RESIZE_BILINEAR = Primitive("ResizeBilinear", _resize_bilinear)
RESIZE_BILINEAR_GRAD = Primitive("ResizeBilinearGrad", _resize_bilinear_grad)


def resize_bilinear(images, size):
    """Bilinear resize of [batch, height, width, channels] float images to ``size`` = (h, w).

    Keeps the float dtype (tf.image.resize casts to float32 first, as TF).
    """
    return execute(RESIZE_BILINEAR, (as_tensor(images),), {"size": tuple(int(n) for n in size)})


@defgrad(
    RESIZE_BILINEAR,
    "spread the upstream back onto the 4 source pixels with the bilinear weights",
    local=described("the bilinear weight of each source pixel"),
)
def _resize_bilinear_rule(op, needs, g):
    return (resize_bilinear_grad(g, op.inputs[0]._value.shape),)


def resize_bilinear_grad(g, original_shape):
    """The adjoint of ``resize_bilinear``: ``g`` spread back onto the source pixels."""
    return execute(RESIZE_BILINEAR_GRAD, (as_tensor(g),), {"original_shape": tuple(original_shape)})


@defgrad(
    RESIZE_BILINEAR_GRAD,
    "bilinear resize of the upstream (the adjoint of the adjoint)",
    local=described("the bilinear weights (a resize of the upstream)"),
)
def _resize_bilinear_grad_rule(op, needs, g):
    return (resize_bilinear(g, op.inputs[0]._value.shape[1:3]),)


# -- nearest neighbour -------------------------------------------------------------------------


def _resize_nearest(x, size):
    h, w = size
    return _take(_take(x, _nearest_taps(x.shape[1], h), 1), _nearest_taps(x.shape[2], w), 2)


def _resize_nearest_grad(g, original_shape):
    _, height, width, _ = original_shape
    rows = _add_into(g, _nearest_taps(height, g.shape[1]), height, 1)
    return _add_into(rows, _nearest_taps(width, g.shape[2]), width, 2)


RESIZE_NEAREST = Primitive("ResizeNearestNeighbor", _resize_nearest)
RESIZE_NEAREST_GRAD = Primitive("ResizeNearestNeighborGrad", _resize_nearest_grad)


def resize_nearest(images, size):
    """Nearest-neighbour resize of [batch, height, width, channels] images (any dtype) to (h, w)."""
    return execute(RESIZE_NEAREST, (as_tensor(images),), {"size": tuple(int(n) for n in size)})


@defgrad(
    RESIZE_NEAREST,
    "add each upstream value to the source pixel it was copied from",
    local=described("1 from each output pixel to the source pixel it copies"),
)
def _resize_nearest_rule(op, needs, g):
    return (resize_nearest_grad(g, op.inputs[0]._value.shape),)


def resize_nearest_grad(g, original_shape):
    """The adjoint of ``resize_nearest``: each output's upstream added to the pixel it copied."""
    return execute(RESIZE_NEAREST_GRAD, (as_tensor(g),), {"original_shape": tuple(original_shape)})


@defgrad(
    RESIZE_NEAREST_GRAD,
    "nearest-neighbour resize of the upstream",
    local=described("1 per source pixel (a nearest resize of the upstream)"),
)
def _resize_nearest_grad_rule(op, needs, g):
    return (resize_nearest(g, op.inputs[0]._value.shape[1:3]),)


# -- contrast (no gradient in TF) ------------------------------------------------------------------


def _adjust_contrast(images, factor):
    mean = B.xp.mean(images, axis=(-3, -2), keepdims=True, dtype=images.dtype)
    return (images - mean) * factor + mean


ADJUST_CONTRAST = Primitive("AdjustContrastv2", _adjust_contrast)  # differentiable, but no rule: as in TF


def adjust_contrast_kernel(images, factor):
    """TF's AdjustContrastv2 on float images [..., height, width, channels]."""
    return execute(ADJUST_CONTRAST, (as_tensor(images), as_tensor(factor)))
