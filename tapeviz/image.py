"""``tf.image``: resizing, flips, contrast, brightness, grayscale and dtype conversion.

Images are [height, width, channels] or batches [batch, height, width,
channels]. Written as TF writes them: resize casts to float32 and runs the
half-pixel-centre kernels of TF 2, ``adjust_contrast`` runs TF's
AdjustContrastv2 (which has no gradient: ``tape.gradient`` through it raises
``LookupError``, as the autodiff guide shows), the flips are reversals.
"""

import numpy as _np

from tapeviz import random as _random
from tapeviz.core import dtypes as _dtypes
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.primitives import image as _kernels
from tapeviz.core.primitives.array import expand_dims as _expand_dims
from tapeviz.core.primitives.array import pad as _pad
from tapeviz.core.primitives.array import reshape as _reshape
from tapeviz.core.primitives.array import reverse as _reverse
from tapeviz.core.primitives.array import tile as _tile
from tapeviz.core.primitives.linalg import tensordot as _tensordot
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.primitives.math import floordiv as _floordiv
from tapeviz.core.primitives.math import maximum as _maximum
from tapeviz.core.primitives.math import minimum as _minimum
from tapeviz.core.primitives.math import where as _where
from tapeviz.core.scopes import name_scope as _name_scope
from tapeviz.core.tensor import is_tensor as _is_tensor
from tapeviz.core.tensor import to_array as _to_array

__all__ = [
    "ResizeMethod",
    "resize",
    "resize_with_pad",
    "pad_to_bounding_box",
    "flip_left_right",
    "flip_up_down",
    "random_flip_left_right",
    "random_flip_up_down",
    "adjust_contrast",
    "adjust_brightness",
    "rgb_to_grayscale",
    "grayscale_to_rgb",
    "convert_image_dtype",
]


class ResizeMethod:
    """The ``method`` names ``tf.image.resize`` takes (tapeviz implements BILINEAR and NEAREST_NEIGHBOR)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# -- dtype conversion --------------------------------------------------------------------------


def _saturate_cast(x, dtype):
    """``x`` clipped to ``dtype``'s range, then cast (tf.dtypes.saturate_cast)."""
    lowest, highest = dtype.min, dtype.max
    if x.dtype.is_floating or lowest > x.dtype.min:
        x = _maximum(x, _as_tensor(max(lowest, x.dtype.min), dtype=x.dtype))
    if x.dtype.is_floating or highest < x.dtype.max:
        x = _minimum(x, _as_tensor(min(highest, x.dtype.max), dtype=x.dtype))
    return _cast(x, dtype)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``image`` in another dtype, rescaled as TF does: floats are in [0, 1], integers in
    [0, MAX] of their type (uint8: 0..255).

    Integer to float divides by the integer type's MAX; float to integer
    multiplies by MAX + 0.5 and truncates (``saturate`` clips first).

    Args:
        image: an image tensor.
        dtype: the target dtype.
        saturate: clip before casting to a narrower integer type.
        name: accepted for TensorFlow compatibility.

    Returns:
        A Tensor of ``dtype``.

    Raises:
        AttributeError: a dtype (of ``image`` or the target) that is neither float nor integer, as TF.
    """
    image = _as_tensor(image)
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (image.dtype.is_floating or image.dtype.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return image
    with _name_scope("convert_image"):
        if image.dtype.is_integer and dtype.is_integer:
            if image.dtype.max > dtype.max:  # scale down first, then cast
                scaled = _floordiv(image, _as_tensor((image.dtype.max + 1) // (dtype.max + 1), dtype=image.dtype))
                return _saturate_cast(scaled, dtype) if saturate else _cast(scaled, dtype)
            widened = _saturate_cast(image, dtype) if saturate else _cast(image, dtype)
            return widened * _as_tensor((dtype.max + 1) // (image.dtype.max + 1), dtype=dtype)
        if image.dtype.is_floating and dtype.is_floating:
            return _cast(image, dtype)
        if image.dtype.is_integer:
            return _cast(image, dtype) * _as_tensor(1.0 / image.dtype.max, dtype=dtype)
        scaled = image * _as_tensor(dtype.max + 0.5, dtype=image.dtype)
        return _saturate_cast(scaled, dtype) if saturate else _cast(scaled, dtype)


# -- resizing ------------------------------------------------------------------------------------


def _batched(images, what="images"):
    """``images`` as a 4-D tensor, and whether a batch axis was added."""
    images = _as_tensor(images)
    if images.ndim == 3:
        return _expand_dims(images, 0), True
    if images.ndim == 4:
        return images, False
    raise ValueError(f"'{what}' must have either 3 or 4 dimensions.")


def _size(size):
    if _is_tensor(size):
        size = _np.asarray(size.numpy()).tolist()
    size = [int(n) for n in size]
    if len(size) != 2 or min(size) <= 0:
        raise ValueError(f"'size' must be a 1-D Tensor of 2 positive elements: new_height, new_width; got {size}.")
    return size


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """Resize images to ``size`` = [new_height, new_width], as TF 2's ``tf.image.resize``.

    ``method``: "bilinear" (default; returns float32, as TF) or "nearest"
    (keeps the dtype). Both use half-pixel centres, so the numbers are TF's.
    ``preserve_aspect_ratio`` fits the image inside ``size``. Other methods
    and ``antialias=True`` (only different when shrinking) are not
    implemented: NotImplementedError says so. Differentiable in ``images``.

    Args:
        images: a [height, width, channels] or [batch, height, width, channels] tensor.
        size: ``[new_height, new_width]``.
        method: ``"bilinear"`` (default) or ``"nearest"``.
        preserve_aspect_ratio: fit within ``size`` keeping the aspect ratio.
        antialias: only False.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A float32 Tensor (the input's dtype for ``"nearest"``) of the new size.

    Raises:
        ValueError: a method name TF does not have.
        NotImplementedError: a TF method tapeviz does not implement (bicubic...), or ``antialias=True``.

    Example:
        >>> import tapeviz as tf
        >>> tf.image.resize(tf.zeros([4, 4, 3]), [8, 2]).shape
        TensorShape([8, 2, 3])
    """
    method = getattr(method, "value", method)
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR):
        known = {v for k, v in vars(ResizeMethod).items() if not k.startswith("_")}
        if method in known:
            raise NotImplementedError(f"tapeviz's tf.image.resize implements 'bilinear' and 'nearest', not {method!r}.")
        raise ValueError(f"Resize method is not implemented: {method}")
    batch, added = _batched(images)
    height, width = _size(size)
    in_h, in_w = _to_array(batch).shape[1:3]
    if preserve_aspect_ratio:
        factor = min(height / in_h, width / in_w)
        height, width = max(round(in_h * factor), 1), max(round(in_w * factor), 1)
    if antialias and (height < in_h or width < in_w) and method == ResizeMethod.BILINEAR:
        raise NotImplementedError(
            "tf.image.resize(antialias=True) when shrinking is not implemented in tapeviz; pass antialias=False."
        )
    with _name_scope("resize"):
        if method == ResizeMethod.BILINEAR:
            out = _kernels.resize_bilinear(_cast(batch, _dtypes.float32), (height, width))
        else:
            out = _kernels.resize_nearest(batch, (height, width))
        return _reshape(out, _to_array(out).shape[1:]) if added else out


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image`` placed at (``offset_height``, ``offset_width``) on zeros of ``target_height`` x ``target_width``.

    Args:
        image: a 3-D or 4-D image tensor.
        offset_height: rows of zeros above (>= 0).
        offset_width: columns of zeros to the left (>= 0).
        target_height: the output's height.
        target_width: the output's width.

    Returns:
        A Tensor of the target size.

    Raises:
        ValueError: negative offsets, or a target too small for the image at its offsets.
    """
    batch, added = _batched(image, "image")
    height, width = _to_array(batch).shape[1:3]
    bottom, right = target_height - offset_height - height, target_width - offset_width - width
    if min(offset_height, offset_width) < 0:
        raise ValueError("offset_height and offset_width must be >= 0")
    if min(bottom, right) < 0:
        raise ValueError("target_height and target_width must fit the image at its offsets")
    with _name_scope("pad_to_bounding_box"):
        out = _pad(batch, [[0, 0], [offset_height, bottom], [offset_width, right], [0, 0]])
        return _reshape(out, _to_array(out).shape[1:]) if added else out


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """Resize ``image`` to fit ``target_height`` x ``target_width`` keeping its aspect ratio, then pad with zeros
    to that size (centred), as TF's ``tf.image.resize_with_pad`` (its float32 arithmetic, so the same sizes).

    Args:
        image: a 3-D or 4-D image tensor.
        target_height: the output's height (> 0).
        target_width: the output's width (> 0).
        method: the resize method.
        antialias: only False.

    Returns:
        A Tensor of the target size.

    Raises:
        ValueError: a target size of 0 or less.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.image.resize_with_pad(tf.ones((2, 4, 1)), 4, 4)[..., 0].numpy())
        [[0. 0. 0. 0.]
         [1. 1. 1. 1.]
         [1. 1. 1. 1.]
         [0. 0. 0. 0.]]
    """
    batch, added = _batched(image, "image")
    target_height, target_width = int(target_height), int(target_width)
    if target_height <= 0 or target_width <= 0:
        raise ValueError("target_height and target_width must be > 0.")
    height, width = (_np.float32(n) for n in _to_array(batch).shape[1:3])
    f_target_height, f_target_width = _np.float32(target_height), _np.float32(target_width)
    ratio = max(width / f_target_width, height / f_target_height)
    resized_height, resized_width = height / ratio, width / ratio
    pad_top = max(0, int(_np.floor((f_target_height - resized_height) / _np.float32(2))))
    pad_left = max(0, int(_np.floor((f_target_width - resized_width) / _np.float32(2))))
    with _name_scope("resize_image_with_pad"):
        resized = resize(
            batch, [int(_np.floor(resized_height)), int(_np.floor(resized_width))], method, antialias=antialias
        )
        padded = pad_to_bounding_box(resized, pad_top, pad_left, target_height, target_width)
        return _reshape(padded, _to_array(padded).shape[1:]) if added else padded


# -- flips --------------------------------------------------------------------------------------


def _flip_axis(image, axis_from_end):
    image = _as_tensor(image)
    if image.ndim < 3:
        raise ValueError(f"'image' (shape {tuple(_to_array(image).shape)}) must be at least three-dimensional.")
    return image, image.ndim - axis_from_end


def flip_left_right(image):
    """Mirror the width axis (of one image or of each in a batch).

    Args:
        image: a 3-D image or a 4-D batch.

    Returns:
        A Tensor of ``image``'s shape.
    """
    image, axis = _flip_axis(image, 2)
    return _reverse(image, [axis])


def flip_up_down(image):
    """Mirror the height axis (of one image or of each in a batch).

    Args:
        image: a 3-D image or a 4-D batch.

    Returns:
        A Tensor of ``image``'s shape.
    """
    image, axis = _flip_axis(image, 3)
    return _reverse(image, [axis])


def _random_flip(image, seed, axis_from_end):
    image, axis = _flip_axis(image, axis_from_end)
    if image.ndim > 4:
        raise ValueError(f"'image' (shape {tuple(_to_array(image).shape)}) must have either 3 or 4 dimensions.")
    flipped = _reverse(image, [axis])
    if image.ndim == 3:  # one coin for the image
        return flipped if float(_random.uniform([], seed=seed).numpy()) < 0.5 else image
    # one coin per image; TF flips where round(u) is 1, i.e. u > 0.5 (a single image: where u < 0.5)
    coins = _np.round(_random.uniform([_to_array(image).shape[0]], seed=seed).numpy()) == 1
    return _where(_as_tensor(coins.reshape(-1, 1, 1, 1)), flipped, image)


def random_flip_left_right(image, seed=None):
    """Mirror the width axis with probability 1/2 (each image of a batch on its own coin).

    Seeded by ``tf.random.set_seed`` and ``seed`` as the other random ops;
    the coins are tapeviz's, not TF's, so a seed flips different images.

    Args:
        image: a 3-D image or a 4-D batch.
        seed: the op seed.

    Returns:
        A Tensor of ``image``'s shape.
    """
    return _random_flip(image, seed, 2)


def random_flip_up_down(image, seed=None):
    """Mirror the height axis with probability 1/2 (each image of a batch on its own coin).

    Args:
        image: a 3-D image or a 4-D batch.
        seed: the op seed.

    Returns:
        A Tensor of ``image``'s shape.
    """
    return _random_flip(image, seed, 3)


# -- colour ----------------------------------------------------------------------------------------


def _as_float(images):
    """``images`` as float16/float32 (kept) or converted to float32, as TF's colour ops do."""
    images = _as_tensor(images)
    if images.dtype in (_dtypes.float16, _dtypes.float32):
        return images
    return convert_image_dtype(images, _dtypes.float32)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, the mean per channel over height and width.

    Runs TF's AdjustContrastv2, which has no gradient registered: a gradient
    through it raises ``LookupError: gradient registry has no entry for:
    AdjustContrastv2``, as in TF.

    Args:
        images: a tensor of rank >= 3 ([..., height, width, channels]).
        contrast_factor: the factor.

    Returns:
        A Tensor of ``images``'s shape and dtype.

    Raises:
        ValueError: an input of rank below 3.
    """
    images = _as_tensor(images)
    if images.ndim < 3:
        raise ValueError(f"input must be at least 3-D, got shape {list(_to_array(images).shape)}")
    with _name_scope("adjust_contrast"):
        adjusted = _kernels.adjust_contrast_kernel(
            _as_float(images), _as_tensor(contrast_factor, dtype=_dtypes.float32)
        )
        return convert_image_dtype(adjusted, images.dtype, saturate=True)


def adjust_brightness(image, delta):
    """``image + delta`` (in [0, 1] units for integer images, as TF).

    Args:
        image: an image tensor.
        delta: the amount to add.

    Returns:
        A Tensor of ``image``'s shape and dtype.
    """
    image = _as_tensor(image)
    with _name_scope("adjust_brightness"):
        flt = _as_float(image)
        adjusted = flt + _cast(_as_tensor(delta), flt.dtype)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


_RGB_WEIGHTS = [0.2989, 0.5870, 0.1140]  # TF's (ITU-R BT.601 luma)


def rgb_to_grayscale(images, name=None):
    """One channel: 0.2989 R + 0.5870 G + 0.1140 B, in the input's dtype (computed in float32, as TF).

    Args:
        images: a tensor whose last axis has 3 channels.
        name: accepted for TensorFlow compatibility.

    Returns:
        A Tensor with one channel.

    Raises:
        ValueError: a last axis of another size than 3.
    """
    images = _as_tensor(images)
    if images.ndim < 1 or _to_array(images).shape[-1] != 3:
        raise ValueError(
            f"rgb_to_grayscale needs 3 channels (R, G, B) in the last axis, got shape {list(_to_array(images).shape)}."
        )
    with _name_scope("rgb_to_grayscale"):
        flt = convert_image_dtype(images, _dtypes.float32)
        gray = _tensordot(flt, _as_tensor(_RGB_WEIGHTS, dtype=_dtypes.float32), [[-1], [-1]])
        return convert_image_dtype(_expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images, name=None):
    """The single channel repeated three times.

    Args:
        images: a tensor whose last axis has 1 channel.
        name: accepted for TensorFlow compatibility.

    Returns:
        A Tensor with three channels.

    Raises:
        ValueError: a last axis of another size than 1.
    """
    images = _as_tensor(images)
    if images.ndim < 2 or _to_array(images).shape[-1] != 1:
        raise ValueError(
            f"grayscale_to_rgb needs 1 channel in the last axis, got shape {list(_to_array(images).shape)}."
        )
    return _tile(images, [1] * (images.ndim - 1) + [3])
