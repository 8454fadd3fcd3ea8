"""``model.summary()`` prints Keras 3's text exactly (references from tests/tf_reference/keras_summary_reference.py)."""

import json
import pathlib
import sys

import pytest

import tapeviz as tf
from tapeviz.keras.utils import naming
from tapeviz.keras.utils.summary_utils import readable_memory_size

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tf_reference"))
import keras_summary_cases  # noqa: E402

REFERENCE = json.loads(
    (pathlib.Path(__file__).resolve().parents[2] / "tf_reference" / "keras_summary_texts.json").read_text(
        encoding="utf-8"
    )
)


@pytest.fixture
def fresh_names(monkeypatch):
    """Auto-names from 'dense' again, as Keras's clear_session() gave the reference script."""
    pytest.importorskip("rich", reason='model.summary() draws with rich: pip install "tapeviz[keras]"')
    monkeypatch.setattr(naming, "_names", {})
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


def test_memory_units_as_keras_writes_them():
    assert readable_memory_size(256.0) == "256.00 B" and readable_memory_size(1024.0) == "1.00 KB"
    assert readable_memory_size(3 * 1024.0**2) == "3.00 MB" and readable_memory_size(5 * 1024.0**5) == "5.00 PB"


def test_summary_without_rich_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich", None)  # as if rich were not installed
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    with pytest.raises(ImportError, match=r'pip install "tapeviz\[keras\]"'):
        model.summary()


def test_a_layer_name_is_shown_as_written_not_read_as_markup(fresh_names):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="dense[bold]x[/bold]")])
    chunks = []
    model.summary(print_fn=chunks.append)
    assert "dense[bold]x[/bold] (Dense)" in chunks[0]


def test_layer_range_that_matches_nothing_says_so(fresh_names):
    with pytest.raises(ValueError, match="do not match the layer names"):
        keras_summary_cases.cnn(tf.keras).summary(layer_range=["nope", "dense"])
