"""TF's array constructors and reorderings that are compositions of primitives:
``linspace``, ``meshgrid``, ``sort``, ``argsort``, ``boolean_mask``.

Each is written the way TF writes it (linspace as start + delta * range,
sort as top_k, boolean_mask as a gather), so values, dtypes and gradients
agree with TF's, and the visualizer shows the same steps in a name scope.
The scatter and search primitives they sit beside are re-exported here.
"""

import numpy as _np

from tapeviz.core import dtypes as _dtypes
from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.ops import same_dtype as _same_dtype
from tapeviz.core.primitives.array import (
    broadcast_to as _broadcast_to,
)
from tapeviz.core.primitives.array import (
    concat as _concat,
)
from tapeviz.core.primitives.array import (
    expand_dims as _expand_dims,
)
from tapeviz.core.primitives.array import (
    gather as _gather,
)
from tapeviz.core.primitives.array import (
    reshape as _reshape,
)
from tapeviz.core.primitives.array import (
    slice_tensor as _slice_tensor,
)
from tapeviz.core.primitives.array import (
    transpose as _transpose,
)
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.primitives.math import truediv as _truediv
from tapeviz.core.primitives.math import where as _where
from tapeviz.core.primitives.scatter import (  # noqa: F401
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)
from tapeviz.core.primitives.sorting import arg_sort as _arg_sort
from tapeviz.core.primitives.sorting import searchsorted, top_k  # noqa: F401
from tapeviz.core.scopes import name_scope as _name_scope
from tapeviz.core.tensor import is_tensor as _is_tensor
from tapeviz.core.tensor import to_array as _to_array

__all__ = [
    "strided_slice",
    "linspace",
    "meshgrid",
    "sort",
    "argsort",
    "boolean_mask",
    "searchsorted",
    "scatter_nd",
    "tensor_scatter_nd_update",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
]


def _axis(axis, rank, what):
    axis = int(_to_array(axis)) if _is_tensor(axis) else int(axis)
    if not -rank <= axis < rank:
        raise _InvalidArgumentError(f"{what}: axis {axis} is out of range [{-rank}, {rank}).", what)
    return axis % rank


# -- linspace ----------------------------------------------------------------------------


def _count(num):
    """linspace's ``num`` as a Python int; TF refuses floats."""
    if _is_tensor(num):
        num = _as_tensor(num)
        if not num.dtype.is_integer:
            raise TypeError(
                f"Argument `tensor` (name: num) must be of type integer. Received `tensor` = "
                f"{num.numpy()} of dtype: {num.dtype.name}. Pass an int, e.g. num=5."
            )
        return int(_to_array(num))
    if isinstance(num, (bool, float, _np.floating)) or not isinstance(num, (int, _np.integer)):
        raise TypeError(
            f"Argument `tensor` (name: num) must be of type integer. Received `tensor` = {num!r}. "
            "Pass an int, e.g. num=5."
        )
    return int(num)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), as ``tf.linspace``.

    ``start`` and ``stop`` may be tensors of any broadcastable shapes: the
    values then run along a new axis ``axis`` of their broadcast shape.
    Integer inputs give float64 (TF's truediv). Differentiable in ``start``
    and ``stop``.

    Args:
        start: the first value (a number or tensor).
        stop: the last value, of a shape that broadcasts with ``start``'s.
        num: how many values, >= 0.
        name: TensorFlow's op name; accepted for compatibility, unused.
        axis: where the new axis of values goes.

    Returns:
        A Tensor with ``num`` values along ``axis``.

    Raises:
        tf.errors.InvalidArgumentError: a negative ``num``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.linspace(0.0, 1.0, 5))
        tf.Tensor([0.   0.25 0.5  0.75 1.  ], shape=(5,), dtype=float32)
    """
    start = _as_tensor(start)
    stop = _as_tensor(stop, dtype=start.dtype)
    n = _count(num)
    if n < 0:
        raise _InvalidArgumentError(f"linspace: num must be >= 0, got {n}. [Op:LinSpace]", "LinSpace")
    with _name_scope("linspace"):
        shape = _np.broadcast_shapes(_to_array(start).shape, _to_array(stop).shape)
        start, stop = _broadcast_to(start, shape), _broadcast_to(stop, shape)
        axis = _axis(axis, len(shape) + 1, "linspace")
        start, stop = _expand_dims(start, axis), _expand_dims(stop, axis)
        steps = max(n - 1, 1)  # never 0: num = 0 and 1 are sliced out at the end
        delta = _truediv(stop - start, _as_tensor(steps, dtype=start.dtype))
        start, stop = _cast(start, delta.dtype), _cast(stop, delta.dtype)
        ramp_shape = [1] * (len(shape) + 1)
        ramp_shape[axis] = steps - 1
        ramp = _as_tensor(_np.arange(1, steps).reshape(ramp_shape), dtype=delta.dtype)
        joined = _concat([start, start + delta * ramp, stop], axis=axis)
        if _to_array(joined).shape[axis] == n:
            return joined
        key = (slice(None),) * axis + (slice(0, n),)
        return _slice_tensor(joined, key)


# -- meshgrid ----------------------------------------------------------------------------


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors, as ``tf.meshgrid``.

    ``indexing='xy'`` (default, Cartesian: the first two axes swapped) or
    ``'ij'`` (matrix). Gradients sum over the broadcast axes.

    Args:
        *args: 1-D tensors, one per axis of the grid.
        **kwargs: ``indexing`` (``"xy"`` or ``"ij"``) and ``name``.

    Returns:
        A list of Tensors, one per input, each of the grid's shape.

    Raises:
        TypeError: a keyword other than ``indexing`` and ``name``.
        ValueError: an ``indexing`` other than ``"xy"`` and ``"ij"``.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    if not args:
        return []
    with _name_scope("meshgrid"):
        vectors = [_reshape(_as_tensor(x), [-1]) for x in args]
        _same_dtype(*vectors, op="meshgrid")
        ndim = len(vectors)
        sizes = [_to_array(v).shape[0] for v in vectors]
        positions = list(range(ndim))
        if indexing == "xy" and ndim > 1:
            positions[0], positions[1] = 1, 0
            sizes[0], sizes[1] = sizes[1], sizes[0]
        grids = []
        for v, position in zip(vectors, positions):
            view = [1] * ndim
            view[position] = -1
            grids.append(_broadcast_to(_reshape(v, view), sizes))
        return grids


# -- sort and argsort (top_k underneath, as in TF) -----------------------------------------


def _direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(
            f"Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction={direction}"
        )
    return direction == "ASCENDING"


def _sortable(values, axis):
    x = _as_tensor(values)
    if x.ndim < 1:
        raise _InvalidArgumentError(f"input must be >= 1-D, got shape {list(_to_array(x).shape)} [Op:TopKV2]", "TopKV2")
    if x.dtype == _dtypes.bool:
        raise TypeError("sort takes numbers, not bool: cast first, e.g. tf.cast(x, tf.int32).")
    return x, _axis(axis, x.ndim, "sort")


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``, as ``tf.sort``.

    Made of ``top_k`` (of ``-values`` for ascending) with ``axis`` swapped
    last, as TF does: the gradient goes back to where each value came from;
    equal values keep their order.

    Args:
        values: a Tensor, or anything ``tf.constant`` converts.
        axis: the axis to sort along (-1 by default).
        direction: ``"ASCENDING"`` or ``"DESCENDING"``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``values``'s shape, sorted along ``axis``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.sort([3, 1, 2], direction="DESCENDING"))
        tf.Tensor([3 2 1], shape=(3,), dtype=int32)
    """
    ascending = _direction(direction)
    x, axis = _sortable(values, axis)
    last = x.ndim - 1
    with _name_scope("sort"):
        perm = list(range(x.ndim))
        perm[axis], perm[last] = last, axis
        moved = x if axis == last else _transpose(x, perm)
        n = _to_array(moved).shape[-1]
        if x.dtype.is_floating:
            result = -top_k(-moved, k=n).values if ascending else top_k(moved, k=n).values
        else:  # -x overflows at the smallest integer; equal integers are alike, so reversed is ascending
            result = top_k(moved, k=n).values
            result = result[..., ::-1] if ascending else result
        return result if axis == last else _transpose(result, perm)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices (int32) that sort ``values`` along ``axis``, as ``tf.argsort``.

    Always stable: equal values keep their order, which is what TF's top_k
    gives too. Not differentiable (integer output).

    Args:
        values: a Tensor, or anything ``tf.constant`` converts.
        axis: the axis to sort along (-1 by default).
        direction: ``"ASCENDING"`` or ``"DESCENDING"``.
        stable: keep equal values in their order (always so here).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        An int32 Tensor of ``values``'s shape, the positions in sorted order.
    """
    ascending = _direction(direction)
    x, axis = _sortable(values, axis)
    return _arg_sort(x, axis, ascending)


# -- boolean_mask ----------------------------------------------------------------------------


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of ``tensor`` where ``mask`` is true, as ``tf.boolean_mask``.

    ``mask`` (rank k) covers ``tensor``'s axes ``axis`` .. ``axis + k - 1``;
    those axes become one axis holding the selected entries, in row-major
    order. Made of a reshape and a gather, so the gradient is dense and
    zero where the mask is false.

    Args:
        tensor: a Tensor, or anything ``tf.constant`` converts.
        mask: a bool tensor whose shape matches ``tensor``'s axes from ``axis`` on.
        axis: the first axis the mask covers (0 when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the masked axes replaced by one axis of the selected entries.

    Raises:
        ValueError: a scalar ``mask``, or one whose shape does not match.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.boolean_mask([1, 2, 3], [True, False, True]))
        tf.Tensor([1 3], shape=(2,), dtype=int32)
    """
    x = _as_tensor(tensor)
    m = _as_tensor(mask)
    k = m.ndim
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else _axis(axis, x.ndim, "boolean_mask")
    covered = tuple(_to_array(x).shape[axis : axis + k])
    if covered != tuple(_to_array(m).shape):
        raise ValueError(
            f"Shapes {covered} and {tuple(_to_array(m).shape)} are incompatible: the mask must have "
            f"the shape of the tensor's axes {axis}..{axis + k - 1}."
        )
    with _name_scope("boolean_mask"):
        shape = _to_array(x).shape
        flat = _reshape(x, shape[:axis] + (int(_np.prod(covered, dtype=_np.int64)),) + shape[axis + k :])
        positions = _reshape(_where(_reshape(m, [-1])), [-1])
        return _gather(flat, positions, axis=axis)


def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
):
    """``input_[begin:end:strides]`` per axis, with TF's bit masks (bit ``i`` is about entry ``i`` of ``begin``):
    ``begin_mask``/``end_mask`` ignore that bound, ``ellipsis_mask`` puts ``...`` there, ``new_axis_mask`` a
    new axis, ``shrink_axis_mask`` takes the single index ``begin[i]``. The same slice (and gradient) as ``x[...]``.

    Args:
        input_: a Tensor, or anything ``tf.constant`` converts.
        begin: the start per entry.
        end: the stop per entry (excluded).
        strides: the step per entry (1 when None).
        begin_mask: bits of the entries whose ``begin`` is ignored.
        end_mask: bits of the entries whose ``end`` is ignored.
        ellipsis_mask: the bit of the entry that stands for ``...``.
        new_axis_mask: bits of the entries that insert a new axis.
        shrink_axis_mask: bits of the entries that take the single index ``begin[i]``.
        var: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        The sliced Tensor.

    Raises:
        ValueError: ``begin``, ``end`` and ``strides`` of different lengths.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strided_slice(tf.constant([[1, 2, 3], [4, 5, 6]]), [0, 1], [2, 3]).numpy())
        [[2 3]
         [5 6]]
    """
    begin = [int(b) for b in _np.asarray(_to_array(_as_tensor(begin))).reshape(-1)]
    end = [int(e) for e in _np.asarray(_to_array(_as_tensor(end))).reshape(-1)]
    strides = [1] * len(begin) if strides is None else [int(s) for s in _np.asarray(_to_array(_as_tensor(strides)))]
    if not len(begin) == len(end) == len(strides):
        raise ValueError("begin, end and strides must have the same length")
    key = []
    for i, (b, e, step) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b)
        else:
            key.append(slice(None if begin_mask & bit else b, None if end_mask & bit else e, step))
    return _slice_tensor(_as_tensor(input_), tuple(key))
