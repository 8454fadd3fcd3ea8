"""tf.SparseTensor and tf.sparse against TensorFlow 2.21 (tests/tf_reference/sparse_reference.py), and
the gradient of sparse_dense_matmul against central finite differences."""

import json

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing
from tests.tf_reference.sparse_reference import VALUES_FILE, scenario

REFERENCE = json.loads(open(VALUES_FILE).read())


@pytest.fixture(scope="module")
def observed():
    return json.loads(json.dumps(scenario(tf)))


@pytest.mark.parametrize("key", sorted(set(REFERENCE) - {"tensorflow_version"}))
def test_agrees_with_tensorflow(observed, key):
    expected, got = REFERENCE[key], observed[key]
    if isinstance(expected, str):
        assert got == expected
    elif key in ("from_dense", "add_sparse", "reorder"):
        assert got == expected
    else:
        parts = (
            zip(got, expected)
            if key in ("matmul_adjoint", "matmul_grads", "matmul_adjoint_grads")
            else [(got, expected)]
        )
        for mine, theirs in parts:
            np.testing.assert_allclose(np.asarray(mine, float), np.asarray(theirs, float), rtol=1e-6)


def test_sparse_dense_matmul_gradients_match_finite_differences():
    indices = [[0, 0], [1, 2], [2, 1], [2, 3], [0, 3]]

    def fn(values, b):
        sp = tf.SparseTensor(indices, values, [3, 4])
        return tf.sparse.sparse_dense_matmul(sp, b) ** 2

    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=5), rng.normal(size=(4, 2))]
    weights = testing.projection_weights(fn, arrays)
    analytic = testing.analytic_gradients(fn, arrays, weights)
    numeric = testing.numeric_gradients(fn, arrays, weights, eps=1e-6)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-8)


def test_bad_sparse_tensors_are_refused():
    with pytest.raises(ValueError, match="out of bounds"):
        tf.SparseTensor([[0, 5]], [1.0], [2, 2])
    with pytest.raises(ValueError, match="one per index row"):
        tf.SparseTensor([[0, 1]], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError, match="repeated"):
        tf.sparse.to_dense(tf.SparseTensor([[0, 1], [0, 1]], [1.0, 2.0], [2, 2]))
    with pytest.raises(ValueError, match="inner dimension does not match"):
        tf.sparse.sparse_dense_matmul(tf.SparseTensor([[0, 1]], [1.0], [2, 2]), tf.ones([3, 1]))
