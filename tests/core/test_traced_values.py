"""Ops that read their inputs' values compute them from each call's values inside ``tf.function``.

A trace that kept the first call's result as a constant would answer every later call with the
same one-hot rows, the same sort order, the same filled value: silently wrong.
"""

import numpy as np
import pytest

import tapeviz as tf

CALLS = {
    "one_hot": (lambda x: tf.one_hot(x, 3), [[0, 1], [2, 2]]),
    "one_hot, on/off values and axis 0": (
        lambda x: tf.one_hot(x, 3, on_value=5, off_value=-1, axis=0),
        [[0, 1], [2, 0]],
    ),
    "fill with a traced value": (lambda x: tf.fill([2, 3], x[0]), [[1.5, 2.0], [4.0, 0.5]]),
    "argsort": (lambda x: tf.argsort(x), [[3.0, 1.0, 2.0], [1.0, 2.0, 3.0]]),
    "argsort descending": (lambda x: tf.argsort(x, direction="DESCENDING"), [[3, 1, 2], [1, 2, 3]]),
    "sort of integers": (lambda x: tf.sort(x), [[3, 1, 2], [2, 3, 1]]),
    "sort of integers, descending": (lambda x: tf.sort(x, direction="DESCENDING"), [[3, 1, 2], [2, 3, 1]]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_traced_function_computes_each_calls_values(name):
    fn, (first, second) = CALLS[name]
    traced = tf.function(fn)
    for value in (first, second):
        x = tf.constant(value)
        np.testing.assert_array_equal(traced(x).numpy(), fn(x).numpy())
    assert traced.experimental_get_tracing_count() == 1  # one trace served both calls


def test_fill_passes_the_gradient_to_its_value_as_tf():
    # TF's Fill gradient: the upstream summed (TF 2.21 prints 12.0 for this program).
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.fill([2, 3], v) * 2.0)
    assert float(tape.gradient(y, v)) == 12.0


def test_fill_refuses_what_tf_refuses():
    with pytest.raises(tf.errors.InvalidArgumentError, match="value must represent a scalar, got shape \\[2\\]"):
        tf.fill([2, 3], [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -3 must be >= 0"):
        tf.fill([2, -3], 1.0)


def test_a_saved_signature_with_open_sizes_runs_a_squeeze_at_every_size(tmp_path):
    # TF's core quickstart: tf.squeeze(y, axis=1) in a tf.function whose signature leaves the rows open,
    # saved and loaded, then called on 100 rows (the trace kept the placeholder's 7 rows before).
    module = tf.Module()
    module.w = tf.Variable([[1.0], [2.0], [3.0]])
    module.f = tf.function(
        lambda x: tf.squeeze(tf.matmul(x, module.w), axis=1),
        input_signature=[tf.TensorSpec([None, 3], tf.float32)],
    )
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    x = tf.reshape(tf.range(300, dtype=tf.float32), [100, 3])
    np.testing.assert_allclose(loaded.f(x).numpy(), tf.squeeze(tf.matmul(x, module.w), axis=1).numpy())
