"""Reductions (sum, mean, max...), arg-reductions and cumulative sums and products; each kernel with its gradient rule,
and unbroadcast (summing a gradient back to an input's shape)."""

import math

import numpy as np

from tapeviz import backend as B
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import not_a_number

# -- reductions ------------------------------------------------------------------


def normalize_axis(axis, ndim):
    """TF's axis argument (None, int, list, tensor) as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if hasattr(axis, "_value"):
        axis = np.asarray(B.to_numpy(axis._value)).tolist()
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    result = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndim}.")
        result.append(a % ndim if ndim else 0)
    return tuple(sorted(set(result)))


def _reduction(tf_name, prim_name, kernel, doc, differentiable=True, numbers_only=True):
    primitive = Primitive(prim_name, kernel, differentiable=differentiable)

    def op(input_tensor, axis=None, keepdims=False, name=None):
        x = as_tensor(input_tensor)
        if numbers_only and x._value.dtype.kind == "b":  # TF has no bool sum, mean, max...
            raise not_a_number(x, tf_name, prim_name)
        axes = normalize_axis(axis, x.ndim)
        return execute(primitive, (x,), {"axis": axes, "keepdims": bool(keepdims)})

    op.__name__ = op.__qualname__ = tf_name
    op.__doc__ = doc
    op.primitive = primitive
    return op


def _sum(x, axis, keepdims):
    lead = len(axis)
    if 0 < lead < x.ndim and axis[-1] == lead - 1 and x.dtype.char in "fd" and x.flags.c_contiguous:
        # Summing the leading axes (a bias gradient) is a product with a ones
        # vector, which BLAS does ten times faster than NumPy's reduction.
        rows = math.prod(x.shape[:lead])
        total = B.xp.dot(B.xp.ones(rows, dtype=x.dtype), x.reshape(rows, math.prod(x.shape[lead:])))
        return total.reshape((1,) * lead + x.shape[lead:] if keepdims else x.shape[lead:])
    return B.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


reduce_sum = _reduction("reduce_sum", "Sum", _sum, "Sum over ``axis`` (all axes when None).")


def _mean(x, axis, keepdims):
    count = math.prod([x.shape[a] for a in axis])
    if x.dtype.kind in "iu":  # TF divides integers with integer division
        return (B.xp.sum(x, axis=axis, keepdims=keepdims) // max(count, 1)).astype(x.dtype)
    # The sum over the count, as np.mean computes it, minus np.mean's warnings from NumPy's
    # own module ("Mean of empty slice"): an empty mean is 0 / 0 = NaN, silently, as in TF.
    return B.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype) / x.dtype.type(count)


reduce_mean = _reduction(
    "reduce_mean",
    "Mean",
    _mean,
    "Mean over ``axis`` (all axes when None). Integer tensors use integer division, as in TF.",
)


def _extreme(fn, largest):
    """The kernel of reduce_max (``largest``) or reduce_min: an empty reduction gives the
    identity, as in TF: -inf for max (+inf for min), the dtype's lowest (highest) for ints."""

    def kernel(x, axis, keepdims):
        if x.size:
            return fn(x, axis=axis, keepdims=keepdims)
        limits = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
        identity = (-np.inf if largest else np.inf) if x.dtype.kind == "f" else (limits.min if largest else limits.max)
        shape = tuple(1 if a in axis else n for a, n in enumerate(x.shape) if keepdims or a not in axis)
        out = B.xp.full(shape, identity, dtype=x.dtype)
        return out[()] if not shape else out  # rank 0 as a scalar, as NumPy's reductions return

    return kernel


reduce_max = _reduction(
    "reduce_max",
    "Max",
    _extreme(lambda x, axis, keepdims: B.xp.max(x, axis=axis, keepdims=keepdims), largest=True),
    "Maximum over ``axis``. Tied maxima share the gradient evenly, as in TF. Empty: -inf (ints: the lowest value).",
)
reduce_min = _reduction(
    "reduce_min",
    "Min",
    _extreme(lambda x, axis, keepdims: B.xp.min(x, axis=axis, keepdims=keepdims), largest=False),
    "Minimum over ``axis``. Tied minima share the gradient evenly, as in TF. Empty: +inf (ints: the highest value).",
)
reduce_prod = _reduction(
    "reduce_prod",
    "Prod",
    lambda x, axis, keepdims: B.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype),
    "Product over ``axis``; its gradient handles zeros.",
)
reduce_any = _reduction(
    "reduce_any",
    "Any",
    lambda x, axis, keepdims: B.xp.any(x, axis=axis, keepdims=keepdims),
    "Logical or over ``axis``.",
    differentiable=False,
    numbers_only=False,
)
reduce_all = _reduction(
    "reduce_all",
    "All",
    lambda x, axis, keepdims: B.xp.all(x, axis=axis, keepdims=keepdims),
    "Logical and over ``axis``.",
    differentiable=False,
    numbers_only=False,
)


def _arg_reduction(tf_name, prim_name, fn):
    primitive = Primitive(prim_name, fn, differentiable=None)

    def op(input, axis=None, output_type="int64", name=None):
        x = as_tensor(input)
        axis = 0 if axis is None else int(axis) % max(x.ndim, 1)

        return execute(primitive, (x,), {"axis": axis, "dtype": as_dtype(output_type).as_numpy_dtype})

    op.__name__ = op.__qualname__ = tf_name
    op.__doc__ = f"Index of the {'largest' if 'max' in tf_name else 'smallest'} value along ``axis`` (default 0, as in TF). Not differentiable."
    op.primitive = primitive
    return op


def _skipping_nan(fn, stand_in):
    """``fn`` (argmax or argmin) that never picks a NaN, as TF's kernels: they keep the
    first entry and replace it only by a larger (smaller) one, which a NaN never is.
    A NaN stands in as -inf (+inf); all NaN gives index 0, as in TF."""

    def kernel(x, axis, dtype):
        if x.dtype.kind == "f":
            x = B.xp.where(B.xp.isnan(x), B.xp.asarray(stand_in, dtype=x.dtype), x)
        return fn(x, axis=axis).astype(dtype)

    return kernel


argmax = _arg_reduction("argmax", "ArgMax", _skipping_nan(lambda x, axis: B.xp.argmax(x, axis=axis), -np.inf))
argmin = _arg_reduction("argmin", "ArgMin", _skipping_nan(lambda x, axis: B.xp.argmin(x, axis=axis), np.inf))

CUMSUM = Primitive("Cumsum", lambda x, axis, exclusive, reverse: _cumulative(B.cumsum, x, axis, exclusive, reverse, 0))
CUMPROD = Primitive(
    "Cumprod", lambda x, axis, exclusive, reverse: _cumulative(B.cumprod, x, axis, exclusive, reverse, 1)
)


def _cumulative(fn, x, axis, exclusive, reverse, identity_value):
    xp = B.xp
    if reverse:
        x = xp.flip(x, axis=axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        out = xp.pad(out, pad, constant_values=identity_value)
        out = xp.take(out, xp.arange(x.shape[axis]), axis=axis)
    if reverse:
        out = xp.flip(out, axis=axis)
    return out


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sum along ``axis``; ``exclusive`` leaves out the current element."""
    x = as_tensor(x)
    if x._value.dtype.kind == "b":
        raise not_a_number(x, "math.cumsum", "Cumsum")
    return execute(CUMSUM, (x,), {"axis": int(axis) % x.ndim, "exclusive": bool(exclusive), "reverse": bool(reverse)})


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running product along ``axis``; ``exclusive`` leaves out the current element."""
    x = as_tensor(x)
    if x._value.dtype.kind == "b":
        raise not_a_number(x, "math.cumprod", "Cumprod")
    return execute(CUMPROD, (x,), {"axis": int(axis) % x.ndim, "exclusive": bool(exclusive), "reverse": bool(reverse)})
