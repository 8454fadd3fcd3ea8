"""Reductions (sum, mean, max...), arg-reductions and cumulative sums and products; each kernel with its gradient rule,
and unbroadcast (summing a gradient back to an input's shape).
"""

import math

import numpy as np

from tapeviz import backend as B
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import not_a_number, with_fields
from tapeviz.core.primitives.array.constants import ones_like, zeros_like
from tapeviz.core.primitives.array.shapes import broadcast_to, reshape, transpose
from tapeviz.core.rules import defgrad, described

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
    op.__doc__ = with_fields(
        doc,
        args=[
            "input_tensor: a Tensor, or anything ``tf.constant`` converts.",
            "axis: an int or a list of ints (negative counts from the end); None reduces every axis.",
            "keepdims: keep each reduced axis with size 1.",
            "name: TensorFlow's op name; accepted for compatibility, unused.",
        ],
        returns="A Tensor of ``input_tensor``'s dtype, without the reduced axes (size 1 with ``keepdims``).",
        raises=["ValueError: an axis out of range for the input's rank."]
        + (["tf.errors.InvalidArgumentError: a bool input (no kernel for it): cast it first."] if numbers_only else []),
    )
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


reduce_sum = _reduction(
    "reduce_sum",
    "Sum",
    _sum,
    """Sum over ``axis`` (all axes when None).

Example:
    >>> import tapeviz as tf
    >>> x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> print(tf.reduce_sum(x))
    tf.Tensor(10.0, shape=(), dtype=float32)
    >>> print(tf.reduce_sum(x, axis=0))
    tf.Tensor([4. 6.], shape=(2,), dtype=float32)
    >>> print(tf.reduce_sum(x, axis=1, keepdims=True))
    tf.Tensor(
    [[3.]
     [7.]], shape=(2, 1), dtype=float32)
""",
)


def _restore(g, op):
    """Upstream of a reduction, reshaped with its reduced axes kept, broadcast to the input."""
    x = op.inputs[0]
    if not op.attrs["keepdims"]:
        kept = tuple(1 if i in op.attrs["axis"] else n for i, n in enumerate(x._value.shape))
        g = reshape(g, kept)
    return broadcast_to(g, x._value.shape)


@defgrad(reduce_sum, "d sum(x)/dxi = 1", local=described("1 for every element: the upstream copied back to x's shape"))
def _sum_rule(op, needs, g):
    return (_restore(g, op),)


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
    """Mean over ``axis`` (all axes when None). Integer tensors use integer division, as in TF.

Example:
    >>> import tapeviz as tf
    >>> print(tf.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=0))
    tf.Tensor([2. 3.], shape=(2,), dtype=float32)
    >>> print(tf.reduce_mean([1, 2]))
    tf.Tensor(1, shape=(), dtype=int32)
""",
)


def _mean_text(x, y):
    """``1/n = 1/4 for every element``: how many elements each mean took."""
    return f"1/n = 1/{max(1, int(np.size(x) // max(1, np.size(y))))} for every element"


def _count(op):
    shape = op.inputs[0]._value.shape
    return int(np.prod([shape[a] for a in op.attrs["axis"]], dtype=np.int64))


@defgrad(
    reduce_mean,
    "d mean(x)/dxi = 1/n",
    local=described(_mean_text),
)
def _mean_rule(op, needs, g):
    return (_restore(g, op) / float(max(_count(op), 1)),)


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
    """Maximum over ``axis``. Tied maxima share the gradient evenly, as in TF. Empty: -inf (ints: the lowest value).

Example:
    >>> import tapeviz as tf
    >>> print(tf.reduce_max([[1.0, 5.0], [3.0, 2.0]], axis=1))
    tf.Tensor([5. 3.], shape=(2,), dtype=float32)
""",
)


def _min_or_max(op, needs, g):
    x, y = op.inputs[0], op.outputs[0]
    y_full = _restore(y, op)
    hits = m.cast(m.equal(x, y_full), g.dtype)
    count = _restore(m.reduce_sum(hits, axis=op.attrs["axis"], keepdims=op.attrs["keepdims"]), op)
    return (_restore(g, op) * hits / count,)


defgrad(
    reduce_max,
    "d max(x)/dxi = 1/k at the k tied maxima, else 0",
    local=described("1 at the maximum (1/k when k tie), 0 elsewhere"),
)(_min_or_max)


reduce_min = _reduction(
    "reduce_min",
    "Min",
    _extreme(lambda x, axis, keepdims: B.xp.min(x, axis=axis, keepdims=keepdims), largest=False),
    "Minimum over ``axis``. Tied minima share the gradient evenly, as in TF. Empty: +inf (ints: the highest value).",
)


defgrad(
    reduce_min,
    "d min(x)/dxi = 1/k at the k tied minima, else 0",
    local=described("1 at the minimum (1/k when k tie), 0 elsewhere"),
)(_min_or_max)


reduce_prod = _reduction(
    "reduce_prod",
    "Prod",
    lambda x, axis, keepdims: B.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype),
    "Product over ``axis``; its gradient handles zeros.",
)


@defgrad(
    reduce_prod,
    "d prod(x)/dxi = product of the others (exact with zeros)",
    local=described("the product of the other elements"),
)
def _prod_rule(op, needs, g):
    x = op.inputs[0]
    axes = op.attrs["axis"]
    if not axes:
        return (g,)
    rest = [a for a in range(x.ndim) if a not in axes]
    # Move the reduced axes last, flatten them, and take exclusive cumulative
    # products from both ends: the product of all the others, zeros included.
    perm = rest + list(axes)
    moved = transpose(x, perm)
    flat = reshape(moved, [int(np.prod([x._value.shape[a] for a in rest], dtype=np.int64)), -1])
    others = m.cumprod(flat, axis=1, exclusive=True) * m.cumprod(flat, axis=1, exclusive=True, reverse=True)
    others = transpose(reshape(others, moved._value.shape), list(np.argsort(perm)))
    return (_restore(g, op) * others,)


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
    op.__doc__ = with_fields(
        f"Index of the {'largest' if 'max' in tf_name else 'smallest'} value along ``axis`` (default 0, as in TF). "
        "Not differentiable.\n\nExample:\n"
        "    >>> import tapeviz as tf\n"
        f"    >>> print(tf.{tf_name}([[1, 9], [8, 2]], axis=1))\n"
        f"    tf.Tensor([{'1 0' if 'max' in tf_name else '0 1'}], shape=(2,), dtype=int64)\n",
        args=[
            "input: a Tensor, or anything ``tf.constant`` converts.",
            "axis: the axis to search along (negative counts from the end); None means 0.",
            'output_type: the dtype of the indices, ``"int64"`` (default) or ``"int32"``.',
            "name: TensorFlow's op name; accepted for compatibility, unused.",
        ],
        returns="A Tensor of indices, of ``input``'s shape without ``axis``.",
    )
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
    """Running sum along ``axis``; ``exclusive`` leaves out the current element.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        axis: the axis to accumulate along.
        exclusive: leave out the current element (the first output is 0).
        reverse: accumulate from the end.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: a bool ``x``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.cumsum([1, 2, 3]))
        tf.Tensor([1 3 6], shape=(3,), dtype=int32)
    """
    x = as_tensor(x)
    if x._value.dtype.kind == "b":
        raise not_a_number(x, "math.cumsum", "Cumsum")
    return execute(CUMSUM, (x,), {"axis": int(axis) % x.ndim, "exclusive": bool(exclusive), "reverse": bool(reverse)})


@defgrad(
    CUMSUM,
    "d cumsum(x)/dx = reverse cumsum of the upstream",
    local=described("1 for every later output: a reverse cumsum of the upstream"),
)
def _cumsum_rule(op, needs, g):
    a = op.attrs
    return (m.cumsum(g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"]),)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running product along ``axis``; ``exclusive`` leaves out the current element.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        axis: the axis to accumulate along.
        exclusive: leave out the current element (the first output is 1).
        reverse: accumulate from the end.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: a bool ``x``.
    """
    x = as_tensor(x)
    if x._value.dtype.kind == "b":
        raise not_a_number(x, "math.cumprod", "Cumprod")
    return execute(CUMPROD, (x,), {"axis": int(axis) % x.ndim, "exclusive": bool(exclusive), "reverse": bool(reverse)})


@defgrad(
    CUMPROD,
    "d cumprod(x)/dx = reverse cumsum(upstream * cumprod) / x (exact at zeros: the product of the others)",
    local=described("cumprod / x for every later output"),
)
def _cumprod_rule(op, needs, g):
    a = op.attrs
    x, y = op.inputs[0], op.outputs[0]
    axis, exclusive, reverse = a["axis"], a["exclusive"], a["reverse"]

    def over_later_outputs(v):  # each x[j] feeds the outputs after it: sum v over those
        return m.cumsum(v, axis=axis, exclusive=exclusive, reverse=not reverse)

    # Dividing by x is 0/0 at a zero (TF gives 0 there, PyTorch the exact value; so do we).
    # Along the axis, before the first zero the division is safe; at the first zero the
    # gradient is the upstream times the products with that zero left out; after it, every
    # product holds that zero: the gradient is the zero times the gradient with the zero
    # replaced by 1 (so 0, but its own derivative is right). That inner gradient may meet
    # the next zero: one level per zero, folded from the last.
    levels = []
    while bool(B.xp.any(x._value == 0)):
        nonzero = m.not_equal(x, zeros_like(x))
        no_zero_yet = m.greater(m.cumprod(m.cast(nonzero, x.dtype), axis=axis, exclusive=True, reverse=reverse), 0)
        before = m.logical_and(no_zero_yet, nonzero)
        first_zero = m.logical_and(no_zero_yet, m.logical_not(nonzero))
        ones, zeros = ones_like(x), zeros_like(x)
        divided = over_later_outputs(g * y) / m.where(before, x, ones)
        zero = m.reduce_sum(m.where(first_zero, x, zeros), axis=axis, keepdims=True)  # 0, with x's derivative
        x = m.where(first_zero, ones, x)
        y = m.cumprod(x, axis=axis, exclusive=exclusive, reverse=reverse)
        levels.append((before, divided, first_zero, over_later_outputs(g * y), zero))
    grad = over_later_outputs(g * y) / x
    for before, divided, first_zero, at_first_zero, zero in reversed(levels):
        grad = m.where(before, divided, m.where(first_zero, at_first_zero, zero * grad))
    return (grad,)


def unbroadcast(grad, like):
    """Sum ``grad`` back to the shape of ``like`` (undoing broadcasting)."""
    shape = like._value.shape
    if grad._value.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    axes = list(range(extra)) + [extra + i for i, n in enumerate(shape) if n == 1 and grad._value.shape[extra + i] != 1]
    if not axes:
        return reshape(grad, shape)
    summed = reduce_sum(grad, axis=axes)
    # Summing away leading axes (a bias) already gives the shape: no Reshape op.
    return summed if summed._value.shape == shape else reshape(summed, shape)
