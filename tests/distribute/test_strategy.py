"""tf.distribute's strategies on tapeviz: what the TF comparison (test_strategy_matches_tf.py) cannot show,
gradients through the replicas, traced functions, checkpoints, errors, and that the replicas run in order."""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.finite_differences import analytic_gradients, numeric_gradients, projection_weights


def _scaled_by_replica(x):
    return x * tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group + 1, x.dtype)


def test_replicas_run_one_after_another_in_order(three_cpus):
    order = []
    three_cpus.run(lambda: order.append(int(tf.distribute.get_replica_context().replica_id_in_sync_group)))
    assert order == [0, 1, 2]


def test_gradient_through_run_and_reduce_matches_finite_differences(three_cpus):
    def fn(x):
        per_replica = three_cpus.run(lambda: tf.sin(_scaled_by_replica(x)) * x)
        return three_cpus.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    arrays = [np.array([0.3, -1.2, 2.0])]
    weights = projection_weights(fn, arrays)
    analytic = analytic_gradients(fn, arrays, weights)
    numeric = numeric_gradients(fn, arrays, weights)
    np.testing.assert_allclose(analytic[0], numeric[0], rtol=1e-6, atol=1e-8)


def test_run_inside_tf_function_matches_eager(three_cpus):
    w = tf.Variable([1.0, 2.0])

    def step(x):
        per_replica = three_cpus.run(lambda: tf.reduce_sum(_scaled_by_replica(w * x)))
        return three_cpus.reduce("SUM", per_replica, axis=None)

    traced = tf.function(step)
    for x in ([1.0, 1.0], [2.0, -1.0]):
        assert float(traced(tf.constant(x))) == pytest.approx(float(step(tf.constant(x))))
    assert float(step(tf.constant([2.0, -1.0]))) == pytest.approx((2.0 - 2.0) * 6)


def test_an_error_in_one_replica_is_raised_and_leaves_no_scope_behind(three_cpus):
    def fails_on_replica_1():
        if int(tf.distribute.get_replica_context().replica_id_in_sync_group) == 1:
            raise KeyError("replica 1 failed")
        return tf.constant(1.0)

    with pytest.raises(KeyError, match="replica 1 failed"):
        three_cpus.run(fails_on_replica_1)
    assert not tf.distribute.has_strategy()
    assert three_cpus.experimental_local_results(three_cpus.run(lambda: tf.constant(2.0)))[2].numpy() == 2.0


def test_replicas_that_do_not_all_reduce_together_raise_instead_of_hanging(three_cpus):
    def only_replica_0_reduces():
        context = tf.distribute.get_replica_context()
        if int(context.replica_id_in_sync_group) == 0:
            return context.all_reduce("SUM", tf.constant(1.0))
        return tf.constant(0.0)

    with pytest.raises(RuntimeError, match="same synchronizing calls"):
        three_cpus.run(only_replica_0_reduces)


def test_merge_call_runs_once_in_cross_replica_context_with_each_replicas_value(three_cpus):
    calls = []

    def merge_fn(strategy, value):
        calls.append((tf.distribute.in_cross_replica_context(), strategy.experimental_local_results(value)))
        return "merged"

    def fn():
        context = tf.distribute.get_replica_context()
        return context.merge_call(merge_fn, args=(_scaled_by_replica(tf.constant(1.0)),))

    assert three_cpus.run(fn) == "merged"
    assert len(calls) == 1
    cross, values = calls[0]
    assert cross and [float(v) for v in values] == [1.0, 2.0, 3.0]


def test_mirrored_variable_is_read_by_gradient_tapes_in_each_replica(three_cpus):
    with three_cpus.scope():
        w = tf.Variable([1.0, -2.0])

    def grad():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(_scaled_by_replica(w * w))
        return tape.gradient(loss, w)

    grads = three_cpus.experimental_local_results(three_cpus.run(grad))
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), 2 * np.array([1.0, -2.0]) * (i + 1))


def test_checkpoint_restores_every_copy_of_a_mirrored_variable(three_cpus, tmp_path):
    with three_cpus.scope():
        w = tf.Variable([1.0, 2.0])
    checkpoint = tf.train.Checkpoint(w=w)
    path = checkpoint.write(str(tmp_path / "ckpt"))
    with three_cpus.scope():
        w.assign([5.0, 6.0])
    checkpoint.read(path)
    assert [c.numpy().tolist() for c in w.values] == [[1.0, 2.0]] * 3


def test_one_device_and_default_strategies_return_plain_values():
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    result = one.run(lambda x: x * 2.0, args=(tf.constant(3.0),))
    assert float(result) == 6.0 and not isinstance(result, tf.distribute.DistributedValues)
    with one.scope():
        assert not isinstance(tf.Variable(1.0), tf.distribute.DistributedValues)
    default = tf.distribute.get_strategy()
    assert default.num_replicas_in_sync == 1 and default.run(lambda: 7) == 7


def test_bad_reduce_op_and_device_names_get_clear_errors(three_cpus):
    with pytest.raises(ValueError, match="ReduceOp.SUM or ReduceOp.MEAN"):
        three_cpus.reduce("MAX", three_cpus.run(lambda: tf.constant(1.0)), axis=None)
    with pytest.raises(ValueError, match="Unknown device 'tpu:0'"):
        tf.distribute.MirroredStrategy(devices=["tpu:0"])
    with pytest.raises(ValueError, match="at least one device"):
        tf.distribute.MirroredStrategy(devices=[])
    with pytest.raises(ValueError, match="at least one compute device"):
        tf.distribute.experimental.CentralStorageStrategy(compute_devices=[])


def test_replica_making_more_variables_than_replica_0_is_refused(three_cpus):
    def makes_by_replica():
        for _ in range(int(tf.distribute.get_replica_context().replica_id_in_sync_group) + 1):
            tf.Variable(1.0)
        return tf.constant(0.0)

    with three_cpus.scope(), pytest.raises(ValueError, match="more variables than replica 0"):
        three_cpus.run(makes_by_replica)


def test_experimental_set_strategy_enters_and_leaves_the_scope(three_cpus):
    tf.distribute.experimental_set_strategy(three_cpus)
    try:
        assert tf.distribute.get_strategy() is three_cpus and tf.distribute.in_cross_replica_context()
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
