"""tf.IndexedSlices as the gradient of gather and embedding lookups, against TensorFlow 2.21
(tests/tf_reference/indexed_slices_reference.py): when TF returns one, what it holds, how optimizers,
global norms and second-order gradients treat it."""

import json

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference.indexed_slices_reference import VALUES_FILE, scenario

REFERENCE = json.loads(open(VALUES_FILE).read())
TYPE_NAMES = {"EagerTensor": "Tensor"}  # TF's eager tensor class is tapeviz's Tensor


@pytest.fixture(scope="module")
def observed():
    return json.loads(json.dumps(scenario(tf)))


def _same(got, expected):
    if isinstance(expected, str):
        assert got == TYPE_NAMES.get(expected, expected)
    elif isinstance(expected, dict):
        assert got.keys() == expected.keys()
        for key in expected:
            _same(got[key], expected[key])
    elif isinstance(expected, list) and expected and isinstance(expected[0], str):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            _same(a, b)
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(expected, float), rtol=1e-6)


@pytest.mark.parametrize("key", sorted(set(REFERENCE) - {"tensorflow_version"}))
def test_agrees_with_tensorflow(observed, key):
    _same(observed[key], REFERENCE[key])


def test_dense_form_is_the_recorded_gradient_and_numpy_can_read_it():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(x, [2, 2]))
    g = tape.gradient(y, x)
    assert tf.convert_to_tensor(g) is tf.convert_to_tensor(g)
    np.testing.assert_array_equal(np.asarray(g), [0.0, 0.0, 2.0])  # tapeviz addition: TF gives an object array
    assert not hasattr(g, "numpy")  # as TF: densify first
