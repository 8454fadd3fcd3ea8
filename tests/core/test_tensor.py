"""convert_to_tensor of a list that holds tensors packs it as TF does: a recorded Pack per level.

TF's auto-packing makes ``tf.reduce_sum([loss_a, loss_b])`` differentiable; converting such a list by
value would give a constant, and every gradient through it None. Values from TF 2.21
(tests/tf_reference/autopacking_reference.py).
"""

import warnings

import numpy as np
import pytest

import tapeviz as tf


def _gradients():
    x = tf.Variable(3.0)
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        packed = tf.convert_to_tensor([x, x * x])
        results = {
            "packed": tf.reduce_sum(packed),
            "summed": tf.reduce_sum([x, x * x, 2.0]),
            "added": tf.reduce_sum(tf.add([x, x * x], 1.0)),
            "joined": tf.reduce_sum(tf.constant(2.0) * tf.concat([[x], [x * x]], 0)),
            "asked_other": tf.reduce_sum(tf.convert_to_tensor([x, 2.0], dtype=tf.float64)),
        }
        nested = tf.reduce_sum(tf.convert_to_tensor([[1.0, 2.0], v * 3.0]))
    got = {name: (float(y), float(tape.gradient(y, x))) for name, y in results.items()}
    got["nested"] = (float(nested), tape.gradient(nested, v).numpy().tolist())
    return packed, got


def test_a_list_holding_tensors_differentiates_as_tf():
    packed, got = _gradients()
    assert packed.numpy().tolist() == [3.0, 9.0]
    assert got == {
        "packed": (12.0, 7.0),
        "summed": (14.0, 7.0),
        "added": (14.0, 7.0),
        "joined": (24.0, 14.0),
        "asked_other": (5.0, 1.0),  # each tensor cast to the dtype asked for, the cast recorded
        "nested": (12.0, [3.0, 3.0]),
    }


def test_values_in_the_list_take_the_tensors_dtype_or_the_one_asked_for():
    x = tf.Variable(3.0)
    assert tf.convert_to_tensor((x, 2.0)).dtype == tf.float32
    assert tf.stack([tf.constant(1.0), 2]).dtype == tf.float32
    asked = tf.convert_to_tensor([x, 0.1], dtype=tf.float64)
    assert asked.dtype == tf.float64 and asked.numpy()[1] == np.float64(0.1)  # 0.1 made float64, not float32's
    assert tf.convert_to_tensor([tf.constant(1), 0.1], dtype=tf.float64).numpy().tolist() == [1.0, 0.1]


def test_a_list_of_mixed_dtypes_is_refused_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pack"):
        tf.convert_to_tensor([tf.constant(1.0), tf.constant(1)])
    with pytest.raises(TypeError, match="Cannot convert 2.5"):
        tf.convert_to_tensor([tf.constant(1), 2.5])


def test_a_traced_function_keeps_the_packing():
    """The Pack is an op of the trace: each call packs its own values, and nothing runs eagerly."""
    packing = tf.function(lambda x: tf.convert_to_tensor([x, x * 2]))
    joining = tf.function(lambda x: tf.concat([[x], [x * 3]], 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for value in (1.0, 2.0):
            assert packing(tf.constant(value)).numpy().tolist() == [value, value * 2]
            assert joining(tf.constant(value)).numpy().tolist() == [value, value * 3]
    assert packing.experimental_get_tracing_count() == 1


def test_strings_nested_in_a_list_still_pack_by_value():
    assert tf.convert_to_tensor([tf.constant("a"), tf.constant("b")]).numpy().tolist() == [b"a", b"b"]
