"""tf.random: shapes, dtypes, ranges, and TF's global/op seed reproducibility."""

import numpy as np
import pytest

import tapeviz as tf


@pytest.fixture(autouse=True)
def unseeded_afterwards():
    yield
    tf.random.set_seed(None)


@pytest.mark.parametrize(
    "make",
    [
        lambda **k: tf.random.uniform([3, 4], **k),
        lambda **k: tf.random.normal([3, 4], **k),
        lambda **k: tf.random.truncated_normal([3, 4], **k),
    ],
)
def test_default_shape_and_dtype(make):
    t = make()
    assert t.shape == (3, 4) and t.dtype == tf.float32
    assert make(dtype=tf.float64).dtype == tf.float64


def test_shapes_accept_ints_tuples_and_tensors():
    assert tf.random.uniform(5).shape == (5,)
    assert tf.random.normal((2, 3)).shape == (2, 3)
    assert tf.random.uniform(tf.constant([2, 2])).shape == (2, 2)
    assert tf.random.normal([]).shape == ()


def test_uniform_range_float_and_int():
    tf.random.set_seed(0)
    f = tf.random.uniform([10000], minval=-2.0, maxval=3.0).numpy()
    assert f.min() >= -2.0 and f.max() < 3.0 and abs(f.mean() - 0.5) < 0.1
    i = tf.random.uniform([10000], minval=1, maxval=4, dtype=tf.int32).numpy()
    assert i.dtype == np.int32 and set(np.unique(i)) == {1, 2, 3}
    assert tf.random.uniform([3], maxval=10, dtype=tf.int64).dtype == tf.int64


def test_uniform_int_needs_maxval():
    with pytest.raises(ValueError, match="maxval"):
        tf.random.uniform([3], dtype=tf.int32)
    with pytest.raises(ValueError, match="minval < maxval"):
        tf.random.uniform([3], minval=5, maxval=5, dtype=tf.int32)


def test_normal_moments_and_truncation():
    tf.random.set_seed(1)
    n = tf.random.normal([20000], mean=3.0, stddev=2.0, dtype=tf.float64).numpy()
    assert abs(n.mean() - 3.0) < 0.05 and abs(n.std() - 2.0) < 0.05
    t = tf.random.truncated_normal([20000], mean=1.0, stddev=0.5).numpy()
    assert t.min() >= 0.0 and t.max() <= 2.0  # within two stddevs
    assert abs(t.mean() - 1.0) < 0.02


def test_float_only_ops_reject_int_dtypes():
    with pytest.raises(TypeError, match="float"):
        tf.random.normal([2], dtype=tf.int32)


def test_global_seed_repeats_the_sequence():
    tf.random.set_seed(1234)
    a = [tf.random.uniform([4]).numpy(), tf.random.normal([4]).numpy()]
    tf.random.set_seed(1234)
    b = [tf.random.uniform([4]).numpy(), tf.random.normal([4]).numpy()]
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert tf.random.get_global_seed() == 1234


def test_successive_calls_differ():
    tf.random.set_seed(5)
    assert not np.array_equal(tf.random.uniform([4]).numpy(), tf.random.uniform([4]).numpy())
    assert not np.array_equal(tf.random.uniform([4], seed=1).numpy(), tf.random.uniform([4], seed=1).numpy())


def test_op_seed_sequence_is_independent_of_other_draws():
    tf.random.set_seed(7)
    first = tf.random.normal([3], seed=11).numpy()
    tf.random.set_seed(7)
    tf.random.uniform([100])  # an unrelated draw in between
    np.testing.assert_array_equal(tf.random.normal([3], seed=11).numpy(), first)


def test_op_seed_alone_is_reproducible():
    tf.random.set_seed(None)
    a = tf.random.uniform([3], seed=3).numpy()
    tf.random.set_seed(None)  # restarts the op-seed counters too
    np.testing.assert_array_equal(tf.random.uniform([3], seed=3).numpy(), a)


def test_different_global_seeds_differ():
    tf.random.set_seed(1)
    a = tf.random.uniform([4]).numpy()
    tf.random.set_seed(2)
    assert not np.array_equal(a, tf.random.uniform([4]).numpy())


def test_unseeded_draws_differ():
    tf.random.set_seed(None)
    assert not np.array_equal(tf.random.normal([8]).numpy(), tf.random.normal([8]).numpy())


def test_shuffle_permutes_the_first_axis():
    tf.random.set_seed(3)
    x = tf.constant(np.arange(20).reshape(10, 2))
    y = tf.random.shuffle(x).numpy()
    assert y.shape == (10, 2) and y.dtype == x.numpy().dtype
    assert sorted(map(tuple, y)) == sorted(map(tuple, x.numpy()))
    np.testing.assert_array_equal(y[:, 1] - y[:, 0], 1)  # rows stay whole
    tf.random.set_seed(3)
    np.testing.assert_array_equal(tf.random.shuffle(x).numpy(), y)
    with pytest.raises(ValueError, match="rank"):
        tf.random.shuffle(tf.constant(1.0))


def test_bad_seeds_and_shapes():
    with pytest.raises(TypeError, match="integer"):
        tf.random.set_seed("abc")
    with pytest.raises(ValueError, match="whole number"):
        tf.random.set_seed(1.5)
    with pytest.raises(ValueError, match="negative"):
        tf.random.uniform([-1, 2])


def test_random_ops_are_not_recorded():
    x = tf.constant([1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.random.normal([1])
    assert [e.name for e in tape.recorded_ops] == ["Mul"]
    assert tape.gradient(y, x) is not None
