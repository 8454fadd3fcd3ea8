"""Values that live on every replica: ``PerReplica`` (one value each), ``Mirrored`` and ``MirroredVariable``.

A ``MirroredVariable`` is what ``tf.Variable(...)`` makes inside a
``MirroredStrategy`` scope: one plain Variable per replica (``values``), named
as TF names them (``x:0``, ``x/replica_1:0``...). Read in a replica of its
strategy, it is that replica's copy; read anywhere else, the first one.
Written outside the replicas, every copy takes the value; written by the
replicas (``assign*`` in ``strategy.run``), their values are combined by the
variable's ``aggregation`` and the result written once to every copy, as TF
does (TF's ``merge_call``). So the copies stay equal: one value kept in sync.
"""

import numpy as np

from tapeviz import backend
from tapeviz.core import nest, replicas
from tapeviz.core import state as _state
from tapeviz.core.tensor import Variable, to_array
from tapeviz.core.variable_policies import VariableAggregation

__all__ = [
    "DistributedValues",
    "PerReplica",
    "Mirrored",
    "MirroredVariable",
    "regroup",
    "select_replica",
    "local_results",
]


class DistributedValues:
    """Values, one per replica, as ``strategy.run`` returns them (``tf.distribute.DistributedValues``).

    Args:
        values: the replicas' values, in replica order.
    """

    _kind = "DistributedValues"

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The replicas' values, as a tuple in replica order (``strategy.experimental_local_results`` gives it too)."""
        return self._values

    def _show(self, show):
        rows = ",\n".join(f"  {i}: {show(v)}" for i, v in enumerate(self._values))
        return f"{self._kind}:{{\n{rows}\n}}"

    def __str__(self):
        return self._show(str)

    def __repr__(self):
        return self._show(repr)


class PerReplica(DistributedValues):
    """One value per replica, possibly different (what ``strategy.run`` returns, and what a distributed
    dataset yields); printed as TF prints it, ``PerReplica:{ 0: ..., 1: ... }``.

    Args:
        values: the replicas' values, in replica order.
    """

    _kind = "PerReplica"


class Mirrored(DistributedValues):
    """One value per replica, all equal (TF's ``Mirrored``).

    Args:
        values: the replicas' values, in replica order.
    """

    _kind = "Mirrored"


def local_results(value):
    """The values of ``value`` per replica: a DistributedValues' or MirroredVariable's values, else ``(value,)``.

    Args:
        value: a value, or a nest of them (mapped over).

    Returns:
        A tuple (or, for a nest of distributed values, the nest's values regrouped per replica).
    """
    if isinstance(value, (DistributedValues, MirroredVariable)):
        return tuple(value.values)
    flat = nest.flatten(value)
    if not any(isinstance(v, (DistributedValues, MirroredVariable)) for v in flat):
        return (value,)
    count = max(len(v.values) for v in flat if isinstance(v, (DistributedValues, MirroredVariable)))
    return tuple(select_replica(i, value) for i in range(count))


def select_replica(index, structure):
    """``structure`` with each distributed value replaced by replica ``index``'s value (what ``run`` passes on).

    Args:
        index: the replica.
        structure: a value or nest.

    Returns:
        The same nest, with local values.
    """

    def pick(value):
        if isinstance(value, DistributedValues):
            return value.values[index]
        return value

    if isinstance(structure, DistributedValues):
        return pick(structure)
    return nest.map_structure(pick, structure)


def regroup(results):
    """The replicas' results (one nest each) as one nest of PerReplica values, as TF's ``regroup``.

    A leaf that is the very same object on every replica (a Python number, a
    mirrored variable) stays itself. With one replica, its result as it is.

    Args:
        results: a list of nests, in replica order.

    Returns:
        A nest like each result.
    """
    if len(results) == 1:
        return results[0]
    flats = [nest.flatten(r) for r in results]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError(
            "The replicas returned values of different structures; each replica must return the same nest."
        )
    leaves = []
    for column in zip(*flats):
        same = all(v is column[0] for v in column)
        leaves.append(column[0] if same else PerReplica(column))
    return nest.pack_sequence_as(results[0], leaves)


class MirroredVariable(Variable):
    """``tf.Variable`` made inside a ``MirroredStrategy`` scope: a copy per replica, kept equal (see the module).

    Constructed as ``tf.Variable`` (same arguments); the strategy is the one
    whose scope is active.

    Args:
        initial_value: the first value, as ``tf.Variable`` takes it.
        *args: the rest of ``tf.Variable``'s arguments.
        **kwargs: the rest of ``tf.Variable``'s arguments.

    Raises:
        ValueError: ``assign*`` by the replicas with ``aggregation=NONE`` and different values.
    """

    def __init__(self, initial_value, *args, **kwargs):
        context = replicas.current()
        self._strategy = context.strategy
        self._components = None
        super().__init__(initial_value, *args, **kwargs)
        first = self.__dict__.pop("_first")
        base = self.name[: -len(":0")] if self.name.endswith(":0") else self.name
        saved_scopes = _state.local.scopes
        _state.local.scopes = []  # the names are whole already
        try:
            with replicas.entered_scope(self._strategy, None):  # the copies are plain Variables
                self._components = [
                    Variable(first, trainable=self.trainable, name=base if i == 0 else f"{base}/replica_{i}")
                    for i in range(self._strategy.num_replicas_in_sync)
                ]
        finally:
            _state.local.scopes = saved_scopes

    # -- which copy --------------------------------------------------------------------
    def _replica(self):
        """The running replica of this variable's strategy, or None."""
        context = replicas.current()
        if context.strategy is self._strategy and context.replica_id is not None:
            return context.replica_id
        return None

    @property
    def _value(self):
        components = self.__dict__["_components"]
        if components is None:
            return self.__dict__["_first"]
        index = self._replica()
        if index is None:
            # A view: an update made in place (an optimizer's) would change the first copy only.
            return to_array(components[0]).view() if len(components) > 1 else to_array(components[0])
        return to_array(components[index])

    @_value.setter
    def _value(self, array):
        components = self.__dict__.get("_components")
        if components is None:
            self.__dict__["_first"] = array
            return
        index = self._replica()
        targets = components if index is None else [components[index]]
        for component in targets:
            component.assign(array, read_value=False)

    @property
    def distribute_strategy(self):
        """The strategy whose scope made this variable."""
        return self._strategy

    @property
    def values(self):
        """The copies, one plain Variable per replica (TF's ``values``)."""
        return tuple(self._components)

    # -- writes by the replicas: combined, then written once to every copy -------------
    def _merged(self, method, value, read_value):
        index = self._replica()
        if index is None or len(self._components) == 1 or replicas.updating_locally():
            return getattr(super(), method)(value, read_value=read_value)
        from tapeviz.distribute.replica_context import current_replica_context  # noqa: PLC0415 - same floor, loads after

        aggregation = self.aggregation

        def combine(strategy, values):
            locals_ = [np.asarray(backend.to_numpy(to_array(v))) for v in local_results(values)]
            if len(locals_) == 1:  # every replica wrote the very same object
                locals_ = locals_ * len(self._components)
            if aggregation == VariableAggregation.SUM:
                merged = np.sum(locals_, axis=0)
            elif aggregation == VariableAggregation.MEAN:
                merged = np.mean(locals_, axis=0)
            elif aggregation == VariableAggregation.ONLY_FIRST_REPLICA or all(
                np.array_equal(v, locals_[0]) for v in locals_
            ):
                merged = locals_[0]
            else:
                raise ValueError(
                    "You must specify an aggregation method to update a MirroredVariable in Replica Context "
                    "(the replicas wrote different values). Pass aggregation=tf.VariableAggregation.SUM (or MEAN, "
                    "ONLY_FIRST_REPLICA) to tf.Variable."
                )
            getattr(Variable, method)(self, merged.astype(self.dtype.as_numpy_dtype), read_value=False)

        current_replica_context().merge_call(combine, args=(value,))
        return self if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Write ``value``; by the replicas, combined by ``aggregation`` first (see the class).

        Args:
            value: the new value.
            use_locking, name: accepted for TensorFlow compatibility.
            read_value: return the variable (True) or None.

        Returns:
            The variable, or None.
        """
        return self._merged("assign", value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta``; by the replicas, their deltas combined by ``aggregation`` first.

        Args:
            delta: what to add.
            use_locking, name: accepted for TensorFlow compatibility.
            read_value: return the variable (True) or None.

        Returns:
            The variable, or None.
        """
        return self._merged("assign_add", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta``; by the replicas, their deltas combined by ``aggregation`` first.

        Args:
            delta: what to subtract.
            use_locking, name: accepted for TensorFlow compatibility.
            read_value: return the variable (True) or None.

        Returns:
            The variable, or None.
        """
        return self._merged("assign_sub", delta, read_value)

    def _show(self, show):
        rows = ",\n".join(f"  {i}: {show(v)}" for i, v in enumerate(self._components))
        return f"MirroredVariable:{{\n{rows}\n}}"

    def __str__(self):
        return self._show(repr)

    def __repr__(self):
        return self._show(repr)
