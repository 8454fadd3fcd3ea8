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
    with pytest.raises(ValueError, match="allow_pickle"):
        keras.datasets.mnist.load_data(path=str(tmp_path / "bad.npz"))
