"""keras.utils.get_file: the cached file's path where Keras 3 gives it; without the file, a clear error, never a download.

Keras 3's answers: tests/tf_reference/get_file_values.json, from tests/tf_reference/get_file_reference.py
(the same files in the same places).
"""

import hashlib
import json
import os
import pathlib

import pytest

from tapeviz import keras

KERAS = json.loads((pathlib.Path(__file__).parents[2] / "tf_reference" / "get_file_values.json").read_text())
URL = "https://example.invalid/a.npz"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "a.npz").write_bytes(b"abc")
    return tmp_path


def test_the_paths_are_keras_3s(home, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    (other / "sub").mkdir()
    (other / "sub" / "b.txt").write_text("b")
    found = {
        "named": os.path.relpath(keras.utils.get_file("a.npz", URL), home),
        "from_origin": os.path.relpath(keras.utils.get_file(origin=URL), home),
        "sha256_matches": os.path.relpath(
            keras.utils.get_file("a.npz", URL, file_hash=hashlib.sha256(b"abc").hexdigest()), home
        ),
        "md5_matches": os.path.relpath(
            keras.utils.get_file("a.npz", URL, file_hash=hashlib.md5(b"abc").hexdigest()), home
        ),
        "cache_dir_and_subdir": os.path.relpath(
            keras.utils.get_file("b.txt", "https://example.invalid/b.txt", cache_dir=str(other), cache_subdir="sub"),
            other,
        ),
    }
    assert found == {k: v for k, v in KERAS.items() if k not in ("no_origin_error", "keras")}


def test_no_origin_is_keras_3s_error(home):
    with pytest.raises(ValueError) as caught:
        keras.utils.get_file()
    assert str(caught.value) == KERAS["no_origin_error"]


def test_a_missing_file_names_the_file_its_url_and_the_folder(home):
    with pytest.raises(FileNotFoundError) as caught:
        keras.utils.get_file("zz.npz", "https://example.invalid/zz.npz")
    message = str(caught.value)
    assert "https://example.invalid/zz.npz" in message and str(home / "datasets" / "zz.npz") in message


def test_a_file_whose_hash_differs_is_refused_not_returned(home):
    with pytest.raises(FileNotFoundError, match="hash differs"):
        keras.utils.get_file("a.npz", URL, file_hash="0" * 64)


def test_extracting_is_refused_with_what_to_do(home):
    with pytest.raises(ValueError, match="Extract the archive yourself"):
        keras.utils.get_file("a.npz", URL, extract=True)
