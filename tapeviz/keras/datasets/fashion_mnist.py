"""``keras.datasets.fashion_mnist``: the four gzipped IDX files Keras caches, parsed here; never downloaded."""

import gzip
import os

import numpy as np

from tapeviz.core.files import FileFormatError
from tapeviz.keras.datasets.cache import ORIGIN, find

__all__ = ["load_data"]

_FOLDER = "fashion-mnist"  # Keras's cache_subdir for these files: datasets/fashion-mnist/
_IDX_DTYPES = {0x08: np.uint8}  # the only element type Fashion-MNIST's files use


_MAX_ITEMS = 60_000 * 28 * 28  # the largest array of the data set: what a load may inflate


def read_idx_gz(path, max_items=_MAX_ITEMS):
    """The array in a gzipped IDX file (the MNIST format: magic, the sizes as big-endian int32, the bytes).

    The sizes are read first; at most ``max_items`` values are inflated, exactly as many as declared.
    """
    with gzip.open(path, "rb") as stream:
        magic = stream.read(4)
        if len(magic) < 4 or magic[0] != 0 or magic[1] != 0 or magic[2] not in _IDX_DTYPES:
            raise FileFormatError(f"{path} is not a gzipped IDX file of unsigned bytes; download it again")
        shape = tuple(int(n) for n in np.frombuffer(stream.read(4 * magic[3]), ">i4"))
        items = int(np.prod(shape, dtype=np.int64))
        if len(shape) != magic[3] or items > max_items:
            raise FileFormatError(
                f"{path} declares shape {shape}; a Fashion-MNIST file holds at most {max_items} values"
            )
        raw = stream.read(items)
    if len(raw) != items:
        raise FileFormatError(f"{path} says shape {shape} but holds {len(raw)} values; download it again")
    return np.frombuffer(raw, _IDX_DTYPES[magic[2]]).reshape(shape)


def _read(name):
    url = ORIGIN + name
    return read_idx_gz(find("fashion_mnist.load_data", [os.path.join(_FOLDER, name)], url))


def load_data():
    """Fashion-MNIST: ``((x_train, y_train), (x_test, y_test))``, as Keras 3 returns them.

    ``x_*`` are ``uint8`` grey images ``(60000, 28, 28)`` and ``(10000, 28, 28)``,
    ``y_*`` ``uint8`` labels 0-9 (T-shirt/top, Trouser, Pullover, Dress, Coat,
    Sandal, Shirt, Sneaker, Bag, Ankle boot). Read from the gzipped IDX files
    Keras caches in ``~/.keras/datasets/fashion-mnist/`` (or
    ``$KERAS_HOME/datasets/fashion-mnist/``): ``train-labels-idx1-ubyte.gz``,
    ``train-images-idx3-ubyte.gz``, ``t10k-labels-idx1-ubyte.gz``,
    ``t10k-images-idx3-ubyte.gz``. A missing one raises ``FileNotFoundError``
    naming it, its URL and the folder.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.
    """
    y_train = _read("train-labels-idx1-ubyte.gz")
    x_train = _read("train-images-idx3-ubyte.gz").reshape(len(y_train), 28, 28)
    y_test = _read("t10k-labels-idx1-ubyte.gz")
    x_test = _read("t10k-images-idx3-ubyte.gz").reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
