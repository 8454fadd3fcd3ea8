"""Elementwise math, comparisons and reductions (kernels only; rules are in core.gradients)."""

import math
import operator

import numpy as np

from tapeviz import backend as B
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.ops import as_tensor, as_tensors, execute, same_dtype
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import binary, not_a_number, unary


def _xp(name):
    """A kernel calling the active backend's function ``name`` (numpy or cupy)."""
    return lambda *arrays: getattr(B.xp, name)(*arrays)


# -- arithmetic ------------------------------------------------------------------
add = binary("add", "AddV2", operator.add, "x + y elementwise, with broadcasting.", numbers_only=True)
subtract = binary("subtract", "Sub", operator.sub, "x - y elementwise, with broadcasting.", numbers_only=True)
multiply = binary("multiply", "Mul", operator.mul, "x * y elementwise, with broadcasting.")
divide = binary("divide", "RealDiv", operator.truediv, "x / y elementwise (float division).")


def truediv(x, y, name=None):
    """x / y; integer tensors are divided as float64, as TF's ``/`` does."""
    x, y = as_tensors(x, y)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        x, y = cast(x, "float64"), cast(y, "float64")
    return divide(x, y)


def _integer_safe(fn):
    """``fn`` for FloorDiv/FloorMod: integers divided by zero raise, as TF's kernels do
    (NumPy would give 0 with a warning); floats give inf/nan silently, as in TF."""

    def kernel(x, y):
        if x.dtype.kind in "iu" and not B.xp.all(y):
            raise ZeroDivisionError(
                "Integer division by zero: the divisor holds a 0. Replace the zeros first, "
                "e.g. tf.where(y == 0, 1, y), or divide floats."
            )
        return fn(x, y)

    return kernel


floordiv = binary(
    "floordiv",
    "FloorDiv",
    _integer_safe(operator.floordiv),
    "x // y elementwise. Not differentiable (gradient None). Integers divided by 0 raise, as in TF.",
    differentiable=False,
)
floormod = binary(
    "floormod",
    "FloorMod",
    _integer_safe(operator.mod),
    "x % y elementwise, the sign of y (Python's and TF's convention). Integers modulo 0 raise, as in TF.",
)
pow = binary("pow", "Pow", operator.pow, "x ** y elementwise, differentiable in both x and y.")  # noqa: A001
maximum = binary(
    "maximum", "Maximum", _xp("maximum"), "The larger of x and y. At ties the gradient goes to x, as in TF."
)
minimum = binary(
    "minimum", "Minimum", _xp("minimum"), "The smaller of x and y. At ties the gradient goes to x, as in TF."
)
squared_difference = binary(
    "squared_difference", "SquaredDifference", lambda x, y: (x - y) * (x - y), "(x - y) ** 2 elementwise."
)
atan2 = binary(
    "atan2", "Atan2", _xp("arctan2"), "The angle of the point (x, y): atan2(y, x), arguments in TF's order (y first)."
)


def _div_no_nan(x, y):
    xp = B.xp
    safe = xp.where(y == 0, xp.ones_like(y), y)
    return xp.where(y == 0, xp.zeros_like(x * y), x / safe)


def _xlogy(x, y):
    xp = B.xp
    return xp.where(x == 0, xp.zeros_like(x * y), x * xp.log(xp.where(x == 0, xp.ones_like(y), y)))


def _xdivy(x, y):
    xp = B.xp
    return xp.where(x == 0, xp.zeros_like(x * y), x / xp.where(x == 0, xp.ones_like(y), y))


divide_no_nan = binary(
    "divide_no_nan", "DivNoNan", _div_no_nan, "x / y, but 0 where y == 0 (and the gradient there is 0 too)."
)
xlogy = binary("xlogy", "Xlogy", _xlogy, "x * log(y), but 0 where x == 0.")
xdivy = binary("xdivy", "Xdivy", _xdivy, "x / y, but 0 where x == 0.")

negative = unary("negative", "Neg", operator.neg, "-x elementwise.")
abs = unary("abs", "Abs", _xp("abs"), "|x|. Its gradient at 0 is 0, as in TF.")  # noqa: A001
sign = unary("sign", "Sign", _xp("sign"), "-1, 0 or 1. Its gradient is zero everywhere.")
exp = unary("exp", "Exp", _xp("exp"), "e ** x.", floats_only=True)
expm1 = unary("expm1", "Expm1", _xp("expm1"), "e ** x - 1, accurate near 0.", floats_only=True)
log = unary("log", "Log", _xp("log"), "Natural logarithm (-inf at 0, nan below).", floats_only=True)
log1p = unary("log1p", "Log1p", _xp("log1p"), "log(1 + x), accurate near 0.", floats_only=True)
sqrt = unary("sqrt", "Sqrt", _xp("sqrt"), "Square root. Its gradient at 0 is inf, as in TF.", floats_only=True)
rsqrt = unary("rsqrt", "Rsqrt", lambda x: 1 / B.xp.sqrt(x), "1 / sqrt(x).", floats_only=True)
square = unary("square", "Square", lambda x: x * x, "x * x.")
reciprocal = unary("reciprocal", "Reciprocal", lambda x: 1 / x, "1 / x.", floats_only=True)
sin = unary("sin", "Sin", _xp("sin"), "Sine.", floats_only=True)
cos = unary("cos", "Cos", _xp("cos"), "Cosine.", floats_only=True)
tan = unary("tan", "Tan", _xp("tan"), "Tangent.", floats_only=True)
asin = unary("asin", "Asin", _xp("arcsin"), "Inverse sine.", floats_only=True)
acos = unary("acos", "Acos", _xp("arccos"), "Inverse cosine.", floats_only=True)
atan = unary("atan", "Atan", _xp("arctan"), "Inverse tangent.", floats_only=True)
sinh = unary("sinh", "Sinh", _xp("sinh"), "Hyperbolic sine.", floats_only=True)
cosh = unary("cosh", "Cosh", _xp("cosh"), "Hyperbolic cosine.", floats_only=True)
tanh = unary("tanh", "Tanh", _xp("tanh"), "Hyperbolic tangent.", floats_only=True)
sigmoid = unary("sigmoid", "Sigmoid", lambda x: 1 / (1 + B.xp.exp(-x)), "1 / (1 + exp(-x)).", floats_only=True)
floor = unary(
    "floor",
    "Floor",
    _xp("floor"),
    "Round down. Not differentiable (gradient None, as in TF).",
    differentiable=False,
    floats_only=True,
)
ceil = unary(
    "ceil",
    "Ceil",
    _xp("ceil"),
    "Round up. Not differentiable (gradient None, as in TF).",
    differentiable=False,
    floats_only=True,
)
round = unary(
    "round",
    "Round",
    _xp("round"),
    "Round half to even. Not differentiable (gradient None, as in TF).",
    differentiable=False,
)  # noqa: A001
stop_gradient = unary(
    "stop_gradient",
    "StopGradient",
    lambda x: x,
    "The same value, but gradients do not flow back through it (recorded, shown on the tape).",
    differentiable=False,
)
identity = unary(
    "identity", "Identity", lambda x: x, "The same value as a new tensor (recorded, gradient passes through)."
)


# -- the fused backward kernels TF uses for sqrt, rsqrt and reciprocal --------------
# Each gives 0 where the upstream is 0, whatever the local derivative is (inf at
# sqrt(0), nan at sqrt(-1)): tf.where(w > 0, tf.sqrt(w), 0) then has gradient 0
# at w = 0, as in TF. Plain arithmetic would give 0 * inf = nan there.


def _zero_without_upstream(local):
    def kernel(y, dy):
        xp = B.xp
        return xp.where(dy == 0, xp.zeros((), dtype=dy.dtype), local(y, dy))

    return kernel


SQRT_GRAD = Primitive("SqrtGrad", _zero_without_upstream(lambda y, dy: 0.5 * dy / y))
RSQRT_GRAD = Primitive("RsqrtGrad", _zero_without_upstream(lambda y, dy: -0.5 * dy * (y * y * y)))
RECIPROCAL_GRAD = Primitive("ReciprocalGrad", _zero_without_upstream(lambda y, dy: -dy * (y * y)))


def sqrt_grad(y, dy):
    """0.5 * dy / y, but 0 where dy == 0: sqrt's backward step, given its output y."""
    return execute(SQRT_GRAD, (as_tensor(y), as_tensor(dy)))


def rsqrt_grad(y, dy):
    """-0.5 * dy * y**3, but 0 where dy == 0: rsqrt's backward step, given its output y."""
    return execute(RSQRT_GRAD, (as_tensor(y), as_tensor(dy)))


def reciprocal_grad(y, dy):
    """-dy * y**2, but 0 where dy == 0: reciprocal's backward step, given its output y."""
    return execute(RECIPROCAL_GRAD, (as_tensor(y), as_tensor(dy)))


erf = unary("erf", "Erf", lambda x: B.erf(x), "The error function.", floats_only=True)

# -- comparisons and logic (recorded, not differentiable) ---------------------------
equal = binary("equal", "Equal", operator.eq, "x == y elementwise (bool).", differentiable=False)
not_equal = binary("not_equal", "NotEqual", operator.ne, "x != y elementwise (bool).", differentiable=False)
greater = binary("greater", "Greater", operator.gt, "x > y elementwise (bool).", differentiable=False)
greater_equal = binary("greater_equal", "GreaterEqual", operator.ge, "x >= y elementwise (bool).", differentiable=False)
less = binary("less", "Less", operator.lt, "x < y elementwise (bool).", differentiable=False)
less_equal = binary("less_equal", "LessEqual", operator.le, "x <= y elementwise (bool).", differentiable=False)
logical_and = binary(
    "logical_and", "LogicalAnd", _xp("logical_and"), "x and y elementwise (bool tensors).", differentiable=False
)
logical_or = binary(
    "logical_or", "LogicalOr", _xp("logical_or"), "x or y elementwise (bool tensors).", differentiable=False
)
logical_not = unary(
    "logical_not", "LogicalNot", _xp("logical_not"), "not x elementwise (bool tensor).", differentiable=False
)
is_nan = unary("is_nan", "IsNan", _xp("isnan"), "Where x is NaN (bool).", differentiable=False, floats_only=True)
is_inf = unary("is_inf", "IsInf", _xp("isinf"), "Where x is +-inf (bool).", differentiable=False, floats_only=True)
is_finite = unary(
    "is_finite", "IsFinite", _xp("isfinite"), "Where x is finite (bool).", differentiable=False, floats_only=True
)

# -- selection -------------------------------------------------------------------
SELECT = Primitive("SelectV2", lambda c, x, y: B.xp.where(c, x, y))


def where(condition, x=None, y=None, name=None):
    """Pick ``x`` where ``condition`` holds, else ``y`` (broadcasting all three).

    With only ``condition``: the indices where it holds, as int64 [n, rank].
    The gradient is masked, but a NaN the unused branch produced in its own
    backward pass still arrives (0 * nan = nan): the "tf.where trap".
    """
    condition = as_tensor(condition)
    if x is None and y is None:
        return execute(INDICES_WHERE, (condition,))
    if x is None or y is None:
        raise ValueError("tf.where needs both x and y, or neither.")
    if condition.dtype.name != "bool":
        raise TypeError(
            f"tf.where's condition must be a bool tensor, got {condition.dtype.name}. Compare first, e.g. x > 0."
        )
    x, y = as_tensors(x, y)
    return execute(SELECT, (condition, x, y))


INDICES_WHERE = Primitive("Where", lambda c: B.xp.stack(B.xp.nonzero(c), axis=-1).astype(np.int64), differentiable=None)

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


ADD_N = Primitive("AddN", lambda *xs: _add_all(xs))


def _add_all(arrays):
    total = arrays[0]
    for array in arrays[1:]:
        total = total + array
    return total


def add_n(inputs, name=None):
    """The sum of a list of tensors of one shape and dtype."""
    tensors = [as_tensor(t) for t in inputs]
    if not tensors:
        raise ValueError("add_n needs at least one tensor.")
    if len({t._value.dtype for t in tensors}) > 1:
        same_dtype(*tensors, op="AddN")
    if tensors[0]._value.dtype.kind == "b":
        raise not_a_number(tensors[0], "math.add_n", "AddN")
    shapes = {t._value.shape for t in tensors}
    if len(shapes) > 1:
        raise ValueError(f"add_n needs tensors of one shape, got shapes {sorted(shapes)}.")
    if len(tensors) == 1:
        return tensors[0]
    return execute(ADD_N, tuple(tensors))


def _cast_kernel(x, dtype):
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = x.real  # complex -> real keeps the real part, as TF (NumPy would warn)
    return x.astype(dtype)


CAST = Primitive("Cast", _cast_kernel)


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype``. The gradient flows between float dtypes only."""

    x = as_tensor(x)
    target = as_dtype(dtype)
    if x.dtype == target:
        return x
    return execute(CAST, (x,), {"dtype": target.as_numpy_dtype})
