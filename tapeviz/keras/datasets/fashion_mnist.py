"""``keras.datasets.fashion_mnist``: the four gzipped IDX files Keras caches, parsed here; never downloaded."""

import gzip
import os

import numpy as np

from tapeviz.core.files import FileFormatError
from tapeviz.keras.datasets.cache import ORIGIN, find

__all__ = ["load_data"]

_FOLDER = "fashion-mnist"  # Keras's cache_subdir for these files: datasets/fashion-mnist/
_IDX_DTYPES = {0x08: np.uint8}  # the only element type Fashion-MNIST's files use


def read_idx_gz(path):
    """The array in a gzipped IDX file (the MNIST format: magic, the sizes as big-endian int32, the bytes)."""
    with gzip.open(path, "rb") as stream:
        raw = stream.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise FileFormatError(f"{path} is not a gzipped IDX file of unsigned bytes; download it again")
    rank = raw[3]
    shape = tuple(int(n) for n in np.frombuffer(raw, ">i4", count=rank, offset=4))
    data = np.frombuffer(raw, _IDX_DTYPES[raw[2]], offset=4 + 4 * rank)
    if data.size != int(np.prod(shape)):
        raise FileFormatError(f"{path} says shape {shape} but holds {data.size} values; download it again")
    return data.reshape(shape)


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
    """
    y_train = _read("train-labels-idx1-ubyte.gz")
    x_train = _read("train-images-idx3-ubyte.gz").reshape(len(y_train), 28, 28)
    y_test = _read("t10k-labels-idx1-ubyte.gz")
    x_test = _read("t10k-images-idx3-ubyte.gz").reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
