"""tf.RaggedTensor and tf.ragged against TensorFlow 2.21 (tests/tf_reference/ragged_reference.py), and
gradients through ragged reductions against central finite differences."""

import json

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing
from tests.tf_reference.ragged_reference import VALUES_FILE, scenario

REFERENCE = json.loads(open(VALUES_FILE).read())


@pytest.fixture(scope="module")
def observed():
    return json.loads(json.dumps(scenario(tf)))


@pytest.mark.parametrize("key", sorted(set(REFERENCE) - {"tensorflow_version"}))
def test_agrees_with_tensorflow(observed, key):
    assert observed[key] == REFERENCE[key]


@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod"])
def test_ragged_reduction_gradients_match_finite_differences(kind):
    lengths = [3, 1, 2]

    def fn(values):
        rt = tf.RaggedTensor.from_row_lengths(values, lengths)
        return getattr(tf, "reduce_" + kind)(rt * rt, axis=1)

    arrays = [np.random.default_rng(1).uniform(0.5, 2.0, size=6)]
    weights = testing.projection_weights(fn, arrays)
    analytic = testing.analytic_gradients(fn, arrays, weights)
    numeric = testing.numeric_gradients(fn, arrays, weights)
    np.testing.assert_allclose(analytic[0], numeric[0], rtol=1e-6, atol=1e-8)


def test_unsupported_forms_say_what_to_do():
    rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
    with pytest.raises(NotImplementedError, match="to_tensor"):
        tf.reduce_max(rt, axis=0)
    with pytest.raises(ValueError, match="ragged_rank"):  # nested rows need ragged_rank 2 (the default)
        tf.ragged.constant([[[1.0], [2.0, 3.0]], [[4.0]]], ragged_rank=1)
    with pytest.raises(ValueError, match="different row lengths"):
        rt + tf.ragged.constant([[1.0], [2.0, 3.0]])
