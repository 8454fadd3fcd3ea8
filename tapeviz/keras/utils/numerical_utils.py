"""``to_categorical`` and ``normalize``: one-hot labels and unit-norm rows."""

import numpy as np

from tapeviz import backend
from tapeviz.core.tensor import is_tensor, to_array


def to_numpy(x):
    """``x`` (a tensor, array or list) as a NumPy array on the host."""
    return backend.to_numpy(to_array(x)) if is_tensor(x) else np.asarray(x)


def to_categorical(x, num_classes=None):
    """One-hot rows for integer labels, as Keras 3: a float64 NumPy array for NumPy (or list) input.

    A trailing axis of size 1 is dropped first ((n, 1) labels give (n,
    num_classes)); ``num_classes`` defaults to ``max(x) + 1``. A tensor
    input gives a float32 tensor, as Keras's backend path does.

    Args:
        x: integer labels (an array, list or tensor).
        num_classes: the number of classes (the largest label + 1 when None).

    Returns:
        The one-hot rows (a NumPy array for NumPy input, else a tensor).

    Raises:
        ValueError: a label outside [0, num_classes).

    Example:
        >>> import tapeviz as tf
        >>> tf.keras.utils.to_categorical([0, 2], num_classes=3)
        array([[1., 0., 0.],
               [0., 0., 1.]])
    """
    tensor_input = is_tensor(x)
    labels = to_numpy(x).astype("int64")
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
    """``x`` divided by its L``order`` norm along ``axis`` (a NumPy array for NumPy input, as Keras).

    Args:
        x: an array or tensor.
        axis: the axis of the norm.
        order: the norm's order (2: L2).

    Returns:
        ``x`` normalized, of its kind.
    """
    from tapeviz.keras import ops

    if is_tensor(x):
        return ops.normalize(x, axis=axis, order=order)
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)
