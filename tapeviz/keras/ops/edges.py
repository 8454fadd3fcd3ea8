"""``keras.ops.image.sobel_edges``: TF's ``tf.image.sobel_edges`` (reflect-padded 3x3 Sobel filters per channel),
composed of tapeviz ops so it is differentiable in the images."""

import numpy as np

from tapeviz.core.primitives import array as _pa
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import keras_op, tensor

__all__ = ["sobel_edges"]

_KERNELS = (
    np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]]),  # down the rows (dy)
    np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]),  # across the columns (dx)
)


@keras_op("sobel_edges")
def sobel_edges(images, data_format=None):
    """Each channel's vertical and horizontal Sobel responses, as TF's ``sobel_edges``.

    Args:
        images: a float (batch, height, width, channels) tensor.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        A tensor of shape (batch, height, width, channels, 2) (channels first: (batch, channels, height, width,
        2)): [..., 0] the row-wise (dy) response, [..., 1] the column-wise (dx) one.

    Raises:
        ValueError: images not of rank 4.
    """
    images = tensor(images)
    if len(images.shape) != 4:
        raise ValueError(
            f"sobel_edges expects a batch of images of rank 4. Received: images.shape={tuple(images.shape)}"
        )
    x = _pa.transpose(images, (0, 2, 3, 1)) if data_format == "channels_first" else images
    height, width = x.shape[1], x.shape[2]
    padded = _pa.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="REFLECT")
    dtype = x.dtype.as_numpy_dtype
    responses = []
    for kernel in _KERNELS:
        out = None
        for i in range(3):
            for j in range(3):
                if kernel[i, j]:
                    term = padded[:, i : i + height, j : j + width, :] * _constant(dtype(kernel[i, j]))
                    out = term if out is None else out + term
        responses.append(out)
    edges = _pa.stack(responses, axis=-1)
    return _pa.transpose(edges, (0, 3, 1, 2, 4)) if data_format == "channels_first" else edges
