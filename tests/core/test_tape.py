"""GradientTape's behaviour, edge by edge, against TensorFlow's (TF 2.x eager).

Where tapeviz deliberately differs (a clear TypeError where TF crashes with an
AttributeError), the test says so.
"""

import warnings

import numpy as np
import pytest

import tapeviz as tf

PERSISTENT_INSIDE = (
    "Calling GradientTape.gradient on a persistent tape inside its context is "
    "significantly less efficient than calling it outside the context (it causes "
    "the gradient ops to be recorded on the tape, leading to increased CPU and "
    "memory usage). Only call GradientTape.gradient inside the context if you "
    "actually want to trace the gradient in order to compute higher order derivatives."
)


def value(t):
    return None if t is None else np.asarray(t).tolist()


# -- watch ---------------------------------------------------------------------------------


def test_watched_constant_gets_gradient_unwatched_does_not():
    x, z = tf.constant(3.0), tf.constant(4.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * z
    gx, gz = tape.gradient(y, [x, z])
    assert value(gx) == 4.0
    assert gz is None


def test_watch_nested_structure():
    a, b, c = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch({"first": [a, (b,)], "second": c})
        y = a * b * c
    grads = tape.gradient(y, [a, b, c])
    assert [value(g) for g in grads] == [6.0, 3.0, 2.0]


def test_watch_rejects_python_values():
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="not a tf.Tensor"):
            tape.watch(3.0)


def test_trainable_variable_is_watched_automatically():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = v * v * v
    assert value(tape.gradient(y, v)) == 12.0
    assert tape.watched_variables() == (v,)  # TF still reports them after the release


def test_watched_variables_forgotten_on_reentry_and_reset():
    v = tf.Variable(2.0)
    tape = tf.GradientTape()
    with tape:
        y = v * v
    tape.gradient(y, v)
    with tape:
        pass
    assert tape.watched_variables() == ()
    with tf.GradientTape() as tape:
        y = v * v
        tape.reset()
        assert tape.watched_variables() == ()


def test_non_trainable_variable_needs_explicit_watch():
    v = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    assert tape.watched_variables() == ()

    with tf.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert value(tape.gradient(y, v)) == 4.0
    assert tape.watched_variables() == (v,)


def test_watching_an_int_tensor_warns_and_gives_none():
    i = tf.constant(3)
    with tf.GradientTape() as tape:
        with pytest.warns(UserWarning, match="must be floating"):
            tape.watch(i)
        y = i * i
    assert tape.gradient(y, i) is None


def test_int_variable_is_not_differentiable():
    v = tf.Variable(3)
    with tf.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, v) is None


def test_watched_variables_in_order_of_construction():
    # TF: "Returns variables watched by this tape in order of construction."
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    c = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = c * b + b * a
    assert tape.watched_variables() == (a, b, c)

    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([c, a])
        tape.watch(b)
    assert tape.watched_variables() == (a, b, c)


def test_watched_variables_excludes_tensors():
    x = tf.constant(1.0)
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * v
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_false():
    a, b = tf.Variable(3.0), tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = a * b
    assert tape.gradient(y, [a, b]) == [None, None]
    assert tape.watched_variables() == ()

    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert ga is None and value(gb) == 3.0


# -- persistent, reuse, re-entering ------------------------------------------------------------


def test_persistent_tape_allows_many_gradients():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert value(tape.gradient(z, x)) == 108.0
    assert value(tape.gradient(y, x)) == 6.0
    assert value(tape.gradient(z, x)) == 108.0
    assert value(tape.jacobian(y, x)) == 6.0
    assert len(tape.recorded_ops) == 2


def test_non_persistent_second_call_raises():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"persistent=True"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"persistent=True"):
        tape.jacobian(y, x)


def test_reentering_active_tape_raises():
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(ValueError, match="still recording"):
            with tape:
                pass
    assert not tape.recording


def test_used_non_persistent_tape_entered_again_starts_fresh():
    x = tf.constant(3.0)
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    assert value(tape.gradient(y, x)) == 6.0
    with tape:
        w = x * x * x  # x is no longer watched: a fresh tape
    assert tape.gradient(w, x) is None
    with tape:
        tape.watch(x)
        w = x * x * x
    assert value(tape.gradient(w, x)) == 27.0


def test_entering_a_persistent_tape_again_keeps_recording():
    x = tf.constant(2.0)
    tape = tf.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    with tape:
        z = y * x
    assert value(tape.gradient(z, x)) == 12.0


# -- stop_recording and reset ------------------------------------------------------------------


def test_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            assert not tape.recording
            hidden = x * x
        assert tape.recording
        seen = x * 2.0
    assert tape.gradient(hidden, x) is None
    assert value(tape.gradient(seen, x)) == 2.0
    assert [e.name for e in tape.recorded_ops] == ["Mul"]


def test_stop_recording_keeps_nesting_order():
    x = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            with outer.stop_recording():
                y = x * x
            z = x * 3.0
    assert value(inner.gradient(y, x)) == 2.0
    assert outer.gradient(y, x) is None
    assert tf.core.state.local.tapes == []


def test_stop_recording_outside_raises():
    tape = tf.GradientTape()
    with pytest.raises(ValueError, match="Tape is not recording"):  # TF's error
        with tape.stop_recording():
            pass


def test_reset_inside():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        assert tape.recorded_ops == ()
        z = x * 2.0  # x is not watched any more
        tape.watch(x)
        w = x * 5.0
    assert value(tape.gradient([y, z, w], x)) == 5.0


def test_reset_inside_stop_recording_raises():
    # As TF: reset() pops the tape, which stop_recording() already did.
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            with pytest.raises(ValueError, match="not recording"):
                tape.reset()
        assert tape.recording


def test_reset_outside_raises():
    with pytest.raises(ValueError, match="not recording"):
        tf.GradientTape().reset()


# -- gradient inside the context ----------------------------------------------------------------


def test_gradient_inside_persistent_context_warns_once_and_is_recorded():
    x = tf.constant(3.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x * x
            dy = tape.gradient(y, x)
            tape.gradient(y, x)
            assert tape.recording
    messages = [str(w.message) for w in caught]
    assert messages == [PERSISTENT_INSIDE]
    assert value(dy) == 27.0
    assert value(tape.gradient(dy, x)) == 18.0  # the gradient ops were recorded


def test_gradient_outside_persistent_context_does_not_warn():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tape.gradient(y, x)
        tape.gradient(y, x)


def test_gradient_inside_non_persistent_context_stops_the_tape():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        dy = tape.gradient(y, x)
        assert not tape.recording
        z = x * 5.0
        assert tape.recorded_ops == ()
    assert value(dy) == 6.0
    assert tf.core.state.local.tapes == []
    with pytest.raises(RuntimeError):
        tape.gradient(z, x)


# -- unconnected_gradients --------------------------------------------------------------------


@pytest.mark.parametrize("mode", [tf.UnconnectedGradients.NONE, "none"])
def test_unconnected_none(mode):
    x, u = tf.constant(3.0), tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch([x, u])
        y = x * x
    gx, gu = tape.gradient(y, [x, u], unconnected_gradients=mode)
    assert value(gx) == 6.0 and gu is None


@pytest.mark.parametrize("mode", [tf.UnconnectedGradients.ZERO, "zero"])
def test_unconnected_zero(mode):
    x, u = tf.constant(3.0), tf.constant([1.0, 2.0])
    v = tf.Variable([[1.0], [2.0]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([x, u])
        y = x * x
    gx, gu, gv = tape.gradient(y, [x, u, v], unconnected_gradients=mode)
    assert value(gx) == 6.0
    assert gu.shape == (2,) and value(gu) == [0.0, 0.0] and gu.dtype == tf.float32
    assert gv.shape == (2, 1) and gv.dtype == tf.float64


def test_unconnected_bad_value():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="zeros")


# -- targets and sources ------------------------------------------------------------------------


def test_target_none_raises_type_error():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(TypeError, match="received None"):
        tape.gradient(None, x)


def test_python_float_target_raises_clear_type_error():
    # TF crashes with AttributeError: 'float' object has no attribute 'dtype'.
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(TypeError, match="Python value has no recorded history"):
        tape.gradient(3.0, x)


def test_a_target_that_went_through_numpy_says_so():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = np.sin(x)  # NumPy computes; the tape sees nothing
    with pytest.raises(TypeError, match="went through NumPy"):
        tape.gradient(y, x)


def test_unwatched_source_used_by_recorded_op_gets_none():
    x, z = tf.constant(3.0), tf.constant(4.0)
    v = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = x * z * v
    gx, gz, gv = tape.gradient(y, [x, z, v])
    assert value(gx) == 8.0 and gz is None and gv is None


def test_unwatched_target_with_respect_to_itself_is_one():
    k = tf.constant([5.0, 6.0])
    with tf.GradientTape() as tape:
        pass
    assert value(tape.gradient(k, k)) == [1.0, 1.0]


def test_python_float_source_raises_type_error():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="sources"):
        tape.gradient(y, 3.0)


def test_sources_keep_their_nested_structure():
    a, b, c = tf.constant(1.0), tf.constant(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b * c
    grads = tape.gradient(y, {"zeta": a, "alpha": [b, (c,)]})
    assert list(grads) == ["zeta", "alpha"]  # the caller's key order is kept
    assert value(grads["zeta"]) == 6.0
    assert isinstance(grads["alpha"], list) and isinstance(grads["alpha"][1], tuple)
    assert value(grads["alpha"][0]) == 3.0
    assert value(grads["alpha"][1][0]) == 2.0

    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b * c
    grads = tape.gradient(y, (a, b))
    assert isinstance(grads, tuple) and [value(g) for g in grads] == [6.0, 3.0]


def test_sources_as_namedtuple_ordereddict_defaultdict():
    import collections

    Params = collections.namedtuple("Params", "w b")
    w, b = tf.Variable(2.0), tf.Variable(1.0)
    kinds = [
        Params(w, b),
        collections.OrderedDict([("z", w), ("a", b)]),
        collections.defaultdict(list, {"z": w, "a": b}),
    ]
    for sources in kinds:
        with tf.GradientTape() as tape:
            y = w * 3.0 + b
        grads = tape.gradient(y, sources)
        assert type(grads) is type(sources)
        if isinstance(sources, dict):
            assert list(grads) == ["z", "a"]
            assert value(grads["z"]) == 3.0 and value(grads["a"]) == 1.0
        else:
            assert value(grads.w) == 3.0 and value(grads.b) == 1.0
    assert grads.default_factory is list


def test_single_source_gives_single_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x)
    assert isinstance(g, tf.Tensor)


def test_non_scalar_target_is_summed():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x  # d(sum y)/dx = 2x
    assert value(tape.gradient(y, x)) == [2.0, 4.0, 6.0]


def test_list_of_targets_is_summed():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = x * 2.0
        w = tf.reduce_sum(tf.stack([x, x]))
    assert value(tape.gradient([y, z, w], x)) == 6.0 + 2.0 + 2.0


def test_list_of_targets_with_unconnected_member():
    x, k = tf.constant(3.0), tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert value(tape.gradient([y, k], x)) == 6.0


def test_output_gradients_weight_the_target():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))
    assert value(g) == [20.0, 400.0]


def test_output_gradients_one_per_target():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = x * 3.0
    g = tape.gradient([y, z], x, output_gradients=[tf.constant(1.0), tf.constant(10.0)])
    assert value(g) == 4.0 + 30.0


def test_output_gradients_shape_mismatch_raises():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        tape.gradient(y, x, output_gradients=tf.constant([1.0, 2.0]))


def test_output_gradients_count_mismatch_raises():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        tape.gradient([y, y], x, output_gradients=[tf.constant(1.0)])


def test_gradient_of_target_with_respect_to_itself():
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert value(tape.gradient(y, y)) == [1.0, 1.0]
    assert value(tape.gradient(x, x)) == [1.0, 1.0]
    # y itself is both target and an intermediate: d(y + y*y)/dy = 1 + 2y
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 1.0
        z = y + y * y
    assert value(tape.gradient(z, y)) == [7.0, 9.0]


def test_source_used_many_times_accumulates():
    x = tf.constant(3.0, dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x + x * x + tf.sin(x) * x + x
    expected = 1 + 2 * 3 + np.cos(3.0) * 3 + np.sin(3.0) + 1
    assert np.isclose(value(tape.gradient(y, x)), expected)


def test_intermediate_used_many_times_accumulates():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = x * x  # 4
        y = h * h + h + tf.exp(h * 0.0)  # dy/dh = 2h + 1 + 0 = 9
    assert value(tape.gradient(y, x)) == 9.0 * 2 * 2.0


def test_variable_replaced_by_tensor_loses_its_gradient():
    # The TF guide's pitfall: `x = x + 1` should have been `x.assign_add(1)`.
    x = tf.Variable(2.0)
    grads = []
    kinds = []
    for _ in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        kinds.append(type(x).__name__)
        grads.append(tape.gradient(y, x))
        x = x + 1
    assert kinds == ["Variable", "Tensor"]
    assert value(grads[0]) == 1.0
    assert grads[1] is None


def test_tensor_computed_inside_from_a_variable_is_differentiable():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        v = v + 1  # now a Tensor on the tape
        y = v * v
    assert value(tape.gradient(y, v)) == 6.0


def test_assign_is_not_differentiable():
    v = tf.Variable(2.0)
    w = tf.Variable(5.0)
    with tf.GradientTape() as tape:
        v.assign(w * 3.0)
        y = v * 1.0
    assert [e.name for e in tape.recorded_ops] == ["ReadVariableOp", "Mul", "ReadVariableOp", "Mul"]
    gv, gw = tape.gradient(y, [v, w])
    assert value(gv) == 1.0
    assert gw is None  # the assign cut the path from w

    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        v.assign_add(1.0)
        v.assign_sub(0.5)
    assert tape.recorded_ops == ()
    assert value(v.numpy()) == 2.5


def test_variable_reads_are_recorded():
    v = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as tape:
        y = v * 2.0
    names = [e.name for e in tape.recorded_ops]
    assert names == ["ReadVariableOp", "Mul"]
    read = tape.recorded_ops[0]
    assert read.inputs == (v,)
    assert read.outputs[0] is tape.recorded_ops[1].inputs[0]


def test_persistent_tape_saves_values_from_before_assign():
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = v * v
    v.assign(100.0)
    assert value(tape.gradient(y, v)) == 4.0


def test_assign_add_and_sub_never_change_tensors_read_before():
    v = tf.Variable([2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(v * v)
    del y  # the tape alone keeps the read
    read = v.read_value()
    view = np.asarray(v)
    v.assign_sub([1.0, 1.0])
    v.assign_add([10.0, 10.0])
    assert value(read) == [2.0, 3.0] and view.tolist() == [2.0, 3.0]
    assert value(v.read_value()) == [11.0, 12.0]
    target = tape.recorded_ops[-1].outputs[0]
    assert value(tape.gradient(target, v)) == [4.0, 6.0]  # from the values saved at the read


def test_assign_checks_shape_and_converts_dtype():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError):
        v.assign([1.0, 2.0, 3.0])
    v.assign_sub([[1.0, 1.0], [1.0, 1.0]])
    v.assign_add(np.ones((2, 2)))  # a float64 array converts to the variable's float32
    assert value(v.read_value()) == [[1.0, 2.0], [3.0, 4.0]]
    assert v.dtype == tf.float32


# -- Tensor semantics -----------------------------------------------------------------------------


def test_tensor_is_immutable():
    t = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="does not support item assignment"):
        t[0] = 5.0
    view = t.numpy()
    view[0] = 99.0
    assert value(t) == [1.0, 2.0]


def test_numpy_views_of_tensors_and_variables_are_read_only():
    t = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError):
        np.asarray(t)[0] = 9.0
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        np.asarray(v)[0] = 9.0
    copy = np.array(t)
    copy[0] = 9.0
    assert value(t) == [1.0, 2.0] and value(v) == [1.0, 2.0]


def test_tensors_copy_the_arrays_they_are_made_from():
    raw = np.array([1.0, 2.0], dtype=np.float32)
    t, c, v = tf.constant(raw), tf.convert_to_tensor(raw), tf.Variable(raw)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = t * t
    raw[0] = 100.0  # mutating the source array after the fact changes nothing
    assert value(t) == [1.0, 2.0] and value(c) == [1.0, 2.0] and value(v) == [1.0, 2.0]
    assert value(tape.gradient(y, t)) == [2.0, 4.0]


def test_tensor_is_unhashable_but_has_ref():
    t = tf.constant(1.0)
    with pytest.raises(TypeError):
        {t}
    assert t.ref() == t.ref() and t.ref().deref() is t
    assert {t.ref(): 1}[t.ref()] == 1


@pytest.mark.parametrize(
    "raw, dtype",
    [
        (1.5, "float32"),
        (2, "int32"),
        ([1.0, 2.0], "float32"),
        ([1, 2], "int32"),
        (True, "bool"),
        (np.float64(1.0), "float64"),
        (np.arange(3), "int64"),
    ],
)
def test_dtype_defaults(raw, dtype):
    assert tf.constant(raw).dtype == tf.as_dtype(dtype)


def test_variable_of_python_float_is_float32():
    assert tf.Variable(1.0).dtype == tf.float32


def test_mixing_float32_and_int32_tensors_raises():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1.0) + tf.constant(1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1.0) * tf.constant(1.0, dtype=tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.Variable(1.0) * tf.constant(2)


def test_float32_times_python_int():
    r = tf.constant(1.5) * 2
    assert r.dtype == tf.float32 and value(r) == 3.0
    r = 2 * tf.constant(1.5)
    assert r.dtype == tf.float32 and value(r) == 3.0
    r = tf.constant(1.5, dtype=tf.float64) + 1
    assert r.dtype == tf.float64


def test_int_tensor_with_fractional_python_float_raises():
    with pytest.raises((TypeError, ValueError)):
        tf.constant(2) * 1.5


def test_tensor_value_api():
    t = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert isinstance(t.numpy(), np.ndarray) and t.numpy().dtype == np.float32
    assert t.shape == (2, 3) and t.shape.as_list() == [2, 3] and t.shape.rank == 2
    assert t.dtype == tf.float32
    assert t.ndim == 2
    assert np.asarray(t).tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert len(t) == 2
    rows = list(t)
    assert len(rows) == 2 and all(isinstance(r, tf.Tensor) for r in rows)
    assert value(rows[1]) == [4.0, 5.0, 6.0]
    s = tf.constant(2.5)
    assert float(s) == 2.5 and isinstance(s.numpy(), np.floating)
    assert int(tf.constant(7)) == 7
    assert bool(tf.constant(1.0)) is True and bool(tf.constant(0.0)) is False
    with pytest.raises(ValueError):
        bool(t)
    with pytest.raises(TypeError):
        len(s)
    with pytest.raises(TypeError):
        iter(s)


def test_reflected_operators_with_python_numbers():
    x = tf.constant(4.0)
    assert value(1 + x) == 5.0
    assert value(1 - x) == -3.0
    assert value(2 * x) == 8.0
    assert value(1 / x) == 0.25
    assert value(2 ** tf.constant(3.0)) == 8.0
    assert value(x**2) == 16.0
    assert value(-x) == -4.0 and value(abs(-x)) == 4.0
    assert value(9 // tf.constant(2.0)) == 4.0
    assert value(9 % tf.constant(2.0)) == 1.0


def test_operators_with_numpy_arrays():
    x = tf.constant([1.0, 2.0])
    a = np.array([10.0, 20.0], dtype=np.float32)
    for result in (a + x, x + a, a * x, x * a, a - x, a / x):
        assert isinstance(result, tf.Tensor) and result.dtype == tf.float32
    assert value(a - x) == [9.0, 18.0]
    assert value(a / x) == [10.0, 10.0]
    m = np.array([[1.0, 2.0]], dtype=np.float32)
    r = m @ tf.constant([[1.0], [2.0]])
    assert isinstance(r, tf.Tensor) and value(r) == [[5.0]]


def test_numpy_operand_is_recorded_and_differentiable():
    x = tf.constant([1.0, 2.0])
    a = np.array([10.0, 20.0], dtype=np.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = a * x + x * a
    assert value(tape.gradient(y, x)) == [20.0, 40.0]


def test_comparisons_give_bool_tensors():
    x = tf.constant([1.0, 2.0, 3.0])
    assert value(x < 2.0) == [True, False, False]
    assert value(x <= 2.0) == [True, True, False]
    assert value(x > 2.0) == [False, False, True]
    assert value(x >= 2.0) == [False, True, True]
    assert value(x == 2.0) == [False, True, False]
    assert value(x != 2.0) == [True, False, True]
    assert (x < 2.0).dtype == tf.bool
    assert (x == None) is False  # noqa: E711  (as TF 2)
    assert (x != None) is True  # noqa: E711


def test_matmul_operator():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tf.constant([[1.0], [1.0]])
    assert value(a @ b) == [[3.0], [7.0]]
    v = tf.Variable([[1.0, 0.0], [0.0, 1.0]])
    assert value(v @ a) == value(a)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = a @ b
    assert value(tape.gradient(y, a)) == [[1.0, 1.0], [1.0, 1.0]]


def test_repr_and_str():
    assert repr(tf.constant(6.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"
    assert str(tf.constant(6.0)) == "tf.Tensor(6.0, shape=(), dtype=float32)"
    assert repr(tf.constant(3)) == "<tf.Tensor: shape=(), dtype=int32, numpy=3>"
    assert repr(tf.constant([1.0, 2.0])) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    )
    assert str(tf.constant([[1.0, 2.0]])) == "tf.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)"
    assert str(tf.constant(True)) == "tf.Tensor(True, shape=(), dtype=bool)"


def test_variable_operators_read_the_variable():
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = 2.0 * v - v / 3.0 + v**2
    assert np.isclose(value(tape.gradient(y, v)), 2.0 - 1.0 / 3.0 + 6.0)


def test_tape_stack_is_empty_after_an_exception_in_the_block():
    x = tf.constant(1.0)
    with pytest.raises(ZeroDivisionError):
        with tf.GradientTape() as tape:
            tape.watch(x)
            1 / 0
    assert tf.core.state.local.tapes == []
    assert not tape.recording


# -- the sweep's shortcut: what a tape noted at record time (issue 19) ---------------------------


def _programs():
    """Tapes where the noted needs hold, and where they must not be trusted (late watch,
    a non-differentiable op, an int source, an intermediate or unwatched source)."""

    def chain(tape, x, v):
        tape.watch(x)
        y = x
        for _ in range(5):
            y = y * x + 0.5
        return y, [x]

    def late_watch(tape, x, v):
        c = tf.constant(3.0)
        tape.watch(c)
        z = x * c  # recorded for c; x is watched only afterwards, and still gets its gradient
        tape.watch(x)
        return z * x, [x, c]

    def through_round(tape, x, v):
        tape.watch(x)
        r = tf.round(x * 1.5)  # no gradient through it, but a sweep reaches its output
        return r * x + tf.sin(r), [x]

    def variables_read_late(tape, x, v):
        h = tf.sin(x) * 2.0  # x is not watched: not recorded
        return tf.reduce_sum(h * v) + v[0] * v[1], [v, x]

    def intermediate_source(tape, x, v):
        tape.watch(x)
        h = tf.exp(x)
        return h * h + x, [h]

    def int_root(tape, x, v):
        n = tf.constant(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tape.watch(n)
        tape.watch(x)
        return x * tf.cast(n, tf.float32) * x, [x, n]

    def not_all_roots(tape, x, v):
        y = tf.constant(2.0)
        tape.watch(x)
        tape.watch(y)
        return x * y + y * y, [x]

    return [chain, late_watch, through_round, variables_read_late, intermediate_source, int_root, not_all_roots]


@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.__name__)
def test_the_noted_needs_give_what_the_walk_gives(program, monkeypatch):
    from tapeviz import events
    from tapeviz.core.tape import GradientTape

    def run():
        x = tf.constant(1.25)
        v = tf.Variable([0.5, -1.5])
        steps = []
        with events.listening(lambda e: steps.append(e) if isinstance(e, events.BackwardStep) else None):
            with tf.GradientTape(persistent=True) as tape:
                target, sources = program(tape, x, v)
            grads = tape.gradient(target, sources)
        grads = [None if g is None else g.numpy().tolist() for g in grads]
        return grads, [(s.entry.primitive.name, s.needs) for s in steps]

    taken = []
    noted_needs = GradientTape.needs_for
    monkeypatch.setattr(GradientTape, "needs_for", lambda self, r: taken.append(noted_needs(self, r)) or taken[-1])
    noted = run()
    # the shortcut is taken where it holds, and refused where it must not be trusted
    assert (taken[0] is not None) == (program.__name__ in ("chain", "variables_read_late"))
    monkeypatch.setattr(GradientTape, "needs_for", lambda self, reachable: None)  # always walk
    walked = run()
    assert noted == walked
    assert any(g is not None for g in noted[0])


def _sketched(entries):
    """Each entry's op name, and the id, shape and dtype of its inputs and outputs."""

    def tensor(t):
        return tf.core.tensor.tensor_id(t), tuple(t.shape), t.dtype.name

    return [(e.primitive.name, [tensor(t) for t in e.inputs], [tensor(t) for t in e.outputs]) for e in entries]


def test_a_released_tape_of_scalars_keeps_each_shape_and_dtype():
    """Scalar ops (NumPy scalars inside, the sketch's short path) sketch as the live entries were."""
    x = tf.constant(1.5)
    with tf.GradientTape(persistent=True) as inner:
        inner.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x + 0.5
            z = tf.cast(y, tf.float64) * 2.0
            n = tf.cast(y, tf.int32) + tf.constant(3)
    tape.gradient(z, x)
    assert tape.released
    kept = _sketched(tape.history)
    assert {dtype for *_, outputs in kept for _, _, dtype in outputs} == {"float32", "float64", "int32"}
    by_index = {e.index: e for e in inner.recorded_ops}
    assert kept == _sketched([by_index[e.index] for e in tape.history])
    assert int(n) == 5  # int(2.75) + 3
