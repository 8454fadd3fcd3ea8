"""``keras.ops.image.perspective_transform``: the homography taking ``end_points`` to ``start_points``,
applied with TF's projective-transform kernel (``affine_transform``, constant fill), as Keras's TF backend.

The eight homography coefficients are solved on the host in float32 from
the four point pairs (Keras's linear system, solved as ``tf.linalg.solve``
does: LU with partial pivoting); the images stay on the tape.
"""

import numpy as np

from tapeviz.core.primitives import array as _pa
from tapeviz.keras.ops._common import keras_op, tensor
from tapeviz.keras.ops.affine import INTERPOLATIONS, affine_transform

__all__ = ["perspective_transform", "homography"]


def _points(points, name):
    array = np.asarray(points.numpy() if hasattr(points, "numpy") else points, np.float32)
    if array.ndim not in (2, 3) or array.shape[-2:] != (4, 2):
        raise ValueError(
            f"Invalid {name} shape: expected (4,2) for a single image or (N,4,2) for a batch. "
            f"Received shape: {array.shape}"
        )
    return array


def homography(start_points, end_points):
    """The (batch, 8) projective transforms mapping each output point (an end point) to its start point.

    Args:
        start_points: (batch, 4, 2) float32 corner points (x, y) in the input image.
        end_points: (batch, 4, 2) float32 points where those corners land in the output.

    Returns:
        A float32 (batch, 8) array [a0, a1, a2, b0, b1, b2, c0, c1] per image.
    """
    sx, sy = start_points[..., 0], start_points[..., 1]
    ex, ey = end_points[..., 0], end_points[..., 1]
    zero, one = np.zeros_like(ex), np.ones_like(ex)
    rows = []
    for k in range(4):
        rows.append(
            [
                ex[:, k],
                ey[:, k],
                one[:, k],
                zero[:, k],
                zero[:, k],
                zero[:, k],
                -sx[:, k] * ex[:, k],
                -sx[:, k] * ey[:, k],
            ]
        )
        rows.append(
            [
                zero[:, k],
                zero[:, k],
                zero[:, k],
                ex[:, k],
                ey[:, k],
                one[:, k],
                -sy[:, k] * ex[:, k],
                -sy[:, k] * ey[:, k],
            ]
        )
    system = np.stack([np.stack(row, axis=-1) for row in rows], axis=1)  # (batch, 8, 8)
    target = np.stack([start_points[:, k // 2, k % 2] for k in range(8)], axis=-1)[..., None]
    return np.linalg.solve(system, target).reshape(-1, 8).astype(np.float32)


@keras_op("perspective_transform")
def perspective_transform(images, start_points, end_points, interpolation="bilinear", fill_value=0, data_format=None):
    """Warp images so that the four ``start_points`` move to the four ``end_points``.

    Args:
        images: a (height, width, channels) image or a batch of them.
        start_points: (4, 2) or (batch, 4, 2) corner points (x, y) in the input.
        end_points: the same shape: where those points land in the output.
        interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_value: the value read outside the input.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        The warped images, of the images' shape and dtype.

    Raises:
        ValueError: an unknown interpolation, images not of rank 3 or 4, or points not of shape (4, 2) / (N, 4, 2)
            or of different shapes.
    """
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            f"Invalid value for argument `interpolation`. Expected of one {INTERPOLATIONS}. "
            f"Received: interpolation={interpolation}"
        )
    images = tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    start, end = _points(start_points, "start_points"), _points(end_points, "end_points")
    if start.shape != end.shape:
        raise ValueError(
            "start_points and end_points must have the same shape. "
            f"Received start_points.shape={start.shape}, end_points.shape={end.shape}"
        )
    single = len(images.shape) == 3
    x = _pa.expand_dims(images, 0) if single else images
    if data_format == "channels_first":
        x = _pa.transpose(x, (0, 2, 3, 1))
    transforms = homography(start.reshape(-1, 4, 2), end.reshape(-1, 4, 2))
    out = affine_transform(x, transforms, interpolation=interpolation, fill_mode="constant", fill_value=fill_value)
    if data_format == "channels_first":
        out = _pa.transpose(out, (0, 3, 1, 2))
    return out[0] if single else out
