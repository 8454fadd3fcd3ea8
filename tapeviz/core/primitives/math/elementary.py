"""Sign, exponentials, logarithms, powers, trigonometric and hyperbolic functions; each kernel with its gradient rule."""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import unary
from tapeviz.core.primitives.array.constants import zeros_like
from tapeviz.core.primitives.complex import conj_if_complex
from tapeviz.core.primitives.math.arithmetic import xp_function
from tapeviz.core.rules import defgrad, elementwise


def _unary(primitive, formula, factor, shown):
    """Register an elementwise rule: gradient = upstream * factor(x, y), y the output.

    ``shown``: how the chain-rule card writes ``factor`` (its value comes from this rule).
    """

    @defgrad(primitive, formula, local=elementwise(shown))
    def rule(op, needs, g):
        return (g * conj_if_complex(factor(op.inputs[0], op.outputs[0])),)

    return rule


sign = unary("sign", "Sign", xp_function("sign"), "-1, 0 or 1. Its gradient is zero everywhere.")
_unary(sign, "d sign(x)/dx = 0", lambda x, y: zeros_like(x), "0")

exp = unary(
    "exp",
    "Exp",
    xp_function("exp"),
    """e ** x.

Example:
    >>> import tapeviz as tf
    >>> print(tf.exp([0.0, 1.0]))
    tf.Tensor([1.       2.718282], shape=(2,), dtype=float32)
""",
    floats_only=True,
)
_unary(exp, "d exp(x)/dx = exp(x)", lambda x, y: y, "exp(x)")

expm1 = unary("expm1", "Expm1", xp_function("expm1"), "e ** x - 1, accurate near 0.", floats_only=True)
_unary(expm1, "d expm1(x)/dx = exp(x)", lambda x, y: m.exp(x), "exp(x)")

log = unary(
    "log",
    "Log",
    xp_function("log"),
    """Natural logarithm (-inf at 0, nan below).

Example:
    >>> import tapeviz as tf
    >>> print(tf.math.log([1.0, 100.0]))
    tf.Tensor([0.        4.6051702], shape=(2,), dtype=float32)
""",
    floats_only=True,
)
_unary(log, "d log(x)/dx = 1/x", lambda x, y: m.reciprocal(x), "1/x")

log1p = unary("log1p", "Log1p", xp_function("log1p"), "log(1 + x), accurate near 0.", floats_only=True)
_unary(log1p, "d log1p(x)/dx = 1/(1+x)", lambda x, y: m.reciprocal(1.0 + x), "1/(1+x)")

sqrt = unary(
    "sqrt",
    "Sqrt",
    xp_function("sqrt"),
    """Square root. Its gradient at 0 is inf, as in TF.

Example:
    >>> import tapeviz as tf
    >>> print(tf.sqrt([4.0, 9.0]))
    tf.Tensor([2. 3.], shape=(2,), dtype=float32)
""",
    floats_only=True,
)


# sqrt, rsqrt and reciprocal go through TF's fused backward kernels, which give
# 0 where the upstream is 0 (no 0 * inf = nan behind a tf.where).
@defgrad(sqrt, "d sqrt(x)/dx = 0.5/sqrt(x) (inf at 0; 0 where the upstream is 0)", local=elementwise("0.5/sqrt(x)"))
def _sqrt_rule(op, needs, g):
    return (m.sqrt_grad(conj_if_complex(op.outputs[0]), g),)


rsqrt = unary("rsqrt", "Rsqrt", lambda x: 1 / B.xp.sqrt(x), "1 / sqrt(x).", floats_only=True)


@defgrad(rsqrt, "d x**-0.5/dx = -0.5*x**-1.5 (0 where the upstream is 0)", local=elementwise("-0.5*x**-1.5"))
def _rsqrt_rule(op, needs, g):
    return (m.rsqrt_grad(conj_if_complex(op.outputs[0]), g),)


square = unary(
    "square",
    "Square",
    lambda x: x * x,
    """x * x.

Example:
    >>> import tapeviz as tf
    >>> print(tf.square([2.0, -3.0]))
    tf.Tensor([4. 9.], shape=(2,), dtype=float32)
""",
)
_unary(square, "d x²/dx = 2x", lambda x, y: 2.0 * x, "2*x")

reciprocal = unary("reciprocal", "Reciprocal", lambda x: 1 / x, "1 / x.", floats_only=True)


@defgrad(reciprocal, "d(1/x)/dx = -1/x² (0 where the upstream is 0)", local=elementwise("-1/x²"))
def _reciprocal_rule(op, needs, g):
    return (m.reciprocal_grad(conj_if_complex(op.outputs[0]), g),)


sin = unary(
    "sin",
    "Sin",
    xp_function("sin"),
    """Sine.

Example:
    >>> import tapeviz as tf
    >>> print(tf.sin([0.0, 1.0]))
    tf.Tensor([0.       0.841471], shape=(2,), dtype=float32)
""",
    floats_only=True,
)
_unary(sin, "d sin(x)/dx = cos(x)", lambda x, y: m.cos(x), "cos(x)")

cos = unary("cos", "Cos", xp_function("cos"), "Cosine.", floats_only=True)
_unary(cos, "d cos(x)/dx = -sin(x)", lambda x, y: -m.sin(x), "-sin(x)")

tan = unary("tan", "Tan", xp_function("tan"), "Tangent.", floats_only=True)
_unary(tan, "d tan(x)/dx = 1/cos²(x)", lambda x, y: m.square(m.reciprocal(m.cos(x))), "1/cos²(x)")

asin = unary("asin", "Asin", xp_function("arcsin"), "Inverse sine.", floats_only=True)
_unary(asin, "d asin(x)/dx = 1/sqrt(1-x²)", lambda x, y: m.rsqrt(1.0 - x * x), "1/sqrt(1-x²)")

acos = unary("acos", "Acos", xp_function("arccos"), "Inverse cosine.", floats_only=True)
_unary(acos, "d acos(x)/dx = -1/sqrt(1-x²)", lambda x, y: -m.rsqrt(1.0 - x * x), "-1/sqrt(1-x²)")

atan = unary("atan", "Atan", xp_function("arctan"), "Inverse tangent.", floats_only=True)
_unary(atan, "d atan(x)/dx = 1/(1+x²)", lambda x, y: m.reciprocal(1.0 + x * x), "1/(1+x²)")

sinh = unary("sinh", "Sinh", xp_function("sinh"), "Hyperbolic sine.", floats_only=True)
_unary(sinh, "d sinh(x)/dx = cosh(x)", lambda x, y: m.cosh(x), "cosh(x)")

cosh = unary("cosh", "Cosh", xp_function("cosh"), "Hyperbolic cosine.", floats_only=True)
_unary(cosh, "d cosh(x)/dx = sinh(x)", lambda x, y: m.sinh(x), "sinh(x)")

tanh = unary(
    "tanh",
    "Tanh",
    xp_function("tanh"),
    """Hyperbolic tangent.

Example:
    >>> import tapeviz as tf
    >>> print(tf.math.tanh([0.0, 1.0]))
    tf.Tensor([0.        0.7615942], shape=(2,), dtype=float32)
""",
    floats_only=True,
)
_unary(tanh, "d tanh(x)/dx = 1 - tanh²(x)", lambda x, y: 1.0 - y * y, "1 - tanh²(x)")

asinh = unary("asinh", "Asinh", xp_function("arcsinh"), "Inverse hyperbolic sine.", floats_only=True)
_unary(asinh, "d asinh(x)/dx = 1/cosh(asinh(x))", lambda x, y: 1.0 / m.cosh(y), "1/√(x²+1)")

acosh = unary("acosh", "Acosh", xp_function("arccosh"), "Inverse hyperbolic cosine (NaN below 1).", floats_only=True)
_unary(acosh, "d acosh(x)/dx = 1/sinh(acosh(x))", lambda x, y: 1.0 / m.sinh(y), "1/√(x²-1)")

atanh = unary("atanh", "Atanh", xp_function("arctanh"), "Inverse hyperbolic tangent (±inf at ±1).", floats_only=True)
_unary(atanh, "d atanh(x)/dx = 1/(1-x²)", lambda x, y: 1.0 / (1.0 - x * x), "1/(1-x²)")

sigmoid = unary(
    "sigmoid",
    "Sigmoid",
    lambda x: 1 / (1 + B.xp.exp(-x)),
    """1 / (1 + exp(-x)).

Example:
    >>> import tapeviz as tf
    >>> print(tf.math.sigmoid([0.0, 2.0]))
    tf.Tensor([0.5      0.880797], shape=(2,), dtype=float32)
""",
    floats_only=True,
)
_unary(sigmoid, "d σ(x)/dx = σ(x)(1-σ(x))", lambda x, y: y * (1.0 - y), "σ(x)(1-σ(x))")


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


@defgrad(
    SQRT_GRAD,
    "sqrt_grad(y, dy) = 0.5 dy/y:  d/dy = -0.5 dy/y²,  d/d(dy) = 0.5/y",
    local=elementwise("-0.5 dy/y²", "0.5/y", symbols=("y", "dy")),
)
def _sqrt_grad_rule(op, needs, g):
    y, dy = map(conj_if_complex, op.inputs)  # complex: the conjugate of each local derivative
    scaled = g / y
    return (-scaled * conj_if_complex(op.outputs[0]) if needs[0] else None, 0.5 * scaled if needs[1] else None)


def rsqrt_grad(y, dy):
    """-0.5 * dy * y**3, but 0 where dy == 0: rsqrt's backward step, given its output y."""
    return execute(RSQRT_GRAD, (as_tensor(y), as_tensor(dy)))


@defgrad(
    RSQRT_GRAD,
    "rsqrt_grad(y, dy) = -0.5 dy y³:  d/dy = -1.5 dy y²,  d/d(dy) = -0.5 y³",
    local=elementwise(
        "-1.5 dy y²",
        "-0.5 y³",
        symbols=("y", "dy"),
    ),
)
def _rsqrt_grad_rule(op, needs, g):
    y, dy = map(conj_if_complex, op.inputs)
    return (-1.5 * g * dy * (y * y) if needs[0] else None, m.rsqrt_grad(y, g) if needs[1] else None)


def reciprocal_grad(y, dy):
    """-dy * y**2, but 0 where dy == 0: reciprocal's backward step, given its output y."""
    return execute(RECIPROCAL_GRAD, (as_tensor(y), as_tensor(dy)))


@defgrad(
    RECIPROCAL_GRAD,
    "reciprocal_grad(y, dy) = -dy y²:  d/dy = -2 dy y,  d/d(dy) = -y²",
    local=elementwise("-2 dy y", "-y²", symbols=("y", "dy")),
)
def _reciprocal_grad_rule(op, needs, g):
    y, dy = map(conj_if_complex, op.inputs)
    return (-2.0 * g * dy * y if needs[0] else None, m.reciprocal_grad(y, g) if needs[1] else None)


erf = unary("erf", "Erf", lambda x: B.erf(x), "The error function.", floats_only=True)


_unary(
    erf,
    "d erf(x)/dx = 2/sqrt(pi) exp(-x²)",
    lambda x, y: float(2.0 / np.sqrt(np.pi)) * m.exp(-(x * x)),
    "2/sqrt(pi) exp(-x²)",
)
