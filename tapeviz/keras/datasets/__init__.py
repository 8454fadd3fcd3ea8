"""``tf.keras.datasets``: Keras 3's data sets, read from the files Keras's own download leaves; never downloaded.

``mnist``, ``fashion_mnist``, ``cifar10``, ``cifar100``, ``imdb``,
``reuters``, ``boston_housing`` and ``california_housing`` are modules with
Keras 3's ``load_data`` (same arguments, dtypes, shapes and shuffles). Each
reads what Keras caches in ``~/.keras/datasets`` (or ``$KERAS_HOME/datasets``)
in its original format: ``.npz`` (ragged sequences through an unpickler
that rebuilds NumPy arrays only), gzipped IDX files, CIFAR's pickled
batches (the same restricted unpickler), word-index JSON. Without the file,
``load_data()`` raises ``FileNotFoundError`` at once, naming the file, its
URL and the folder to put it in.

``load_digits()`` needs no download: scikit-learn's bundled 8x8 digits.
"""

from tapeviz.keras.datasets import (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)
from tapeviz.keras.datasets.digits import load_digits

__all__ = [
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "load_digits",
    "mnist",
    "reuters",
]
