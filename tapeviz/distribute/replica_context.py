"""``tf.distribute.ReplicaContext``: what code running in one replica of ``strategy.run`` can ask and do."""

import threading
from contextlib import contextmanager

import numpy as np

from tapeviz.core import nest, replicas
from tapeviz.core.primitives.math import add_n, identity
from tapeviz.core.tensor import convert_to_tensor
from tapeviz.distribute.reduce_op import ReduceOp, as_reduce_op
from tapeviz.distribute.values import DistributedValues, regroup

__all__ = [
    "ReplicaContext",
    "current_replica_context",
    "entered_replica",
    "reduce_values",
    "sum_per_replica",
    "synchronizing_replica",
]


class ReplicaContext:
    """One replica of a running ``strategy.run`` (``tf.distribute.get_replica_context()`` inside it).

    Args:
        strategy: the strategy.
        replica_id_in_sync_group: this replica's index.
        turns: the ``Turns`` the replicas of this run take (None with one replica).
        made: the list, shared by the replicas of one run, of the variables replica 0 made.
    """

    def __init__(self, strategy, replica_id_in_sync_group, turns=None, made=None):
        self._strategy = strategy
        self._replica_id = int(replica_id_in_sync_group)
        self._turns = turns
        self._made = [] if made is None else made  # the variables replica 0 made in this run, shared
        self._taken = 0

    def note_made(self, variable):
        """Replica 0 made ``variable`` (the other replicas' matching ``tf.Variable`` calls get it).

        Args:
            variable: the new variable.
        """
        if self._replica_id == 0:
            self._made.append(variable)

    def made_by_first_replica(self):
        """The variable replica 0 made at this replica's next ``tf.Variable(...)`` call (TF's rule).

        Returns:
            A variable.

        Raises:
            ValueError: more variables than replica 0 made.
        """
        if self._taken >= len(self._made):
            raise ValueError(
                f"Replica {self._replica_id} makes more variables than replica 0 made in this strategy.run: "
                "every replica must make the same variables, in the same order."
            )
        self._taken += 1
        return self._made[self._taken - 1]

    @property
    def strategy(self):
        """The strategy this replica belongs to."""
        return self._strategy

    @property
    def replica_index(self):
        """This replica's index, as a Python int."""
        return self._replica_id

    @property
    def num_replicas_in_sync(self):
        """How many replicas run together (an int)."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index, as an int32 scalar tensor (as TF's)."""
        return convert_to_tensor(self._replica_id)

    @property
    def devices(self):
        """The device this replica runs on, as a one-name tuple."""
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def _sync(self, value, combine):
        if self._turns is None:
            return combine([value])
        return self._turns.sync(self._replica_id, value, combine)

    def all_reduce(self, reduce_op, value, options=None):
        """Combine ``value`` (a tensor or nest) over all replicas; every replica gets the result.

        Args:
            reduce_op: ``tf.distribute.ReduceOp.SUM`` or ``MEAN`` (or its name).
            value: this replica's value (a tensor or a nest of them).
            options: TF's communication options; accepted, unused.

        Returns:
            The combined value, the same nest.

        Raises:
            ValueError: an unknown ``reduce_op``.
        """
        reduce_op = as_reduce_op(reduce_op)

        def combine(values):
            flats = [nest.flatten(v) for v in values]
            leaves = [reduce_values(reduce_op, list(column)) for column in zip(*flats)]
            return nest.pack_sequence_as(values[0], leaves)

        combined = self._sync(value, combine)
        return nest.map_structure(identity, combined)  # each replica its own tensor, as each device its own copy

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Run ``merge_fn(strategy, *args, **kwargs)`` once for all replicas, in cross-replica context.

        Each argument reaches ``merge_fn`` as the replicas' values (a
        ``PerReplica``, or the value itself when every replica passed the very
        same object); every replica gets ``merge_fn``'s result.

        Args:
            merge_fn: a function of the strategy and the regrouped arguments.
            args: this replica's positional arguments.
            kwargs: this replica's keyword arguments.

        Returns:
            What ``merge_fn`` returned.
        """
        kwargs = dict(kwargs or {})
        strategy = self._strategy

        def combine(values):
            merged_args, merged_kwargs = regroup(values) if len(values) > 1 else values[0]
            with replicas.entered_scope(strategy, strategy.extended.variable_class):  # cross-replica context
                return merge_fn(strategy, *merged_args, **merged_kwargs)

        return self._sync((tuple(args), kwargs), combine)

    def __repr__(self):
        return f"<tf.distribute.ReplicaContext replica {self._replica_id} of {self.num_replicas_in_sync}>"


def reduce_values(reduce_op, values):
    """The replicas' ``values`` (one tensor each) summed, or averaged.

    Args:
        reduce_op: a ReduceOp.
        values: a list of tensors (or numbers) of one shape.

    Returns:
        A Tensor.
    """
    tensors = [convert_to_tensor(v) for v in values]
    total = tensors[0] if len(tensors) == 1 else add_n(tensors)
    if reduce_op is ReduceOp.MEAN:
        count = convert_to_tensor(len(tensors), dtype=total.dtype) if total.dtype.is_floating else len(tensors)
        return total / count if total.dtype.is_floating else convert_to_tensor(np.asarray(total.numpy() // count))
    return total


class _Local(threading.local):
    def __init__(self):
        self.stack = []


_local = _Local()


def sum_per_replica(value):
    """The replicas' values of ``value`` summed (a ``PerReplica``), or ``value`` itself (None, or the same
    object on every replica).

    Args:
        value: a PerReplica, None, or a plain value.

    Returns:
        A Tensor, or ``value``.
    """
    if isinstance(value, DistributedValues):
        return reduce_values(ReduceOp.SUM, [convert_to_tensor(v) for v in value.values])
    return value


def synchronizing_replica():
    """The ReplicaContext of this thread when it is one of several replicas running together, else None.

    What an optimizer asks before its step: in such a replica, the step waits for the others
    (``merge_call``) and is applied once, with the replicas' gradients summed, as TF's.

    Returns:
        A ReplicaContext, or None.
    """
    context = current_replica_context()
    return context if context is not None and context.num_replicas_in_sync > 1 else None


def current_replica_context():
    """The ReplicaContext of the replica running in this thread, or None.

    Returns:
        A ReplicaContext, or None.
    """
    context = replicas.current()
    if context.replica_id is None or not _local.stack:
        return None
    return _local.stack[-1]


@contextmanager
def entered_replica(context):
    """A ``with`` block run as replica ``context`` (both the core's and this package's view of it).

    Args:
        context: a ReplicaContext.

    Yields:
        The ReplicaContext.
    """
    _local.stack.append(context)
    try:
        with replicas.enter_replica(context.strategy, context.replica_index, context.strategy.extended.variable_class):
            yield context
    finally:
        _local.stack.pop()
