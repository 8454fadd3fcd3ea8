"""``MirroredVariable``: what ``tf.Variable(...)`` makes inside a ``MirroredStrategy`` scope.

One plain Variable per replica (``values``), named as TF names them (``x:0``,
``x/replica_1:0``...). Read in a replica of its strategy, it is that
replica's copy; read anywhere else, the first one. Written outside the
replicas, every copy takes the value; written by the replicas (``assign*``
in ``strategy.run``), their values are combined by the variable's
``aggregation`` (SUM, MEAN, ONLY_FIRST_REPLICA) and the result written once to
every copy, as TF does (TF's ``merge_call``), so the copies stay equal. With
aggregation NONE each replica writes its own copy, as TF 2.21 does.

Made in a replica (inside ``strategy.run``), as TF: replica 0 makes it, and
each other replica's n-th ``tf.Variable(...)`` is replica 0's n-th variable
(so a ``Generator`` made in a replica has one mirrored state).
"""

import numpy as np

from tapeviz import backend
from tapeviz.core import replicas
from tapeviz.core import state as _state
from tapeviz.core.tensor import Variable, to_array
from tapeviz.core.variable_policies import VariableAggregation
from tapeviz.distribute.replica_context import current_replica_context
from tapeviz.distribute.values import DistributedValues, local_results

__all__ = ["MirroredVariable"]


class MirroredVariable(Variable, DistributedValues):
    """``tf.Variable`` made inside a ``MirroredStrategy`` scope: a copy per replica, kept equal (see the module).

    Constructed as ``tf.Variable`` (same arguments); the strategy is the one
    whose scope (or replica) is active.

    Args:
        initial_value: the first value, as ``tf.Variable`` takes it.
        *args: the rest of ``tf.Variable``'s arguments.
        **kwargs: the rest of ``tf.Variable``'s arguments.

    Raises:
        ValueError: a replica making more variables than replica 0 made.
    """

    def __new__(cls, *args, **kwargs):
        context = current_replica_context()
        if context is not None and context.replica_index > 0:
            return context.made_by_first_replica()  # __init__ sees it made and returns
        return super().__new__(cls)

    def __init__(self, initial_value, *args, **kwargs):
        if self.__dict__.get("_components") is not None:
            return  # replica 0's variable, handed to another replica
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
        replica = current_replica_context()
        if replica is not None:
            replica.note_made(self)

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
    def values(self):
        """The copies, one plain Variable per replica (TF's ``values``)."""
        return tuple(self._components)

    @property
    def distribute_strategy(self):
        """The strategy whose scope made this variable."""
        return self._strategy

    # -- writes by the replicas: combined, then written once to every copy -------------
    def _merged(self, method, value, read_value):
        index = self._replica()
        aggregation = self.aggregation
        if index is None or aggregation == VariableAggregation.NONE or replicas.updating_locally():
            # Outside the replicas: every copy. With aggregation NONE, TF 2.21 writes each replica's own copy.
            return getattr(super(), method)(value, read_value=read_value)

        def combine(strategy, values):
            locals_ = [np.asarray(backend.to_numpy(to_array(v))) for v in local_results(values)]
            if len(locals_) == 1:  # every replica wrote the very same object
                locals_ = locals_ * len(self._components)
            if aggregation == VariableAggregation.SUM:
                merged = np.sum(locals_, axis=0)
            elif aggregation == VariableAggregation.MEAN:
                merged = np.mean(locals_, axis=0)
            else:  # ONLY_FIRST_REPLICA
                merged = locals_[0]
            getattr(Variable, method)(self, merged.astype(self.dtype.as_numpy_dtype), read_value=False)

        current_replica_context().merge_call(combine, args=(value,))
        return self if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Write ``value``; by the replicas, combined by ``aggregation`` first (see the module).

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
