"""A tf.function with None sizes in its input_signature, saved and loaded, runs at every size it allows.

The sizes a trace reads (tf.shape, tf.size, ones_like, a reshape target built
from them, tf.range over them) are graph nodes, so the loaded graph computes
them from each call's tensors, as TF's shape-polymorphic graph does.
"""

import numpy as np
import pytest

import tapeviz as tf

SIZES = (7, 1, 3, 100, 0)


class Model(tf.Module):
    def __init__(self):
        rng = np.random.default_rng(0)
        self.w = tf.Variable(rng.normal(size=(7, 4)).astype(np.float32))
        self.b = tf.Variable(rng.normal(size=(4,)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 7], tf.float32)])
    def dense_reshape_reduce(self, x):  # the case: a Dense-like matmul, a reshape, a reduction
        y = tf.matmul(x, self.w) + self.b
        n = tf.shape(x)[0]
        y = tf.reshape(y, [n, 2, 2])
        return tf.reduce_sum(y * tf.ones_like(y), axis=[1, 2]) / tf.cast(tf.maximum(n, 1), tf.float32)

    @tf.function(input_signature=[tf.TensorSpec([None, 7], tf.float32)])
    def flatten_mean(self, x):
        return tf.reduce_mean(tf.reshape(tf.matmul(x, tf.transpose(x)), [-1]))

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def sizes(self, x):
        z = tf.zeros(tf.shape(x)) + tf.fill(tf.shape(x), 1.0) + tf.zeros_like(x)
        z = z + tf.broadcast_to(tf.constant([1.0]), tf.shape(x))
        count = tf.cast(tf.size(x) + tf.rank(x), tf.float32)
        steps = tf.cast(tf.reduce_sum(tf.range(tf.shape(x)[0])), tf.float32)
        return tf.reduce_sum(x * z, axis=0) + count + steps


def _numpy(model, x):
    y = x @ model.w.numpy() + model.b.numpy()
    return y.reshape(len(x), 2, 2).sum(axis=(1, 2)) / max(len(x), 1)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    model = Model()
    path = str(tmp_path_factory.mktemp("symbolic") / "model")
    tf.saved_model.save(model, path)
    return model, tf.saved_model.load(path)


@pytest.mark.parametrize("n", SIZES)
def test_a_loaded_dense_reshape_reduce_runs_at_every_size(saved, n):
    model, loaded = saved
    x = np.random.default_rng(n).normal(size=(n, 7)).astype(np.float32)
    got = loaded.dense_reshape_reduce(x).numpy()
    np.testing.assert_allclose(got, _numpy(model, x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, model.dense_reshape_reduce(x).numpy(), rtol=1e-6)


@pytest.mark.parametrize("n", [7, 2, 50])
def test_a_loaded_flatten_runs_at_every_size(saved, n):
    model, loaded = saved
    x = np.random.default_rng(n).normal(size=(n, 7)).astype(np.float32)
    np.testing.assert_allclose(loaded.flatten_mean(x).numpy(), np.mean(x @ x.T), rtol=1e-5)


@pytest.mark.parametrize("shape", [(7, 7), (3, 5), (12, 1), (1, 9)])
def test_loaded_shape_size_fill_and_range_follow_the_call(saved, shape):
    _, loaded = saved
    x = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    expected = (x * 2).sum(axis=0) + x.size + 2 + sum(range(shape[0]))
    np.testing.assert_allclose(loaded.sizes(x).numpy(), expected, rtol=1e-5)


def test_the_trace_records_the_size_reads_as_ops(saved):
    model, _ = saved
    graph = model.dense_reshape_reduce.get_concrete_function().graph
    ops = [node.op for node in graph.nodes]
    assert {"Shape", "ReshapeTo", "OnesLike"} <= set(ops)


def test_gradient_flows_through_a_reshape_to_a_traced_size():
    w = tf.Variable(np.arange(6, dtype=np.float64).reshape(3, 2))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def f(x):
        y = tf.matmul(x, w)
        return tf.reduce_sum(tf.reshape(y, [tf.shape(x)[0] * 2]) ** 2)

    for n in (1, 4):
        x = np.random.default_rng(n).normal(size=(n, 3))
        with tf.GradientTape() as tape:
            loss = f(tf.constant(x))
        grad = tape.gradient(loss, w).numpy()
        np.testing.assert_allclose(grad, 2 * x.T @ (x @ w.numpy()), rtol=1e-10)


def test_eager_shape_ops_stay_constants():
    x = tf.constant(np.zeros((2, 3), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reshape(x, [tf.shape(x)[0], -1])
    assert tape.gradient(tf.reduce_sum(tf.ones_like(y)), x) is None
    assert tf.shape(x).numpy().tolist() == [2, 3]
