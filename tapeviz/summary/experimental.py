"""``tf.summary.experimental``: the default step summaries are written at (``get_step`` / ``set_step``)."""

import threading

__all__ = ["get_step", "set_step"]

_local = threading.local()  # per thread, as TF's


def get_step():
    """The default step: what ``set_step`` (or a writer's ``as_default(step)``) set, else None.

    Returns:
        An int, a tensor or variable (read when a summary is written), or None.
    """
    return getattr(_local, "step", None)


def set_step(step):
    """Set the step summaries without a ``step`` argument are written at.

    Args:
        step: an int, or an int tensor or variable (``optimizer.iterations``), read at each write; None unsets it.
    """
    _local.step = step
