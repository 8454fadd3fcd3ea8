"""tf.distribute and logical-device cases compared with TF 2.21: shared by distribute_reference.py and
tests/distribute/test_strategy_matches_tf.py.

``setup(tf)`` splits the CPU into three logical CPUs (on TF it must run before
anything else touches the runtime) and reports what it saw; each case is then a
function of ``tf`` (TensorFlow or tapeviz) returning plain Python values. ``run``
gives ``["ok", value]`` or ``[error type name, message's first line]``.
"""

import numpy as np

DEVICES = ["cpu:0", "cpu:1", "cpu:2"]


def _np(value):
    return np.asarray(value.numpy()).tolist()


def _plain(value):
    return _np(value) if hasattr(value, "numpy") else value


def _locals(strategy, value):
    return [_np(v) for v in strategy.experimental_local_results(value)]


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the error's kind and words are the value compared
        return [type(error).__name__, (str(error).splitlines() or [""])[0]]
    return "no error"


def setup(tf):
    """Three logical CPUs, as TF's random-numbers guide makes them; what the configuration calls returned."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    before = tf.config.get_logical_device_configuration(cpu)
    tf.config.experimental.set_virtual_device_configuration(
        cpu, [tf.config.experimental.VirtualDeviceConfiguration() for _ in range(3)]
    )
    after = tf.config.get_logical_device_configuration(cpu)
    listed = [(d.name, d.device_type) for d in tf.config.list_logical_devices("CPU")]
    again = _error(
        lambda: tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
    )
    changed = _error(
        lambda: tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    )
    limit = _error(lambda: tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration(100)]))
    return {
        "before": before,
        "after": [str(c) for c in after],
        "listed": [list(x) for x in listed],
        "same_again": again,
        "changed": changed,
        "cpu_memory_limit": limit,
        "alias": tf.config.experimental.VirtualDeviceConfiguration is tf.config.LogicalDeviceConfiguration,
    }


def strategy_basics(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)
    out = {
        "devices": list(m.extended.worker_devices),
        "replicas": m.num_replicas_in_sync,
        "default_replicas": tf.distribute.get_strategy().num_replicas_in_sync,
        "outside": [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context()],
        "default_replica": [
            _plain(tf.distribute.get_replica_context().replica_id_in_sync_group),
            tf.distribute.get_replica_context().num_replicas_in_sync,
        ],
    }
    out["default_run"] = tf.distribute.get_strategy().run(
        lambda: [_plain(tf.distribute.get_replica_context().replica_id_in_sync_group), tf.distribute.has_strategy()]
    )
    with m.scope():
        out["inside"] = [
            tf.distribute.has_strategy(),
            tf.distribute.get_strategy() is m,
            tf.distribute.in_cross_replica_context(),
            tf.distribute.get_replica_context() is None,
        ]

    def f():
        ctx = tf.distribute.get_replica_context()
        return [
            _np(ctx.replica_id_in_sync_group),
            ctx.num_replicas_in_sync,
            tf.distribute.in_cross_replica_context(),
            tf.distribute.get_strategy() is m,
        ]

    out["in_run"] = [[_plain(v) for v in r] for r in _regrouped_lists(m, m.run(f))]
    return out


def _regrouped_lists(strategy, result):
    """run's result of a list of leaves -> one list per replica."""
    columns = [strategy.experimental_local_results(v) for v in result]
    return [list(row) for row in zip(*columns)]


def per_replica_printing(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)

    def f(x):
        ctx = tf.distribute.get_replica_context()
        return x * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32)

    r = m.run(f, args=(tf.constant([1.0, 2.0]),))
    nested = m.run(lambda: (tf.constant(1.0), {"a": tf.constant(2)}))
    return {
        "str": str(r),
        "repr": repr(r),
        "type": type(r).__name__,
        "distributed": isinstance(r, tf.distribute.DistributedValues),
        "nested": str(nested),
        "python": str(m.run(lambda x: x + 1.0, args=(3.0,))),
        "same_object": m.run(lambda: 3.0),
    }


def reductions(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)
    r = m.run(
        lambda: (
            tf.constant([1.0, 2.0])
            * tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32)
        )
    )
    o = tf.distribute.OneDeviceStrategy("/cpu:0")
    return {
        "locals": _locals(m, r),
        "sum": _np(m.reduce(tf.distribute.ReduceOp.SUM, r, axis=None)),
        "mean": _np(m.reduce(tf.distribute.ReduceOp.MEAN, r, axis=None)),
        "sum_axis": _np(m.reduce("SUM", r, axis=0)),
        "mean_axis": _np(m.reduce("MEAN", r, axis=0)),
        "gather": _np(m.gather(r, axis=0)),
        "plain_sum": _error(lambda: m.reduce("SUM", tf.constant(2.0), axis=None)),
        "plain_mean": _np(m.reduce("MEAN", tf.constant(2.0), axis=None)),
        "one_device": [
            o.num_replicas_in_sync,
            _np(o.run(lambda: tf.constant([1.0, 2.0]))),
            _np(o.reduce("SUM", tf.constant([1.0, 2.0]), axis=0)),
        ],
        "one_device_devices": list(o.extended.worker_devices),
        "default_python": tf.distribute.get_strategy().reduce("SUM", 1.0, axis=None),
        "default": [
            _np(tf.distribute.get_strategy().reduce("SUM", tf.constant([1.0, 2.0]), axis=None)),
            tf.distribute.get_strategy().run(lambda: 2),
        ],
        "values_from_function": _locals(
            m, m.experimental_distribute_values_from_function(lambda ctx: tf.constant(ctx.replica_id_in_sync_group))
        ),
    }


def all_reduce(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)

    def value():
        return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0

    total = m.run(lambda: tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, value()))
    mean = m.run(lambda: tf.distribute.get_replica_context().all_reduce("MEAN", [value(), value() * 2.0]))
    return {"sum": _locals(m, total), "mean": [_locals(m, mean[0]), _locals(m, mean[1])]}


def mirrored_variables(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)
    with m.scope():
        v = tf.Variable(1.0)
        w = tf.Variable([1.0, 2.0], name="w", aggregation=tf.VariableAggregation.SUM)
        mean = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
        first = tf.Variable(0.0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
    out = {
        "str": str(v),
        "repr": repr(w),
        "type": type(v).__name__,
        "distributed": isinstance(v, tf.distribute.DistributedValues),
    }
    with m.scope():
        v.assign(5.0)
    out["cross_replica_assign"] = [_np(c) for c in v.values]

    def rid():
        return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0

    m.run(lambda: w.assign_add(tf.ones([2]) * rid()))
    m.run(lambda: mean.assign(rid()))
    m.run(lambda: first.assign(rid() * 10.0))
    m.run(lambda: v.assign_add(tf.constant(1.0)))
    out["sum_update"] = [_np(c) for c in w.values]
    out["mean_update"] = [_np(c) for c in mean.values]
    out["first_update"] = [_np(c) for c in first.values]
    out["none_same_update"] = [_np(c) for c in v.values]
    out["none_different"] = _error(lambda: m.run(lambda: v.assign(rid())))
    out["none_different_values"] = [_np(c) for c in v.values]
    out["read_in_run"] = _locals(m, m.run(lambda: w.read_value()))
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    with one.scope():
        plain = tf.Variable(1.0)
    out["one_device_distributed"] = isinstance(plain, tf.distribute.DistributedValues)
    return out


def scopes(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)

    def mix():
        with m.scope():
            with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
                pass

    with m.scope():
        with m.scope():
            nested_ok = tf.distribute.get_strategy() is m
    return {"mix": _error(mix)[0], "nested_same": nested_ok, "after": tf.distribute.has_strategy()}


def generators(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)
    out = {}
    g = tf.random.Generator.from_seed(5)
    with m.scope():
        h = tf.random.Generator.from_seed(5)
        out["cross_replica"] = _np(h.normal([2]))
        out["state_after_cross"] = [_np(c) for c in h.state.values]
        out["split_in_run"] = _locals(m, m.run(lambda: h.split(2)[0].normal([])))
        out["state_after_split"] = [_np(c) for c in h.state.values]
        out["uniform_in_run"] = _locals(m, m.run(lambda: h.uniform([2])))
        out["int_in_run"] = _locals(m, m.run(lambda: h.uniform([3], minval=0, maxval=100, dtype=tf.int32)))
    out["outside_generator_in_run"] = _locals(m, m.run(lambda: g.normal([])))
    out["outside_state"] = _np(g.state)

    def made_in_run():
        k = tf.random.Generator.from_seed(1)
        return tf.stack([k.normal([]), k.normal([])])

    with m.scope():
        out["made_in_run"] = _locals(m, m.run(made_in_run))
    two = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with two.scope():
        k = tf.random.Generator.from_seed(1)
        out["guide_two_replicas"] = [_locals(two, two.run(lambda: k.normal([]))) for _ in range(2)]
    out["guide_printed"] = str(two.run(lambda: k.normal([])))
    return out


def generator_checkpoint(tf):
    """The random-numbers guide's checkpoints: saved with two replicas, restored into two and into three."""
    import tempfile

    path = tempfile.mkdtemp() + "/checkpoint"
    two = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with two.scope():
        g = tf.random.Generator.from_seed(1)
        checkpoint = tf.train.Checkpoint(my_generator=g)
        first = _locals(two, two.run(lambda: g.normal([])))
        checkpoint.write(path)
        after_save = [_locals(two, two.run(lambda: g.normal([]))) for _ in range(2)]
        checkpoint.restore(path)
        after_restore = [_locals(two, two.run(lambda: g.normal([]))) for _ in range(2)]
    three = tf.distribute.MirroredStrategy(devices=DEVICES)
    with three.scope():
        g3 = tf.random.Generator.from_seed(1)
        tf.train.Checkpoint(my_generator=g3).restore(path)
        into_three = [_locals(three, three.run(lambda: g3.normal([]))) for _ in range(2)]
        state = [_np(c) for c in g3.state.values]
    return {
        "first": first,
        "after_save": after_save,
        "after_restore": after_restore,
        "into_three": into_three,
        "state": state,
    }


def loss_helpers(tf):
    """tf.nn.compute_average_loss / scale_regularization_loss in replicas, outside them, and their errors."""
    m = tf.distribute.MirroredStrategy(devices=DEVICES)
    losses = tf.constant([1.0, 2.0, 3.0, 4.0])

    def in_replica():
        return [
            tf.nn.compute_average_loss(losses),
            tf.nn.compute_average_loss(losses, sample_weight=[1.0, 0.0, 2.0, 1.0]),
            tf.nn.compute_average_loss(losses, global_batch_size=8),
            tf.nn.compute_average_loss(losses, global_batch_size=0),
            tf.nn.scale_regularization_loss(tf.constant([3.0, 6.0])),
        ]

    in_scope = {}
    with m.scope():
        in_scope["average"] = _error(lambda: tf.nn.compute_average_loss(losses))
        in_scope["regularization"] = _error(lambda: tf.nn.scale_regularization_loss(1.0))
        in_scope["average_given_size"] = _np(tf.nn.compute_average_loss(losses, global_batch_size=2))
    return {
        "replicas": [[_np(v) for v in row] for row in _regrouped_lists(m, m.run(in_replica))],
        "outside": [_np(v) for v in in_replica()],
        "in_scope": in_scope,
        "scalar": _error(lambda: tf.nn.compute_average_loss(tf.constant(1.0)))[0],
    }


def other_strategies(tf):
    """CentralStorageStrategy and MirroredStrategy(cross_device_ops=...), as the distributed-training guide makes them."""
    central = tf.distribute.experimental.CentralStorageStrategy(compute_devices=["cpu:0", "cpu:1"])
    with central.scope():
        v = tf.Variable(1.0)
    mirrored = tf.distribute.MirroredStrategy(
        devices=["cpu:0", "cpu:1"], cross_device_ops=tf.distribute.HierarchicalCopyAllReduce()
    )
    reduced = mirrored.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(2.0)))
    return {
        "central_replicas": central.num_replicas_in_sync,
        "central_run": _locals(central, central.run(lambda: v * 2.0)),
        "central_reduce": _np(central.reduce("SUM", central.run(lambda: v * 2.0), axis=None)),
        "mirrored_all_reduce": _locals(mirrored, reduced),
        "ops": [
            isinstance(tf.distribute.NcclAllReduce(), tf.distribute.CrossDeviceOps),
            isinstance(tf.distribute.ReductionToOneDevice(), tf.distribute.CrossDeviceOps),
        ],
    }


def datasets(tf):
    m = tf.distribute.MirroredStrategy(devices=DEVICES)
    out = {}
    for batch in (4, 5, 6, 7):
        ds = tf.data.Dataset.range(10).batch(batch)
        out[f"batch_{batch}"] = [_locals(m, b) for b in m.experimental_distribute_dataset(ds)]
    pairs = tf.data.Dataset.from_tensor_slices((tf.range(6.0), tf.range(6))).batch(6)
    out["pairs"] = [[_locals(m, x), _locals(m, y)] for x, y in m.experimental_distribute_dataset(pairs)]
    seen = []

    def dataset_fn(ctx):
        seen.append(
            [
                str(ctx),
                ctx.num_input_pipelines,
                ctx.input_pipeline_id,
                ctx.num_replicas_in_sync,
                ctx.get_per_replica_batch_size(12),
            ]
        )
        return tf.data.Dataset.range(8).batch(ctx.get_per_replica_batch_size(6))

    out["from_function"] = [_locals(m, b) for b in m.distribute_datasets_from_function(dataset_fn)]
    out["input_context"] = seen
    ctx = tf.distribute.InputContext(2, 1, 4)
    out["input_context_made"] = [
        str(ctx),
        ctx.get_per_replica_batch_size(8),
        _error(lambda: ctx.get_per_replica_batch_size(6)),
    ]
    out["default_context"] = [
        tf.distribute.InputContext().num_replicas_in_sync,
        tf.distribute.InputContext().num_input_pipelines,
    ]
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    out["one_device"] = [_np(b) for b in one.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2))]
    return out


CASES = {
    name: globals()[name]
    for name in (
        "all_reduce",  # first: on TF, collectives after other strategies' runs can abort (a TF quirk)
        "strategy_basics",
        "per_replica_printing",
        "reductions",
        "mirrored_variables",
        "scopes",
        "generators",
        "generator_checkpoint",
        "loss_helpers",
        "other_strategies",
        "datasets",
    )
}


def run(tf, case):
    try:
        return ["ok", case(tf)]
    except Exception as error:  # noqa: BLE001 - the error is the value compared
        return [type(error).__name__, (str(error).splitlines() or [""])[0]]
