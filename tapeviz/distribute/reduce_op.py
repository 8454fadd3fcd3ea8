"""``tf.distribute.ReduceOp``: how values from the replicas are combined (``SUM`` or ``MEAN``)."""

import enum

__all__ = ["ReduceOp", "as_reduce_op"]


class ReduceOp(enum.Enum):
    """How ``Strategy.reduce`` and ``ReplicaContext.all_reduce`` combine the replicas' values: ``SUM`` or ``MEAN``."""

    SUM = "SUM"
    MEAN = "MEAN"

    def __str__(self):
        return f"ReduceOp.{self.name}"


def as_reduce_op(reduce_op):
    """``reduce_op`` (a ReduceOp or its name, ``"SUM"``/``"MEAN"``) as a ReduceOp.

    Args:
        reduce_op: a ReduceOp or a string.

    Returns:
        A ReduceOp.

    Raises:
        ValueError: anything else.
    """
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return ReduceOp[reduce_op.upper()]
    raise ValueError(
        f"reduce_op must be tf.distribute.ReduceOp.SUM or ReduceOp.MEAN (or 'SUM'/'MEAN'), got {reduce_op!r}."
    )
