"""``keras.datasets.cifar100``: Keras's cached CIFAR-100 pickles, read as data; never downloaded."""

from tapeviz.keras.datasets.cifar import load_batches

__all__ = ["load_data"]

URL = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"


def load_data(label_mode="fine"):
    """CIFAR-100: ``((x_train, y_train), (x_test, y_test))``, as Keras 3 returns them (channels last).

    ``x_*`` are ``uint8`` colour images ``(50000, 32, 32, 3)`` and
    ``(10000, 32, 32, 3)``; ``y_*`` labels of shape ``(n, 1)``: the 100 fine
    classes (``label_mode="fine"``) or the 20 coarse ones (``"coarse"``), as
    the file stores them (int64). Read from what Keras leaves in
    ``~/.keras/datasets`` (or ``$KERAS_HOME/datasets``): the folder
    ``cifar-100-python-target/cifar-100-python`` or the archive. Without them:
    ``FileNotFoundError`` saying where to put it.

    Args:
        label_mode: ``"fine"`` (100 classes) or ``"coarse"`` (20).

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.

    Raises:
        ValueError: another ``label_mode``.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    (x_train, y_train), (x_test, y_test) = load_batches(
        "cifar100", URL, "cifar-100-python", ["train", "test"], label_key=f"{label_mode}_labels"
    )
    return (
        (x_train.transpose(0, 2, 3, 1), y_train.reshape(-1, 1)),
        (x_test.transpose(0, 2, 3, 1), y_test.reshape(-1, 1)),
    )
