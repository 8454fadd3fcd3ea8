"""``tf.one_hot`` with float, bool and other non-index dtypes, as TF 2.21 treats them.

Observed with TF 2.21 (/tmp/tfenv): the OneHot kernel takes uint8, int8, int32 and int64 indices. A float
tensor, or a Python list of floats, raises ``InvalidArgumentError: Value for attr 'TI' of float is not in
the list of allowed values: uint8, int8, int32, int64`` (float64 is 'double', float16 'half'); a Python
float raises ``TypeError: Cannot convert 1.5 to EagerTensor of dtype int64``; a NumPy array or scalar of
any dtype is converted to int64 (0.5 -> 0, 1.7 -> 1, -0.5 -> 0, 2.9 -> 2); a list of Python bools is
converted to int64. A float ``depth`` is refused. Keras's ``ops.one_hot`` casts float indices.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras

ALLOWED = "uint8, int8, int32, int64"


@pytest.mark.parametrize(
    "indices, tf_name",
    [
        (tf.constant([0.0, 1.0]), "float"),
        ([0.0, 1.0], "float"),
        ([1, 2.5], "float"),
        (tf.constant([0.0, 1.0], tf.float64), "double"),
        (tf.constant([0.0, 1.0], tf.float16), "half"),
        (tf.constant([True]), "bool"),
        (tf.constant([0, 1], tf.int16), "int16"),
    ],
)
def test_a_tensor_of_another_dtype_is_tfs_invalid_argument_error(indices, tf_name):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.one_hot(indices, 3)
    message = str(info.value)
    assert message.startswith(f"Value for attr 'TI' of {tf_name} is not in the list of allowed values: {ALLOWED}")
    assert "tf.cast(indices, tf.int32)" in message and message.endswith("[Op:OneHot]")
    assert isinstance(info.value, ValueError)  # as TF's InvalidArgumentError: `except ValueError` catches it


@pytest.mark.parametrize("value", [1.0, 1.5])
def test_a_python_float_is_a_type_error(value):
    with pytest.raises(TypeError, match=f"^Cannot convert {value} to EagerTensor of dtype int64$"):
        tf.one_hot(value, 3)


def test_numpy_values_of_any_dtype_are_converted_to_int64_as_tf_does():
    got = tf.one_hot(np.array([0.5, 1.7, -0.5, 2.9]), 3).numpy()
    np.testing.assert_array_equal(got, np.eye(3)[[0, 1, 0, 2]])
    np.testing.assert_array_equal(tf.one_hot(np.float64(2.0), 3).numpy(), [0, 0, 1])
    np.testing.assert_array_equal(tf.one_hot(np.array([True, False]), 3).numpy(), np.eye(3)[[1, 0]])
    np.testing.assert_array_equal(tf.one_hot(np.array([0, 1], np.int16), 3).numpy(), np.eye(3)[[0, 1]])


def test_a_list_of_python_bools_is_converted_as_tf_does():
    np.testing.assert_array_equal(tf.one_hot([True], 3).numpy(), [[0, 1, 0]])


@pytest.mark.parametrize("dtype", [tf.uint8, tf.int8, tf.int32, tf.int64])
def test_the_index_dtypes_tf_takes(dtype):
    np.testing.assert_array_equal(tf.one_hot(tf.constant([2, 0], dtype), 3).numpy(), np.eye(3)[[2, 0]])


def test_a_float_depth_is_refused_as_tf_does():
    with pytest.raises(TypeError, match="^Cannot convert 3.0 to EagerTensor of dtype int32$"):
        tf.one_hot([0, 1], 3.0)
    with pytest.raises(ValueError, match="^Tensor conversion requested dtype int32 for Tensor with dtype float32"):
        tf.one_hot([0, 1], tf.constant(3.0))
    np.testing.assert_array_equal(tf.one_hot([1], tf.constant(2)).numpy(), [[0, 1]])


def test_keras_ops_one_hot_and_to_categorical_cast_float_indices_as_keras_does():
    np.testing.assert_array_equal(keras.ops.one_hot(np.array([0.0, 1.7]), 3).numpy(), np.eye(3)[[0, 1]])
    np.testing.assert_array_equal(keras.ops.one_hot(tf.constant([0.0, 2.0]), 3).numpy(), np.eye(3)[[0, 2]])
    np.testing.assert_array_equal(keras.ops.one_hot(tf.constant([2], tf.int16), 3).numpy(), [[0, 0, 1]])
    np.testing.assert_array_equal(keras.utils.to_categorical(np.array([0.0, 2.0]), 3), np.eye(3)[[0, 2]])
    loss = keras.losses.sparse_categorical_crossentropy(tf.constant([1], tf.int16), tf.constant([[0.2, 0.8]]))
    np.testing.assert_allclose(loss.numpy(), [-np.log(0.8)], rtol=1e-6)
