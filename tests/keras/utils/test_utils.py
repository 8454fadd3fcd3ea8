"""keras.utils (pad_sequences, to_categorical, normalize, PyDataset in fit/evaluate) against Keras 3.15 on TF 2.21.

The same code (tests/tf_reference/keras_utils_cases.py) runs on Keras and on
tapeviz; Keras's results are in tests/tf_reference/keras_utils_facts.json.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_utils_cases as cases

KERAS = json.loads((pathlib.Path(cases.__file__).parent / "keras_utils_facts.json").read_text())["facts"]


@pytest.fixture(scope="module")
def ours():
    return cases.facts(tf.keras)


@pytest.mark.parametrize("key", sorted(KERAS))
def test_utils_facts_match_keras(ours, key):
    got, want = ours[key], KERAS[key]
    if isinstance(want, list) and want and isinstance(want[0], float) or key.startswith("normalize"):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-4, abs=2e-5)
    else:
        assert got == want


def test_pad_sequences_with_maxlen_zero_gives_empty_rows():
    """Keras 3.15 crashes here (a broadcast error); tapeviz returns (n, 0)."""
    assert tf.keras.utils.pad_sequences([[1, 2], [3]], maxlen=0).shape == (2, 0)
