"""tf.TensorArray, tf.map_fn, tf.vectorized_map, tf.scan, tf.foldl, tf.foldr against TF 2.21
(values from tests/tf_reference/map_ops_reference.py): eager, under a tape, and inside tf.function."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import map_ops_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "map_ops_values.json").read_text())


@pytest.fixture(scope="module")
def got():
    return cases.run(tf)


@pytest.mark.parametrize("key", sorted(VALUES))
def test_the_result_equals_tfs(got, key):
    parts = zip(got[key], VALUES[key]) if key == "map_grad" else [(got[key], VALUES[key])]
    for mine, theirs in parts:
        np.testing.assert_allclose(np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float), rtol=1e-6)


def test_map_fn_gradient_matches_finite_differences_in_float64():
    def f(xs, w):
        return tf.reduce_sum(tf.map_fn(lambda row: tf.sin(row * w), xs) ** 2)

    result = tf.viz.gradcheck(f, np.random.default_rng(0).normal(size=(3, 2)), np.array(0.7))
    assert result.ok, str(result)


def test_a_tensor_array_refuses_what_tf_refuses():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(IndexError, match="not resizeable"):
        ta.write(2, 1.0)
    with pytest.raises(ValueError, match="not yet been written"):
        ta.write(0, 1.0).read(1)
    with pytest.raises(ValueError, match="Incompatible shape"):
        ta.write(0, [1.0, 2.0]).write(1, [1.0])
    with pytest.raises(ValueError, match="same first dimension"):
        tf.map_fn(lambda pair: pair[0], (tf.zeros(2), tf.zeros(3)))


def test_a_loop_without_an_element_shape_over_an_unknown_length_says_what_to_do():
    @tf.function
    def fill(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        i = tf.constant(0)
        while i < n:
            ta = ta.write(i, tf.cast(i, tf.float32))
            i += 1
        return ta.stack()

    with pytest.raises(ValueError, match="element_shape"):
        fill(tf.constant(3))


def test_a_row_read_at_a_traced_loop_counter_is_read_at_every_turn():
    @tf.function
    def total(xs):
        i, acc = tf.constant(0), tf.constant(0.0)
        while i < tf.shape(xs)[0]:
            acc += xs[i] * tf.cast(i + 1, tf.float32) + xs[:, None][i, 0]
            i += 1
        return acc

    assert float(total(tf.constant([1.0, 2.0, 3.0]))) == 1 * 1 + 2 * 2 + 3 * 3 + 6.0
    assert float(total(tf.constant([5.0, 1.0, 0.0]))) == 5 + 2 + 0 + 6.0  # the same graph, other values
