"""TF's enums for how a variable is shared across replicas, and how gradients are summed.

tapeviz runs on one device, so each is accepted, kept on the variable and
reported back, and changes nothing: ``tf.Variable(..., aggregation=...)``
and ``tf.gradients``-era ``aggregation_method=`` code runs unchanged.
"""

import enum

__all__ = ["AggregationMethod", "VariableAggregation", "VariableSynchronization"]


class VariableAggregation(enum.Enum):
    """How a distributed variable combines its replicas' updates (``tf.VariableAggregation``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (``tf.VariableSynchronization``)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class AggregationMethod:
    """How graph-mode gradients add up the contributions to one tensor (``tf.AggregationMethod``)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2
