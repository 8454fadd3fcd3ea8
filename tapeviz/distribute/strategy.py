"""``tf.distribute``'s strategies: ``MirroredStrategy``, ``OneDeviceStrategy`` and the default one.

tapeviz runs in one process on one machine: the replicas of
``strategy.run`` compute one after another (``turns.py``), each on its share
of the batch, with TF's semantics (per-replica values, all-reduce, mirrored
variables, a Generator's per-replica streams), so TF code runs unchanged and
prints TF's numbers. There is no speedup: N replicas take N times as long.
"""

import re

from tapeviz import config as _config
from tapeviz.core import nest, replicas
from tapeviz.core.primitives.array import concat
from tapeviz.core.primitives.math import reduce_sum
from tapeviz.core.tensor import convert_to_tensor
from tapeviz.distribute import input_lib
from tapeviz.distribute.mirrored_variable import MirroredVariable
from tapeviz.distribute.reduce_op import ReduceOp, as_reduce_op
from tapeviz.distribute.replica_context import ReplicaContext, current_replica_context, entered_replica, reduce_values
from tapeviz.distribute.turns import Turns
from tapeviz.distribute.values import DistributedValues, local_results, regroup, select_replica

__all__ = [
    "Strategy",
    "StrategyExtended",
    "MirroredStrategy",
    "OneDeviceStrategy",
    "CentralStorageStrategy",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
    "get_replica_context",
    "experimental_set_strategy",
]

_DEVICE = re.compile(r"^/?(?:job:\w+/replica:\d+/task:\d+/)?(?:device:)?(cpu|gpu)(?::(\d+))?$", re.IGNORECASE)


def canonical_device(name):
    """A device name as TF's strategies list it: ``"cpu:1"`` -> ``"/job:localhost/replica:0/task:0/device:CPU:1"``.

    Args:
        name: a device name (``"cpu:0"``, ``"/gpu:1"``, ``"/device:CPU:0"``...).

    Returns:
        The full name.

    Raises:
        ValueError: a name that is not a CPU or GPU device.
    """
    match = _DEVICE.match(str(name).strip())
    if match is None:
        raise ValueError(f"Unknown device {name!r}: name a CPU or GPU device, such as 'cpu:0' or '/gpu:1'.")
    return f"/job:localhost/replica:0/task:0/device:{match.group(1).upper()}:{int(match.group(2) or 0)}"


class StrategyExtended:
    """``strategy.extended``: the devices and the update rules of a strategy.

    Args:
        container_strategy: the strategy it extends.
        devices: its replicas' devices (any spelling ``canonical_device`` reads; default: ``/cpu:0``).
        variable_class: what ``tf.Variable(...)`` makes in the strategy's scope and replicas (None: plain).

    Raises:
        ValueError: a name that is not a device.
    """

    def __init__(self, container_strategy, devices=("/cpu:0",), variable_class=None):
        self._strategy = container_strategy
        self._devices = tuple(canonical_device(d) for d in devices)
        self.variable_class = variable_class

    @property
    def worker_devices(self):
        """The replicas' devices, one full name per replica (a tuple)."""
        return self._devices

    @property
    def parameter_devices(self):
        """Where the variables live: every replica's device (mirrored)."""
        return self._devices

    def variable_created_in_scope(self, v):
        """Whether ``v`` was made inside this strategy's scope (one of its mirrored variables).

        Args:
            v: a variable.

        Returns:
            A bool.
        """
        return isinstance(v, MirroredVariable) and v.distribute_strategy is self._strategy

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Run ``fn(var, *args, **kwargs)`` in cross-replica context (every copy of ``var`` is written).

        Args:
            var: a variable.
            fn: the update.
            args: its positional arguments.
            kwargs: its keyword arguments.
            group: accepted for TF compatibility.

        Returns:
            What ``fn`` returned.
        """
        with self._strategy.scope():
            return fn(var, *args, **(kwargs or {}))


class Strategy:
    """``tf.distribute.Strategy``: run a computation on several replicas and combine what they return.

    Use ``MirroredStrategy`` (or ``OneDeviceStrategy``); ``get_strategy()``
    outside every scope is the default strategy (one replica, no change).

    Args:
        extended: the strategy's ``StrategyExtended`` (its devices and the variables it makes).
    """

    def __init__(self, extended):
        self._extended = extended

    @property
    def extended(self):
        """The strategy's devices and update rules (``StrategyExtended``)."""
        return self._extended

    @property
    def num_replicas_in_sync(self):
        """How many replicas ``run`` runs ``fn`` on (an int)."""
        return len(self._extended.worker_devices)

    @property
    def cluster_resolver(self):
        """None: no cluster (one process)."""
        return None

    def scope(self):
        """A ``with`` block in cross-replica context: variables made in it are the strategy's (mirrored).

        Returns:
            A context manager.

        Raises:
            RuntimeError: entering it inside another strategy's scope (TF's "Mixing different ..." error).
        """
        return _Scope(self)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Run ``fn(*args, **kwargs)`` once per replica, one after another; returns their results regrouped.

        Distributed arguments (``PerReplica``, from a distributed dataset) give
        each replica its own value; the results become ``PerReplica`` values
        (a value that is the very same object on every replica stays itself).
        ``fn`` may call ``tf.distribute.get_replica_context()`` (its replica id,
        ``all_reduce``, ``merge_call``).

        Args:
            fn: the function to run.
            args: its positional arguments.
            kwargs: its keyword arguments.
            options: TF's ``RunOptions``; accepted, unused.

        Returns:
            A nest like ``fn``'s result, of ``PerReplica`` values (plain values with one replica). An
            error ``fn`` raises in a replica is raised here (the other replicas stop).
        """
        kwargs = dict(kwargs or {})
        count = self.num_replicas_in_sync
        if count == 1:
            with entered_replica(ReplicaContext(self, 0)):
                return fn(*select_replica(0, tuple(args)), **select_replica(0, kwargs))
        turns, made = Turns(count), []

        def body(index):
            def call():
                with entered_replica(ReplicaContext(self, index, turns, made)):
                    return fn(*select_replica(index, tuple(args)), **select_replica(index, kwargs))

            return call

        return regroup(turns.run([body(i) for i in range(count)]))

    def experimental_local_results(self, value):
        """The replicas' values of ``value``, as a tuple (a plain value: ``(value,)``).

        Args:
            value: a PerReplica, a mirrored variable, or a plain value.

        Returns:
            A tuple.
        """
        return local_results(value)

    def reduce(self, reduce_op, value, axis):
        """Combine the replicas' values of ``value`` into one tensor (SUM or MEAN), across ``axis`` too if given.

        With ``axis``, each replica's tensor is first reduced along it (MEAN
        then divides by the total count along it, as TF's).

        Args:
            reduce_op: ``tf.distribute.ReduceOp.SUM`` or ``MEAN`` (or its name).
            value: a PerReplica (or a nest of them), or a plain tensor.
            axis: None, or the axis to reduce each replica's value along.

        Returns:
            A Tensor (a nest for a nest).

        Raises:
            ValueError: SUM of a plain (non-distributed) value over several replicas, as TF.
        """
        reduce_op = as_reduce_op(reduce_op)
        if isinstance(value, DistributedValues):
            return self._reduce_one(reduce_op, value, axis)
        if not isinstance(value, (list, tuple, dict)):
            return self._reduce_one(reduce_op, value, axis)
        return nest.map_structure(lambda v: self._reduce_one(reduce_op, v, axis), value)

    def _reduce_one(self, reduce_op, value, axis):
        locals_ = list(local_results(value))
        if not isinstance(value, DistributedValues) and self.num_replicas_in_sync > 1:
            if reduce_op is ReduceOp.SUM:
                raise ValueError(
                    f"A non-DistributedValues value {value!s} cannot be reduced with the given reduce op {reduce_op}."
                )
        tensors = [convert_to_tensor(v) for v in locals_]
        if axis is None:
            return reduce_values(reduce_op, tensors)
        total = reduce_values(ReduceOp.SUM, [reduce_sum(t, axis=axis) for t in tensors])
        if reduce_op is ReduceOp.SUM:
            return total
        count = sum(int(t.shape[axis]) for t in tensors)
        return total / convert_to_tensor(count, dtype=total.dtype)

    def gather(self, value, axis):
        """The replicas' values of ``value`` concatenated along ``axis``, in replica order.

        Args:
            value: a PerReplica (or nest of them), or a plain tensor.
            axis: the axis to concatenate along.

        Returns:
            A Tensor (a nest for a nest).
        """
        if isinstance(value, DistributedValues) or not isinstance(value, (list, tuple, dict)):
            return concat([convert_to_tensor(v) for v in local_results(value)], axis=axis)
        return nest.map_structure(lambda v: self.gather(v, axis), value)

    def experimental_distribute_dataset(self, dataset, options=None):
        """``dataset`` (of global batches) as one batch per replica per step: each batch split, as TF splits it.

        A batch of ``b`` rows gives each replica ``ceil(b / n)`` consecutive
        rows (the last ones fewer, or none).

        Args:
            dataset: a ``tf.data.Dataset`` of batches.
            options: TF's ``InputOptions``; accepted, unused.

        Returns:
            An iterable of ``PerReplica`` batches (plain batches with one replica).
        """
        return input_lib.DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """Datasets made by ``dataset_fn(input_context)``: each replica takes the next element in turn.

        Args:
            dataset_fn: a function of a ``tf.distribute.InputContext`` returning a dataset of per-replica batches.
            options: TF's ``InputOptions``; accepted, unused.

        Returns:
            An iterable of ``PerReplica`` batches.
        """
        return input_lib.DistributedDatasetFromFunction(self, dataset_fn)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        """A ``PerReplica`` of ``value_fn(context)`` for each replica (``context.replica_id_in_sync_group``).

        Args:
            value_fn: a function of a ``tf.distribute.experimental.ValueContext``.

        Returns:
            A PerReplica (the value itself with one replica).
        """
        count = self.num_replicas_in_sync
        return regroup([value_fn(input_lib.ValueContext(i, count)) for i in range(count)])


class _Scope:
    def __init__(self, strategy):
        self._strategy = strategy
        self._inner = None

    def __enter__(self):
        context = replicas.current()
        if context.strategy is not None and context.strategy is not self._strategy:
            raise RuntimeError(
                f"Mixing different tf.distribute.Strategy objects: {context.strategy} is not {self._strategy}"
            )
        if context.strategy is self._strategy and context.replica_id is not None:
            return self._strategy  # in one of its replicas already: nothing to enter
        self._inner = replicas.entered_scope(self._strategy, self._strategy.extended.variable_class)
        self._inner.__enter__()
        return self._strategy

    def __exit__(self, *exc):
        if self._inner is not None:
            self._inner.__exit__(*exc)
            self._inner = None
        return False


class MirroredStrategy(Strategy):
    """``tf.distribute.MirroredStrategy``: one replica per device; variables made in its scope are mirrored.

    The devices may be virtual CPUs (``tf.config.set_logical_device_configuration``).
    Here the replicas run one after another in this process (no speedup).

    Args:
        devices: the devices (``["cpu:0", "cpu:1"]``); None: every logical GPU, else every logical CPU.
        cross_device_ops: TF's all-reduce implementation; accepted, unused.

    Raises:
        ValueError: an empty device list, or a name that is not a device.

    Example:
        >>> import tapeviz as tf
        >>> strategy = tf.distribute.MirroredStrategy(devices=["cpu:0"])
        >>> strategy.num_replicas_in_sync
        1
    """

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            found = _config.list_logical_devices("GPU") or _config.list_logical_devices("CPU")
            devices = [d.name for d in found]
        devices = list(devices)
        if not devices:
            raise ValueError("MirroredStrategy needs at least one device, e.g. devices=['cpu:0'].")
        _config.initialize_logical_devices()
        super().__init__(StrategyExtended(self, devices, MirroredVariable))


class CentralStorageStrategy(Strategy):
    """``tf.distribute.experimental.CentralStorageStrategy``: a replica per compute device, the variables kept
    once (TF: on the parameter device) and updated with the replicas' gradients summed.

    Here the variables made in its scope are plain ones; the replicas run one after another, as
    ``MirroredStrategy``'s.

    Args:
        compute_devices: the replicas' devices; None: every logical GPU, else the first CPU.
        parameter_device: where TF keeps the variables; accepted (one memory here).

    Raises:
        ValueError: an empty device list, or a name that is not a device.
    """

    def __init__(self, compute_devices=None, parameter_device=None):
        if compute_devices is None:
            compute_devices = [d.name for d in _config.list_logical_devices("GPU")] or ["/cpu:0"]
        compute_devices = list(compute_devices)
        if not compute_devices:
            raise ValueError("CentralStorageStrategy needs at least one compute device, e.g. ['cpu:0'].")
        _config.initialize_logical_devices()
        super().__init__(StrategyExtended(self, compute_devices))


class OneDeviceStrategy(Strategy):
    """``tf.distribute.OneDeviceStrategy``: one replica on ``device``; variables stay plain.

    Args:
        device: the device (``"/cpu:0"``).

    Raises:
        ValueError: a name that is not a device.
    """

    def __init__(self, device):
        _config.initialize_logical_devices()
        super().__init__(StrategyExtended(self, [device]))


class _DefaultStrategy(Strategy):
    """The strategy in force outside every scope: one replica, computations unchanged."""

    def __init__(self):
        super().__init__(StrategyExtended(self))

    def run(self, fn, args=(), kwargs=None, options=None):
        """Call ``fn(*args, **kwargs)``: the default strategy's one replica is the code outside every scope.

        Args:
            fn: the function to run.
            args: its positional arguments.
            kwargs: its keyword arguments.
            options: TF's ``RunOptions``; accepted, unused.

        Returns:
            What ``fn`` returned.
        """
        return fn(*args, **dict(kwargs or {}))

    def reduce(self, reduce_op, value, axis):
        """The one replica's ``value``: itself (a Python number stays one), or reduced along ``axis``.

        Args:
            reduce_op: ``tf.distribute.ReduceOp.SUM`` or ``MEAN`` (or its name).
            value: a value.
            axis: None, or the axis to reduce along.

        Returns:
            ``value`` when ``axis`` is None, else a Tensor.

        Raises:
            ValueError: an unknown ``reduce_op``.
        """
        if axis is None:
            as_reduce_op(reduce_op)
            return value
        return super().reduce(reduce_op, value, axis)

    def scope(self):
        """A ``with`` block that changes nothing (already the default).

        Returns:
            A context manager.
        """
        return _Scope(self) if replicas.current().strategy is not None else _NoScope(self)


class _NoScope:
    def __init__(self, strategy):
        self._strategy = strategy

    def __enter__(self):
        return self._strategy

    def __exit__(self, *exc):
        return False


class _DefaultReplicaContext(ReplicaContext):
    """The default strategy's one replica: its id is the Python int 0, as TF's."""

    @property
    def replica_id_in_sync_group(self):
        """0, a Python int (TF's default replica context)."""
        return 0


_DEFAULT = _DefaultStrategy()
_DEFAULT_REPLICA = _DefaultReplicaContext(_DEFAULT, 0)


def get_strategy():
    """The strategy whose scope (or replica) the code is in; outside every scope, the default strategy.

    Returns:
        A Strategy.
    """
    return replicas.current().strategy or _DEFAULT


def has_strategy():
    """True inside a strategy's scope (or one of its replicas).

    Returns:
        A bool.
    """
    return replicas.current().strategy is not None


def in_cross_replica_context():
    """True inside a strategy's scope but outside its ``run`` (where ``get_replica_context()`` is None).

    Returns:
        A bool.
    """
    context = replicas.current()
    return context.strategy is not None and context.replica_id is None


def get_replica_context():
    """The replica the code runs in: inside ``strategy.run``, its ReplicaContext; in a scope outside ``run``,
    None (cross-replica context); outside every scope, the default strategy's one replica.

    Returns:
        A ReplicaContext, or None.
    """
    context = replicas.current()
    if context.strategy is None:
        return _DEFAULT_REPLICA
    if context.replica_id is None:
        return None
    return current_replica_context()


def experimental_set_strategy(strategy):
    """Enter ``strategy``'s scope for good (None: leave it), as TF's.

    Args:
        strategy: a Strategy, or None.
    """
    while _SET:
        _SET.pop().__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _SET.append(scope)


_SET = []
