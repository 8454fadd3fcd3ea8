"""Values that live on every replica: ``PerReplica`` (one value each) and ``Mirrored`` (all equal), and
how ``strategy.run`` hands them to each replica and regroups what the replicas return.
"""

from tapeviz.core import nest
from tapeviz.core.tensor import Variable

__all__ = [
    "DistributedValues",
    "PerReplica",
    "Mirrored",
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
    """The values of ``value`` per replica: a DistributedValues' values (a mirrored variable's copies), else ``(value,)``.

    Args:
        value: a value, or a nest of them (mapped over).

    Returns:
        A tuple (or, for a nest of distributed values, the nest's values regrouped per replica).
    """
    if isinstance(value, DistributedValues):
        return tuple(value.values)
    flat = nest.flatten(value)
    if not any(isinstance(v, DistributedValues) for v in flat):
        return (value,)
    count = max(len(v.values) for v in flat if isinstance(v, DistributedValues))
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
        if isinstance(value, DistributedValues) and not isinstance(value, Variable):  # a mirrored variable goes whole
            return value.values[index]
        return value

    if isinstance(structure, DistributedValues) and not isinstance(structure, Variable):
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
