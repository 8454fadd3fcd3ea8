"""Batches as Keras 3 hands them around: (x, y, sample_weight) packed and unpacked, rows counted and taken."""

import numpy as np

from tapeviz import backend as B
from tapeviz.core import nest
from tapeviz.core.tensor import is_tensor, to_array


def num_examples(data):
    """How many examples ``data`` (an array, tensor, or a list/dict of them) holds."""
    return int(nest.flatten(data)[0].shape[0])


def to_host(data):
    """Arrays and tensors as host NumPy arrays (in the same structure)."""
    return nest.map_structure(lambda a: B.to_numpy(to_array(a)) if is_tensor(a) else np.asarray(a), data)


def take_rows(data, rows):
    return nest.map_structure(lambda a: a[rows], data)


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """A batch as Keras 3 hands it to ``train_step``: x alone, (x, y), or (x, y, sample_weight)."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(batch):
    """(x, y, sample_weight) from a batch that is x, (x,), (x, y) or (x, y, sample_weight)."""
    if isinstance(batch, tuple):
        if len(batch) == 1:
            return batch[0], None, None
        if len(batch) == 2:
            return batch[0], batch[1], None
        return batch[0], batch[1], batch[2]
    return batch, None, None
