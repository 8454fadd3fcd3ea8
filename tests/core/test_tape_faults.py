"""Faults an adversarial test found in the core (issue 11), each pinned by a regression test.

Where TensorFlow's behaviour is the reference, the expected values were taken
from TF 2.21 (tensorflow-cpu) with the same code.
"""

import sys
import threading

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import state


def test_stop_recording_after_the_block_exited_raises_tf_error():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(ValueError, match="Tape is not recording"):
        with tape.stop_recording():
            pass


def test_batch_jacobian_of_a_rank_1_target_raises_value_error():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x, axis=1)  # rank 1: TF asks for rank >= 2
    with pytest.raises(ValueError, match="rank >= 2"):
        tape.batch_jacobian(y, x)


def test_jacobian_of_an_empty_target_is_an_empty_tensor():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x[:0] * 2.0
    jac = tape.jacobian(y, x)
    assert jac is not None and tuple(jac.shape) == (0, 3) and jac.dtype == tf.float32


def test_dict_sources_with_mixed_key_types_get_a_clear_error():
    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    with pytest.raises(TypeError, match="sortable keys"):
        tape.gradient(y, {"a": a, 1: b})


def test_nested_custom_gradient_reading_a_variable():
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def inner(x):
        def grad(upstream, variables):
            return upstream * v, [upstream * x]

        return x * v, grad

    @tf.custom_gradient
    def outer(x):
        y = inner(x)  # ran with no tape active: used to raise AttributeError

        def grad(upstream, variables):
            return upstream * 10.0, [upstream * 0.0 for _ in variables]

        return y, grad

    assert float(outer(tf.constant(2.0))) == 6.0  # no tape at all
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    gx, gv = tape.gradient(y, [x, v])
    assert float(gx) == 10.0 and float(gv) == 0.0  # the outer grad_fn saw the inner function's variable


def test_custom_gradient_of_the_wrong_shape_is_named_at_the_boundary():
    @tf.custom_gradient
    def clip(x):
        def grad(upstream):
            return tf.ones([5])  # x has shape (2,)

        return tf.identity(x), grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clip(x))
    with pytest.raises(ValueError, match=r"clip.*shape \(5,\).*input 0.*shape \(2,\)"):
        tape.gradient(y, x)


def test_custom_gradient_of_the_wrong_dtype_is_named_at_the_boundary():
    @tf.custom_gradient
    def double(x):
        def grad(upstream):
            return tf.constant([1, 1])  # int32 for a float32 input

        return x * 2.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(double(x))
    with pytest.raises(TypeError, match="double.*float32"):
        tape.gradient(y, x)


def test_stop_recording_of_an_outer_tape_inside_a_custom_gradient_function():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)

        @tf.custom_gradient
        def f(x):
            with tape.stop_recording():  # no tape records in here: nothing to pause
                y = x * x
            return y, lambda g: g * 2.0 * x

        y = f(x)
        assert tape in state.local.tapes  # back on the stack, once
    assert float(tape.gradient(y, x)) == 4.0
    assert state.local.tapes == []


def test_reading_a_variable_while_another_thread_updates_it_in_place():
    """Tensors are immutable: a read never changes afterwards, whatever other threads do."""
    v = tf.Variable(np.zeros(4096, dtype=np.float32))
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            v.assign_add(np.ones(4096, dtype=np.float32))

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(300):
            seen = v.read_value()
            first = seen.numpy()
            assert np.all(first == first[0]), "a read was torn by an in-place update"
            for _ in range(50):
                pass
            assert np.array_equal(seen.numpy(), first), "a read changed after it was made"
    finally:
        stop.set()
        thread.join()


def test_in_place_updates_are_calibrated_for_this_python():
    """The sole-owner test counts references as this interpreter does (3.14 counts fewer)."""
    from tapeviz.core import tensor

    v = tf.Variable([1.0, 2.0])
    assert tensor._sole_owner(v), f"a fresh variable is not seen as sole owner on Python {sys.version}"
    held = v.read_value()
    assert not tensor._sole_owner(v)
    before = held.numpy().copy()
    v.assign_add([1.0, 1.0])
    assert np.array_equal(held.numpy(), before)
    del held
    assert tensor._sole_owner(v)  # single thread, nobody else holds it: in place again
    v.assign_add([1.0, 1.0])
    assert list(v.numpy()) == [3.0, 4.0]


def test_no_in_place_update_while_other_threads_run():
    from tapeviz.core import tensor

    v = tf.Variable([1.0, 2.0])
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert not tensor._sole_owner(v)
    finally:
        release.set()
        thread.join()
    assert tensor._sole_owner(v)
