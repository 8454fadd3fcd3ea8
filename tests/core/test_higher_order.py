"""Higher-order derivatives, Hessians and jacobians, against analytic values and finite differences."""

import numpy as np
import pytest

import tapeviz as tf


def f64(values):
    return tf.constant(np.asarray(values, dtype=np.float64))


def numeric_jacobian(fn, x, eps=1e-6):
    """d fn(x)[i...] / d x[j...] by central differences; shape out.shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    out_shape = np.asarray(fn(tf.constant(x))).shape
    jac = np.zeros(out_shape + x.shape)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        diff = (np.asarray(fn(tf.constant(plus))) - np.asarray(fn(tf.constant(minus)))) / (2 * eps)
        jac[(Ellipsis,) + index] = diff
    return jac


# -- nested tapes ----------------------------------------------------------------------------


def test_third_derivative_of_cube():
    x = tf.Variable(1.0)
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = x**3
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    assert float(dy) == 3.0
    assert float(d2y) == 6.0
    assert float(d3y) == 6.0


def test_third_derivative_of_x_times_x_times_x_with_watched_constant():
    x = tf.constant(2.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    assert [float(dy), float(d2y), float(d3y)] == [12.0, 12.0, 6.0]


def test_fourth_derivative_is_zero_or_none():
    x = tf.constant(2.0)
    with tf.GradientTape() as t4:
        t4.watch(x)
        with tf.GradientTape() as t3:
            t3.watch(x)
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = x**3
                dy = t1.gradient(y, x)
            d2y = t2.gradient(dy, x)
        d3y = t3.gradient(d2y, x)
    d4y = t4.gradient(d3y, x)
    assert d4y is None or float(d4y) == 0.0


def test_derivatives_of_sin_cycle():
    x0 = 0.7
    x = tf.constant(x0, dtype=tf.float64)
    with tf.GradientTape() as t4:
        t4.watch(x)
        with tf.GradientTape() as t3:
            t3.watch(x)
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = tf.sin(x)
                d1 = t1.gradient(y, x)
            d2 = t2.gradient(d1, x)
        d3 = t3.gradient(d2, x)
    d4 = t4.gradient(d3, x)
    expected = [np.cos(x0), -np.sin(x0), -np.cos(x0), np.sin(x0)]
    np.testing.assert_allclose([float(d) for d in (d1, d2, d3, d4)], expected, rtol=1e-12)


def test_second_derivative_of_composite():
    # f = exp(x) * tanh(x); f'' = e^x (tanh + 2 sech^2 - 2 tanh sech^2)
    x0 = 0.3
    x = tf.constant(x0, dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.exp(x) * tf.tanh(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    t, s2 = np.tanh(x0), 1 / np.cosh(x0) ** 2
    np.testing.assert_allclose(float(dy), np.exp(x0) * (t + s2), rtol=1e-12)
    np.testing.assert_allclose(float(d2y), np.exp(x0) * (t + 2 * s2 - 2 * t * s2), rtol=1e-12)


def test_gradient_inside_persistent_context_gives_higher_order():
    x = tf.constant(1.5, dtype=tf.float64)
    with pytest.warns(UserWarning, match="persistent tape inside its context"):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x**4
            dy = tape.gradient(y, x)
            d2y = tape.gradient(dy, x)
    d3y = tape.gradient(d2y, x)
    np.testing.assert_allclose([float(dy), float(d2y), float(d3y)], [4 * 1.5**3, 12 * 1.5**2, 24 * 1.5])


def test_outer_tape_does_not_see_inner_gradient_computed_outside_it():
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
    dy = inner.gradient(y, x)  # outside the outer block: not recorded
    assert float(dy) == 12.0
    assert outer.gradient(dy, x) is None


def test_mixed_partial_derivatives():
    a, b = tf.constant(2.0, dtype=tf.float64), tf.constant(3.0, dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch([a, b])
        with tf.GradientTape() as inner:
            inner.watch([a, b])
            y = a * a * b + tf.sin(a * b)
        da = inner.gradient(y, a)  # 2ab + b cos(ab)
    dab = outer.gradient(da, b)  # 2a + cos(ab) - ab sin(ab)
    np.testing.assert_allclose(float(dab), 4 + np.cos(6) - 6 * np.sin(6), rtol=1e-12)


# -- Hessians via jacobian of a gradient ------------------------------------------------------


def test_hessian_of_quadratic_form():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 4))
    x0 = rng.normal(size=4)
    x = f64(x0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.matmul(tf.reshape(x, (1, 4)), tf.matmul(f64(A), tf.reshape(x, (4, 1)))))
        g = inner.gradient(y, x)
    H = outer.jacobian(g, x)
    np.testing.assert_allclose(np.asarray(g), (A + A.T) @ x0, rtol=1e-12)
    assert H.shape == (4, 4)
    np.testing.assert_allclose(np.asarray(H), A + A.T, rtol=1e-12)


def test_hessian_of_nonlinear_function():
    # f(x) = sum(exp(x_0 x_1)) + x_0^2 sin(x_1)
    x0 = np.array([0.4, -0.7])
    x = f64(x0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u, v = tf.unstack(x)
            y = tf.exp(u * v) + u * u * tf.sin(v)
        g = inner.gradient(y, x)
    H = np.asarray(outer.jacobian(g, x))
    u, v = x0
    e = np.exp(u * v)
    expected = np.array(
        [
            [v * v * e + 2 * np.sin(v), e + u * v * e + 2 * u * np.cos(v)],
            [e + u * v * e + 2 * u * np.cos(v), u * u * e - u * u * np.sin(v)],
        ]
    )
    np.testing.assert_allclose(H, expected, rtol=1e-10)
    np.testing.assert_allclose(H, H.T, rtol=1e-12)


def test_hessian_with_persistent_inner_and_jacobian_of_gradient_of_matrix():
    W0 = np.array([[0.5, -1.0], [2.0, 0.25]])
    W = tf.Variable(W0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.tanh(W) ** 2)
        g = inner.gradient(y, W)
    H = outer.jacobian(g, W)
    assert H.shape == (2, 2, 2, 2)
    t = np.tanh(W0)
    diag = 2 * (1 - t**2) ** 2 - 4 * t**2 * (1 - t**2)  # d2/dw2 tanh(w)^2
    expected = np.zeros((2, 2, 2, 2))
    for i, j in np.ndindex(2, 2):
        expected[i, j, i, j] = diag[i, j]
    np.testing.assert_allclose(np.asarray(H), expected, rtol=1e-10, atol=1e-14)


# -- jacobian and batch_jacobian ----------------------------------------------------------------


def test_jacobian_shape_and_values_vs_finite_differences():
    rng = np.random.default_rng(1)
    W = rng.normal(size=(3, 2))
    x0 = rng.normal(size=(2, 3))

    def fn(x):
        return tf.tanh(tf.matmul(x, f64(W))) * tf.reduce_sum(x)

    x = f64(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    J = tape.jacobian(y, x)
    assert J.shape == (2, 2, 2, 3)
    assert J.dtype == tf.float64
    np.testing.assert_allclose(np.asarray(J), numeric_jacobian(fn, x0), rtol=1e-6, atol=1e-9)


def test_jacobian_of_several_sources_keeps_structure():
    a, b = f64([1.0, 2.0]), f64(3.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = a * a * b
    J = tape.jacobian(y, {"a": a, "b": b})
    assert J["a"].shape == (2, 2) and J["b"].shape == (2,)
    np.testing.assert_allclose(np.asarray(J["a"]), np.diag([6.0, 12.0]))
    np.testing.assert_allclose(np.asarray(J["b"]), [1.0, 4.0])


def test_jacobian_of_scalar_equals_gradient():
    x = f64([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x**3)
    np.testing.assert_allclose(np.asarray(tape.jacobian(y, x)), np.asarray(tape.gradient(y, x)))
    assert tape.jacobian(y, x).shape == (3,)


def test_jacobian_of_unconnected_source():
    x, u = f64([1.0, 2.0]), f64([[1.0, 2.0, 3.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    assert tape.jacobian(y, u) is None
    assert tape.jacobian(y, u, unconnected_gradients="none") is None
    J = tape.jacobian(y, u, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert J.shape == (2, 1, 3) and not np.asarray(J).any()
    Jx, Ju = tape.jacobian(y, [x, u], unconnected_gradients="zero")
    np.testing.assert_allclose(np.asarray(Jx), 2 * np.eye(2))
    assert Ju.shape == (2, 1, 3)


def test_batch_jacobian_shape_and_values():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(3, 4))
    x0 = rng.normal(size=(5, 3))

    def fn(x):
        return tf.sigmoid(tf.matmul(x, f64(W)))

    x = f64(x0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
    B = tape.batch_jacobian(y, x)
    assert B.shape == (5, 4, 3)
    full = numeric_jacobian(fn, x0)  # (5, 4, 5, 3)
    expected = np.stack([full[b, :, b, :] for b in range(5)])
    np.testing.assert_allclose(np.asarray(B), expected, rtol=1e-6, atol=1e-9)
    J = np.asarray(tape.jacobian(y, x))
    np.testing.assert_allclose(np.asarray(B), np.stack([J[b, :, b, :] for b in range(5)]), rtol=1e-12)


def test_batch_jacobian_higher_rank():
    x0 = np.arange(2 * 2 * 3, dtype=np.float64).reshape(2, 2, 3) / 10
    x = f64(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x, axis=2)  # [2, 2]
    B = tape.batch_jacobian(y, x)
    assert B.shape == (2, 2, 2, 3)
    expected = np.zeros((2, 2, 2, 3))
    for b, i in np.ndindex(2, 2):
        expected[b, i, i, :] = 2 * x0[b, i, :]
    np.testing.assert_allclose(np.asarray(B), expected)


def test_batch_jacobian_errors():
    x = f64([[1.0, 2.0], [3.0, 4.0]])
    s = f64(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, s])
        y = x * 2.0
        y3 = tf.stack([y[0], y[1], y[0]])
        scalar = tf.reduce_sum(x) * s
    with pytest.raises(ValueError, match="rank"):
        tape.batch_jacobian(scalar, x)
    with pytest.raises(ValueError, match="rank"):
        tape.batch_jacobian(y, s)
    with pytest.raises(ValueError, match="batch"):
        tape.batch_jacobian(y3, x)


def test_batch_jacobian_unconnected():
    x, u = f64([[1.0, 2.0]]), f64([[1.0, 2.0, 3.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    # TF 2.21 gives zeros of the full shape with either setting (tests/tf_reference/numbers_reference.py)
    for setting in ("none", "zero"):
        B = tape.batch_jacobian(y, u, unconnected_gradients=setting)
        assert B.shape == (1, 2, 3) and not np.asarray(B).any()
    assert tape.jacobian(y, u) is None  # while jacobian gives None, as TF's does


def test_jacobian_on_non_persistent_tape_releases_it():
    x = f64([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    J = tape.jacobian(y, x)
    np.testing.assert_allclose(np.asarray(J), np.diag([2.0, 4.0]))
    assert tape.recorded_ops == ()
    with pytest.raises(RuntimeError):
        tape.jacobian(y, x)
