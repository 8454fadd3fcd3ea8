"""``keras.ops.image.gaussian_blur``: Keras's TF backend (a depthwise 'SAME' convolution), composed of tapeviz ops.

The kernel is built as Keras's: a normalised 1-D Gaussian per axis, their
outer product (y by x) laid out as ``kernel_size``, in the images' dtype.
The convolution is a sum of shifted, zero-padded copies of the images, so
it is differentiable in the images.
"""

import numpy as np

from tapeviz.core.primitives import array as _pa
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import keras_op, tensor

__all__ = ["gaussian_blur", "convolve_same", "gaussian_kernel"]


def _pair(value, name):
    if hasattr(value, "numpy"):
        value = value.numpy()
    values = [v for v in np.ravel(value)] if np.ndim(value) else [value, value]
    if len(values) != 2:
        raise ValueError(f"`{name}` must be a number or a pair of numbers. Received: {name}={value}")
    return values


def gaussian_kernel(kernel_size, sigma, dtype):
    """Keras's 2-D Gaussian kernel, shape ``kernel_size``, in NumPy ``dtype``.

    Args:
        kernel_size: (size along x, size along y), as Keras's ``gaussian_blur`` reads it.
        sigma: (sigma along x, sigma along y).
        dtype: a NumPy float dtype.

    Returns:
        A ``kernel_size`` array that sums to 1.
    """

    def one_axis(size, spread):
        size = dtype(size)
        x = np.arange(size, dtype=dtype) - (size - dtype(1)) / dtype(2)
        kernel = np.exp(dtype(-0.5) * (x / dtype(spread)) ** 2).astype(dtype)
        return kernel / kernel.sum(dtype=dtype)

    along_x, along_y = one_axis(kernel_size[0], sigma[0]), one_axis(kernel_size[1], sigma[1])
    return np.outer(along_y, along_x).astype(dtype).reshape(int(kernel_size[0]), int(kernel_size[1]))


def convolve_same(images, kernel):
    """Each channel of a channels-last batch convolved with one 2-D ``kernel``, zero-padded to keep its size
    (a depthwise 'SAME' convolution with the kernel repeated per channel, as a sum of shifted copies).

    Args:
        images: a (batch, height, width, channels) tensor.
        kernel: a 2-D NumPy array of the images' dtype.

    Returns:
        A tensor of the images' shape.
    """
    rows, cols = kernel.shape
    height, width = images.shape[1], images.shape[2]
    top, left = (rows - 1) // 2, (cols - 1) // 2
    padded = _pa.pad(images, [(0, 0), (top, rows - 1 - top), (left, cols - 1 - left), (0, 0)])
    out = None
    for i in range(rows):
        for j in range(cols):
            term = padded[:, i : i + height, j : j + width, :] * _constant(kernel[i, j])
            out = term if out is None else out + term
    return out


@keras_op("gaussian_blur")
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Blur each channel of the images with a Gaussian kernel (zero padding, output the input's size).

    Args:
        images: a float (height, width, channels) image or a batch of them.
        kernel_size: the kernel's size, a pair of ints (or one int for both).
        sigma: the Gaussian's standard deviations, a pair (or one number for both).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        The blurred images, of the images' shape and dtype.

    Raises:
        ValueError: images not of rank 3 or 4, or a ``kernel_size`` / ``sigma`` that is not one or two numbers.
    """
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
    kernel = gaussian_kernel(_pair(kernel_size, "kernel_size"), _pair(sigma, "sigma"), dtype)
    out = convolve_same(x, kernel)
    if data_format == "channels_first":
        out = _pa.transpose(out, (0, 3, 1, 2))
    return out[0] if single else out
