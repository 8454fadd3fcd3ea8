"""Small files in the formats Keras 3's data sets are cached in, and what ``load_data`` makes of them.

``write_cache(folder)`` writes, under ``folder/datasets``, tiny stand-ins laid out as
Keras's ``get_file`` leaves the real ones (gzipped IDX, CIFAR's pickled batches in a
folder and in a tar.gz, ``.npz`` with ragged object arrays, word-index JSON).
``facts(datasets)`` calls each ``load_data`` with several options and returns plain
lists; the reference script runs it on Keras 3, the tests on tapeviz. Nothing here
imports TensorFlow, Keras or tapeviz.
"""

import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile

import numpy as np


def _idx_gz(path, array):
    header = bytes([0, 0, 0x08, array.ndim]) + np.asarray(array.shape, ">i4").tobytes()
    with gzip.open(path, "wb") as stream:
        stream.write(header + array.astype(np.uint8).tobytes())


def _cifar_batch(rng, n, labels):
    data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    batch = {b"batch_label": b"testing batch", b"data": data, b"filenames": [b"x.png"] * n}
    batch.update({key.encode(): rng.integers(0, top, n).tolist() for key, top in labels.items()})
    return pickle.dumps(batch, protocol=4)  # (protocol 2 would pickle bytes through _codecs.encode)


def _tar_gz(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for name, raw in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))


def _ragged(rng, n, top):
    out = np.empty(n, dtype=object)
    out[:] = [rng.integers(1, top, int(rng.integers(1, 9))).tolist() for _ in range(n)]
    return out


def write_cache(folder, cifar_as="archive"):
    """Every data set's files under ``folder/datasets``; CIFAR as Keras 3's archive or its extracted folders."""
    rng = np.random.default_rng(7)
    root = os.path.join(folder, "datasets")
    os.makedirs(os.path.join(root, "fashion-mnist"), exist_ok=True)
    np.savez(
        os.path.join(root, "mnist.npz"),
        x_train=rng.integers(0, 256, (4, 28, 28), dtype=np.uint8),
        y_train=rng.integers(0, 10, 4).astype(np.uint8),
        x_test=rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
        y_test=rng.integers(0, 10, 2).astype(np.uint8),
    )
    for part, n in (("train", 5), ("t10k", 3)):
        _idx_gz(os.path.join(root, "fashion-mnist", f"{part}-labels-idx1-ubyte.gz"), rng.integers(0, 10, n))
        _idx_gz(os.path.join(root, "fashion-mnist", f"{part}-images-idx3-ubyte.gz"), rng.integers(0, 256, (n, 28, 28)))
    cifar10 = {f"data_batch_{i}": _cifar_batch(rng, 2, {"labels": 10}) for i in range(1, 6)}
    cifar10["test_batch"] = _cifar_batch(rng, 3, {"labels": 10})
    both = {"fine_labels": 100, "coarse_labels": 20}
    cifar100 = {"train": _cifar_batch(rng, 4, both), "test": _cifar_batch(rng, 2, both)}
    for folder_name, batches in (("cifar-10-batches-py", cifar10), ("cifar-100-python", cifar100)):
        if cifar_as == "archive":  # Keras 3 keeps the download beside what it extracted
            members = {f"{folder_name}/{name}": raw for name, raw in batches.items()}
            _tar_gz(os.path.join(root, f"{folder_name}-target_archive"), members)
        else:
            where = os.path.join(root, f"{folder_name}-target", folder_name)
            os.makedirs(where, exist_ok=True)
            for name, raw in batches.items():
                with open(os.path.join(where, name), "wb") as stream:
                    stream.write(raw)
    np.savez(
        os.path.join(root, "imdb.npz"),
        x_train=_ragged(rng, 7, 40),
        y_train=rng.integers(0, 2, 7),
        x_test=_ragged(rng, 5, 40),
        y_test=rng.integers(0, 2, 5),
    )
    np.savez(os.path.join(root, "reuters.npz"), x=_ragged(rng, 11, 60), y=rng.integers(0, 46, 11))
    for name in ("imdb", "reuters"):
        with open(os.path.join(root, f"{name}_word_index.json"), "w") as stream:
            json.dump({"the": 1, "and": 2, "film" if name == "imdb" else "said": 3}, stream)
    np.savez(os.path.join(root, "boston_housing.npz"), x=rng.normal(size=(13, 13)), y=rng.uniform(5, 50, 13))
    np.savez(os.path.join(root, "california_housing.npz"), x=rng.normal(size=(9, 8)), y=rng.uniform(1e4, 5e5, 9))


def _arrays(result):
    """``((x_train, y_train), (x_test, y_test))`` as plain data: dtype, shape and values of each."""
    out = []
    for pair in result:
        for array in pair:
            if array.dtype == object:
                values = [list(map(int, seq)) for seq in array]
            elif array.size > 64:  # images: their bytes' digest, in C order
                values = hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()
            else:
                values = array.tolist()
            out.append([str(array.dtype), list(array.shape), values])
    return out


SEQUENCE_OPTIONS = {
    "default": {},
    "num_words": {"num_words": 20},
    "skip_top": {"num_words": 25, "skip_top": 6},
    "maxlen": {"maxlen": 7},
    "no_oov": {"num_words": 20, "oov_char": None},
    "no_start": {"start_char": None, "index_from": 0},
    "seed": {"seed": 1},
}


def facts(datasets):
    """What each ``load_data`` returns on the files ``write_cache`` wrote (``datasets``: ``keras.datasets``)."""
    out = {
        "mnist": _arrays(datasets.mnist.load_data()),
        "fashion_mnist": _arrays(datasets.fashion_mnist.load_data()),
        "cifar10": _arrays(datasets.cifar10.load_data()),
        "cifar100:fine": _arrays(datasets.cifar100.load_data()),
        "cifar100:coarse": _arrays(datasets.cifar100.load_data(label_mode="coarse")),
        "boston_housing": _arrays(datasets.boston_housing.load_data()),
        "boston_housing:split": _arrays(datasets.boston_housing.load_data(test_split=0.5, seed=3)),
        "california_housing": _arrays(datasets.california_housing.load_data()),
        "california_housing:small": _arrays(datasets.california_housing.load_data(version="small", test_split=0.3)),
        "imdb:word_index": datasets.imdb.get_word_index(),
        "reuters:word_index": datasets.reuters.get_word_index(),
        "reuters:labels": list(datasets.reuters.get_label_names()),
    }
    for name, options in SEQUENCE_OPTIONS.items():
        out[f"imdb:{name}"] = _arrays(datasets.imdb.load_data(**options))
        out[f"reuters:{name}"] = _arrays(datasets.reuters.load_data(**options))
    out["reuters:test_split"] = _arrays(datasets.reuters.load_data(test_split=0.5))
    return out
