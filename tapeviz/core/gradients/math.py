"""Gradient rules of the math primitives. TF's conventions at kinks and ties."""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.gradients import defgrad, described, elementwise, unbroadcast
from tapeviz.core.gradients.complex import conj_if_complex
from tapeviz.core.primitives import math as m
from tapeviz.core.primitives.array import broadcast_to, ones_like, reshape, transpose, zeros_like
from tapeviz.core.primitives.complex import complex as complex_
from tapeviz.core.primitives.complex import conj, real


def _pair(op, needs, gx, gy):
    """Gradients for a broadcasting binary op, each only if needed, summed to shape."""
    x, y = op.inputs
    return (unbroadcast(gx(), x) if needs[0] else None, unbroadcast(gy(), y) if needs[1] else None)


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


def _mean_text(x, y):
    """``1/n = 1/4 for every element``: how many elements each mean took."""
    return f"1/n = 1/{max(1, int(np.size(x) // max(1, np.size(y))))} for every element"


# The three hottest rules are spelled out rather than going through _pair.


@defgrad(m.add, "d(x+y)/dx = 1,  d(x+y)/dy = 1", local=elementwise("1", "1"))
def _add(op, needs, g):
    x, y = op.inputs
    need_x, need_y = needs
    shape = g._value.shape  # unbroadcast only where broadcasting happened (a call saved per input)
    return (
        (g if x._value.shape == shape else unbroadcast(g, x)) if need_x else None,
        (g if y._value.shape == shape else unbroadcast(g, y)) if need_y else None,
    )


@defgrad(m.subtract, "d(x-y)/dx = 1,  d(x-y)/dy = -1", local=elementwise("1", "-1"))
def _sub(op, needs, g):
    x, y = op.inputs
    need_x, need_y = needs
    return (unbroadcast(g, x) if need_x else None, unbroadcast(-g, y) if need_y else None)


@defgrad(m.multiply, "d(x*y)/dx = y,  d(x*y)/dy = x", local=elementwise("y", "x"))
def _mul(op, needs, g):
    x, y = op.inputs
    need_x, need_y = needs
    if x._value.dtype.kind == "c":  # TF's convention: the upstream times the conjugate derivative
        x, y = conj(x), conj(y)
    # m.multiply rather than `*`, and unbroadcast only where shapes differ: the hottest rule
    gx = m.multiply(g, y) if need_x else None
    gy = m.multiply(g, x) if need_y else None
    if gx is not None and gx._value.shape != x._value.shape:
        gx = unbroadcast(gx, x)
    if gy is not None and gy._value.shape != y._value.shape:
        gy = unbroadcast(gy, y)
    return gx, gy


@defgrad(m.divide, "d(x/y)/dx = 1/y,  d(x/y)/dy = -x/y**2", local=elementwise("1/y", "-x/y**2"))
def _div(op, needs, g):
    x, y = op.inputs
    if x._value.dtype.kind == "c":
        x, y = conj(x), conj(y)
    return _pair(op, needs, lambda: g / y, lambda: g * (-x / y / y))


@defgrad(m.floormod, "d(x%y)/dx = 1,  d(x%y)/dy = -floor(x/y)", local=elementwise("1", "-floor(x/y)"))
def _floormod(op, needs, g):
    x, y = op.inputs
    return _pair(op, needs, lambda: g, lambda: g * -m.floordiv(x, y))


@defgrad(
    m.pow,
    "d(x**y)/dx = y*x**(y-1),  d(x**y)/dy = x**y*log(x) (0 where x <= 0)",
    local=elementwise(_power_text, "x**y*log(x)"),
)
def _pow(op, needs, g):
    x, y = op.inputs
    z = op.outputs[0]

    def gy():
        log_x = m.where(x > 0, m.log(m.where(x > 0, x, ones_like(x))), zeros_like(x))
        return g * z * log_x

    return _pair(op, needs, lambda: g * y * m.pow(x, y - 1), gy)


def _route(op, needs, g, to_x):
    """A max/min's gradient: the upstream goes to x where ``to_x`` holds, else to y."""
    zeros = zeros_like(g)
    return _pair(op, needs, lambda: m.where(to_x, g, zeros), lambda: m.where(to_x, zeros, g))


@defgrad(
    m.maximum,
    "d max(x,y)/dx = 1 where x >= y (ties go to x), else 0",
    local=elementwise("1 where x >= y", "1 where x < y"),
)
def _maximum(op, needs, g):
    return _route(op, needs, g, m.greater_equal(*op.inputs))


@defgrad(
    m.minimum,
    "d min(x,y)/dx = 1 where x <= y (ties go to x), else 0",
    local=elementwise("1 where x <= y", "1 where x > y"),
)
def _minimum(op, needs, g):
    return _route(op, needs, g, m.less_equal(*op.inputs))


@defgrad(m.squared_difference, "d(x-y)**2/dx = 2(x-y),  d/dy = -2(x-y)", local=elementwise("2(x-y)", "-2(x-y)"))
def _squared_difference(op, needs, g):
    x, y = op.inputs
    twice = 2.0 * g * (x - y)
    return _pair(op, needs, lambda: twice, lambda: -twice)


@defgrad(
    m.atan2,
    "d atan2(y,x)/dy = x/(x²+y²),  d/dx = -y/(x²+y²)",
    local=elementwise(
        "x/(x²+y²)",
        "-y/(x²+y²)",
        symbols=("y", "x"),
    ),
)
def _atan2(op, needs, g):
    y, x = op.inputs
    scale = g / (x * x + y * y)
    return _pair(op, needs, lambda: scale * x, lambda: -scale * y)


@defgrad(
    m.divide_no_nan,
    "d(x/y)/dx = 1/y,  d/dy = -x/y**2 (0 where y == 0)",
    local=elementwise(
        "1/y (0 where y == 0)",
        "-x/y**2 (0 where y == 0)",
    ),
)
def _div_no_nan(op, needs, g):
    x, y = op.inputs
    return _pair(op, needs, lambda: m.divide_no_nan(g, y), lambda: g * m.divide_no_nan(m.divide_no_nan(-x, y), y))


@defgrad(
    m.xlogy,
    "d(x*log y)/dx = log y (0 where x == 0),  d/dy = x/y (0 where x == 0)",
    local=elementwise(
        "log y (0 where x == 0)",
        "x/y (0 where x == 0)",
    ),
)
def _xlogy(op, needs, g):
    x, y = op.inputs
    nonzero = m.cast(m.not_equal(x, 0.0), x.dtype)
    return _pair(op, needs, lambda: g * m.xlogy(nonzero, y), lambda: g * m.xdivy(x, y))


@defgrad(
    m.xdivy,
    "d(x/y)/dx = 1/y (0 where x == 0),  d/dy = -x/y**2 (0 where x == 0)",
    local=elementwise(
        "1/y (0 where x == 0)",
        "-x/y**2 (0 where x == 0)",
    ),
)
def _xdivy(op, needs, g):
    x, y = op.inputs
    nonzero = m.cast(m.not_equal(x, 0.0), x.dtype)
    return _pair(op, needs, lambda: g * m.xdivy(nonzero, y), lambda: g * m.xdivy(-x, y * y))


# -- unary ------------------------------------------------------------------------


def _unary(primitive, formula, factor, shown):
    """Register an elementwise rule: gradient = upstream * factor(x, y), y the output.

    ``shown``: how the chain-rule card writes ``factor`` (its value comes from this rule).
    """

    @defgrad(primitive, formula, local=elementwise(shown))
    def rule(op, needs, g):
        return (g * conj_if_complex(factor(op.inputs[0], op.outputs[0])),)

    return rule


@defgrad(m.negative, "d(-x)/dx = -1", local=elementwise("-1"))
def _neg(op, needs, g):
    return (-g,)


@defgrad(m.identity, "d x/dx = 1", local=elementwise("1"))
def _identity(op, needs, g):
    return (g,)


@defgrad(m.abs, "d|x|/dx = sign(x) (0 at 0; x/|x| for complex x)", local=elementwise("sign(x)"))
def _abs(op, needs, g):
    x = op.inputs[0]
    if x._value.dtype.kind == "c":  # TF's ComplexAbsGrad: the real upstream times x/|x| (0 at 0)
        return (m.multiply(complex_(g, zeros_like(g)), m.sign(x)),)
    return (g * m.sign(x),)


_unary(m.exp, "d exp(x)/dx = exp(x)", lambda x, y: y, "exp(x)")
_unary(m.expm1, "d expm1(x)/dx = exp(x)", lambda x, y: m.exp(x), "exp(x)")
_unary(m.log, "d log(x)/dx = 1/x", lambda x, y: m.reciprocal(x), "1/x")
_unary(m.log1p, "d log1p(x)/dx = 1/(1+x)", lambda x, y: m.reciprocal(1.0 + x), "1/(1+x)")
_unary(m.square, "d x²/dx = 2x", lambda x, y: 2.0 * x, "2*x")
_unary(m.sin, "d sin(x)/dx = cos(x)", lambda x, y: m.cos(x), "cos(x)")
_unary(m.cos, "d cos(x)/dx = -sin(x)", lambda x, y: -m.sin(x), "-sin(x)")
_unary(m.tan, "d tan(x)/dx = 1/cos²(x)", lambda x, y: m.square(m.reciprocal(m.cos(x))), "1/cos²(x)")
_unary(m.asin, "d asin(x)/dx = 1/sqrt(1-x²)", lambda x, y: m.rsqrt(1.0 - x * x), "1/sqrt(1-x²)")
_unary(m.acos, "d acos(x)/dx = -1/sqrt(1-x²)", lambda x, y: -m.rsqrt(1.0 - x * x), "-1/sqrt(1-x²)")
_unary(m.atan, "d atan(x)/dx = 1/(1+x²)", lambda x, y: m.reciprocal(1.0 + x * x), "1/(1+x²)")
_unary(m.sinh, "d sinh(x)/dx = cosh(x)", lambda x, y: m.cosh(x), "cosh(x)")
_unary(m.cosh, "d cosh(x)/dx = sinh(x)", lambda x, y: m.sinh(x), "sinh(x)")
_unary(m.tanh, "d tanh(x)/dx = 1 - tanh²(x)", lambda x, y: 1.0 - y * y, "1 - tanh²(x)")
_unary(m.sigmoid, "d σ(x)/dx = σ(x)(1-σ(x))", lambda x, y: y * (1.0 - y), "σ(x)(1-σ(x))")
_unary(
    m.erf,
    "d erf(x)/dx = 2/sqrt(pi) exp(-x²)",
    lambda x, y: float(2.0 / np.sqrt(np.pi)) * m.exp(-(x * x)),
    "2/sqrt(pi) exp(-x²)",
)
_unary(m.sign, "d sign(x)/dx = 0", lambda x, y: zeros_like(x), "0")


# sqrt, rsqrt and reciprocal go through TF's fused backward kernels, which give
# 0 where the upstream is 0 (no 0 * inf = nan behind a tf.where).


@defgrad(m.sqrt, "d sqrt(x)/dx = 0.5/sqrt(x) (inf at 0; 0 where the upstream is 0)", local=elementwise("0.5/sqrt(x)"))
def _sqrt(op, needs, g):
    return (m.sqrt_grad(conj_if_complex(op.outputs[0]), g),)


@defgrad(m.rsqrt, "d x**-0.5/dx = -0.5*x**-1.5 (0 where the upstream is 0)", local=elementwise("-0.5*x**-1.5"))
def _rsqrt(op, needs, g):
    return (m.rsqrt_grad(conj_if_complex(op.outputs[0]), g),)


@defgrad(m.reciprocal, "d(1/x)/dx = -1/x² (0 where the upstream is 0)", local=elementwise("-1/x²"))
def _reciprocal(op, needs, g):
    return (m.reciprocal_grad(conj_if_complex(op.outputs[0]), g),)


@defgrad(
    m.SQRT_GRAD,
    "sqrt_grad(y, dy) = 0.5 dy/y:  d/dy = -0.5 dy/y²,  d/d(dy) = 0.5/y",
    local=elementwise("-0.5 dy/y²", "0.5/y", symbols=("y", "dy")),
)
def _sqrt_grad(op, needs, g):
    y, dy = map(conj_if_complex, op.inputs)  # complex: the conjugate of each local derivative
    scaled = g / y
    return (-scaled * conj_if_complex(op.outputs[0]) if needs[0] else None, 0.5 * scaled if needs[1] else None)


@defgrad(
    m.RSQRT_GRAD,
    "rsqrt_grad(y, dy) = -0.5 dy y³:  d/dy = -1.5 dy y²,  d/d(dy) = -0.5 y³",
    local=elementwise(
        "-1.5 dy y²",
        "-0.5 y³",
        symbols=("y", "dy"),
    ),
)
def _rsqrt_grad(op, needs, g):
    y, dy = map(conj_if_complex, op.inputs)
    return (-1.5 * g * dy * (y * y) if needs[0] else None, m.rsqrt_grad(y, g) if needs[1] else None)


@defgrad(
    m.RECIPROCAL_GRAD,
    "reciprocal_grad(y, dy) = -dy y²:  d/dy = -2 dy y,  d/d(dy) = -y²",
    local=elementwise("-2 dy y", "-y²", symbols=("y", "dy")),
)
def _reciprocal_grad(op, needs, g):
    y, dy = map(conj_if_complex, op.inputs)
    return (-2.0 * g * dy * y if needs[0] else None, m.reciprocal_grad(y, g) if needs[1] else None)


@defgrad(m.CAST, "d cast(x)/dx = 1 (cast back to x's dtype; none for integers)", local=elementwise("1 (cast back)"))
def _cast(op, needs, g):
    x = op.inputs[0]
    if x.dtype.is_complex and g.dtype.is_floating:  # complex -> real kept the real part
        return (m.cast(complex_(g, zeros_like(g)), x.dtype),)
    if x.dtype.is_floating and g.dtype.is_complex:  # real -> complex: the real part flows back
        return (m.cast(real(g), x.dtype),)
    if (x.dtype.is_floating or x.dtype.is_complex) and (g.dtype.is_floating or g.dtype.is_complex):
        return (m.cast(g, x.dtype),)
    return (None,)


@defgrad(
    m.SELECT,
    "d where(c,x,y)/dx = 1 where c, d/dy = 1 where not c",
    local=elementwise(None, "1 where c", "1 where not c", symbols=("c", "x", "y")),
)
def _select(op, needs, g):
    c, x, y = op.inputs
    zeros = zeros_like(g)
    return (
        None,
        unbroadcast(m.where(c, g, zeros), x) if needs[1] else None,
        unbroadcast(m.where(c, zeros, g), y) if needs[2] else None,
    )


@defgrad(m.ADD_N, "d(x1+...+xn)/dxi = 1", local=elementwise(every="1"))
def _add_n(op, needs, g):
    return tuple(g if need else None for need in needs)


# -- reductions ----------------------------------------------------------------------


def _restore(g, op):
    """Upstream of a reduction, reshaped with its reduced axes kept, broadcast to the input."""
    x = op.inputs[0]
    if not op.attrs["keepdims"]:
        kept = tuple(1 if i in op.attrs["axis"] else n for i, n in enumerate(x._value.shape))
        g = reshape(g, kept)
    return broadcast_to(g, x._value.shape)


def _count(op):
    shape = op.inputs[0]._value.shape
    return int(np.prod([shape[a] for a in op.attrs["axis"]], dtype=np.int64))


@defgrad(
    m.reduce_sum, "d sum(x)/dxi = 1", local=described("1 for every element: the upstream copied back to x's shape")
)
def _sum(op, needs, g):
    return (_restore(g, op),)


@defgrad(
    m.reduce_mean,
    "d mean(x)/dxi = 1/n",
    local=described(_mean_text),
)
def _mean(op, needs, g):
    return (_restore(g, op) / float(max(_count(op), 1)),)


def _min_or_max(op, needs, g):
    x, y = op.inputs[0], op.outputs[0]
    y_full = _restore(y, op)
    hits = m.cast(m.equal(x, y_full), g.dtype)
    count = _restore(m.reduce_sum(hits, axis=op.attrs["axis"], keepdims=op.attrs["keepdims"]), op)
    return (_restore(g, op) * hits / count,)


defgrad(
    m.reduce_max,
    "d max(x)/dxi = 1/k at the k tied maxima, else 0",
    local=described("1 at the maximum (1/k when k tie), 0 elsewhere"),
)(_min_or_max)
defgrad(
    m.reduce_min,
    "d min(x)/dxi = 1/k at the k tied minima, else 0",
    local=described("1 at the minimum (1/k when k tie), 0 elsewhere"),
)(_min_or_max)


@defgrad(
    m.reduce_prod,
    "d prod(x)/dxi = product of the others (exact with zeros)",
    local=described("the product of the other elements"),
)
def _prod(op, needs, g):
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


@defgrad(
    m.CUMSUM,
    "d cumsum(x)/dx = reverse cumsum of the upstream",
    local=described("1 for every later output: a reverse cumsum of the upstream"),
)
def _cumsum(op, needs, g):
    a = op.attrs
    return (m.cumsum(g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"]),)


@defgrad(
    m.CUMPROD,
    "d cumprod(x)/dx = reverse cumsum(upstream * cumprod) / x (exact at zeros: the product of the others)",
    local=described("cumprod / x for every later output"),
)
def _cumprod(op, needs, g):
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
