"""tf.nn: values against NumPy, TF's gradient conventions at kinks, stability, dropout, errors."""

import math

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing
from tests.rule_cases import rand
from tests.rule_cases.nn import SPARSE_BACKPROP_CASE

X = np.array([-3.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.0])


def grad(fn, x, dtype=tf.float64):
    x = tf.constant(x, dtype=dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x).numpy()


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_sigmoid(x):
    return np.exp(-np.logaddexp(0.0, -x))  # no overflow at +-1000


def np_erf(x):
    return np.vectorize(math.erf)(x)


SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805

ACTIVATIONS = {
    "relu": (tf.nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (tf.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "leaky_relu": (tf.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    "selu": (tf.nn.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    "gelu": (tf.nn.gelu, lambda x: 0.5 * x * (1 + np_erf(x / np.sqrt(2)))),
    "gelu_tanh": (
        lambda x: tf.nn.gelu(x, approximate=True),
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    ),
    "silu": (tf.nn.silu, lambda x: x / (1 + np.exp(-x))),
    "softplus": (tf.nn.softplus, lambda x: np.log1p(np.exp(x))),
    "softsign": (tf.nn.softsign, lambda x: x / (1 + np.abs(x))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values(name):
    fn, reference = ACTIVATIONS[name]
    np.testing.assert_allclose(fn(tf.constant(X, dtype=tf.float64)).numpy(), reference(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradients_match_finite_differences(name):
    fn, _ = ACTIVATIONS[name]
    points = np.array([-2.5, -0.7, 0.3, 1.1, 6.5])  # away from the kinks at 0 and 6
    weights = testing.projection_weights(fn, [points])
    analytic = testing.analytic_gradients(fn, [points], weights)[0]
    numeric = testing.numeric_gradients(fn, [points], weights)[0]
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-6)


def test_activations_keep_float32():
    x = tf.constant([-1.0, 2.0])
    for name, (fn, _) in ACTIVATIONS.items():
        assert fn(x).dtype == tf.float32, name


def test_swish_is_silu_and_beta_scales():
    assert tf.nn.swish is tf.nn.silu
    x = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(tf.nn.silu(tf.constant(x, tf.float64), beta=2.0).numpy(), x / (1 + np.exp(-2 * x)))


# -- TF's conventions at kinks ------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, x, expected",
    [
        (tf.nn.relu, 0.0, 0.0),  # relu'(0) = 0
        (tf.nn.relu6, 0.0, 0.0),  # 1 only strictly inside (0, 6)
        (tf.nn.relu6, 6.0, 0.0),
        (tf.nn.relu6, 3.0, 1.0),
        (tf.nn.leaky_relu, 0.0, 0.2),  # alpha at 0
        (tf.nn.elu, 0.0, 1.0),
        (tf.nn.selu, 0.0, SELU_S),  # TF's SeluGrad: scale at 0 (1.0507 in TF 2.21)
        (tf.nn.softplus, 0.0, 0.5),
    ],
)
def test_gradients_at_kinks_follow_tf(fn, x, expected):
    _, g = grad(fn, x)
    np.testing.assert_allclose(g, expected, rtol=1e-12)


def test_sigmoid_cross_entropy_gradient_at_zero_is_sigmoid_minus_label():
    z = tf.constant([0.0, 1.0, 0.3], dtype=tf.float64)
    _, g = grad(lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), np.zeros(3))
    np.testing.assert_allclose(g, 0.5 - z.numpy())


def test_relu_gradient_multiplies_by_the_mask_so_nan_passes_as_in_tf():
    # TF's ReluGrad is gradients * (features > 0): on TensorFlow 2.21 this very
    # call returns [nan, 1.] (checked in a scratch tensorflow-cpu install).
    x = tf.constant([-1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.relu(x)
    g = tape.gradient(y, x, output_gradients=tf.constant([np.nan, 1.0], dtype=tf.float32))
    np.testing.assert_array_equal(g.numpy(), [np.nan, 1.0])


def test_relu_second_derivative_is_zero():
    x = tf.constant([-1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.relu(x) * x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [0.0, 4.0])
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [0.0, 2.0])


# -- stability ---------------------------------------------------------------------------

BIG = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0])


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_softplus_is_finite_at_extremes(dtype):
    y, g = grad(tf.nn.softplus, BIG, dtype)
    np.testing.assert_allclose(y, [0.0, np.log1p(np.exp(-50.0)), np.log(2.0), 50.0, 1000.0], rtol=1e-6)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, np_sigmoid(BIG), rtol=1e-6)
    assert tf.math.softplus is tf.nn.softplus


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_sigmoid_cross_entropy_is_finite_at_extremes(dtype):
    labels = tf.constant([0.0, 1.0, 0.5, 0.0, 1.0], dtype=dtype)
    y, g = grad(lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x), BIG, dtype)
    z = labels.numpy().astype(np.float64)
    expected = np.maximum(BIG, 0) - BIG * z + np.log1p(np.exp(-np.abs(BIG)))
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, np_sigmoid(BIG) - z, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "fn", [tf.nn.elu, tf.nn.selu, tf.nn.silu, tf.nn.gelu, tf.nn.softsign, lambda x: tf.nn.gelu(x, approximate=True)]
)
def test_activation_gradients_are_finite_at_extremes(fn):
    y, g = grad(fn, BIG)
    assert np.all(np.isfinite(y)) and np.all(np.isfinite(g))


def test_softmax_family_is_stable_for_huge_logits():
    logits = np.array([[1000.0, 0.0, -1000.0], [1e4, 1e4, 1e4]])
    s = tf.nn.softmax(tf.constant(logits)).numpy()
    np.testing.assert_allclose(s, [[1, 0, 0], [1 / 3] * 3], atol=1e-12)
    ls = tf.nn.log_softmax(tf.constant(logits)).numpy()
    np.testing.assert_allclose(ls, [[0, -1000, -2000], [-np.log(3)] * 3], atol=1e-9)
    labels = tf.constant([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], tf.float64)
    y, g = grad(lambda x: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x), logits)
    np.testing.assert_allclose(y, [2000.0, np.log(3)])
    assert np.all(np.isfinite(g))


# -- softmax and the cross-entropies -------------------------------------------------------


def test_softmax_and_log_softmax_values_on_any_axis():
    x = rand(2, 3, 4)
    for axis in (None, -1, 0, 1):
        ref_axis = -1 if axis is None else axis
        np.testing.assert_allclose(tf.nn.softmax(tf.constant(x), axis=axis).numpy(), np_softmax(x, ref_axis))
        np.testing.assert_allclose(
            tf.nn.log_softmax(tf.constant(x), axis=axis).numpy(), np.log(np_softmax(x, ref_axis))
        )
    assert tf.math.softmax is tf.nn.softmax and tf.math.log_softmax is tf.nn.log_softmax


def test_softmax_gradient_formula():
    x = rand(2, 3)
    g = rand(2, 3, seed=5)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.nn.softmax(xt)
    got = tape.gradient(y, xt, output_gradients=tf.constant(g)).numpy()
    s = np_softmax(x)
    np.testing.assert_allclose(got, (g - (g * s).sum(-1, keepdims=True)) * s)


def test_softmax_cross_entropy_values_and_gradients():
    logits, labels = rand(4, 5), np_softmax(rand(4, 5, seed=3))
    lt, yt = tf.constant(logits), tf.constant(labels)
    with tf.GradientTape() as tape:
        tape.watch([lt, yt])
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=yt, logits=lt)
    g_logits, g_labels = tape.gradient(loss, [lt, yt])
    log_p = np.log(np_softmax(logits))
    np.testing.assert_allclose(loss.numpy(), -(labels * log_p).sum(-1))
    np.testing.assert_allclose(g_logits.numpy(), np_softmax(logits) - labels)
    np.testing.assert_allclose(g_labels.numpy(), -log_p)


def test_softmax_cross_entropy_on_another_axis():
    logits, labels = rand(5, 3), np_softmax(rand(5, 3, seed=2), axis=0)
    lt = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(lt)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=lt, axis=0)
    assert loss.shape == (3,)
    np.testing.assert_allclose(loss.numpy(), -(labels * np.log(np_softmax(logits, 0))).sum(0))
    np.testing.assert_allclose(tape.gradient(loss, lt).numpy(), np_softmax(logits, 0) - labels)


def test_softmax_cross_entropy_second_order_on_another_axis():
    labels = tf.constant(np_softmax(rand(5, 3, seed=2), axis=0))
    fn = lambda x: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x, axis=0)  # noqa: E731
    arrays = [rand(5, 3)]
    weights = testing.projection_weights(fn, arrays)
    v = [rand(5, 3, seed=9)]
    np.testing.assert_allclose(
        testing.hessian_vector(fn, arrays, weights, v)[0],
        testing.numeric_hessian_vector(fn, arrays, weights, v)[0],
        rtol=1e-5,
        atol=1e-6,
    )


def test_sparse_softmax_cross_entropy_matches_dense():
    logits = rand(2, 3, 4)
    labels = np.array([[0, 3, 1], [2, 2, 0]])
    one_hot = np.eye(4)[labels]
    lt = tf.constant(logits)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(lt)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=lt)
        dense = tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(one_hot), logits=lt)
    np.testing.assert_allclose(sparse.numpy(), dense.numpy())
    np.testing.assert_allclose(tape.gradient(sparse, lt).numpy(), tape.gradient(dense, lt).numpy())
    np.testing.assert_allclose(tape.gradient(sparse, lt).numpy(), np_softmax(logits) - one_hot)


def test_sparse_cross_entropy_second_order():
    case = SPARSE_BACKPROP_CASE
    arrays = [np.asarray(a, dtype=np.float64) for a in case.inputs]
    weights = testing.projection_weights(case.fn, arrays)
    analytic = testing.analytic_gradients(case.fn, arrays, weights)[0]
    numeric = testing.numeric_gradients(case.fn, arrays, weights)[0]
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-6)


def test_cross_entropy_float16_is_computed_in_float32():
    logits = tf.constant([[10.0, 0.0, -10.0]], dtype=tf.float16)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2], logits=logits)
    assert loss.dtype == tf.float16
    np.testing.assert_allclose(loss.numpy().astype(np.float64), [20.0], rtol=1e-3)
    dense = tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant([[0.0, 0, 1]], tf.float16), logits=logits)
    assert dense.dtype == tf.float16


def test_cross_entropy_label_dtype_follows_logits():
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=[[0, 1]], logits=tf.constant([[1.0, 2.0]], tf.float64))
    assert loss.dtype == tf.float64


def test_sparse_labels_out_of_range_raise():
    logits = tf.constant([[1.0, 2.0, 3.0]])
    for bad in (3, -1):
        with pytest.raises(tf.errors.InvalidArgumentError, match="outside the valid range of \\[0, 3\\)"):
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[bad], logits=logits)


def test_mismatched_label_and_logit_shapes_raise():
    with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.ones([2, 4]), logits=tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="without its last axis"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=tf.ones([2, 3]))
    with pytest.raises(ValueError, match="same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones([3]), logits=tf.ones([2]))


def test_bad_label_and_logit_types_raise():
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=tf.ones([2, 3]))
    with pytest.raises(TypeError, match="float logits"):
        tf.nn.softmax(tf.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="labels= and logits="):
        tf.nn.sigmoid_cross_entropy_with_logits(tf.ones([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        tf.nn.softmax(tf.ones([2, 3]), axis=2)


def test_fused_cross_entropy_records_one_forward_op():
    logits = tf.constant(rand(2, 3))
    with tf.GradientTape() as tape:
        tape.watch(logits)
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=logits)
    assert [e.name for e in tape.recorded_ops] == ["SparseSoftmaxCrossEntropyWithLogits"]


# -- other losses and helpers ------------------------------------------------------------


def test_sigmoid_cross_entropy_values():
    x, z = rand(3, 2), rand(3, 2, low=0.0, high=1.0, seed=4)
    got = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant(z), logits=tf.constant(x)).numpy()
    p = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(got, -(z * np.log(p) + (1 - z) * np.log(1 - p)))


def test_l2_loss():
    x = rand(3, 2)
    y, g = grad(tf.nn.l2_loss, x)
    np.testing.assert_allclose(y, (x**2).sum() / 2)
    np.testing.assert_allclose(g, x)


def test_l2_normalize():
    x = rand(3, 2)
    got = tf.nn.l2_normalize(tf.constant(x), axis=1).numpy()
    np.testing.assert_allclose(got, x / np.linalg.norm(x, axis=1, keepdims=True))
    np.testing.assert_array_equal(tf.nn.l2_normalize(tf.zeros([2])).numpy(), [0.0, 0.0])


def test_bias_add():
    x, b = rand(2, 3), rand(3, seed=1)
    np.testing.assert_allclose(tf.nn.bias_add(tf.constant(x), tf.constant(b)).numpy(), x + b)
    x4 = rand(2, 3, 4, 5)
    got = tf.nn.bias_add(tf.constant(x4), tf.constant(b), data_format="NCHW").numpy()
    np.testing.assert_allclose(got, x4 + b[:, None, None])
    bt = tf.constant(b)
    with tf.GradientTape() as tape:
        tape.watch(bt)
        y = tf.nn.bias_add(tf.constant(x), bt)
    np.testing.assert_allclose(tape.gradient(y, bt).numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels"):
        tf.nn.bias_add(tf.ones([2, 3]), tf.ones([4]))
    with pytest.raises(ValueError, match="1-D"):
        tf.nn.bias_add(tf.ones([2, 3]), tf.ones([1, 3]))


def test_moments():
    x = rand(4, 3)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0])
    np.testing.assert_allclose(mean.numpy(), x.mean(0))
    np.testing.assert_allclose(var.numpy(), x.var(0))
    mean, var = tf.nn.moments(tf.constant(x), axes=[0, 1], keepdims=True)
    assert mean.shape == (1, 1) and var.shape == (1, 1)
    np.testing.assert_allclose(var.numpy(), [[x.var()]])


def test_batch_normalization():
    x = rand(4, 3)
    mean, var = x.mean(0), x.var(0)
    got = tf.nn.batch_normalization(tf.constant(x), mean, var, offset=0.5, scale=2.0, variance_epsilon=1e-3)
    np.testing.assert_allclose(got.numpy(), (x - mean) / np.sqrt(var + 1e-3) * 2.0 + 0.5)


# -- dropout -----------------------------------------------------------------------------


def test_dropout_scales_kept_values_and_zeros_the_rest():
    x = tf.ones([200, 50])
    y = tf.nn.dropout(x, rate=0.25, seed=1).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02
    assert y.dtype == np.float32


def test_dropout_is_deterministic_under_set_seed():
    x = tf.constant(rand(30, 20))
    tf.random.set_seed(42)
    first = [tf.nn.dropout(x, 0.5).numpy(), tf.nn.dropout(x, 0.5).numpy()]
    tf.random.set_seed(42)
    second = [tf.nn.dropout(x, 0.5).numpy(), tf.nn.dropout(x, 0.5).numpy()]
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])  # successive calls draw new masks
    tf.random.set_seed(None)


def test_dropout_gradient_is_the_mask():
    x = tf.constant(rand(10, 10))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.3, seed=3)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, np.where(y.numpy() != 0, 1 / 0.7, 0.0))


def test_dropout_noise_shape_and_rate_zero():
    x = tf.ones([6, 4])
    y = tf.nn.dropout(x, 0.5, noise_shape=[6, 1], seed=0).numpy()
    assert all(len(set(row)) == 1 for row in y)  # whole rows kept or dropped
    y = tf.nn.dropout(x, 0.5, noise_shape=[None, 1], seed=0).numpy()
    assert all(len(set(row)) == 1 for row in y)
    assert tf.nn.dropout(x, 0.0) is x


@pytest.mark.parametrize("rate", [1.0, -0.1, 1.5])
def test_dropout_rejects_bad_rates(rate):
    with pytest.raises(ValueError, match=r"range \[0, 1\)"):
        tf.nn.dropout(tf.ones([2]), rate)


def test_dropout_rejects_bad_noise_shape():
    with pytest.raises(ValueError, match="broadcast"):
        tf.nn.dropout(tf.ones([2, 3]), 0.5, noise_shape=[2, 2])


def test_namespace_exports():
    for name in tf.nn.__all__:
        assert callable(getattr(tf.nn, name)), name


def test_conv_pool_and_embedding_lookup_are_in_tf_nn():
    images = tf.constant(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
    kernel = tf.constant(np.ones((2, 2, 1, 1), np.float32))
    np.testing.assert_array_equal(
        tf.nn.conv2d(images, kernel, strides=2, padding="VALID").numpy().ravel(), [10, 18, 42, 50]
    )
    np.testing.assert_array_equal(tf.nn.max_pool2d(images, 2, 2, "VALID").numpy().ravel(), [5, 7, 13, 15])
    table = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    with tf.GradientTape() as tape:
        rows = tf.nn.embedding_lookup(table, tf.constant([2, 0, 2]))
        loss = tf.reduce_sum(rows)
    np.testing.assert_array_equal(rows.numpy(), [[4, 5], [0, 1], [4, 5]])
    grad = tape.gradient(loss, table)  # IndexedSlices, as TF
    np.testing.assert_array_equal(tf.convert_to_tensor(grad).numpy(), [[1, 1], [0, 0], [2, 2]])
