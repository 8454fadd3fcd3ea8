"""``model.summary()`` prints Keras 3's text exactly (references from tests/tf_reference/keras_summary_reference.py)."""

import json
import pathlib
import sys

import pytest

import tapeviz as tf
from tapeviz.keras.layers import base as layer_base
from tapeviz.keras.utils.summary_table import readable_bytes, wrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "tf_reference"))
import keras_summary_cases  # noqa: E402

REFERENCE = json.loads(
    (pathlib.Path(__file__).resolve().parent / "tf_reference" / "keras_summary_texts.json").read_text(encoding="utf-8")
)


@pytest.fixture
def fresh_names(monkeypatch):
    """Auto-names from 'dense' again, as Keras's clear_session() gave the reference script."""
    monkeypatch.setattr(layer_base, "_names", {})
    monkeypatch.setenv("COLUMNS", "200")  # the reference was made on a wide terminal


@pytest.mark.parametrize("case", sorted(keras_summary_cases.CASES))
def test_summary_text_matches_keras(case, fresh_names):
    build, kwargs = keras_summary_cases.CASES[case]
    chunks = []
    build(tf.keras).summary(print_fn=chunks.append, **kwargs)
    assert chunks == REFERENCE["texts"][case]


def test_summary_without_print_fn_writes_the_same_text(fresh_names, capsys):
    keras_summary_cases.cnn(tf.keras).summary()
    assert capsys.readouterr().out == REFERENCE["texts"]["cnn"][0]


def test_summary_narrows_to_the_terminal_as_keras_does(fresh_names, monkeypatch):
    monkeypatch.setenv("COLUMNS", "64")  # Keras: min(88, columns - 4)
    chunks = []
    keras_summary_cases.cnn(tf.keras).summary(print_fn=chunks.append)
    table = chunks[0].splitlines()[1:-3]
    assert {len(line) for line in table} == {60}


def test_summary_too_narrow_says_so(fresh_names):
    with pytest.raises(ValueError, match="Insufficient console width"):
        keras_summary_cases.cnn(tf.keras).summary(line_length=8)


def test_summary_positions_is_refused_clearly(fresh_names):
    with pytest.raises(NotImplementedError, match="line_length"):
        keras_summary_cases.cnn(tf.keras).summary(positions=[0.5, 0.8, 1.0])


def test_cell_wrapping_and_memory_units():
    assert wrap("left_dense[0][0], right_dense[0][0]", 26) == [
        "left_dense[0][0],".ljust(26),
        "right_dense[0][0]".ljust(26),
    ]
    assert wrap("a_very_long_word (Dense)", 10) == ["a_very_lo\u2026", "(Dense)   "]
    assert wrap("7", 5, "right") == ["    7"] and wrap("Y", 5, "center") == ["  Y  "]
    assert readable_bytes(256.0) == "256.00 B" and readable_bytes(1024.0) == "1.00 KB"
    assert readable_bytes(3 * 1024.0**2) == "3.00 MB"


def test_layer_range_that_matches_nothing_says_so(fresh_names):
    with pytest.raises(ValueError, match="do not match the layer names"):
        keras_summary_cases.cnn(tf.keras).summary(layer_range=["nope", "dense"])
