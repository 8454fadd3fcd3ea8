"""``keras.datasets.mnist``: Keras's cached ``mnist.npz``, read as data (numbers only, within bounds); never downloaded."""

from tapeviz.keras.datasets.cache import ORIGIN, find
from tapeviz.keras.datasets.npz import read_npz

__all__ = ["load_data"]


def load_data(path="mnist.npz"):
    """The MNIST digits: ``((x_train, y_train), (x_test, y_test))``, as Keras 3 returns them.

    ``x_*`` are ``uint8`` images ``(60000, 28, 28)`` and ``(10000, 28, 28)``,
    ``y_*`` ``uint8`` labels 0-9. Read from ``path`` (an existing file, or a
    name in Keras's cache folder ``~/.keras/datasets``, or ``$KERAS_HOME/datasets``).
    Without the file: ``FileNotFoundError`` saying where to put it
    (or use :func:`tapeviz.keras.datasets.load_digits`, scikit-learn's bundled digits).

    Args:
        path: the cached file's name.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.
    """
    hint = " Or use tapeviz.keras.datasets.load_digits(): handwritten digits bundled with scikit-learn."
    found = find("mnist.load_data", ["mnist.npz"], ORIGIN + "mnist.npz", path=path, hint=hint)
    x_train, y_train, x_test, y_test = read_npz(found, ["x_train", "y_train", "x_test", "y_test"], 60_000 * 28 * 28)
    return (x_train, y_train), (x_test, y_test)
