"""Names about the Python host rather than tensors: ``tf.get_logger`` and ``tf.timestamp``."""

import logging as _logging
import time as _time

from tapeviz.core import dtypes as _dtypes
from tapeviz.core.tensor import constant as _constant
from tapeviz.core.tracing import host_call as _host_call

__all__ = ["get_logger", "timestamp"]


def get_logger():
    """The ``logging.Logger`` named ``"tensorflow"``, as TF's: ``tf.get_logger().setLevel("ERROR")`` works.

    tapeviz itself logs nothing there; code that configures TF's logger runs unchanged.

    Returns:
        A ``logging.Logger``.
    """
    return _logging.getLogger("tensorflow")


@_host_call("timestamp", stateful=True)
def timestamp(name=None):
    """Seconds since the epoch as a float64 scalar tensor, read on every call (also inside ``tf.function``).

    Args:
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A float64 scalar Tensor.
    """
    return _constant(_time.time(), dtype=_dtypes.float64)
