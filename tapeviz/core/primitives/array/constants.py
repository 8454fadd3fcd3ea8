"""Constant-making ops: zeros, ones, fill, range, eye, one_hot.

Those made from sizes alone are plain constants. ``fill`` and ``one_hot`` read a
tensor's values, so they run as primitives: a trace keeps them and computes
them from each call's values (a constant would keep the first call's), and
``fill`` passes its value's gradient on, as TF's Fill.

This module defines ``tf.range``, which shadows Python's ``range`` here: code in
this module spells the builtin ``builtins.range``.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core import dtypes, string_array
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array import symbolic_shapes
from tapeviz.core.primitives.array.arguments import int_list, invalid_argument, shape_arg
from tapeviz.core.rules import defgrad, described
from tapeviz.core.tensor import Tensor

# -- constants from sizes: not recorded (no tape watches them) ---------------------------


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros.

    Args:
        shape: the shape, a list of ints or a 1-D int tensor.
        dtype: the dtype (float32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape`` and ``dtype``, all zeros.

    Example:
        >>> import tapeviz as tf
        >>> tf.zeros([2, 3])
        <tf.Tensor: shape=(2, 3), dtype=float32, numpy=
        array([[0., 0., 0.],
               [0., 0., 0.]], dtype=float32)>
    """
    if symbolic_shapes.is_symbolic(shape):
        return symbolic_shapes.broadcast_to(as_tensor(0, dtype=dtype), shape)
    return Tensor(B.xp.zeros(shape_arg(shape), dtype=dtypes.as_dtype(dtype).as_numpy_dtype))


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones.

    Args:
        shape: the shape, a list of ints or a 1-D int tensor.
        dtype: the dtype (float32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``shape`` and ``dtype``, all ones.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.ones([3], dtype=tf.int32))
        tf.Tensor([1 1 1], shape=(3,), dtype=int32)
    """
    if symbolic_shapes.is_symbolic(shape):
        return symbolic_shapes.broadcast_to(as_tensor(1, dtype=dtype), shape)
    return Tensor(B.xp.ones(shape_arg(shape), dtype=dtypes.as_dtype(dtype).as_numpy_dtype))


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (its dtype from ``value``).

    Args:
        dims: the shape, a list of ints or a 1-D int tensor.
        value: a scalar (number or rank-0 tensor).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``dims`` and ``value``'s dtype; a tape passes the upstream's sum to ``value``.

    Raises:
        tf.errors.InvalidArgumentError: ``value`` is not a scalar, or a size in ``dims`` is negative.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.fill([2], 7.0))
        tf.Tensor([7. 7.], shape=(2,), dtype=float32)
    """
    value = as_tensor(value)
    if value.ndim:
        raise invalid_argument(f"value must represent a scalar, got shape {list(value._value.shape)}", "Fill")
    if symbolic_shapes.is_symbolic(dims):  # sizes read from a traced input: the trace reads them per call
        return symbolic_shapes.broadcast_to(value, dims)
    shape = shape_arg(dims)
    for size in shape:
        if size < 0:
            raise invalid_argument(f"Dimension {size} must be >= 0", "Fill")
    if value._value.dtype.kind == "O":  # strings: a StringArray of the one value
        return Tensor(string_array.map_bytes(lambda _: value.numpy(), string_array.empty_strings(shape)))
    return execute(FILL, (value,), {"shape": shape})


FILL = Primitive("Fill", lambda value, shape: B.xp.full(shape, value, dtype=value.dtype))


@defgrad(FILL, "sum the upstream: every entry is the value", local=described("1 per entry: the upstream summed"))
def _fill_rule(op, needs, g):
    return (m.reduce_sum(g),)


def zeros_like(input, dtype=None, name=None):
    """Zeros with the shape (and dtype, unless given) of ``input``.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        dtype: the result's dtype (``input``'s when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of zeros of ``input``'s shape.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.zeros_like([[1, 2]]))
        tf.Tensor([[0 0]], shape=(1, 2), dtype=int32)
    """
    x = as_tensor(input)
    if symbolic_shapes.is_symbolic(x):
        return symbolic_shapes.like(x, dtype, ones=False)
    target = dtypes.as_dtype(dtype).as_numpy_dtype if dtype else x._value.dtype
    if target is np.object_ or (dtype is None and target.kind == "O"):  # TF's zeros of strings: empty strings
        return Tensor(string_array.empty_strings(x._value.shape))
    return Tensor(B.xp.zeros(x._value.shape, dtype=target))


def ones_like(input, dtype=None, name=None):
    """Ones with the shape (and dtype, unless given) of ``input``.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts.
        dtype: the result's dtype (``input``'s when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ones of ``input``'s shape.
    """
    x = as_tensor(input)
    if symbolic_shapes.is_symbolic(x):
        return symbolic_shapes.like(x, dtype, ones=True)
    return Tensor(B.xp.ones(x._value.shape, dtype=dtypes.as_dtype(dtype).as_numpy_dtype if dtype else x._value.dtype))


# -- constant-making ops that take shapes (not recorded) --------------------------------------


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """[start, start + delta, ...) up to ``limit`` (``range(n)`` counts 0..n-1).

    The dtype follows the arguments: int32 for Python ints, float32 when any
    is a float, or a tensor argument's dtype; ``dtype`` overrides it.

    Args:
        start: the first value; alone, the limit (counting from 0).
        limit: the end, excluded.
        delta: the step, not 0; negative counts down.
        dtype: the result's dtype, instead of the one the arguments give.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A 1-D Tensor.

    Raises:
        tf.errors.InvalidArgumentError: ``delta`` of 0, or a ``limit`` that
            ``delta`` moves away from.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.range(5))
        tf.Tensor([0 1 2 3 4], shape=(5,), dtype=int32)
        >>> print(tf.range(1.0, 2.0, 0.25))
        tf.Tensor([1.   1.25 1.5  1.75], shape=(4,), dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    values = [as_tensor(v) if hasattr(v, "_value") or isinstance(v, Tensor) else v for v in (start, limit, delta)]
    if dtype is None:
        dtype = _range_dtype(values)
    if symbolic_shapes.is_symbolic(*values):  # traced bounds: the count comes from each call
        return symbolic_shapes.range_(*values, dtype)
    target = dtypes.as_dtype(dtype).as_numpy_dtype
    start, limit, delta = (v.numpy().item() if hasattr(v, "numpy") else v for v in values)
    if delta == 0:
        raise invalid_argument("Requires delta != 0: 0", "Range")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise invalid_argument(
            f"Requires start <= limit when delta > 0: {start}/{limit} (or start >= limit when delta < 0).", "Range"
        )
    return Tensor(B.xp.arange(start, limit, delta).astype(target))


def _range_dtype(values):
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
    best = dtypes.int32
    for v in values:
        if hasattr(v, "dtype") and isinstance(v, Tensor):
            kind = v.dtype
        elif isinstance(v, (float, np.floating)):
            kind = dtypes.float32
        else:
            continue
        if kind in order and order.index(kind) > order.index(best):
            best = kind
    return best


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix [num_rows, num_columns], repeated over ``batch_shape``.

    Args:
        num_rows: the number of rows (>= 0).
        num_columns: the number of columns (``num_rows`` when None).
        batch_shape: leading dimensions to repeat the matrix over.
        dtype: the dtype (float32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``batch_shape + [num_rows, num_columns]``.

    Raises:
        tf.errors.InvalidArgumentError: a negative number of rows or columns.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.eye(2))
        tf.Tensor(
        [[1. 0.]
         [0. 1.]], shape=(2, 2), dtype=float32)
    """
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    if rows < 0 or cols < 0:
        raise invalid_argument(f"num_rows and num_columns must be non-negative, got {rows} and {cols}.", "Eye")
    matrix = B.xp.eye(rows, cols, dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        matrix = B.xp.broadcast_to(matrix, tuple(int_list(batch_shape)) + (rows, cols)).copy()
    return Tensor(matrix)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A new axis of length ``depth`` at ``axis`` (default last): ``on_value`` at each index.

    Defaults: on 1, off 0, float32 (or the dtype of ``on_value``/``off_value``).
    Indices outside [0, depth) give a row of ``off_value``, as in TF. Not
    differentiable (TF registers no gradient for OneHot): tapes skip it, traces keep it.

    Args:
        indices: an integer tensor of class ids.
        depth: the number of classes (the new axis's length), >= 0.
        on_value: the value at each index (1 by default).
        off_value: the value elsewhere (0 by default).
        axis: where the new axis goes; -1 (default) is last.
        dtype: the result's dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``indices``'s shape with the new axis inserted.

    Raises:
        tf.errors.InvalidArgumentError: a negative ``depth``, or ``axis`` out of range.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.one_hot([0, 2], depth=3))
        tf.Tensor(
        [[1. 0. 0.]
         [0. 0. 1.]], shape=(2, 3), dtype=float32)
    """
    indices = _one_hot_indices(indices)
    if dtype is None:
        given = [as_tensor(v) for v in (on_value, off_value) if v is not None]
        dtype = given[0].dtype if given else dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    on = as_tensor(1 if on_value is None else on_value, dtype=dtype)._value
    off = as_tensor(0 if off_value is None else off_value, dtype=dtype)._value
    depth = _one_hot_depth(depth)
    if depth < 0:
        raise invalid_argument(f"depth must be non-negative, got: {depth}", "OneHot")
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= indices.ndim:
        raise invalid_argument(
            f"Expected axis to be -1 or between [0, {indices.ndim}).  But received: {axis}", "OneHot"
        )
    return execute(ONE_HOT, (indices, Tensor(on), Tensor(off)), {"depth": depth, "axis": axis})


def _one_hot(indices, on, off, depth, axis):
    xp = B.xp
    out = xp.where(indices[..., None] == xp.arange(depth), on, off).astype(on.dtype)
    return xp.moveaxis(out, -1, axis) if axis != -1 else out


ONE_HOT = Primitive("OneHot", _one_hot, differentiable=None)  # TF registers no gradient for OneHot


# TF's kernel takes these index dtypes; its attr error spells float32 'float', float64 'double'.
_ONE_HOT_INDEX_DTYPES = ("uint8", "int8", "int32", "int64")
_TF_ATTR_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _one_hot_indices(indices):
    """``indices`` as TF's OneHot takes them.

    As TF: a NumPy array or scalar of any dtype is cast to int64 (floats truncate toward zero,
    TF's conversion of NumPy values); a Python float is refused (TypeError); a tensor, or a Python
    list holding floats, must be uint8, int8, int32 or int64 (InvalidArgumentError).
    """
    if isinstance(indices, (np.ndarray, np.generic)):
        with np.errstate(invalid="ignore"):  # NaN casts to an out-of-range index: a row of off_value, as TF
            return as_tensor(np.asarray(indices).astype(np.int64))
    if isinstance(indices, float):
        raise TypeError(f"Cannot convert {indices!r} to EagerTensor of dtype int64")
    if isinstance(indices, (list, tuple)) and np.asarray(indices).dtype == np.bool_:
        return as_tensor(np.asarray(indices, dtype=np.int64))  # TF converts a list of Python bools to int64
    indices = as_tensor(indices)
    name = indices.dtype.name
    if name not in _ONE_HOT_INDEX_DTYPES:
        raise invalid_argument(
            f"Value for attr 'TI' of {_TF_ATTR_NAMES.get(name, name)} is not in the list of allowed values: "
            f"{', '.join(_ONE_HOT_INDEX_DTYPES)}. tf.one_hot takes integer class indices: cast them first, "
            "e.g. tf.one_hot(tf.cast(indices, tf.int32), depth)",
            "OneHot",
        )
    return indices


def _one_hot_depth(depth):
    """``depth`` as an int; TF refuses a Python float and a float tensor."""
    if isinstance(depth, float):
        raise TypeError(f"Cannot convert {depth!r} to EagerTensor of dtype int32")
    if hasattr(depth, "_value"):
        if not depth.dtype.is_integer:
            raise ValueError(
                f"Tensor conversion requested dtype int32 for Tensor with dtype {depth.dtype.name}: {depth!r}"
            )
    return int(depth)  # a traced depth is a value read: the trace runs eagerly, as for any Python int
