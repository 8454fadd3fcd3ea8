"""tf.math composites: values against NumPy, TF's formulas and tie conventions, stability."""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing
from tests.rule_cases import rand


def grad(fn, x):
    x = tf.constant(x, dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x).numpy()


def check_fd(fn, *arrays, second_order=True):
    """First (and second) order gradients of a composite against finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    weights = testing.projection_weights(fn, arrays)
    for a, n in zip(testing.analytic_gradients(fn, arrays, weights), testing.numeric_gradients(fn, arrays, weights)):
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-6)
    if second_order:
        v = [rand(*a.shape, seed=7) for a in arrays]
        for a, n in zip(
            testing.hessian_vector(fn, arrays, weights, v), testing.numeric_hessian_vector(fn, arrays, weights, v)
        ):
            np.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-4)


X = rand(3, 4)


# -- reductions ---------------------------------------------------------------------------


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ([0, 1], False)])
def test_variance_and_std_values(axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    got_var = tf.math.reduce_variance(tf.constant(X), axis=axis, keepdims=keepdims).numpy()
    got_std = tf.math.reduce_std(tf.constant(X), axis=axis, keepdims=keepdims).numpy()
    np.testing.assert_allclose(got_var, X.var(axis=np_axis, keepdims=keepdims))
    np.testing.assert_allclose(got_std, X.std(axis=np_axis, keepdims=keepdims))


def test_variance_and_std_gradients():
    check_fd(lambda x: tf.math.reduce_variance(x, axis=1), X)
    check_fd(lambda x: tf.math.reduce_std(x, axis=0), X)


def test_variance_rejects_integers():
    with pytest.raises(TypeError, match="float"):
        tf.math.reduce_variance(tf.constant([1, 2, 3]))


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, True), (-1, False), ([0, 1], True)])
def test_logsumexp_values(axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    got = tf.reduce_logsumexp(tf.constant(X), axis=axis, keepdims=keepdims).numpy()
    np.testing.assert_allclose(got, np.log(np.exp(X).sum(axis=np_axis, keepdims=keepdims)))


def test_logsumexp_gradient_is_softmax_and_second_order():
    _, g = grad(lambda x: tf.reduce_logsumexp(x, axis=1), X)
    e = np.exp(X)
    np.testing.assert_allclose(g, e / e.sum(1, keepdims=True))
    check_fd(lambda x: tf.reduce_logsumexp(x, axis=0), X)


def test_logsumexp_is_stable_at_extremes():
    big = np.array([[1000.0, 1000.0], [-1000.0, -1000.0], [1000.0, -1000.0]])
    y, g = grad(lambda x: tf.reduce_logsumexp(x, axis=1), big)
    np.testing.assert_allclose(y, [1000 + np.log(2), -1000 + np.log(2), 1000.0])
    np.testing.assert_allclose(g, [[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])
    neg_inf = tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])).numpy()
    assert neg_inf == -np.inf  # not nan: an infinite max is not subtracted


def test_reduce_euclidean_norm():
    np.testing.assert_allclose(tf.math.reduce_euclidean_norm(tf.constant(X), axis=1).numpy(), np.linalg.norm(X, axis=1))


# -- clipping -----------------------------------------------------------------------------


def test_clip_by_value_values_and_gradient_at_the_bounds():
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    y, g = grad(lambda t: tf.clip_by_value(t, -1.0, 1.0), x)
    np.testing.assert_array_equal(y, [-1.0, -1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 1.0, 0.0])  # at a bound the gradient passes, as in TF


def test_clip_by_value_with_tensor_bounds_and_shape_check():
    x = tf.constant([[1.0, 5.0], [3.0, -4.0]])
    got = tf.clip_by_value(x, tf.constant([0.0, -1.0]), 2.0).numpy()
    np.testing.assert_array_equal(got, [[1.0, 2.0], [2.0, -1.0]])
    with pytest.raises(ValueError, match="broadcast"):
        tf.clip_by_value(tf.constant([1.0, 2.0]), tf.zeros([3, 2]), 1.0)


def test_clip_by_norm_follows_tf_formula():
    t = np.array([[3.0, 4.0], [0.3, 0.4]])
    got = tf.clip_by_norm(tf.constant(t), 2.0).numpy()  # norm of all = sqrt(25.25)
    np.testing.assert_allclose(got, t * 2.0 / np.sqrt(25.25))
    got = tf.clip_by_norm(tf.constant(t), 2.0, axes=[1]).numpy()  # each row on its own
    np.testing.assert_allclose(got, [[1.2, 1.6], [0.3, 0.4]])
    np.testing.assert_array_equal(tf.clip_by_norm(tf.constant(t), 100.0).numpy(), t)


def test_clip_by_norm_of_zero_has_finite_gradient():
    y, g = grad(lambda t: tf.clip_by_norm(t, 1.0), np.zeros(3))
    np.testing.assert_array_equal(y, 0.0)
    np.testing.assert_array_equal(g, 1.0)
    check_fd(lambda t: tf.clip_by_norm(t, 0.5, axes=[1]), X)


def test_global_norm_skips_none():
    a, b = rand(2, 3), rand(4)
    got = tf.math.global_norm([tf.constant(a), None, tf.constant(b)])
    np.testing.assert_allclose(got.numpy(), np.sqrt((a**2).sum() + (b**2).sum()))
    with pytest.raises(TypeError, match="list"):
        tf.math.global_norm(tf.constant(a))


def test_clip_by_global_norm_follows_tf_formula():
    a, b = np.array([3.0, 0.0]), np.array([[0.0], [4.0]])
    clipped, norm = tf.clip_by_global_norm([tf.constant(a), None, tf.constant(b)], clip_norm=1.0)
    assert norm.numpy() == 5.0
    assert clipped[1] is None
    np.testing.assert_allclose(clipped[0].numpy(), a / 5.0)
    np.testing.assert_allclose(clipped[2].numpy(), b / 5.0)
    unclipped, _ = tf.clip_by_global_norm([tf.constant(a)], clip_norm=10.0)
    np.testing.assert_allclose(unclipped[0].numpy(), a)
    reused, norm = tf.clip_by_global_norm([tf.constant(a)], 1.0, use_norm=tf.constant(6.0, tf.float64))
    np.testing.assert_allclose(reused[0].numpy(), a / 6.0)
    assert norm.numpy() == 6.0


def test_clip_by_global_norm_inf_gives_nan_like_tf():
    clipped, norm = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    assert np.isinf(norm.numpy())
    assert np.all(np.isnan(clipped[0].numpy()))


def test_clip_by_global_norm_gradient():
    check_fd(
        lambda a, b: tf.add_n([tf.reduce_sum(c) for c in tf.clip_by_global_norm([a, b], 0.5)[0]]), rand(2, 2), rand(3)
    )


# -- norms ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ord, np_ord", [("euclidean", 2), (2, 2), (1, 1), (np.inf, np.inf), (3, 3)])
def test_vector_norms(ord, np_ord):
    v = rand(5)
    np.testing.assert_allclose(tf.norm(tf.constant(v), ord=ord).numpy(), np.linalg.norm(v, np_ord))
    got = tf.norm(tf.constant(X), ord=ord, axis=1, keepdims=True).numpy()
    np.testing.assert_allclose(got, np.linalg.norm(X, np_ord, axis=1, keepdims=True))


def test_norm_of_whole_tensor_is_flattened():
    np.testing.assert_allclose(tf.norm(tf.constant(X)).numpy(), np.sqrt((X**2).sum()))


@pytest.mark.parametrize("ord, np_ord", [("fro", "fro"), ("euclidean", "fro"), (1, 1), (np.inf, np.inf)])
def test_matrix_norms(ord, np_ord):
    m = rand(2, 3, 4)
    got = tf.norm(tf.constant(m), ord=ord, axis=[1, 2]).numpy()
    np.testing.assert_allclose(got, np.linalg.norm(m, np_ord, axis=(1, 2)))


def test_norm_gradients():
    check_fd(lambda x: tf.norm(x, axis=1), X)
    check_fd(lambda x: tf.norm(x, ord=3, axis=0), X)


def test_norm_rejects_bad_ord():
    with pytest.raises(ValueError, match="ord"):
        tf.norm(tf.constant(X), ord=-1)
    with pytest.raises(ValueError, match="ord"):
        tf.norm(tf.constant(X), ord=2, axis=[0, 1])


# -- small aliases ----------------------------------------------------------------------------


def test_truediv_and_softplus_alias():
    np.testing.assert_allclose(tf.truediv(tf.constant([3, 4]), tf.constant([2, 8])).numpy(), [1.5, 0.5])
    assert tf.truediv(tf.constant([3]), tf.constant([2])).dtype == tf.float64
    assert tf.math.softplus is tf.nn.softplus


def test_l2_normalize_and_log_sigmoid():
    np.testing.assert_allclose(tf.math.l2_normalize(tf.constant(X), axis=0).numpy(), X / np.linalg.norm(X, axis=0))
    y, g = grad(tf.math.log_sigmoid, np.array([-1000.0, 0.0, 1000.0]))
    np.testing.assert_allclose(y, [-1000.0, -np.log(2), 0.0])
    np.testing.assert_allclose(g, [1.0, 0.5, 0.0])


def test_composites_are_exported_at_top_level():
    for name in ("reduce_logsumexp", "clip_by_value", "clip_by_norm", "clip_by_global_norm", "norm", "truediv"):
        assert getattr(tf, name) is getattr(tf.math, name)
