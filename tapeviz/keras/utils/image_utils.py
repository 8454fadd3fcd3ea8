"""``array_to_img`` and ``img_to_array``: between arrays and PIL images."""

import numpy as np

from tapeviz.keras.utils.numerical_utils import to_numpy


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from an (height, width, channels) array or tensor (channels 1, 3 or 4); needs Pillow.

    ``scale=True`` stretches the values to 0..255 first, as Keras does.

    Args:
        x: an (height, width, channels) array or tensor.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        scale: stretch the values to 0..255 first.
        dtype: accepted for compatibility.

    Returns:
        A PIL image.

    Raises:
        ImportError: Pillow is not installed.
        ValueError: an array of another rank, or 2 (or more than 4) channels.
    """
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError("array_to_img needs Pillow: pip install pillow.") from exc
    array = to_numpy(x).astype(np.float32)
    if array.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {array.shape}")
    if data_format == "channels_first":
        array = array.transpose(1, 2, 0)
    if scale:
        array = array - np.min(array)
        peak = np.max(array)
        if peak != 0:
            array = array / peak
        array = array * 255
    channels = array.shape[2]
    if channels == 1:
        return Image.fromarray(array[:, :, 0].astype(np.uint8), "L")
    if channels in (3, 4):
        return Image.fromarray(array.astype(np.uint8), "RGB" if channels == 3 else "RGBA")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img, data_format=None, dtype="float32"):
    """A PIL image as a float32 (height, width, channels) array.

    Args:
        img: a PIL image.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dtype: the array's dtype.

    Returns:
        A NumPy array.
    """
    array = np.asarray(img, dtype=dtype)
    return array[:, :, None] if array.ndim == 2 else array
