"""``keras.ops.image.affine_transform``: TF's ImageProjectiveTransformV3 kernel, composed of gathers.

Each output pixel (x, y) reads the input at ((a0 x + a1 y + a2) / k,
(b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, after the fill mode maps
that point into the image ('reflect', 'wrap', 'nearest'; 'constant' reads
``fill_value`` outside). The sample points depend only on the transform,
so they are worked out on the host in float32 as TF's kernel does; the
pixels are then a ``gather`` of the images weighted by the bilinear (or
nearest) weights, so the result is differentiable in the images (the exact
adjoint; TF's own gradient applies the inverse transform instead).
"""

import numpy as np

from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.primitives.math import where as _where
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import keras_op, tensor

__all__ = ["affine_transform"]

INTERPOLATIONS = ("nearest", "bilinear")
FILL_MODES = ("constant", "nearest", "wrap", "reflect")  # TF has no "mirror"


def _reflect(coord, length):
    """TF's MapCoordinate<REFLECT>: mirror about the edges (d c b a | a b c d | d c b a), then clamp."""
    c = coord.copy()
    if length <= 1:
        return np.zeros_like(c)
    size2 = 2 * length
    low, high = c < 0, c > length - 1  # both sides chosen before either moves, as TF's if/else
    lo = c[low]
    lo = np.where(lo < size2, size2 * np.trunc(-lo / size2) + lo, lo)
    c[low] = np.where(lo < -length, lo + size2, -lo - 1)
    hi = c[high]
    hi = hi - size2 * np.trunc(hi / size2)
    c[high] = np.where(hi >= length, size2 - hi - 1, hi)
    return np.clip(c, 0, length - 1)


def _wrap(coord, length):
    """TF's MapCoordinate<WRAP>: tile the image (a b c d | a b c d | a b c d), then clamp."""
    c = coord.copy()
    if length <= 1:
        return np.zeros_like(c)
    size = length - 1
    low, high = c < 0, c > length - 1
    c[low] = c[low] + length * (np.trunc(-c[low] / size) + 1)
    c[high] = c[high] - length * np.trunc(c[high] / size)
    return np.clip(c, 0, length - 1)


def _map(coord, length, fill_mode):
    if fill_mode == "reflect":
        return _reflect(coord, length)
    if fill_mode == "wrap":
        return _wrap(coord, length)
    if fill_mode == "nearest":
        return np.clip(coord, 0, length - 1)
    return coord  # constant: points outside read fill_value


def _sample_points(transforms, height, width, fill_mode):
    """(x, y) in float32 for every (batch, row, column) output pixel, and where the projection is 0."""
    t = transforms.astype(np.float32)[:, :, None, None]
    ys, xs = np.meshgrid(np.arange(height, dtype=np.float32), np.arange(width, dtype=np.float32), indexing="ij")
    projection = t[:, 6] * xs + t[:, 7] * ys + np.float32(1)
    degenerate = projection == 0
    safe = np.where(degenerate, np.float32(1), projection)
    x = (t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / safe
    y = (t[:, 3] * xs + t[:, 4] * ys + t[:, 5]) / safe
    return _map(x, width, fill_mode), _map(y, height, fill_mode), degenerate


def _read(flat, rows, cols, batch_index, height, width, fill, channels):
    """The pixels at integer (rows, cols), ``fill`` where they fall outside the image."""
    inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    index = batch_index * (height * width) + np.clip(rows, 0, height - 1) * width + np.clip(cols, 0, width - 1)
    values = _pa.gather(flat, _constant(index.astype(np.int64)))
    mask = _constant(np.broadcast_to(inside[..., None], inside.shape + (channels,)))
    return _where(mask, values, fill)


@keras_op("affine_transform")
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0, data_format=None):
    """Apply projective transforms [a0, a1, a2, b0, b1, b2, c0, c1] (one, or one per image) to images.

    Args:
        images: (height, width, channels) or (batch, height, width, channels).
        transform: 8 numbers or (batch, 8); maps output points to input points, as TF's op.
        interpolation: 'bilinear' or 'nearest'.
        fill_mode: 'constant', 'nearest', 'wrap' or 'reflect' (points outside the image).
        fill_value: the value read outside the image with 'constant'.
        data_format: 'channels_last' (tapeviz has no other).

    Returns:
        The transformed images, of the images' shape and dtype.

    Raises:
        ValueError: for an unknown interpolation or fill mode, or images or transform of another rank.
    """
    if data_format not in (None, "channels_last"):
        raise ValueError("tapeviz's keras.ops.image.affine_transform supports data_format='channels_last' only.")
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            f"Invalid value for argument `interpolation`. Expected of one {set(INTERPOLATIONS)}. "
            f"Received: interpolation={interpolation}"
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected of one {set(FILL_MODES)}. Received: fill_mode={fill_mode}"
        )
    images = tensor(images)
    transforms = np.asarray(transform.numpy() if hasattr(transform, "numpy") else transform, np.float32)
    if images.ndim not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    if transforms.ndim not in (1, 2):
        raise ValueError(
            "Invalid transform rank: expected rank 1 (single transform) or rank 2 (batch of transforms). "
            f"Received input with shape: transform.shape={transforms.shape}"
        )
    single = images.ndim == 3
    if single:
        images = _pa.expand_dims(images, 0)
    transforms = np.broadcast_to(transforms.reshape(-1, 8), (images.shape[0], 8))
    batch, height, width, channels = images.shape
    x, y, degenerate = _sample_points(transforms, height, width, fill_mode)
    flat = _pa.reshape(images, (batch * height * width, channels))
    fill = _constant(np.asarray(fill_value).astype(images.dtype.as_numpy_dtype))
    batch_index = np.arange(batch)[:, None, None]

    def read(rows, cols):
        rows = np.where(degenerate, -1, rows)  # a point at infinity reads fill_value, as TF
        return _read(flat, rows, cols, batch_index, height, width, fill, channels)

    if interpolation == "nearest":
        out = read(_round(y), _round(x))
    else:
        out = _bilinear(read, x, y, images.dtype)
    return out[0] if single else out


def _round(coord):
    """std::round: halves away from zero."""
    return (np.sign(coord) * np.floor(np.abs(coord) + 0.5)).astype(np.int64)


def _bilinear(read, x, y, dtype):
    """TF's order: interpolate along x on the floor and ceil rows, then along y (float32 weights)."""
    x_floor, y_floor = np.floor(x), np.floor(y)
    x_ceil, y_ceil = x_floor + 1, y_floor + 1

    def weight(w):
        return _cast(_constant(w[..., None].astype(np.float32)), dtype)

    rows = [r.astype(np.int64) for r in (y_floor, y_ceil)]
    cols = [c.astype(np.int64) for c in (x_floor, x_ceil)]
    left, right = weight(x_ceil - x), weight(x - x_floor)
    top = left * read(rows[0], cols[0]) + right * read(rows[0], cols[1])
    bottom = left * read(rows[1], cols[0]) + right * read(rows[1], cols[1])
    return weight(y_ceil - y) * top + weight(y - y_floor) * bottom
