"""The tensor guide's error cells in TF's words: a reshape that cannot fit, a ragged nested list.

Observed with TF 2.21 (/tmp/tfenv) on a (2, 3, 5) tensor of 30 values: ``tf.reshape(t, [7, -1])`` raises
``InvalidArgumentError: Input to reshape is a tensor with 30 values, but the requested shape requires a
multiple of 7 [Op:Reshape]``; the other messages are below. A (0, 3) tensor reshaped to [0, -1] is (0, 3)
and to [-1, 0] is (3, 0) (TF infers the -1 from the input's non-zero sizes; NumPy refuses).
``tf.constant([[1, 2], [3]])`` raises ``ValueError: Can't convert non-rectangular Python sequence to Tensor.``
"""

import numpy as np
import pytest

import tapeviz as tf


@pytest.mark.parametrize(
    "shape, message",
    [
        ([7, -1], "Input to reshape is a tensor with 30 values, but the requested shape requires a multiple of 7"),
        ([7, 4], "Input to reshape is a tensor with 30 values, but the requested shape has 28"),
        ([31], "Input to reshape is a tensor with 30 values, but the requested shape has 31"),
        ([0, -1], "Input to reshape is a tensor with 30 values, but the requested shape has 0"),
        ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
        ([4, -2], "Size 1 must be non-negative, not -2"),
    ],
)
def test_a_reshape_that_cannot_fit_is_tfs_error(shape, message):
    t = tf.constant(np.arange(30).reshape(2, 3, 5))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.reshape(t, shape)
    assert str(info.value) == f"{message} [Op:Reshape]"


@pytest.mark.parametrize("shape, expected", [([0, -1], (0, 3)), ([-1, 0], (3, 0)), ([3, -1], (3, 0))])
def test_an_empty_tensors_minus_one_is_inferred_as_tf_does(shape, expected):
    assert tf.reshape(tf.zeros([0, 3]), shape).shape == expected


def test_reshape_still_differentiates_after_inferring():
    x = tf.Variable(np.arange(6, dtype="float32").reshape(2, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.reshape(x, [3, -1]) ** 2)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * x.numpy())


@pytest.mark.parametrize("make", [tf.constant, tf.convert_to_tensor, lambda v: tf.constant(v, dtype=tf.float32)])
def test_a_ragged_nested_list_is_tfs_error(make):
    with pytest.raises(ValueError, match=r"^Can't convert non-rectangular Python sequence to Tensor\.$"):
        make([[1, 2], [3]])


def test_newaxis_adds_an_axis_as_tf():
    t = tf.constant(np.ones((2, 3)))
    assert tf.newaxis is None
    assert t[..., tf.newaxis].shape == (2, 3, 1) and t[tf.newaxis].shape == (1, 2, 3)
