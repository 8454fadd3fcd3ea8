"""``tf.tensor_scatter_nd_max`` / ``_min`` against TF 2.21 (the tensor_slicing guide's cells; values observed there).

TF: t = [[-2, -7, 0], [-9, 5, 3]]; max at [[0, 2], [1, 1]] with [6, 5] gives [[-2, -7, 6], [-9, 5, 3]];
min with [-6, 5] gives [[-2, -7, -6], [-9, 5, 3]]. The gradient splits a tie evenly: d/dt of the max is
[[1, 1, 0], [1, 0.5, 1]] and d/d updates [1, 0.5] (5 meets 5). Finite differences away from ties are in
tests/rule_cases/scatter.py.
"""

import numpy as np
import pytest

import tapeviz as tf

T = [[-2.0, -7.0, 0.0], [-9.0, 5.0, 3.0]]
INDICES = [[0, 2], [1, 1]]


def test_the_guides_values():
    t = tf.constant([[-2, -7, 0], [-9, 5, 3]])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_max(t, INDICES, [6, 5]).numpy(), [[-2, -7, 6], [-9, 5, 3]])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_min(t, INDICES, [-6, 5]).numpy(), [[-2, -7, -6], [-9, 5, 3]])
    assert tf.tensor_scatter_nd_min(t, INDICES, [-6, 5]).dtype == tf.int32


@pytest.mark.parametrize(
    "op, updates", [(tf.tensor_scatter_nd_max, [6.0, 5.0]), (tf.tensor_scatter_nd_min, [-6.0, 5.0])]
)
def test_gradients_split_ties_as_tf(op, updates):
    t, u = tf.Variable(T), tf.Variable(updates)
    with tf.GradientTape() as tape:
        out = op(t, INDICES, u)
    grad_t, grad_u = tape.gradient(out, [t, u])
    np.testing.assert_array_equal(grad_t.numpy(), [[1, 1, 0], [1, 0.5, 1]])
    np.testing.assert_array_equal(grad_u.numpy(), [1, 0.5])


def test_repeated_indices_keep_the_extreme_of_all_their_updates():
    got = tf.tensor_scatter_nd_max(tf.zeros([3]), [[1], [1], [2]], [4.0, 7.0, -1.0])
    np.testing.assert_array_equal(got.numpy(), [0, 7, 0])
    got = tf.tensor_scatter_nd_min(tf.zeros([3]), [[1], [1], [2]], [4.0, 7.0, -1.0])
    np.testing.assert_array_equal(got.numpy(), [0, 0, -1])
