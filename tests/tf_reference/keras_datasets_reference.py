"""Write tests/tf_reference/keras_datasets_facts.json: Keras 3's ``load_data`` on the small files of
keras_datasets_cases.write_cache.

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/keras_datasets_reference.py

Keras's ``get_file`` would check each file's hash and download the real data
set; here it is replaced by a function that returns the small file's path (and
extracts CIFAR's archive as ``get_file(extract=True)`` does), so Keras's own
reading, shuffling and encoding run on the small files. Keras's CIFAR-10 expects
batches of exactly 10,000 images: each small batch is padded to that size on the way
in and the padding is dropped from Keras's result, which is otherwise Keras's own.
"""

import json
import os
import pathlib
import sys
import tarfile
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import keras_datasets_cases  # noqa: E402
import numpy as np  # noqa: E402
from keras.src.datasets import (  # noqa: E402
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

OUT = pathlib.Path(__file__).resolve().parent / "keras_datasets_facts.json"


def cached_get_file(root):
    def get_file(fname=None, origin=None, extract=False, cache_subdir="datasets", **_):
        folder = os.path.join(root, cache_subdir)
        if extract:  # Keras 3: the archive is <fname>_archive, extracted into <fname>/
            target = os.path.join(folder, fname)
            with tarfile.open(target + "_archive") as archive:
                archive.extractall(target, filter="data")
            return target
        return os.path.join(folder, fname or os.path.basename(origin))

    return get_file


BATCH = 10_000  # images per CIFAR-10 training batch, fixed in Keras's code


def padded_load_batch(sizes):
    real = cifar10.load_batch

    def load_batch(fpath, label_key="labels"):
        data, labels = real(fpath, label_key)
        if os.path.basename(fpath).startswith("data_batch"):
            sizes.append(len(data))
            data = np.concatenate([data, np.zeros((BATCH - len(data), *data.shape[1:]), data.dtype)])
            labels = list(labels) + [0] * (BATCH - len(labels))
        return data, labels

    return load_batch


class Cifar10WithoutPadding:
    def __init__(self):
        self.sizes = []
        cifar10.load_batch = padded_load_batch(self.sizes)

    def load_data(self):
        self.sizes.clear()
        (x_train, y_train), test = keras.datasets.cifar10.load_data()
        rows = np.concatenate([np.arange(i * BATCH, i * BATCH + n) for i, n in enumerate(self.sizes)])
        return (x_train[rows], y_train[rows]), test


class Datasets:
    """keras.datasets, with CIFAR-10 unpadded."""

    def __init__(self):
        self.cifar10 = Cifar10WithoutPadding()

    def __getattr__(self, name):
        return getattr(keras.datasets, name)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as root:
        keras_datasets_cases.write_cache(root)
        for module in (boston_housing, california_housing, cifar10, cifar100, fashion_mnist, imdb, mnist, reuters):
            module.get_file = cached_get_file(root)
        facts = keras_datasets_cases.facts(Datasets())
    data = {"versions": [keras.__version__], "facts": facts}
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True) + "\n")
    os.replace(tmp, OUT)
