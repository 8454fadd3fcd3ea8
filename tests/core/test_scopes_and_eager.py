"""name_scope labels recorded ops; tf.function and friends run eagerly."""

import pytest

import tapeviz as tf


def test_name_scope_labels_entries_and_nests():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.name_scope("layer") as outer:
            y = x * x
            with tf.name_scope("act") as inner:
                z = tf.tanh(y)
        w = z + 1.0
    assert (outer, inner) == ("layer/", "layer/act/")
    assert [e.scope for e in tape.recorded_ops] == ["layer", "layer/act", ""]
    assert tape.gradient(w, x) is not None


def test_name_scope_needs_a_name():
    with pytest.raises(ValueError, match="non-empty string"):
        tf.name_scope("")


def test_tf_function_runs_eagerly_and_keeps_the_tape():
    @tf.function
    def square(v):
        return v * v

    @tf.function(jit_compile=True)
    def cube(v):
        return v * v * v

    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = square(x) + cube(x)
    assert tape.gradient(y, x).numpy() == 6.0 + 27.0
    assert tf.executing_eagerly()


def test_tf_print_prints_values(capsys):
    tf.print("x:", tf.constant([1.0, 2.0]))
    assert capsys.readouterr().err == "x: [1 2]\n"  # TF 2.21: to stderr, floats as %g


def test_tf_gradients_points_to_gradient_tape_as_tf2_does():
    with pytest.raises(RuntimeError, match="Use tf.GradientTape instead"):
        tf.gradients(tf.constant(1.0), tf.constant(2.0))


def test_scalars_print_like_tf_and_variable_names_may_repeat():
    assert str(tf.constant(0.07700378) * 1.0) == "tf.Tensor(0.07700378, shape=(), dtype=float32)"
    assert tf.Variable(1.0, name="x").name == tf.Variable(2.0, name="x").name == "x:0"
    assert tf.linalg.global_norm([tf.constant([3.0]), tf.constant([4.0])]).numpy() == 5.0
