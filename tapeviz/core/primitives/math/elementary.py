"""Exponentials, logarithms, powers, trigonometric and hyperbolic functions; each kernel with its gradient rule."""

from tapeviz import backend as B
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import unary
from tapeviz.core.primitives.math.arithmetic import xp_function

exp = unary("exp", "Exp", xp_function("exp"), "e ** x.", floats_only=True)
expm1 = unary("expm1", "Expm1", xp_function("expm1"), "e ** x - 1, accurate near 0.", floats_only=True)
log = unary("log", "Log", xp_function("log"), "Natural logarithm (-inf at 0, nan below).", floats_only=True)
log1p = unary("log1p", "Log1p", xp_function("log1p"), "log(1 + x), accurate near 0.", floats_only=True)
sqrt = unary("sqrt", "Sqrt", xp_function("sqrt"), "Square root. Its gradient at 0 is inf, as in TF.", floats_only=True)
rsqrt = unary("rsqrt", "Rsqrt", lambda x: 1 / B.xp.sqrt(x), "1 / sqrt(x).", floats_only=True)
square = unary("square", "Square", lambda x: x * x, "x * x.")
reciprocal = unary("reciprocal", "Reciprocal", lambda x: 1 / x, "1 / x.", floats_only=True)
sin = unary("sin", "Sin", xp_function("sin"), "Sine.", floats_only=True)
cos = unary("cos", "Cos", xp_function("cos"), "Cosine.", floats_only=True)
tan = unary("tan", "Tan", xp_function("tan"), "Tangent.", floats_only=True)
asin = unary("asin", "Asin", xp_function("arcsin"), "Inverse sine.", floats_only=True)
acos = unary("acos", "Acos", xp_function("arccos"), "Inverse cosine.", floats_only=True)
atan = unary("atan", "Atan", xp_function("arctan"), "Inverse tangent.", floats_only=True)
sinh = unary("sinh", "Sinh", xp_function("sinh"), "Hyperbolic sine.", floats_only=True)
cosh = unary("cosh", "Cosh", xp_function("cosh"), "Hyperbolic cosine.", floats_only=True)
tanh = unary("tanh", "Tanh", xp_function("tanh"), "Hyperbolic tangent.", floats_only=True)
sigmoid = unary("sigmoid", "Sigmoid", lambda x: 1 / (1 + B.xp.exp(-x)), "1 / (1 + exp(-x)).", floats_only=True)


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
