"""``keras.ops.image``: rgb_to_grayscale, resize, pad_images, crop_images, extract_patches (channels_last),
composed of tapeviz's ops so they are differentiable in the images."""

import numpy as np

from tapeviz import image as _tf_image
from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import FLOATX, keras_op, tensor
from tapeviz.keras.ops.affine import affine_transform
from tapeviz.keras.ops.blur import gaussian_blur
from tapeviz.keras.ops.colorspace import hsv_to_rgb, rgb_to_hsv
from tapeviz.keras.ops.coordinates import map_coordinates
from tapeviz.keras.ops.edges import sobel_edges
from tapeviz.keras.ops.elastic import elastic_transform
from tapeviz.keras.ops.perspective import perspective_transform

__all__ = [
    "rgb_to_grayscale",
    "resize",
    "pad_images",
    "crop_images",
    "extract_patches",
    "affine_transform",
    "rgb_to_hsv",
    "hsv_to_rgb",
    "gaussian_blur",
    "perspective_transform",
    "map_coordinates",
    "elastic_transform",
    "sobel_edges",
]


def _channels_last(data_format, op):
    if data_format not in (None, "channels_last"):
        raise ValueError(f"tapeviz's keras.ops.image.{op} supports data_format='channels_last' only.")


def _rank(images):
    images = tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    return images


@keras_op("rgb_to_grayscale")
def rgb_to_grayscale(images, data_format=None):
    """0.2989 R + 0.5870 G + 0.1140 B, keeping a channel axis of 1 (ints computed in float32, as Keras)."""
    _channels_last(data_format, "rgb_to_grayscale")
    images = _rank(images)
    if images.shape[-1] not in (1, 3):
        raise ValueError(
            "Invalid channel size: expected 3 (RGB) or 1 (Grayscale). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    if images.shape[-1] == 1:
        return images
    x = images if images.dtype.is_floating else _cast(images, FLOATX)
    weights = _constant(np.array([0.2989, 0.5870, 0.1140], x.dtype.as_numpy_dtype))
    gray = _pa.expand_dims(x[..., 0] * weights[0] + x[..., 1] * weights[1] + x[..., 2] * weights[2], -1)
    return gray if images.dtype.is_floating else _cast(gray, images.dtype)


@keras_op("resize")
def resize(
    images,
    size,
    interpolation="bilinear",
    antialias=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    fill_mode="constant",
    fill_value=0.0,
    data_format=None,
):
    """Images resized to ``size`` = (height, width) with 'bilinear' or 'nearest' (half-pixel centres, as TF)."""
    _channels_last(data_format, "resize")
    if interpolation not in ("bilinear", "nearest"):
        raise ValueError(f"tapeviz's keras.ops.image.resize supports 'bilinear' and 'nearest', got {interpolation!r}.")
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        raise ValueError("tapeviz's keras.ops.image.resize has no crop_to_aspect_ratio / pad_to_aspect_ratio.")
    images = _rank(images)
    out = _tf_image.resize(images, size, method=interpolation, antialias=antialias)
    return out if out.dtype == images.dtype or not images.dtype.is_floating else _cast(out, images.dtype)


def _sides(before, after, target, length, what):
    given = [v is not None for v in (before, after, target)]
    if sum(given) != 2:
        raise ValueError(f"Must specify exactly two of {what}. Received: {before}, {after}, {target}")
    if before is None:
        before = target - length - after if what.startswith("top, bottom") or "pad" in what else length - target - after
    if after is None:
        after = target - length - before if "pad" in what else length - target - before
    return int(before), int(after)


@keras_op("pad_images")
def pad_images(
    images,
    top_padding=None,
    left_padding=None,
    bottom_padding=None,
    right_padding=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """Zeros around the images: two of (top, bottom, target_height) and two of (left, right, target_width)."""
    _channels_last(data_format, "pad_images")
    images = _rank(images)
    h, w = images.shape[-3], images.shape[-2]
    top, bottom = _sides(
        top_padding, bottom_padding, target_height, h, "pad top_padding, bottom_padding, target_height"
    )
    left, right = _sides(left_padding, right_padding, target_width, w, "pad left_padding, right_padding, target_width")
    widths = [(top, bottom), (left, right), (0, 0)]
    if len(images.shape) == 4:
        widths = [(0, 0)] + widths
    return _pa.pad(images, widths)


@keras_op("crop_images")
def crop_images(
    images,
    top_cropping=None,
    left_cropping=None,
    bottom_cropping=None,
    right_cropping=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """The images without their edges: two of (top, bottom, target_height) and two of (left, right, target_width)."""
    _channels_last(data_format, "crop_images")
    images = _rank(images)
    h, w = images.shape[-3], images.shape[-2]
    top, bottom = _sides(
        top_cropping, bottom_cropping, target_height, h, "crop top_cropping, bottom_cropping, target_height"
    )
    left, right = _sides(
        left_cropping, right_cropping, target_width, w, "crop left_cropping, right_cropping, target_width"
    )
    return images[..., top : h - bottom, left : w - right, :]


@keras_op("extract_patches")
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Every ``size`` patch (moving by ``strides``, default ``size``) flattened into the channel axis:
    (batch, rows, cols, size_h * size_w * channels), as ``tf.image.extract_patches``."""
    _channels_last(data_format, "extract_patches")
    images = _rank(images)
    single = len(images.shape) == 3
    x = _pa.expand_dims(images, 0) if single else images
    ph, pw = (size, size) if isinstance(size, int) else tuple(size)
    sh, sw = (ph, pw) if strides is None else ((strides, strides) if isinstance(strides, int) else tuple(strides))
    if dilation_rate not in (1, (1, 1), [1, 1]):
        raise ValueError("tapeviz's extract_patches supports dilation_rate=1 only.")
    n, h, w, c = x.shape
    if padding.lower() == "same":
        oh, ow = -(-h // sh), -(-w // sw)
        pad_h, pad_w = max((oh - 1) * sh + ph - h, 0), max((ow - 1) * sw + pw - w, 0)
        x = _pa.pad(x, [(0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0)])
    else:
        oh, ow = (h - ph) // sh + 1, (w - pw) // sw + 1
    rows = (np.arange(oh)[:, None] * sh + np.arange(ph)[None, :]).astype(np.int32)  # (oh, ph)
    cols = (np.arange(ow)[:, None] * sw + np.arange(pw)[None, :]).astype(np.int32)  # (ow, pw)
    picked = _pa.gather(x, _constant(rows), axis=1)  # (n, oh, ph, W, c)
    picked = _pa.gather(picked, _constant(cols), axis=3)  # (n, oh, ph, ow, pw, c)
    picked = _pa.transpose(picked, [0, 1, 3, 2, 4, 5])
    out = _pa.reshape(picked, [n, oh, ow, ph * pw * c])
    return out[0] if single else out
