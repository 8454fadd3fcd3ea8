"""Arithmetic: + - * / and their kin, signs, rounding, identity, add_n and cast; each kernel with its gradient rule."""

import operator

import numpy as np

from tapeviz import backend as B
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.ops import as_tensor, as_tensors, execute, same_dtype
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import binary, not_a_number, unary


def xp_function(name):
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
    "maximum", "Maximum", xp_function("maximum"), "The larger of x and y. At ties the gradient goes to x, as in TF."
)
minimum = binary(
    "minimum", "Minimum", xp_function("minimum"), "The smaller of x and y. At ties the gradient goes to x, as in TF."
)
squared_difference = binary(
    "squared_difference", "SquaredDifference", lambda x, y: (x - y) * (x - y), "(x - y) ** 2 elementwise."
)
atan2 = binary(
    "atan2",
    "Atan2",
    xp_function("arctan2"),
    "The angle of the point (x, y): atan2(y, x), arguments in TF's order (y first).",
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
abs = unary("abs", "Abs", xp_function("abs"), "|x|. Its gradient at 0 is 0, as in TF.")  # noqa: A001
sign = unary("sign", "Sign", xp_function("sign"), "-1, 0 or 1. Its gradient is zero everywhere.")


floor = unary(
    "floor",
    "Floor",
    xp_function("floor"),
    "Round down. Not differentiable (gradient None, as in TF).",
    differentiable=False,
    floats_only=True,
)
ceil = unary(
    "ceil",
    "Ceil",
    xp_function("ceil"),
    "Round up. Not differentiable (gradient None, as in TF).",
    differentiable=False,
    floats_only=True,
)
round = unary(
    "round",
    "Round",
    xp_function("round"),
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
