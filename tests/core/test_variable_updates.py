"""Variables update in place only when no tensor can see it; conversions copy."""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import backend


def _buffer(variable):
    return backend.data_pointer(variable._value)


def test_update_writes_in_place_when_nothing_else_holds_the_array():
    v = tf.Variable(np.ones(3, np.float32))
    before = _buffer(v)
    v.assign_sub([1.0, 1.0, 1.0])
    v.assign_add([0.5, 0.5, 0.5])
    assert _buffer(v) == before
    np.testing.assert_array_equal(v.numpy(), [0.5, 0.5, 0.5])


def test_a_tensor_read_earlier_never_changes():
    v = tf.Variable(np.ones(3, np.float32))
    read = v.read_value()
    v.assign_sub(np.ones(3))
    np.testing.assert_array_equal(read.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0, 0.0])


def test_tensors_saved_on_a_persistent_tape_keep_their_values():
    v = tf.Variable(np.array([2.0, 3.0], np.float32))
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(v * v)
    v.assign_sub([1.0, 1.0])  # the tape still holds the read: must not see this
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [4.0, 6.0])


def test_a_variable_made_from_a_tensor_does_not_change_that_tensor():
    t = tf.constant([5.0, 5.0])
    w = tf.Variable(t)
    w.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(t.numpy(), [5.0, 5.0])


def test_constant_and_variable_copy_the_callers_numpy_array():
    array = np.ones(3, np.float32)
    t, v = tf.constant(array), tf.Variable(array)
    array[0] = 5.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0, 1.0])


def test_update_shapes_must_be_equal_as_in_tf_and_a_failed_update_changes_nothing():
    u = tf.Variable(np.ones((2, 2), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="shapes must be equal"):
        u.assign_sub([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="shapes must be equal"):
        u.assign_add(1.0)
    np.testing.assert_array_equal(u.numpy(), np.ones((2, 2)))
    s = tf.Variable(2.0)
    s.assign_sub(0.5)
    assert s.numpy() == 1.5


def test_numpy_views_of_tensors_are_read_only_and_survive_updates():
    t = tf.constant([1.0, 2.0])
    view = np.asarray(t)
    assert not view.flags.writeable
    assert np.array(t).flags.writeable  # an explicit copy is the user's to change
    v = tf.Variable([1.0, 2.0])
    seen = np.asarray(v)
    v.assign_sub([1.0, 1.0])
    np.testing.assert_array_equal(seen, [1.0, 2.0])


def test_numpy_arrays_on_the_left_keep_the_tape():
    x = np.array([[1.0, 2.0]], np.float32)
    w = tf.Variable([[3.0], [4.0]])
    b = tf.Variable([0.5])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x @ w + np.float32(2.0) * b)
    assert isinstance(y, tf.Tensor)
    gw, gb = tape.gradient(y, [w, b])
    np.testing.assert_array_equal(gw.numpy(), [[1.0], [2.0]])
    np.testing.assert_array_equal(gb.numpy(), [2.0])


def test_updates_after_assigning_an_op_output_to_a_scalar_variable():
    # Scalar ops return NumPy scalars; the variable must still hold an array
    # that updates can write into (this crashed with "return arrays must be of ArrayType").
    v = tf.Variable(1.0)
    v.assign(v * 2.0)
    v.assign_add(1.0)
    v.assign_sub(0.5)
    assert v.numpy() == 2.5
    w = tf.Variable(tf.constant(3.0) * 1.0)
    w.assign_add(1.0)
    assert w.numpy() == 4.0
