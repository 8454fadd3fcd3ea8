"""``keras.datasets.cifar10``: Keras's cached CIFAR-10 batches (pickles read as data); never downloaded."""

import numpy as np

from tapeviz.keras.datasets.cifar import load_batches

__all__ = ["load_data"]

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"


def load_data():
    """CIFAR-10: ``((x_train, y_train), (x_test, y_test))``, as Keras 3 returns them (channels last).

    ``x_*`` are ``uint8`` colour images ``(50000, 32, 32, 3)`` and
    ``(10000, 32, 32, 3)``, ``y_*`` ``uint8`` labels 0-9 of shape ``(n, 1)``
    (airplane, automobile, bird, cat, deer, dog, frog, horse, ship, truck).
    Read from what Keras leaves in ``~/.keras/datasets`` (or
    ``$KERAS_HOME/datasets``): the folder ``cifar-10-batches-py-target/cifar-10-batches-py``
    or the archive (``cifar-10-batches-py-target_archive``, or ``cifar-10-python.tar.gz``
    downloaded from the URL by hand). Without them: ``FileNotFoundError`` saying where to put it.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.
    """
    train = [f"data_batch_{i}" for i in range(1, 6)]
    batches = load_batches("cifar10", URL, "cifar-10-batches-py", [*train, "test_batch"])
    x_train = np.concatenate([images for images, _ in batches[:-1]])
    y_train = np.concatenate([labels for _, labels in batches[:-1]]).astype(np.uint8)
    x_test, y_test = batches[-1]
    return (
        (x_train.transpose(0, 2, 3, 1), y_train.reshape(-1, 1)),
        (x_test.transpose(0, 2, 3, 1), y_test.astype(np.uint8).reshape(-1, 1)),
    )
