"""Printing and formatting tensors as TF 2.21 does (expected strings printed by TF 2.21 with NumPy 2)."""

import pytest

import tapeviz as tf


def test_format_spec_goes_to_the_value():
    loss = tf.constant(1.1051607)
    assert f"{loss:.3f}" == "1.105"
    assert f"{loss}" == "1.1051607131958008"  # a 0-d array formats as its Python float
    assert f"{tf.Variable(2.5):.2f}" == "2.50"
    assert f"{tf.constant([[1.0, 2.0], [3.0, 4.0]])}" == "[[1. 2.]\n [3. 4.]]"


def test_a_format_spec_on_a_matrix_is_numpy_s_error():
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{tf.constant([1.0, 2.0]):.2f}"


def test_str_and_repr_start_multi_line_values_on_a_new_line():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert str(t) == "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert repr(t) == (
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],\n       [3., 4.]], dtype=float32)>"
    )
    assert str(tf.constant([1.0, 2.0])) == "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert repr(v) == (
        "<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
        "array([[1., 2.],\n       [3., 4.]], dtype=float32)>"
    )


def test_scalars_repr_as_python_values():
    assert repr(tf.constant(1.1051607)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.1051607131958008>"
    assert str(tf.constant(1.1051607)) == "tf.Tensor(1.1051607, shape=(), dtype=float32)"
    assert repr(tf.constant(5)) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(tf.constant(True)) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
