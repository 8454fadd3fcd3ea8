"""``keras.ops.image.elastic_transform``: displace every pixel by smoothed random noise, as Keras's TF backend.

One seed is drawn from ``seed`` (a SeedGenerator moves on once) and, as
Keras 3.15 on TF, both displacement fields are drawn from it, so the x and
y displacements are equal. The noise is blurred with a Gaussian of
``sigma`` (kernel 6 int(sigma) | 1), scaled by ``alpha``, and each channel of
each image is read at the displaced points with ``map_coordinates``.
Differentiable in the images.
"""

import numpy as np

from tapeviz.core import random_generator as _draws
from tapeviz.core.dtypes import as_dtype as _as_dtype
from tapeviz.core.primitives import array as _pa
from tapeviz.keras import random as keras_random
from tapeviz.keras.ops._common import keras_op, tensor
from tapeviz.keras.ops.affine import FILL_MODES, INTERPOLATIONS
from tapeviz.keras.ops.blur import gaussian_blur
from tapeviz.keras.ops.coordinates import map_coordinates

__all__ = ["elastic_transform"]


@keras_op("elastic_transform")
def elastic_transform(
    images,
    alpha=20.0,
    sigma=5.0,
    interpolation="bilinear",
    fill_mode="reflect",
    fill_value=0.0,
    seed=None,
    data_format=None,
):
    """Images warped by a random, smooth displacement field.

    Args:
        images: a float (height, width, channels) image or a batch of them.
        alpha: the displacements' scale.
        sigma: the smoothing Gaussian's standard deviation (also the noise's).
        interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_mode: ``"reflect"``, ``"wrap"``, ``"constant"`` or ``"nearest"``.
        fill_value: what ``"constant"`` reads outside the image.
        seed: an int, a SeedGenerator, or None (the global generator).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        The warped images, of the images' shape and dtype.

    Raises:
        ValueError: an unknown interpolation or fill mode, or images not of rank 3 or 4.
    """
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            f"Invalid value for argument `interpolation`. Expected of one {INTERPOLATIONS}. "
            f"Received: interpolation={interpolation}"
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected of one {FILL_MODES}. Received: fill_mode={fill_mode}"
        )
    images = tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    single = len(images.shape) == 3
    x = _pa.expand_dims(images, 0) if single else images
    if data_format == "channels_first":
        x = _pa.transpose(x, (0, 2, 3, 1))
    dtype = x.dtype.as_numpy_dtype
    alpha = dtype(alpha.numpy() if hasattr(alpha, "numpy") else alpha)
    sigma = dtype(sigma.numpy() if hasattr(sigma, "numpy") else sigma)
    size = 6 * int(sigma) | 1
    batch, height, width, channels = x.shape
    stream_seed = keras_random.draw_seed(seed)

    def field():  # the same seed each time: Keras's dx and dy are the same draw
        noise = _draws.draw_normal(
            _draws.stateless_stream(stream_seed), (batch, height, width), 0.0, 1.0, _as_dtype(np.dtype(dtype).name)
        )
        smooth = gaussian_blur(_pa.expand_dims(noise * sigma, -1), kernel_size=(size, size), sigma=(sigma, sigma))
        return smooth.numpy()[..., 0]

    dx, dy = field(), field()
    grid_x, grid_y = np.meshgrid(np.arange(width, dtype=dtype), np.arange(height, dtype=dtype), indexing="xy")
    moved_x, moved_y = grid_x[None] + alpha * dx, grid_y[None] + alpha * dy
    order = INTERPOLATIONS.index(interpolation)
    planes = [
        _pa.stack(
            [
                map_coordinates(x[b, ..., c], np.stack([moved_y[b], moved_x[b]]), order, fill_mode, fill_value)
                for b in range(batch)
            ],
            axis=0,
        )
        for c in range(channels)
    ]
    out = _pa.stack(planes, axis=-1)
    if data_format == "channels_first":
        out = _pa.transpose(out, (0, 3, 1, 2))
    return out[0] if single else out
