"""``keras.ops.image.rgb_to_hsv`` and ``hsv_to_rgb``: TF's RGBToHSV / HSVToRGB kernels, composed of tapeviz ops.

The formulas and their order are TF's (colorspace_op.h), so float32 results
match TF's; being composed of differentiable ops, both have a gradient in
the images (TF registers none for RGBToHSV). Hue, saturation and value are
each in [0, 1].
"""

from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives import math as _pm
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import keras_op, tensor

__all__ = ["rgb_to_hsv", "hsv_to_rgb"]


def _float_images(images, op):
    images = tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    if not images.dtype.is_floating:
        raise ValueError(f"Invalid images dtype: expected float dtype. Received: images.dtype={images.dtype.name}")
    return images


def _to_channels_last(images, data_format, op):
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"keras.ops.image.{op}: data_format must be 'channels_last' or 'channels_first'.")
    if data_format != "channels_first":
        return images
    return _pa.transpose(images, (0, 2, 3, 1) if len(images.shape) == 4 else (1, 2, 0))


def _back(images, data_format):
    if data_format != "channels_first":
        return images
    return _pa.transpose(images, (0, 3, 1, 2) if len(images.shape) == 4 else (2, 0, 1))


def _channels(images):
    return images[..., 0], images[..., 1], images[..., 2]


@keras_op("rgb_to_hsv")
def rgb_to_hsv(images, data_format=None):
    """RGB images (values in [0, 1]) as hue, saturation and value, as TF's ``rgb_to_hsv``.

    Args:
        images: a float (height, width, 3) image or a batch of them.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        A tensor of the images' shape and dtype: hue, saturation, value on the channel axis.

    Raises:
        ValueError: images not of rank 3 or 4, or not of a float dtype.
    """
    images = _to_channels_last(_float_images(images, "rgb_to_hsv"), data_format, "rgb_to_hsv")
    dtype = images.dtype.as_numpy_dtype
    zero, one = _constant(dtype(0)), _constant(dtype(1))
    red, green, blue = _channels(images)
    value = _pm.maximum(_pm.maximum(red, green), blue)
    spread = value - _pm.minimum(_pm.minimum(red, green), blue)
    has_value, has_spread = _pm.greater(value, zero), _pm.greater(spread, zero)
    saturation = _pm.where(has_value, spread / _pm.where(has_value, value, one), zero)
    # TF: norm = (1 / range) * (1 / 6); a grey pixel (range 0) gets hue 0 (its 1/range is never used)
    norm = (one / _pm.where(has_spread, spread, one)) * _constant(dtype(1) / dtype(6))
    hue = _pm.where(
        _pm.equal(red, value),
        norm * (green - blue),
        _pm.where(
            _pm.equal(green, value),
            norm * (blue - red) + _constant(dtype(2) / dtype(6)),
            norm * (red - green) + _constant(dtype(4) / dtype(6)),
        ),
    )
    hue = _pm.where(has_spread, hue, zero)
    hue = _pm.where(_pm.less(hue, zero), hue + one, hue)
    return _back(_pa.stack([hue, saturation, value], axis=-1), data_format)


@keras_op("hsv_to_rgb")
def hsv_to_rgb(images, data_format=None):
    """HSV images (each channel in [0, 1]) as RGB, as TF's ``hsv_to_rgb``.

    Args:
        images: a float (height, width, 3) image or a batch of them.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        A tensor of the images' shape and dtype: red, green, blue on the channel axis.

    Raises:
        ValueError: images not of rank 3 or 4, or not of a float dtype.
    """
    images = _to_channels_last(_float_images(images, "hsv_to_rgb"), data_format, "hsv_to_rgb")
    dtype = images.dtype.as_numpy_dtype
    hue, saturation, value = _channels(images)

    def c(number):
        return _constant(dtype(number))

    def unit(x):
        return _pm.minimum(_pm.maximum(x, c(0)), c(1))

    sixths = hue * c(6)
    red = unit(_pm.abs(sixths - c(3)) - c(1))
    green = unit(c(2) - _pm.abs(sixths - c(2)))
    blue = unit(c(2) - _pm.abs(sixths - c(4)))
    grey = c(1) - saturation
    rgb = [(grey + saturation * part) * value for part in (red, green, blue)]
    return _back(_pa.stack(rgb, axis=-1), data_format)
