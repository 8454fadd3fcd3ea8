"""``tf.train``: checkpoints (the implementation is :mod:`tapeviz.checkpoint`)."""

from tapeviz.checkpoint import (  # noqa: F401
    Checkpoint,
    CheckpointManager,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]
