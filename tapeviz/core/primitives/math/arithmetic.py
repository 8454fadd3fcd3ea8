"""Arithmetic: + - * / and their kin, absolute value, rounding, identity, add_n and cast; each kernel with its gradient rule.

TF's conventions at kinks and ties (maximum, minimum, abs at 0).
"""

import functools
import operator

import numpy as np

from tapeviz import backend as B
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute, same_dtype
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import binary, not_a_number, unary
from tapeviz.core.primitives.array.constants import ones_like, zeros_like
from tapeviz.core.primitives.complex import complex as complex_
from tapeviz.core.primitives.complex import conj, real
from tapeviz.core.recording import READ_VARIABLE
from tapeviz.core.rules import defgrad, elementwise
from tapeviz.core.tensor import Tensor, is_tensor


def xp_function(name):
    """A kernel calling the active backend's function ``name`` (numpy or cupy)."""
    return lambda *arrays: getattr(B.xp, name)(*arrays)


# NumPy's real float scalar types: a value of one is real and of shape (), known without reading either.
_REAL_SCALARS = frozenset(np.dtype(code).type for code in "efdg")


# -- arithmetic ------------------------------------------------------------------
add = binary(
    "add",
    "AddV2",
    operator.add,
    """x + y elementwise, with broadcasting.

Example:
    >>> import tapeviz as tf
    >>> print(tf.add([1.0, 2.0], 10.0))
    tf.Tensor([11. 12.], shape=(2,), dtype=float32)
""",
    numbers_only=True,
)


# The three hottest rules are spelled out rather than going through _pair.
@defgrad(add, "d(x+y)/dx = 1,  d(x+y)/dy = 1", local=elementwise("1", "1"))
def _add_rule(op, needs, g):
    x, y = op.inputs
    need_x, need_y = needs
    kind = type(g._value)
    if kind is type(x._value) and kind is type(y._value) and kind in _REAL_SCALARS:
        return (g if need_x else None, g if need_y else None)  # all of shape (), read off the type
    shape = g._value.shape  # unbroadcast only where broadcasting happened (a call saved per input)
    return (
        (g if x._value.shape == shape else m.unbroadcast(g, x)) if need_x else None,
        (g if y._value.shape == shape else m.unbroadcast(g, y)) if need_y else None,
    )


subtract = binary(
    "subtract",
    "Sub",
    operator.sub,
    """x - y elementwise, with broadcasting.

Example:
    >>> import tapeviz as tf
    >>> print(tf.subtract([5.0, 7.0], [1.0, 2.0]))
    tf.Tensor([4. 5.], shape=(2,), dtype=float32)
""",
    numbers_only=True,
)


@defgrad(subtract, "d(x-y)/dx = 1,  d(x-y)/dy = -1", local=elementwise("1", "-1"))
def _sub_rule(op, needs, g):
    x, y = op.inputs
    need_x, need_y = needs
    return (m.unbroadcast(g, x) if need_x else None, m.unbroadcast(-g, y) if need_y else None)


multiply = binary(
    "multiply",
    "Mul",
    operator.mul,
    """x * y elementwise, with broadcasting.

Example:
    >>> import tapeviz as tf
    >>> print(tf.multiply([[1.0], [2.0]], [10.0, 20.0]))
    tf.Tensor(
    [[10. 20.]
     [20. 40.]], shape=(2, 2), dtype=float32)
""",
)


@defgrad(multiply, "d(x*y)/dx = y,  d(x*y)/dy = x", local=elementwise("y", "x"))
def _mul_rule(op, needs, g):
    x, y = op.inputs
    need_x, need_y = needs
    kind = type(g._value)
    if kind is type(x._value) and kind is type(y._value) and kind in _REAL_SCALARS:
        # A chain of scalar ops: real, so no conjugate, and every shape is () (read off the type)
        return (m.multiply(g, y) if need_x else None, m.multiply(g, x) if need_y else None)
    if x._value.dtype.kind == "c":  # TF's convention: the upstream times the conjugate derivative
        x, y = conj(x), conj(y)
    # m.multiply rather than `*`, and unbroadcast only where shapes differ: the hottest rule
    gx = m.multiply(g, y) if need_x else None
    gy = m.multiply(g, x) if need_y else None
    if gx is not None and gx._value.shape != x._value.shape:
        gx = m.unbroadcast(gx, x)
    if gy is not None and gy._value.shape != y._value.shape:
        gy = m.unbroadcast(gy, y)
    return gx, gy


realdiv = binary(
    "realdiv", "RealDiv", operator.truediv, "x / y elementwise for float or complex tensors (TF's ``tf.realdiv``)."
)


def _pair(op, needs, gx, gy):
    """Gradients for a broadcasting binary op, each only if needed, summed to shape."""
    x, y = op.inputs
    return (m.unbroadcast(gx(), x) if needs[0] else None, m.unbroadcast(gy(), y) if needs[1] else None)


@defgrad(realdiv, "d(x/y)/dx = 1/y,  d(x/y)/dy = -x/y**2", local=elementwise("1/y", "-x/y**2"))
def _div_rule(op, needs, g):
    x, y = op.inputs
    if x._value.dtype.kind == "c":
        x, y = conj(x), conj(y)
    return _pair(op, needs, lambda: g / y, lambda: g * (-x / y / y))


# TF's true division of integers: the narrow ones become float32, the wide ones float64 (math_ops._TRUEDIV_TABLE).
_TRUEDIV_FLOAT = {"b": "float32", "h": "float32", "B": "float32", "H": "float32"}


def divide_tensors(x, y):
    """``x / y`` for two tensors of one dtype: floats and complex as they are, integers as TF's table says."""
    code = x._value.dtype.char
    if x._value.dtype.kind in "iu":
        target = _TRUEDIV_FLOAT.get(code, "float64")
        x, y = cast(x, target), cast(y, target)
    elif x._value.dtype.kind == "b":
        raise TypeError(
            "Invalid dtype <dtype: 'bool'> in __truediv__: bool tensors are not divided. "
            "Cast first, e.g. tf.cast(x, tf.float32)."
        )
    return realdiv(x, y)


def truediv(x, y, name=None):
    """``tf.math.truediv``: x / y; integers divided as floats (int8/16, uint8/16 as float32, wider as float64).

    ``x`` is converted first and ``y`` must come out of the same dtype (a
    Python number takes ``x``'s), as in TF: ``tf.math.truediv(3, uint8_tensor)``
    is a TypeError, ``uint8_tensor / 3`` and ``3 / uint8_tensor`` are not.

    Args:
        x: the numerator.
        y: the denominator, of ``x``'s dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A float Tensor of the broadcast shape.

    Raises:
        TypeError: ``x`` and ``y`` of different dtypes.
    """
    x = as_tensor(x)
    y = y if type(y) is Tensor else _converted_like(y, x)
    if x._value.dtype != y._value.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    return divide_tensors(x, y)


def _converted_like(value, other):
    """``value`` as a tensor of ``other``'s dtype when it can be one, else as it converts by itself (TF's dtype_hint)."""
    try:
        return as_tensor(value, other.dtype)
    except (TypeError, ValueError):
        return as_tensor(value)


def true_divide_operator(x, y):
    """``x / y`` and ``y.__rtruediv__(x)``: a Python number takes the tensor's dtype, as TF's operator does."""
    if type(x) is Tensor and type(y) is Tensor and x._value.dtype is y._value.dtype and x._value.dtype.kind in "fc":
        return realdiv(x, y)  # the common case, without a conversion or a cast
    if is_tensor(x) and not is_tensor(y):
        x = as_tensor(x)
        return divide_tensors(x, as_tensor(y, x.dtype))
    if is_tensor(y) and not is_tensor(x):
        y = as_tensor(y)
        return divide_tensors(as_tensor(x, y.dtype), y)
    return truediv(x, y)


def divide(x, y, name=None):
    """``tf.divide`` / ``tf.math.divide``: ``x / y`` with Python's operator rules (a Python number takes the tensor's dtype).

    Integer tensors are divided as floats, as TF does: int8, int16, uint8 and
    uint16 give float32, int32, int64, uint32 and uint64 give float64.

    Args:
        x: the numerator (a Tensor, number, list or array).
        y: the denominator, of a shape that broadcasts with ``x``'s.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the broadcast shape.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.divide([1.0, 3.0], 2.0))
        tf.Tensor([0.5 1.5], shape=(2,), dtype=float32)
        >>> print(tf.divide(tf.constant([1, 3]), 2))
        tf.Tensor([0.5 1.5], shape=(2,), dtype=float64)
    """
    return true_divide_operator(x, y)


def _refusing(kernel, prim_name, refused):
    """``kernel``, raising TF's error for the dtype kinds TF has no kernel for (``refused``: kind -> error class)."""

    def checked(x, y):
        error = refused.get(x.dtype.kind)
        if error is not None:
            raise error(
                f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values of {prim_name}: "
                f"TF has no {prim_name} kernel for {x.dtype.name}. Cast first, e.g. tf.cast(x, tf.float32). "
                f"[Op:{prim_name}]",
                prim_name,
            )
        return kernel(x, y)

    return checked


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


def _floor_divide(x, y):
    """TF's FloorDiv: floor(x / y) for floats (NumPy's // works from fmod: 1 // -inf is -1 there, -0.0 in TF;
    inf // -2 NaN there, -inf in TF); Python's // for integers."""
    if x.dtype.kind in "fc":
        return B.xp.floor(x / y)
    return x // y


floordiv = binary(
    "floordiv",
    "FloorDiv",
    _refusing(_integer_safe(_floor_divide), "FloorDiv", {"b": InvalidArgumentError, "c": NotFoundError}),
    "x // y elementwise. Not differentiable (gradient None). Integers divided by 0 raise, as in TF.",
    differentiable=False,
)
floormod = binary(
    "floormod",
    "FloorMod",
    _refusing(_integer_safe(operator.mod), "FloorMod", {"b": InvalidArgumentError, "c": InvalidArgumentError}),
    "x % y elementwise, the sign of y (Python's and TF's convention). Integers modulo 0 raise, as in TF.",
)


def _truncated_quotient(x, y):
    if x.dtype.kind in "iu":  # C's division: towards zero (NumPy's // floors)
        q = x // y
        return q + ((x % y != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return B.xp.trunc(x / y)


truncatediv = binary(
    "truncatediv",
    "TruncateDiv",
    _refusing(
        _integer_safe(_truncated_quotient), "TruncateDiv", {"b": InvalidArgumentError, "c": InvalidArgumentError}
    ),
    "x / y rounded towards zero (C's integer division; -7 / 2 is -3). Not differentiable, as in TF.",
    differentiable=False,
)
truncatemod = binary(
    "truncatemod",
    "TruncateMod",
    _refusing(
        _integer_safe(lambda x, y: B.xp.fmod(x, y)),
        "TruncateMod",
        {"b": InvalidArgumentError, "c": InvalidArgumentError},
    ),
    "The remainder of truncatediv, the sign of x (C's %). TF registers no gradient for it: a gradient through "
    "it raises LookupError, as in TF.",
)


@defgrad(floormod, "d(x%y)/dx = 1,  d(x%y)/dy = -floor(x/y)", local=elementwise("1", "-floor(x/y)"))
def _floormod_rule(op, needs, g):
    x, y = op.inputs
    return _pair(op, needs, lambda: g, lambda: g * -m.floordiv(x, y))


def _pow(x, y):
    # NumPy takes its fast path for x**2 only with a Python exponent, not a NumPy scalar (twice the
    # time): the squared error of every loss. x*x is the same number (one rounding either way), as is
    # x for x**1 (the gradient of a square).
    if type(y) is not np.ndarray and type(x) is np.ndarray:
        if y == 2:
            return x * x
        if y == 1:
            return x.copy()
    return x**y


pow = binary(
    "pow",
    "Pow",
    _refusing(_pow, "Pow", {"b": InvalidArgumentError, "u": InvalidArgumentError}),
    """x ** y elementwise, differentiable in both x and y.

Example:
    >>> import tapeviz as tf
    >>> print(tf.pow([2.0, 3.0], 2.0))
    tf.Tensor([4. 9.], shape=(2,), dtype=float32)
""",
)  # noqa: A001


def _scalar_text(values):
    """A scalar's value for a local derivative's text (``2`` in ``2*x``), or None for arrays."""
    value = np.asarray(values)
    if value.size != 1:
        return None
    value = float(value.reshape(()))
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"


def _power_text(x, y, z):
    """``2*x`` for x**2, ``3*x**2`` for x**3: the exponent written in when it is one number."""
    n = _scalar_text(y)
    if n is None:
        return "y*x**(y-1)"
    lower = _scalar_text(np.asarray(y, dtype=np.float64) - 1.0)
    return f"{n}*x" if lower == "1" else ("1" if n == "1" else f"{n}*x**{lower}")


@defgrad(
    pow,
    "d(x**y)/dx = y*x**(y-1),  d(x**y)/dy = x**y*log(x) (0 where x <= 0)",
    local=elementwise(_power_text, "x**y*log(x)"),
)
def _pow_rule(op, needs, g):
    x, y = op.inputs
    z = op.outputs[0]

    def gy():
        log_x = m.where(x > 0, m.log(m.where(x > 0, x, ones_like(x))), zeros_like(x))
        return g * z * log_x

    return _pair(op, needs, lambda: g * y * m.pow(x, y - 1), gy)


maximum = binary(
    "maximum",
    "Maximum",
    xp_function("maximum"),
    """The larger of x and y. At ties the gradient goes to x, as in TF.

Example:
    >>> import tapeviz as tf
    >>> print(tf.maximum([1.0, 5.0], [3.0, 2.0]))
    tf.Tensor([3. 5.], shape=(2,), dtype=float32)
""",
)


def _route(op, needs, g, to_x):
    """A max/min's gradient: the upstream goes to x where ``to_x`` holds, else to y."""
    zeros = zeros_like(g)
    return _pair(op, needs, lambda: m.where(to_x, g, zeros), lambda: m.where(to_x, zeros, g))


@defgrad(
    maximum,
    "d max(x,y)/dx = 1 where x >= y (ties go to x), else 0",
    local=elementwise("1 where x >= y", "1 where x < y"),
)
def _maximum_rule(op, needs, g):
    return _route(op, needs, g, m.greater_equal(*op.inputs))


minimum = binary(
    "minimum", "Minimum", xp_function("minimum"), "The smaller of x and y. At ties the gradient goes to x, as in TF."
)


@defgrad(
    minimum,
    "d min(x,y)/dx = 1 where x <= y (ties go to x), else 0",
    local=elementwise("1 where x <= y", "1 where x > y"),
)
def _minimum_rule(op, needs, g):
    return _route(op, needs, g, m.less_equal(*op.inputs))


squared_difference = binary(
    "squared_difference", "SquaredDifference", lambda x, y: (x - y) * (x - y), "(x - y) ** 2 elementwise."
)


@defgrad(squared_difference, "d(x-y)**2/dx = 2(x-y),  d/dy = -2(x-y)", local=elementwise("2(x-y)", "-2(x-y)"))
def _squared_difference_rule(op, needs, g):
    x, y = op.inputs
    twice = 2.0 * g * (x - y)
    return _pair(op, needs, lambda: twice, lambda: -twice)


atan2 = binary(
    "atan2",
    "Atan2",
    xp_function("arctan2"),
    "The angle of the point (x, y): atan2(y, x), arguments in TF's order (y first).",
)


@defgrad(
    atan2,
    "d atan2(y,x)/dy = x/(x²+y²),  d/dx = -y/(x²+y²)",
    local=elementwise(
        "x/(x²+y²)",
        "-y/(x²+y²)",
        symbols=("y", "x"),
    ),
)
def _atan2_rule(op, needs, g):
    y, x = op.inputs
    scale = g / (x * x + y * y)
    return _pair(op, needs, lambda: scale * x, lambda: -scale * y)


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


@defgrad(
    divide_no_nan,
    "d(x/y)/dx = 1/y,  d/dy = -x/y**2 (0 where y == 0)",
    local=elementwise(
        "1/y (0 where y == 0)",
        "-x/y**2 (0 where y == 0)",
    ),
)
def _div_no_nan_rule(op, needs, g):
    x, y = op.inputs
    return _pair(op, needs, lambda: m.divide_no_nan(g, y), lambda: g * m.divide_no_nan(m.divide_no_nan(-x, y), y))


xlogy = binary("xlogy", "Xlogy", _xlogy, "x * log(y), but 0 where x == 0.")


@defgrad(
    xlogy,
    "d(x*log y)/dx = log y (0 where x == 0),  d/dy = x/y (0 where x == 0)",
    local=elementwise(
        "log y (0 where x == 0)",
        "x/y (0 where x == 0)",
    ),
)
def _xlogy_rule(op, needs, g):
    x, y = op.inputs
    nonzero = m.cast(m.not_equal(x, 0.0), x.dtype)
    return _pair(op, needs, lambda: g * m.xlogy(nonzero, y), lambda: g * m.xdivy(x, y))


xdivy = binary("xdivy", "Xdivy", _xdivy, "x / y, but 0 where x == 0.")


@defgrad(
    xdivy,
    "d(x/y)/dx = 1/y (0 where x == 0),  d/dy = -x/y**2 (0 where x == 0)",
    local=elementwise(
        "1/y (0 where x == 0)",
        "-x/y**2 (0 where x == 0)",
    ),
)
def _xdivy_rule(op, needs, g):
    x, y = op.inputs
    nonzero = m.cast(m.not_equal(x, 0.0), x.dtype)
    return _pair(op, needs, lambda: g * m.xdivy(nonzero, y), lambda: g * m.xdivy(-x, y * y))


negative = unary("negative", "Neg", operator.neg, "-x elementwise.")


@defgrad(negative, "d(-x)/dx = -1", local=elementwise("-1"))
def _neg_rule(op, needs, g):
    return (-g,)


abs = unary(
    "abs",
    "Abs",
    xp_function("abs"),
    """|x|. Its gradient at 0 is 0, as in TF.

Example:
    >>> import tapeviz as tf
    >>> print(tf.abs([-1.5, 2.0]))
    tf.Tensor([1.5 2. ], shape=(2,), dtype=float32)
""",
)  # noqa: A001


@defgrad(abs, "d|x|/dx = sign(x) (0 at 0; x/|x| for complex x)", local=elementwise("sign(x)"))
def _abs_rule(op, needs, g):
    x = op.inputs[0]
    if x._value.dtype.kind == "c":  # TF's ComplexAbsGrad: the real upstream times x/|x| (0 at 0)
        return (m.multiply(complex_(g, zeros_like(g)), m.sign(x)),)
    return (g * m.sign(x),)


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
    """The same value, but gradients do not flow back through it (recorded, shown on the tape).

Example:
    >>> import tapeviz as tf
    >>> x = tf.Variable(3.0)
    >>> with tf.GradientTape() as tape:
    ...     y = x * tf.stop_gradient(x)  # the second factor is a constant for the tape
    >>> print(tape.gradient(y, x))
    tf.Tensor(3.0, shape=(), dtype=float32)
""",
    differentiable=False,
)
identity = unary(
    "identity", "Identity", lambda x: x, "The same value as a new tensor (recorded, gradient passes through)."
)


@defgrad(READ_VARIABLE, "d read(v)/dv = 1", local=elementwise("1"))
def _read_variable_rule(op, needs, g):
    return (g,)


@defgrad(identity, "d x/dx = 1", local=elementwise("1"))
def _identity_rule(op, needs, g):
    return (g,)


# The sum left to right, (x1 + x2) + x3 ..., with the loop in C (a source's gradients
# in a long chain are thousands of NumPy scalars).
ADD_N = Primitive("AddN", lambda *xs: functools.reduce(operator.add, xs))


def add_n(inputs, name=None):
    """The sum of a list of tensors of one shape and dtype.

    Args:
        inputs: a list of tensors of one shape and dtype.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        Their elementwise sum, a Tensor.

    Raises:
        ValueError: an empty list, or tensors of different shapes.
        tf.errors.InvalidArgumentError: bool tensors.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.add_n([[1, 2], [3, 4], [5, 6]]))
        tf.Tensor([ 9 12], shape=(2,), dtype=int32)
    """
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


@defgrad(ADD_N, "d(x1+...+xn)/dxi = 1", local=elementwise(every="1"))
def _add_n_rule(op, needs, g):
    return tuple(g if need else None for need in needs)


def _cast_kernel(x, dtype):
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = x.real  # complex -> real keeps the real part, as TF (NumPy would warn)
    return x.astype(dtype)


CAST = Primitive("Cast", _cast_kernel)


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype``. The gradient flows between float dtypes only.

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        dtype: the target dtype (``tf.float32``, ``"int32"``...).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape and ``dtype`` (``x`` itself when it already has it);
        floats to ints truncate toward zero.

    Raises:
        tf.errors.UnimplementedError: a cast to or from strings (as TF: use tf.strings.to_number
            or tf.strings.as_string).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.cast([1.7, -1.7], tf.int32))
        tf.Tensor([ 1 -1], shape=(2,), dtype=int32)
    """

    x = as_tensor(x)
    target = as_dtype(dtype)
    if x.dtype == target:
        return x
    if target.as_numpy_dtype is np.object_ or x._value.dtype.kind == "O":
        raise UnimplementedError(
            f"Cast {x.dtype.name} to {target.name} is not supported: use tf.strings.to_number or "
            "tf.strings.as_string [Op:Cast]",
            "Cast",
        )
    return execute(CAST, (x,), {"dtype": target.as_numpy_dtype})


@defgrad(CAST, "d cast(x)/dx = 1 (cast back to x's dtype; none for integers)", local=elementwise("1 (cast back)"))
def _cast_rule(op, needs, g):
    x = op.inputs[0]
    if x.dtype.is_complex and g.dtype.is_floating:  # complex -> real kept the real part
        return (m.cast(complex_(g, zeros_like(g)), x.dtype),)
    if x.dtype.is_floating and g.dtype.is_complex:  # real -> complex: the real part flows back
        return (m.cast(real(g), x.dtype),)
    if (x.dtype.is_floating or x.dtype.is_complex) and (g.dtype.is_floating or g.dtype.is_complex):
        return (m.cast(g, x.dtype),)
    return (None,)
