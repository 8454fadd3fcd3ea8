"""The loss helpers of a distributed training loop: ``tf.nn.compute_average_loss`` and
``tf.nn.scale_regularization_loss`` (TF keeps them in ``tf.nn``; they read the strategy).

In a replica, a loss averaged over the replica's own batch would be summed
over the replicas by the optimizer's step: these divide by the global batch
(or the replica count) instead, so the sum is the mean over the global batch.
"""

from tapeviz.core import replicas
from tapeviz.core.primitives.array import broadcast_to
from tapeviz.core.primitives.math import cast, divide_no_nan, reduce_sum
from tapeviz.core.tensor import convert_to_tensor
from tapeviz.distribute.strategy import get_strategy

__all__ = ["compute_average_loss", "scale_regularization_loss"]


def _in_cross_replica_context():
    context = replicas.current()
    return context.strategy is not None and context.replica_id is None


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of ``per_example_loss`` (times ``sample_weight``) divided by the global batch size.

    The global batch size defaults to this replica's batch (the first
    dimension) times the number of replicas in sync; 0 gives 0, as TF's.

    Args:
        per_example_loss: the losses of this replica's examples (rank 1 or more).
        sample_weight: weights broadcast to the losses' shape, or None.
        global_batch_size: the batch size over all replicas (an int), or None.

    Returns:
        A scalar Tensor of the losses' dtype.

    Raises:
        ValueError: a scalar ``per_example_loss``, or a ``global_batch_size`` that is not a non-negative integer.
        RuntimeError: called in cross-replica context (a strategy's scope, outside ``run``) without
            ``global_batch_size``.

    Example:
        >>> import tapeviz as tf
        >>> float(tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0]), global_batch_size=6))
        1.0
    """
    losses = convert_to_tensor(per_example_loss)
    dtype = losses.dtype
    if len(losses.shape) == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
            f"Received per_example_loss={losses} with rank 0"
        )
    if sample_weight is not None:
        weights = cast(convert_to_tensor(sample_weight), dtype)
        losses = losses * broadcast_to(weights, losses.shape)
    if global_batch_size is None:
        if _in_cross_replica_context():
            raise RuntimeError(
                "You are calling `compute_average_loss` in cross replica context, while it was expected to be "
                "called in replica context."
            )
        global_batch_size = int(losses.shape[0]) * get_strategy().num_replicas_in_sync
    size = convert_to_tensor(global_batch_size)
    if len(size.shape) != 0 or not size.dtype.is_integer or int(size.numpy()) < 0:
        raise ValueError(f"global_batch_size must be a non-negative scalar integer, got {global_batch_size!r}.")
    return divide_no_nan(reduce_sum(losses), cast(size, dtype))


def scale_regularization_loss(regularization_loss):
    """The sum of ``regularization_loss`` divided by the number of replicas in sync.

    Summed over the replicas by the optimizer's step, the regularization then counts once.

    Args:
        regularization_loss: the model's regularization losses (a tensor, or a list of them summed first).

    Returns:
        A scalar Tensor.

    Raises:
        RuntimeError: called in cross-replica context (a strategy's scope, outside ``run``).
    """
    if _in_cross_replica_context():
        raise RuntimeError(
            "You are calling `scale_regularization_loss` in cross replica context, while it was expected to be "
            "called in replica context."
        )
    total = reduce_sum(convert_to_tensor(regularization_loss))
    return total / cast(convert_to_tensor(get_strategy().num_replicas_in_sync), total.dtype)
