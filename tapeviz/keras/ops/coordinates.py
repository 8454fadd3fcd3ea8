"""``keras.ops.image.map_coordinates``: read an array at fractional coordinates, as Keras's TF backend.

Order 0 rounds each coordinate (half to even), order 1 interpolates
linearly between its floor and ceil; each corner index is mapped into the
array by ``fill_mode`` ('constant' reads ``fill_value`` outside). The
coordinates are host values (no gradient in them); the array is read with
``gather_nd``, so the result is differentiable in the array.
"""

import functools
import itertools
import operator

import numpy as np

from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.primitives.math import where as _where
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import keras_op, tensor

__all__ = ["map_coordinates", "FILL_MODES"]

FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _corners(coordinate, order):
    """[(integer index, weight)] for one axis: the nearest point, or the floor and ceil with linear weights."""
    if order == 0:
        return [(np.round(coordinate).astype(np.int32), np.ones_like(coordinate))]
    lower = np.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def _inside(index, size, fill_mode):
    """(index mapped into [0, size), whether it was inside for 'constant'), as Keras's process_coordinates."""
    if fill_mode == "constant":
        return np.clip(index, 0, size - 1), (index >= 0) & (index < size)
    valid = np.ones(index.shape, bool)
    if fill_mode == "nearest":
        return np.clip(index, 0, size - 1), valid
    if fill_mode == "wrap":
        return np.mod(index, size), valid
    index = np.abs(index)
    folded = np.mod(index, 2 * size)
    under = folded < size
    index = np.where(under, folded, 2 * size - folded)
    if fill_mode == "reflect":
        index = np.where(under, index, index - 1)
    return index, valid


@keras_op("map_coordinates")
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0.0):
    """The values of ``inputs`` at ``coordinates`` (one array of positions per axis of ``inputs``).

    Args:
        inputs: the array to read (any rank).
        coordinates: an array of shape (rank of inputs, ...): the position to read along each axis.
        order: 0 (nearest) or 1 (linear).
        fill_mode: 'constant', 'nearest', 'wrap', 'mirror' or 'reflect' (positions outside the array).
        fill_value: what 'constant' reads outside.

    Returns:
        A tensor of shape ``coordinates.shape[1:]`` and the inputs' dtype.

    Raises:
        ValueError: coordinates whose first dimension is not the inputs' rank, of rank below 2, or an unknown
            fill mode.
        NotImplementedError: an order above 1.
    """
    inputs = tensor(inputs)
    coords = np.asarray(coordinates.numpy() if hasattr(coordinates, "numpy") else coordinates)
    if coords.shape[0] != len(inputs.shape):
        raise ValueError(
            "First dim of `coordinates` must be the same as the rank of `inputs`. "
            f"Received inputs with shape: {tuple(inputs.shape)} and coordinate leading dim of {coords.shape[0]}"
        )
    if coords.ndim < 2:
        raise ValueError(
            f"Invalid coordinates rank: expected at least rank 2. Received input with shape: {coords.shape}"
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected one of {set(FILL_MODES)}. Received: fill_mode={fill_mode}"
        )
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    if not np.issubdtype(coords.dtype, np.floating):
        coords = coords.astype(np.float32)
    per_axis = [
        [(*_inside(index, size, fill_mode), weight) for index, weight in _corners(c, order)]
        for c, size in zip(coords, inputs.shape)
    ]
    work = coords.dtype
    values = inputs if np.dtype(work) == np.dtype(inputs.dtype.as_numpy_dtype) else _cast(inputs, work.name)
    fill = _constant(np.asarray(fill_value, work))
    terms = []
    for corner in itertools.product(*per_axis):
        indices, valid, weights = zip(*corner)
        read = _pa.gather_nd(values, _constant(np.stack(indices, axis=-1).astype(np.int32)))
        if fill_mode == "constant":
            read = _where(_constant(np.logical_and.reduce(valid)), read, fill)
        terms.append(_constant(functools.reduce(operator.mul, weights).astype(work)) * read)
    result = functools.reduce(operator.add, terms)
    if inputs.dtype.is_integer:
        from tapeviz.core.primitives.math import round as _round

        result = _round(result)
    return result if result.dtype == inputs.dtype else _cast(result, inputs.dtype)
