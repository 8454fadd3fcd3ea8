"""Argument checks the array ops share: shapes, axes, int lists and indices, TF's error for a bad argument."""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor
from tapeviz.core.tensor import host_value


def shape_arg(shape):
    """A shape given as a list, tuple, TensorShape or int tensor, as a tuple of ints."""
    if hasattr(shape, "_value"):
        shape = np.asarray(B.to_numpy(shape._value)).tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


# -- helpers for argument checking ---------------------------------------------------------


def invalid_argument(message, op):
    """TF's error for bad arguments, naming the op as TF's eager messages do."""
    return InvalidArgumentError(f"{message} [Op:{op}]", op)


def axis_index(axis, rank, op, extra=0):
    """``axis`` (an int or scalar int tensor) as a non-negative int in [0, rank + extra)."""
    axis = int(host_value(axis, f"{op}'s axis")) if hasattr(axis, "_value") else int(axis)
    size = rank + extra
    if not -size <= axis < size:
        raise invalid_argument(f"axis {axis} is out of range [{-size}, {size}) for a tensor of rank {rank}.", op)
    return axis % size


def int_list(values, what="a list of ints an op takes"):
    """A list/tuple/int tensor of ints as a Python list of ints (``what``: how the op uses it, should a
    trace have to say why it cannot keep it)."""
    if hasattr(values, "_value"):
        values = np.asarray(B.to_numpy(host_value(values, what))).tolist()
    if isinstance(values, (int, np.integer)):
        return [int(values)]
    return [int(v) for v in values]


def int_indices(indices, op):
    """``indices`` as an int32/int64 tensor; TF refuses float or bool indices."""
    indices = as_tensor(indices)
    if not indices.dtype.is_integer:
        raise TypeError(
            f"{op}: indices must be int32 or int64, got {indices.dtype.name}. "
            "Cast them first: tf.cast(indices, tf.int32)."
        )
    return indices


def host_array(array):
    """A backend array as a NumPy array on the host (for values the ops read in Python)."""
    return np.asarray(B.to_numpy(array))
