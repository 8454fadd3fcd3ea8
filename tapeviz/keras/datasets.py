"""``tf.keras.datasets``: real data sets, never downloaded: the handwritten digits bundled with scikit-learn.

``load_digits()`` returns ``((x_train, y_train), (x_test, y_test))`` like
``tf.keras.datasets.mnist.load_data()``: 1,797 8x8 grey images of the digits
0-9 (scikit-learn ships them inside its package; nothing is fetched from
the network). scikit-learn is imported only when this is called.

``mnist.load_data()`` reads the file Keras caches (``~/.keras/datasets/mnist.npz``,
or ``$KERAS_HOME/datasets``) when it is there, as Keras does before it would
download; tapeviz itself never downloads, so without the file it says where
to put it.
"""

import os
import zipfile
import zlib

import numpy as np

from tapeviz.core.files import FileFormatError, read_array_member, read_npy_header

__all__ = ["load_digits", "mnist"]

_KEYS = ("x_train", "y_train", "x_test", "y_test")


class _KerasCachedDataset:
    """``keras.datasets.<name>``: ``load_data()`` from Keras's cached ``.npz`` file (read as data, no pickle)."""

    def __init__(self, name, filename, max_items):
        self._name, self._filename = name, filename
        self._max_items = max_items  # the most numbers one of its arrays holds: what a load may inflate

    def load_data(self, path=None):
        """``((x_train, y_train), (x_test, y_test))`` from the cached file (or ``path``), as Keras returns them.

        Read as data: each array's header is checked (numbers, a known size) before it is inflated,
        and no more than its declared bytes are (a small file cannot make this allocate gigabytes).
        """
        path = self._find(path or self._filename)
        try:
            with zipfile.ZipFile(path) as archive:
                arrays = {key: self._read(archive, key, path) for key in _KEYS}
        except (zipfile.BadZipFile, EOFError, OSError, zlib.error, NotImplementedError, RuntimeError) as exc:
            raise FileFormatError(f"{path} is not an .npz file of {self._name}'s arrays: {exc}") from None
        return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])

    def _read(self, archive, key, path):
        where = f"{path} ({key})"
        dtype, shape = read_npy_header(archive, f"{key}.npy", where)
        if dtype.hasobject:
            raise FileFormatError(
                f"{where} holds Python objects, which tapeviz never unpickles (np.load with allow_pickle=False)."
            )
        items = 1
        for n in shape:
            items *= n
        if dtype.kind not in "biuf" or items > self._max_items:
            raise FileFormatError(
                f"{where} holds {dtype} {list(shape)}: not the numbers of {self._name} (at most "
                f"{self._max_items} of them per array)."
            )
        return read_array_member(archive, f"{key}.npy", dtype, shape, where)

    def _find(self, path):
        if os.path.isabs(path) or os.path.exists(path):
            candidates = [path]
        else:
            home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
            candidates = [os.path.join(home, "datasets", path)]
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate
        raise FileNotFoundError(
            f"keras.datasets.{self._name}.load_data() downloads {self._filename}, and tapeviz never downloads. "
            f"Put Keras's {self._filename} at {candidates[0]} (Keras leaves it there after one load_data()), "
            "or use tapeviz.keras.datasets.load_digits(): handwritten digits bundled with scikit-learn."
        )


#: ``tf.keras.datasets.mnist``: ``mnist.load_data()`` reads Keras's cached ``mnist.npz`` (never downloads).
mnist = _KerasCachedDataset("mnist", "mnist.npz", max_items=60_000 * 28 * 28)


def _sklearn_digits():
    try:
        from sklearn.datasets import load_digits as sk_load_digits
    except ImportError as exc:
        raise ImportError(
            "tapeviz.keras.datasets.load_digits needs scikit-learn, which ships the digits data set: "
            "pip install scikit-learn  (or pip install 'tapeviz[lessons]')."
        ) from exc
    return sk_load_digits()


def load_digits(test_fraction=0.2, seed=0, normalize=True, flatten=False):
    """The scikit-learn digits, split into a training and a test set.

    Args:
        test_fraction: share of each class held out for testing (stratified).
        seed: the split's random seed (the same split on every machine).
        normalize: pixels as float32 in [0, 1] (the raw values are 0..16).
        flatten: images as 64-vectors instead of 8x8.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: images (n, 8, 8) (or
        (n, 64)), labels int64 in 0..9.
    """
    digits = _sklearn_digits()
    images = digits.images.astype(np.float32)
    if normalize:
        images = images / np.float32(16.0)
    if flatten:
        images = images.reshape(len(images), -1)
    labels = digits.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(labels), dtype=bool)
    for digit in range(10):  # stratified: the same share of every class in the test set
        members = np.flatnonzero(labels == digit)
        chosen = rng.choice(members, size=int(round(len(members) * test_fraction)), replace=False)
        test[chosen] = True
    train_rows = rng.permutation(np.flatnonzero(~test))
    test_rows = np.flatnonzero(test)
    return (images[train_rows], labels[train_rows]), (images[test_rows], labels[test_rows])
