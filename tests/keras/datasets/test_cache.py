"""``keras.datasets.mnist.load_data()``: Keras's cached file is read as data; without it, a clear error, never a download."""

import numpy as np
import pytest

from tapeviz import keras


def _write_mnist(path):
    rng = np.random.default_rng(0)
    arrays = {
        "x_train": rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
        "y_train": rng.integers(0, 10, 5, dtype=np.uint8),
        "x_test": rng.integers(0, 256, (3, 28, 28), dtype=np.uint8),
        "y_test": rng.integers(0, 10, 3, dtype=np.uint8),
    }
    np.savez(path, **arrays)
    return arrays


def test_load_data_reads_kerass_cache(tmp_path, monkeypatch):
    (tmp_path / "datasets").mkdir()
    arrays = _write_mnist(tmp_path / "datasets" / "mnist.npz")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
    for got, key in ((x_train, "x_train"), (y_train, "y_train"), (x_test, "x_test"), (y_test, "y_test")):
        np.testing.assert_array_equal(got, arrays[key])
        assert got.dtype == np.uint8


def test_an_explicit_path(tmp_path):
    arrays = _write_mnist(tmp_path / "mine.npz")
    (x_train, _), _ = keras.datasets.mnist.load_data(path=str(tmp_path / "mine.npz"))
    np.testing.assert_array_equal(x_train, arrays["x_train"])


def test_without_the_file_the_error_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="tapeviz never downloads") as info:
        keras.datasets.mnist.load_data()
    assert str(tmp_path / "datasets" / "mnist.npz") in str(info.value) and "load_digits" in str(info.value)


def test_a_pickled_file_is_refused(tmp_path):
    np.savez(tmp_path / "bad.npz", x_train=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="holds numbers"):
        keras.datasets.mnist.load_data(path=str(tmp_path / "bad.npz"))


# -- Keras 3's other data sets, on small files in their cached formats (tests/tf_reference/keras_datasets_*) --

import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import pathlib  # noqa: E402
import pickle  # noqa: E402

from tests.tf_reference import keras_datasets_cases  # noqa: E402

FACTS = json.loads((pathlib.Path(__file__).parents[2] / "tf_reference" / "keras_datasets_facts.json").read_text())[
    "facts"
]
NAMES = ["mnist", "fashion_mnist", "cifar10", "cifar100", "imdb", "reuters", "boston_housing", "california_housing"]


@pytest.fixture(params=["archive", "folders"])
def keras_cache(request, tmp_path, monkeypatch):
    keras_datasets_cases.write_cache(str(tmp_path), cifar_as=request.param)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    return tmp_path


def test_every_data_set_loads_as_keras_3_loads_it(keras_cache):
    got = json.loads(json.dumps(keras_datasets_cases.facts(keras.datasets)))
    assert got.keys() == FACTS.keys()
    for key in FACTS:
        assert got[key] == FACTS[key], key


@pytest.mark.parametrize("name", NAMES)
def test_each_data_set_imports_by_keras_path(name):
    import tapeviz as tf

    module = importlib.import_module(f"tapeviz.keras.datasets.{name}")
    assert getattr(tf.keras.datasets, name) is module and callable(module.load_data)


@pytest.mark.parametrize(
    "name, filename, url",
    [
        ("mnist", "mnist.npz", "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"),
        (
            "fashion_mnist",
            os.path.join("fashion-mnist", "train-labels-idx1-ubyte.gz"),
            "https://storage.googleapis.com/tensorflow/tf-keras-datasets/train-labels-idx1-ubyte.gz",
        ),
        ("cifar10", "cifar-10-python.tar.gz", "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"),
        ("cifar100", "cifar-100-python.tar.gz", "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"),
        ("imdb", "imdb.npz", "https://storage.googleapis.com/tensorflow/tf-keras-datasets/imdb.npz"),
        ("reuters", "reuters.npz", "https://storage.googleapis.com/tensorflow/tf-keras-datasets/reuters.npz"),
        (
            "boston_housing",
            "boston_housing.npz",
            "https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz",
        ),
        (
            "california_housing",
            "california_housing.npz",
            "https://storage.googleapis.com/tensorflow/tf-keras-datasets/california_housing.npz",
        ),
    ],
)
def test_a_missing_file_is_named_with_its_url_and_folder(tmp_path, monkeypatch, name, filename, url):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="tapeviz never downloads") as info:
        getattr(keras.datasets, name).load_data()
    message = str(info.value)
    assert str(tmp_path / "datasets" / filename) in message and url in message, message


def test_a_missing_word_index_is_named_too(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="imdb.get_word_index.*imdb_word_index.json"):
        keras.datasets.imdb.get_word_index()


class _Runs:
    def __reduce__(self):
        return (os.system, ("echo should-not-run",))


def test_a_cifar_pickle_that_would_run_code_is_refused(tmp_path, monkeypatch):
    where = tmp_path / "datasets" / "cifar-10-batches-py-target" / "cifar-10-batches-py"
    where.mkdir(parents=True)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        (where / name).write_bytes(pickle.dumps({b"data": _Runs(), b"labels": [0]}))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match=r"asks to call (posix|nt)\.system"):
        keras.datasets.cifar10.load_data()


def test_an_npz_whose_object_array_would_run_code_is_refused(tmp_path):
    evil = np.empty(1, dtype=object)
    evil[0] = _Runs()
    np.savez(tmp_path / "imdb.npz", x_train=evil, y_train=[0], x_test=evil, y_test=[0])
    with pytest.raises(ValueError, match="asks to call"):
        keras.datasets.imdb.load_data(path=str(tmp_path / "imdb.npz"))


def test_a_truncated_idx_file_is_a_clear_error(tmp_path, monkeypatch):
    import gzip

    keras_datasets_cases.write_cache(str(tmp_path))
    target = tmp_path / "datasets" / "fashion-mnist" / "train-images-idx3-ubyte.gz"
    with gzip.open(target, "rb") as stream:
        raw = stream.read()
    with gzip.open(target, "wb") as stream:
        stream.write(raw[:-10])
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="says shape"):
        keras.datasets.fashion_mnist.load_data()


def test_bad_options_are_refused_as_keras_refuses_them(keras_cache):
    with pytest.raises(ValueError, match="label_mode"):
        keras.datasets.cifar100.load_data(label_mode="medium")
    with pytest.raises(ValueError, match="test_split"):
        keras.datasets.boston_housing.load_data(test_split=1.0)
    with pytest.raises(ValueError, match="version"):
        keras.datasets.california_housing.load_data(version="medium")
    with pytest.raises(ValueError, match="Increase maxlen"):
        keras.datasets.imdb.load_data(maxlen=1)


def test_a_small_file_cannot_declare_a_huge_array(tmp_path):
    import zipfile

    header = np.lib.format.header_data_from_array_1_0(np.zeros(1, np.uint8))
    header["shape"] = (10**9,)  # a gigabyte declared, a few bytes present
    with zipfile.ZipFile(tmp_path / "mnist.npz", "w") as archive:
        with archive.open("x_train.npy", "w") as stream:
            np.lib.format.write_array_header_1_0(stream, header)
            stream.write(b"\0" * 8)
    with pytest.raises(ValueError, match="at most"):
        keras.datasets.mnist.load_data(path=str(tmp_path / "mnist.npz"))


def test_a_gzipped_idx_file_declaring_too_much_is_refused_before_inflating(tmp_path, monkeypatch):
    import gzip

    keras_datasets_cases.write_cache(str(tmp_path))
    target = tmp_path / "datasets" / "fashion-mnist" / "train-images-idx3-ubyte.gz"
    with gzip.open(target, "wb") as stream:
        stream.write(bytes([0, 0, 8, 3]) + np.asarray([10**6, 28, 28], ">i4").tobytes())
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="at most"):
        keras.datasets.fashion_mnist.load_data()
