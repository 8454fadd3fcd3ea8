"""The CSV readers against TF 2.21, case by case (tests/tf_reference/csv_cases.py, csv_values.json).

Every case reads the same bytes with tapeviz and compares the elements read,
the error's type and TF's message; tapeviz must not leak a warning where TF's
Python does (NumPy's overflow warning during make_csv_dataset's inference).
"""

import decimal
import gzip
import json
import logging
import pathlib
import warnings

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import csv_cases

REFERENCE = json.loads((pathlib.Path(csv_cases.__file__).parent / "csv_values.json").read_text())["cases"]

# Where tapeviz knowingly differs from TF, and why (docs/tf-map.md lists them too).
DOCUMENTED_DIFFERENCES = {
    "int_nul_byte": "the message shows the whole field; TF's C string stops at the NUL byte",
}


def test_the_table_covers_every_case_and_is_large():
    assert set(REFERENCE) == set(csv_cases.CASES)
    assert len(REFERENCE) >= 30


@pytest.mark.parametrize("name", sorted(csv_cases.CASES))
def test_reads_as_tensorflow_does(name, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        observed = csv_cases.run(tf, name, str(tmp_path))
    assert [str(w.message) for w in caught] == []
    expected = {k: REFERENCE[name][k] for k in ("elements", "error")}
    if name in DOCUMENTED_DIFFERENCES:
        assert observed != expected, f"{name} now agrees with TF: drop it from DOCUMENTED_DIFFERENCES"
        assert observed["error"][0] == expected["error"][0]
        return
    assert observed == expected


def test_a_bad_record_leaves_the_iterator_usable(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"1\nx\n3\n")
    it = iter(tf.data.experimental.CsvDataset(str(path), [0]))
    assert int(it.get_next()[0]) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32: x"):
        it.get_next()
    assert int(it.get_next()[0]) == 3
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()


def test_ignore_errors_after_map_skips_failing_elements_and_logs(caplog):
    def reciprocal(x):
        if float(x) == 0:
            raise tf.errors.InvalidArgumentError("Tensor had Inf values")
        return 1 / x

    dataset = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(reciprocal)
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(dataset.as_numpy_iterator())
    with caplog.at_level(logging.WARNING, logger="tapeviz.data"):
        values = list(dataset.ignore_errors(log_warning=True).as_numpy_iterator())
    assert values == [1.0, 0.5, 0.25]
    assert "Error raised with error message Tensor had Inf values" in caplog.text
    assert list(dataset.apply(tf.data.experimental.ignore_errors()).as_numpy_iterator()) == [1.0, 0.5, 0.25]


def test_ignore_errors_lets_python_bugs_through():
    # len() of a scalar: a Python TypeError (``x + "a"`` is TF's eager InvalidArgumentError now that strings are tensors)
    dataset = tf.data.Dataset.range(3).map(lambda x: len(x)).ignore_errors()
    with pytest.raises(TypeError):
        list(dataset)


def test_gzip_and_zlib_files_are_read_and_other_compressions_refused(tmp_path):
    path = tmp_path / "d.csv.gz"
    path.write_bytes(gzip.compress(b"1,a\n2,b\n"))
    rows = list(tf.data.experimental.CsvDataset(str(path), [0, ""], compression_type="GZIP").as_numpy_iterator())
    assert rows == [(1, b"a"), (2, b"b")]
    with pytest.raises(ValueError, match="compression_type"):
        tf.data.experimental.CsvDataset(str(path), [0, ""], compression_type="BZIP2")


def test_select_cols_must_increase(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"1,2,3\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match="select_cols should be strictly increasing indices"):
        tf.data.experimental.CsvDataset(str(path), [0, 0], select_cols=[2, 0])


def test_float32_fields_are_rounded_once_as_strtof(tmp_path):
    """Texts at, just above and just below float32 midpoints: each value is the float32 nearest the decimal."""
    rng = np.random.default_rng(7)
    texts, nearest = [], []
    for _ in range(200):
        low = np.float32(rng.standard_normal() * 10.0 ** int(rng.integers(-37, 38)))
        high = np.nextafter(low, np.float32(np.inf))
        middle = (float(low) + float(high)) / 2
        for value in (middle, float(np.nextafter(middle, np.inf)), float(np.nextafter(middle, -np.inf))):
            text = repr(value)
            exact = decimal.Decimal(text)
            ties_to_even = sorted(
                [low, high], key=lambda q: (abs(decimal.Decimal(float(q)) - exact), int(q.view(np.uint32)) & 1)
            )
            texts.append(text)
            nearest.append(ties_to_even[0])
    path = tmp_path / "floats.csv"
    path.write_text("\n".join(texts) + "\n")
    read = [float(row[0]) for row in tf.data.experimental.CsvDataset(str(path), [0.0]).as_numpy_iterator()]
    assert read == [float(v) for v in nearest]
