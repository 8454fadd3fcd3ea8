"""tf.autodiff.ForwardAccumulator: JVPs from the same rules, checked against finite differences."""

import numpy as np
import pytest

import tapeviz as tf


def test_jvp_of_elementwise_and_reduction():
    x = tf.constant([1.0, 2.0, 3.0], dtype=tf.float64)
    v = tf.constant([1.0, 0.5, -1.0], dtype=tf.float64)
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
        y = tf.sin(x) * x
        s = tf.reduce_sum(y * y)
    xs, vs = x.numpy(), v.numpy()
    dy = (np.cos(xs) * xs + np.sin(xs)) * vs
    np.testing.assert_allclose(acc.jvp(y).numpy(), dy)
    f = lambda t: np.sum((np.sin(t) * t) ** 2)  # noqa: E731
    numeric = (f(xs + 1e-6 * vs) - f(xs - 1e-6 * vs)) / 2e-6
    np.testing.assert_allclose(acc.jvp(s).numpy(), numeric, rtol=1e-6)


def test_jvp_through_matmul_with_several_primals():
    a = tf.constant(np.arange(6.0).reshape(2, 3))
    b = tf.constant(np.ones((3, 2)))
    da, db = tf.ones_like(a), tf.zeros_like(b) + 2.0
    with tf.autodiff.ForwardAccumulator([a, b], [da, db]) as acc:
        c = tf.matmul(a, b)
    expected = da.numpy() @ b.numpy() + a.numpy() @ db.numpy()
    np.testing.assert_allclose(acc.jvp(c).numpy(), expected)


def test_unconnected_jvp_is_none_or_zero():
    x = tf.constant(1.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        unrelated = tf.constant(2.0) * 3.0
    assert acc.jvp(unrelated) is None
    assert acc.jvp(unrelated, unconnected_gradients="zero").numpy() == 0.0


def test_hessian_vector_product_by_nesting_in_a_gradient_tape():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    v = tf.constant([1.0, -1.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = tf.reduce_sum(x**3) + x[0] * x[1]
        jvp = acc.jvp(y)
    hessian = np.array([[6 * 1.0, 1.0], [1.0, 6 * 2.0]])
    np.testing.assert_allclose(tape.gradient(jvp, x).numpy(), hessian @ v.numpy())


def test_mismatched_tangent_is_a_clear_error():
    with pytest.raises(ValueError, match="does not match its primal"):
        tf.autodiff.ForwardAccumulator(tf.constant([1.0, 2.0]), tf.constant(1.0))
