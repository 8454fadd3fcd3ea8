"""keras.callbacks against Keras 3.15 on TF 2.21: the protocol fit/evaluate/predict call, and each callback's effect.

The same code (tests/tf_reference/keras_callback_cases.py) runs on Keras and on
tapeviz; Keras's results are in tests/tf_reference/keras_callback_facts.json.
"""

import json
import os
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_callback_cases as cases

KERAS = json.loads((pathlib.Path(cases.__file__).parent / "keras_callback_facts.json").read_text())["facts"]


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return cases.facts(tf.keras, str(tmp_path_factory.mktemp("callbacks")))


def _same(actual, expected):
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected)
        for key in expected:
            _same(actual[key], expected[key])
    elif isinstance(expected, list):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            _same(a, e)
    elif isinstance(expected, float):
        assert np.isclose(actual, expected, rtol=1e-4, atol=2e-5), (actual, expected)
    else:
        assert actual == expected


@pytest.mark.parametrize("key", sorted(KERAS))
def test_callback_facts_match_keras(ours, key):
    _same(ours[key], KERAS[key])


def test_csv_logger_and_checkpoint_write_atomically(tmp_path, monkeypatch):
    """A failure while writing leaves the previous file whole and no temporary file behind."""
    path = tmp_path / "log.csv"
    model = cases.model_of(tf.keras)
    model.fit(cases.X, cases.Y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.CSVLogger(str(path))])
    before = path.read_text()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        model.fit(cases.X, cases.Y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.CSVLogger(str(path))])
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.csv"]
