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


# An op that takes a tensor argument as a Python number (an axis, a count) reads it on the host: a trace
# would replay the first call's number, so a number from the inputs' values sends the function to eager.
NUMBER_ARGUMENTS = {
    "expand_dims's axis": (lambda x, n: tf.expand_dims(x, axis=n), 0, 1),
    "top_k's k": (lambda x, n: tf.math.top_k(x, k=n).values, 1, 2),
    "repeat's counts": (lambda x, n: tf.repeat(x, repeats=n), 1, 2),
    "tile's multiples": (lambda x, n: tf.tile(x, tf.stack([n])), 1, 2),
    "reverse's axis": (lambda x, n: tf.reverse(tf.stack([x, -x]), axis=tf.stack([n])), 0, 1),
    "band_part's num_lower": (lambda x, n: tf.linalg.band_part(x[:, None] * x, n, 0), 0, 2),
}


@pytest.mark.parametrize("name", sorted(NUMBER_ARGUMENTS))
def test_a_number_argument_from_the_inputs_values_runs_each_call_with_its_own(name):
    fn, first, second = NUMBER_ARGUMENTS[name]
    traced = tf.function(fn)
    x = tf.constant([3.0, 1.0, 2.0])
    with pytest.warns(RuntimeWarning, match="runs eagerly from now on"):
        np.testing.assert_array_equal(traced(x, tf.constant(first)).numpy(), fn(x, tf.constant(first)).numpy())
    np.testing.assert_array_equal(traced(x, tf.constant(second)).numpy(), fn(x, tf.constant(second)).numpy())


def test_a_number_argument_from_the_inputs_shapes_keeps_the_trace():
    """tf.rank, tf.shape and tf.size read no value: arithmetic on them holds for every call of the trace."""

    def fn(x):
        return tf.expand_dims(x, axis=tf.rank(x) - 1), tf.tile(x, tf.stack([tf.shape(x)[0] // 2 + tf.size(x) - 2]))

    traced = tf.function(fn)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fall back to eager
        for values in ([3.0, 1.0, 2.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]):
            x = tf.constant(values)
            for got, want in zip(traced(x), fn(x)):
                np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert traced.experimental_get_tracing_count() == 2  # one trace per shape


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


def _saved_and_loaded(module, tmp_path):
    tf.saved_model.save(module, str(tmp_path / "m"))
    return tf.saved_model.load(str(tmp_path / "m"))


def test_a_signature_with_open_sizes_is_saved_when_an_op_fixes_one_of_them(tmp_path):
    # TF's logistic regression guide: [None, None] minus a 30-feature mean. The trace on 7 x 7
    # placeholders cannot broadcast; TF's symbolic sizes agree with the 30 the subtraction asks for.
    module = tf.Module()
    module.mean = tf.Variable(tf.range(30, dtype=tf.float32))
    module.f = tf.function(
        lambda x: tf.reduce_sum(x - module.mean, axis=1), input_signature=[tf.TensorSpec([None, None], tf.float32)]
    )
    loaded = _saved_and_loaded(module, tmp_path)
    x = tf.ones([100, 30])
    np.testing.assert_allclose(loaded.f(x).numpy(), module.f(x).numpy())
    np.testing.assert_allclose(loaded.f(tf.ones([3, 30])).numpy(), module.f(tf.ones([3, 30])).numpy())


def test_a_signature_of_open_image_sizes_is_saved_when_a_reshape_fixes_their_product(tmp_path):
    # TF's MLP guide: a [None] * 4 uint8 batch reshaped to [-1, 784], scaled, multiplied.
    module = tf.Module()
    module.w = tf.Variable(tf.ones([784, 2]))
    module.f = tf.function(
        lambda x: tf.matmul(tf.reshape(x, [-1, 784]) / 255, module.w),
        input_signature=[tf.TensorSpec([None, None, None, None], tf.uint8)],
    )
    loaded = _saved_and_loaded(module, tmp_path)
    x = tf.cast(tf.reshape(tf.range(5 * 784) % 256, [5, 28, 28, 1]), tf.uint8)
    np.testing.assert_allclose(loaded.f(x).numpy(), module.f(x).numpy(), rtol=1e-6)


def test_a_signature_no_size_can_satisfy_still_says_why(tmp_path):
    module = tf.Module()
    module.f = tf.function(
        lambda x: tf.reshape(x, [-1, 5]) + tf.ones([3]), input_signature=[tf.TensorSpec([None], tf.float32)]
    )
    with pytest.warns(UserWarning, match="left out these tf.functions"):
        loaded = _saved_and_loaded(module, tmp_path)
    with pytest.raises(ValueError, match="could not be traced for its input_signature"):
        loaded.f(tf.ones([10]))
