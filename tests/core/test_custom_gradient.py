"""tf.custom_gradient: TF's documented examples and its error cases."""

import numpy as np
import pytest

import tapeviz as tf


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


def _grad(fn, value):
    x = tf.constant(value)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_stable_log1pexp_matches_tf_docs():
    # TF's docs: the naive gradient is nan at x=100; the custom one is 1.0.
    naive = _grad(lambda x: tf.math.log(1 + tf.exp(x)), 100.0)
    assert np.isnan(naive.numpy())
    assert _grad(log1pexp, 100.0).numpy() == pytest.approx(1.0)
    assert _grad(log1pexp, 0.0).numpy() == pytest.approx(0.5)


def test_recorded_as_one_entry_named_after_the_function():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        log1pexp(x)
    names = [entry.primitive.name for entry in tape.recorded_ops]
    assert names == ["CustomGradient"]
    assert tape.recorded_ops[0].attrs["function"] == "log1pexp"


def test_several_inputs_and_outputs_unused_output_gets_zeros():
    seen = {}

    @tf.custom_gradient
    def split_sum(a, b):
        def grad(d_sum, d_diff):
            seen["d_diff"] = d_diff.numpy()
            return d_sum + d_diff, d_sum - d_diff

        return (a + b, a - b), grad

    a, b = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        total, _unused = split_sum(a, b)
    ga, gb = tape.gradient(total, [a, b])
    assert seen["d_diff"] == 0.0
    assert (ga.numpy(), gb.numpy()) == (1.0, 1.0)


def test_variables_form():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def scale(x):
        def grad(upstream, variables):
            return upstream * w, [upstream * x * 10.0]

        return x * w, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    gx, gw = tape.gradient(y, [x, w])
    assert gx.numpy() == 3.0
    assert gw.numpy() == 20.0  # the custom rule's value, not the true 2.0


def test_variables_need_the_keyword():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def scale(x):
        return x * w, lambda upstream: upstream * w

    with pytest.raises(TypeError, match="variables"):
        scale(tf.constant(1.0))


def test_wrong_number_of_gradients_is_a_clear_error_and_tape_stays_usable():
    @tf.custom_gradient
    def two_inputs(a, b):
        return a * b, lambda upstream: upstream  # one gradient for two inputs

    a, b = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = two_inputs(a, b)
        z = a * b
    with pytest.raises(ValueError, match="expected to return 2 gradients, but returned 1"):
        tape.gradient(y, [a, b])
    assert [g.numpy() for g in tape.gradient(z, [a, b])] == [3.0, 2.0]


def test_second_order_through_a_custom_gradient():
    @tf.custom_gradient
    def cube(x):
        return x * x * x, lambda upstream: upstream * 3.0 * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0
    assert outer.gradient(dy, x).numpy() == 12.0  # d(3x²)/dx = 6x


def test_returning_an_input_unchanged_still_records():
    @tf.custom_gradient
    def passthrough(x):
        return x, lambda upstream: upstream * 2.0

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = passthrough(x)
    assert tape.gradient(y, x).numpy() == 2.0


def test_the_inside_of_a_custom_gradient_announces_no_tape():
    kinds = []
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        return x * w, lambda upstream, variables: (upstream * w, [upstream * x])

    x = tf.constant(1.0)
    with tf.events.listening(lambda event: kinds.append((event.kind, getattr(event, "tapes", None)))):
        with tf.GradientTape() as tape:
            tape.watch(x)
            scale(x)
    assert [k for k, _ in kinds].count("tape_entered") == 1
    inner_ops = [tapes for kind, tapes in kinds if kind == "op_executed" and tapes == ()]
    assert inner_ops, "the function's own ops run unrecorded"
    assert tape.watched_variables() == (w,)
