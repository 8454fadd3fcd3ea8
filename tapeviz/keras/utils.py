"""``keras.utils``: to_categorical, set_random_seed, array_to_img."""

import numpy as np

from tapeviz.core.tensor import is_tensor, to_array
from tapeviz.keras.plotting import model_to_dot, plot_model  # noqa: F401  (keras.utils lists them)
from tapeviz.keras.sequences import PyDataset, pad_sequences  # noqa: F401  (keras.utils lists them)

__all__ = [
    "to_categorical",
    "normalize",
    "set_random_seed",
    "array_to_img",
    "img_to_array",
    "pad_sequences",
    "PyDataset",
    "Sequence",
    "plot_model",
    "model_to_dot",
]

Sequence = PyDataset  # Keras 3 keeps the old name as an alias


def _host(x):
    from tapeviz import backend

    return backend.to_numpy(to_array(x)) if is_tensor(x) else np.asarray(x)


def to_categorical(x, num_classes=None):
    """One-hot rows for integer labels, as Keras 3: a float64 NumPy array for NumPy (or list) input.

    A trailing axis of size 1 is dropped first ((n, 1) labels give (n,
    num_classes)); ``num_classes`` defaults to ``max(x) + 1``. A tensor
    input gives a float32 tensor, as Keras's backend path does.
    """
    tensor_input = is_tensor(x)
    labels = _host(x).astype("int64")
    shape = labels.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    labels = labels.reshape(-1)
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(
            f"to_categorical: labels must be in [0, {num_classes}), got values in [{labels.min()}, {labels.max()}]."
        )
    out = np.zeros((labels.size, num_classes))
    out[np.arange(labels.size), labels] = 1
    out = out.reshape(shape + (num_classes,))
    if tensor_input:
        from tapeviz.core.tensor import constant

        return constant(out.astype(np.float32))
    return out


def normalize(x, axis=-1, order=2):
    """``x`` divided by its L``order`` norm along ``axis`` (a NumPy array for NumPy input, as Keras)."""
    from tapeviz.keras import ops

    if is_tensor(x):
        return ops.normalize(x, axis=axis, order=order)
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy, ``tf.random`` and keras.random's global SeedGenerator, as Keras does."""
    import random

    from tapeviz import random as tf_random

    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    from tapeviz.keras import random as keras_random

    random.seed(seed)
    np.random.seed(seed)
    tf_random.set_seed(seed)
    keras_random.reset_global_seed_generator(seed)  # keras.random draws with seed=None repeat too


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from an (height, width, channels) array or tensor (channels 1, 3 or 4); needs Pillow.

    ``scale=True`` stretches the values to 0..255 first, as Keras does.
    """
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError("array_to_img needs Pillow: pip install pillow.") from exc
    array = _host(x).astype(np.float32)
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
    """A PIL image as a float32 (height, width, channels) array."""
    array = np.asarray(img, dtype=dtype)
    return array[:, :, None] if array.ndim == 2 else array
