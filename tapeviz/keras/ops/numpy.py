"""``keras.ops.numpy``: NumPy's functions on tapeviz tensors, as Keras 3 defines them.

Each function is composed of tapeviz's primitives (so it is differentiable
on the tape with no rule of its own) inside a name scope with its Keras name,
and promotes dtypes as Keras 3 does (see ``_common``). Integer-only functions
(bitwise ops, gcd, bincount...) have no gradient, in Keras as here: they run
on the host array.
"""

import builtins

import numpy as np

from tapeviz import array_ops as _ta
from tapeviz import linalg as _tl
from tapeviz import math as _tm
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives.math import cast as _cast
from tapeviz.core.primitives.math import identity as _identity
from tapeviz.core.tensor import constant as _constant
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.core.tensor_shape import TensorShape as _TensorShape
from tapeviz.keras.ops._common import (
    FLOATX,
    axes_tuple,
    floating,
    keras_op,
    promoted,
    real_floating,
    result_type,
    standardize_dtype,
    tensor,
)
from tapeviz.keras.ops.linalg import slogdet  # noqa: F401  (NumPy lists it too)


def _host(x):
    from tapeviz import backend

    return backend.to_numpy(_to_array(tensor(x)))


def _from_host(array, dtype=None):
    array = np.asarray(array)
    if dtype is None and array.dtype == np.float64:
        dtype = "float64"
    return _constant(array, dtype=standardize_dtype(dtype) if dtype else None)


def _ndim(x):
    return len(tensor(x).shape)


def _axis_list(axis, ndim):
    if axis is None:
        return list(range(ndim))
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    return sorted(a % ndim if ndim else 0 for a in axes)


# -- elementwise arithmetic ------------------------------------------------------------


def _binary(name, fn, float_result=False):
    @keras_op(name)
    def op(x1, x2):
        a, b = promoted(x1, x2)
        if float_result and not a.dtype.is_floating:
            a, b = _cast(a, FLOATX), _cast(b, FLOATX)
        return fn(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(x1, x2)``, with Keras 3's dtype promotion."
    return op


def _unary(name, fn, to_float=True):
    @keras_op(name)
    def op(x):
        return fn(floating(x) if to_float else tensor(x))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(x)``" + (": ints and bools become float32 first." if to_float else ".")
    return op


add = _binary("add", _tm.add)
subtract = _binary("subtract", _tm.subtract)
multiply = _binary("multiply", _tm.multiply)
divide = _binary("divide", _tm.divide, float_result=True)
true_divide = _binary("true_divide", _tm.divide, float_result=True)
floor_divide = _binary(
    "floor_divide",
    # TF's FloorDiv of floats is floor(x / y): 1 // -inf is -0.0 and inf // -2 is -inf (NumPy: -1.0 and NaN)
    lambda a, b: _tm.floor(_tm.divide(a, b)) if a.dtype.is_floating else _tm.floordiv(a, b),
)
mod = _binary("mod", _tm.floormod)
maximum = _binary("maximum", _tm.maximum)
minimum = _binary("minimum", _tm.minimum)


def _nan_ignoring(pick):
    """fmax/fmin: ``pick`` of the two, the other where one is NaN (ints have no NaN: plain ``pick``)."""

    def fn(a, b):
        if not (a.dtype.is_floating or a.dtype.is_complex):
            return pick(a, b)
        return _tm.where(_tm.is_nan(a), b, _tm.where(_tm.is_nan(b), a, pick(a, b)))

    return fn


fmax = _binary("fmax", _nan_ignoring(_tm.maximum))
fmin = _binary("fmin", _nan_ignoring(_tm.minimum))
divide_no_nan = _binary("divide_no_nan", _tm.divide_no_nan, float_result=True)
arctan2 = _binary("arctan2", _tm.atan2, float_result=True)
hypot = _binary("hypot", lambda a, b: _tm.sqrt(a * a + b * b), float_result=True)


@keras_op("fmod")
def fmod(x1, x2):
    """The remainder with the sign of ``x1`` (C's fmod), unlike ``mod``."""
    a, b = promoted(x1, x2)
    if not a.dtype.is_floating:
        return _from_host(np.fmod(_host(a), _host(b)))
    from tapeviz.core.custom_gradient import custom_gradient

    shape = list(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))

    @custom_gradient
    def remainder(first, second):  # C's fmod: exact, and fmod(x, +-inf) is x (x - inf * 0 would be NaN)
        with np.errstate(all="ignore"):
            value = _from_host(np.fmod(_host(first), _host(second)), first.dtype.name)

        def grad(upstream):  # d/dx = 1, d/dy = -trunc(x / y)
            return upstream, -upstream * _trunc(_tm.divide(first, second))

        return value, grad

    return remainder(_pa.broadcast_to(a, shape), _pa.broadcast_to(b, shape))


@keras_op("power")
def power(x1, x2):
    """x1 ** x2 with Keras's promotion (an int to an int power stays int)."""
    a, b = promoted(x1, x2)
    if a.dtype in ("uint8", "uint16"):  # TF has no Pow kernel for them: Keras computes wider, then casts back
        return _cast(_tm.pow(_cast(a, "int32"), _cast(b, "int32")), a.dtype)
    return _tm.pow(a, b)


@keras_op("logaddexp")
def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)), stable: max + log1p(exp(-|x1 - x2|))."""
    a, b = promoted(floating(x1), floating(x2))
    top = _tm.maximum(a, b)
    same = _tm.equal(a, b)  # equal infinities: their gap is 0, not inf - inf = NaN
    gap = _tm.where(same, _pa.zeros_like(a), a - b)
    return top + _tm.log1p(_tm.exp(-_tm.abs(gap)))


@keras_op("logaddexp2")
def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2)."""
    a, b = promoted(floating(x1), floating(x2))
    ln2 = np.log(2.0)
    return logaddexp(a * ln2, b * ln2) / ln2


abs = _unary("abs", _tm.abs, to_float=False)  # noqa: A001 - Keras's name
absolute = _unary("absolute", _tm.abs, to_float=False)
fabs = _unary("fabs", _tm.abs)
negative = _unary("negative", _tm.negative, to_float=False)
sign = _unary("sign", _tm.sign, to_float=False)
exp = _unary("exp", _tm.exp)
exp2 = _unary("exp2", lambda x: _tm.exp(x * np.log(2.0)))
expm1 = _unary("expm1", _tm.expm1)
log = _unary("log", _tm.log)
log1p = _unary("log1p", _tm.log1p)
log2 = _unary("log2", lambda x: _tm.log(x) / np.log(2.0))
log10 = _unary("log10", lambda x: _tm.log(x) / np.log(10.0))
sqrt = _unary("sqrt", _tm.sqrt)
cbrt = _unary(
    "cbrt",
    # Keras computes in floatx: a complex input loses its imaginary part there too (TF warns, Keras goes on)
    lambda x: (lambda r: _tm.sign(r) * _tm.pow(_tm.abs(r), 1.0 / 3.0))(_tm.real(x) if x.dtype.is_complex else x),
)
reciprocal = _unary("reciprocal", _tm.reciprocal)
sin = _unary("sin", _tm.sin)
cos = _unary("cos", _tm.cos)
tan = _unary("tan", _tm.tan)
arcsin = _unary("arcsin", _tm.asin)
arccos = _unary("arccos", _tm.acos)
arctan = _unary("arctan", _tm.atan)
sinh = _unary("sinh", _tm.sinh)
cosh = _unary("cosh", _tm.cosh)
tanh = _unary("tanh", _tm.tanh)


def _inverse_function(numpy_fn, derivative_at):
    """A function valued by NumPy (exact at +-inf and for large |x|), differentiated as TF's kernels are: the
    upstream gradient divided by the forward function's derivative at the result (AsinhGrad: cosh(y), AcoshGrad:
    sinh(y)), so acosh's gradient is 0 at +inf and NaN where acosh is."""
    from tapeviz.core.custom_gradient import custom_gradient

    @custom_gradient
    def fn(x):
        with np.errstate(all="ignore"):
            value = _from_host(numpy_fn(_host(x)), x.dtype.name)
        return value, lambda upstream: upstream / derivative_at(value)

    return fn


_asinh = _inverse_function(np.arcsinh, _tm.cosh)
_acosh = _inverse_function(np.arccosh, _tm.sinh)
arcsinh = _unary("arcsinh", _asinh)
arccosh = _unary("arccosh", _acosh)
arctanh = _unary("arctanh", lambda x: 0.5 * (_tm.log1p(x) - _tm.log1p(-x)))
deg2rad = _unary("deg2rad", lambda x: x * (np.pi / 180.0))
rad2deg = _unary("rad2deg", lambda x: x * (180.0 / np.pi))
ceil = _unary("ceil", _tm.ceil)
floor = _unary("floor", _tm.floor)


def _trunc(x):
    return _tm.where(_tm.less(x, 0), _tm.ceil(x), _tm.floor(x))


@keras_op("trunc")
def trunc(x):
    """Round toward zero; ints stay as they are (complex is refused, as by TF)."""
    x = tensor(x)
    return _trunc(real_floating(x, "trunc")) if x.dtype.is_floating or x.dtype.is_complex else x


@keras_op("square")
def square(x):
    """x * x; a bool input becomes int32 first, as Keras does."""
    x = tensor(x)
    if x.dtype.is_bool:
        x = _cast(x, "int32")
    return _tm.square(x)


@keras_op("round")
def round(x, decimals=0):  # noqa: A001 - Keras's name
    """Round half to even, to ``decimals`` places (ints are returned as they are when decimals >= 0)."""
    x = tensor(x)
    if x.dtype.is_complex:
        real_floating(x, "round")  # refused, as by TF
    if not x.dtype.is_floating:
        return x if decimals >= 0 else _from_host(np.round(_host(x), decimals), x.dtype.name)
    if decimals == 0:
        return _tm.round(x)
    scale = 10.0**decimals
    return _tm.round(x * scale) / scale


@keras_op("sinc")
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0."""
    x = floating(x)
    zero = _tm.equal(x, 0)
    safe = _tm.where(zero, _pa.ones_like(x), x) * np.pi
    return _tm.where(zero, _pa.ones_like(x), _tm.sin(safe) / safe)


@keras_op("heaviside")
def heaviside(x1, x2):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0."""
    a, b = promoted(x1, x2)
    if not a.dtype.is_floating:
        a, b = _cast(a, FLOATX), _cast(b, FLOATX)
    ones, zeros = _pa.ones_like(a), _pa.zeros_like(a)
    return _tm.where(_tm.less(a, 0), zeros, _tm.where(_tm.greater(a, 0), ones, b + zeros))


@keras_op("clip")
def clip(x, x_min, x_max):
    """``x`` limited to [x_min, x_max]; a bool input becomes int32, as Keras does."""
    x = tensor(x)
    if x.dtype.is_bool:
        x = _cast(x, "int32")
    return _tm.minimum(_tm.maximum(x, tensor(x_min, x.dtype)), tensor(x_max, x.dtype))


@keras_op("nan_to_num")
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """nan -> ``nan``, +inf -> ``posinf`` (the dtype's max), -inf -> ``neginf`` (its min)."""
    x = tensor(x)
    if not x.dtype.is_floating:
        return x
    info = np.finfo(x.dtype.as_numpy_dtype)
    x = _tm.where(_tm.is_nan(x), tensor(nan, x.dtype) + _pa.zeros_like(x), x)
    big = _pa.zeros_like(x) + tensor(info.max if posinf is None else posinf, x.dtype)
    small = _pa.zeros_like(x) + tensor(info.min if neginf is None else neginf, x.dtype)
    x = _tm.where(_tm.logical_and(_tm.is_inf(x), _tm.greater(x, 0)), big, x)
    return _tm.where(_tm.logical_and(_tm.is_inf(x), _tm.less(x, 0)), small, x)


@keras_op("conj")
def conj(x):
    """The complex conjugate (a real tensor is its own)."""
    x = tensor(x)
    return _tm.conj(x) if x.dtype.is_complex else x


conjugate = conj


@keras_op("real")
def real(x):
    """The real part (float32 for complex64); a real tensor is its own."""
    x = tensor(x)
    return _tm.real(x) if x.dtype.is_complex else x


@keras_op("imag")
def imag(x):
    """The imaginary part (float32 for complex64); zeros for a real tensor."""
    x = tensor(x)
    return _tm.imag(x) if x.dtype.is_complex else _pa.zeros_like(x)


@keras_op("angle")
def angle(x):
    """The complex argument: atan2(imag, real); for reals pi where negative, else 0."""
    x = floating(x)
    if x.dtype.is_complex:
        return _tm.angle(x)
    return _tm.where(_tm.less(x, 0), _pa.ones_like(x) * np.pi, _pa.zeros_like(x))


# -- comparisons and predicates ---------------------------------------------------------


def _compare(name, fn):
    @keras_op(name)
    def op(x1, x2):
        a, b = promoted(x1, x2)
        return fn(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(x1, x2)``: a bool tensor."
    return op


equal = _compare("equal", _tm.equal)
not_equal = _compare("not_equal", _tm.not_equal)
greater = _compare("greater", _tm.greater)
greater_equal = _compare("greater_equal", _tm.greater_equal)
less = _compare("less", _tm.less)
less_equal = _compare("less_equal", _tm.less_equal)
logical_and = _compare("logical_and", lambda a, b: _tm.logical_and(_cast(a, "bool"), _cast(b, "bool")))
logical_or = _compare("logical_or", lambda a, b: _tm.logical_or(_cast(a, "bool"), _cast(b, "bool")))
logical_xor = _compare("logical_xor", lambda a, b: _tm.not_equal(_cast(a, "bool"), _cast(b, "bool")))


@keras_op("logical_not")
def logical_not(x):
    """not x, elementwise (any dtype: nonzero is true)."""
    return _tm.logical_not(_cast(tensor(x), "bool"))


def _float_predicate(name, fn, for_ints):
    @keras_op(name)
    def op(x):
        x = tensor(x)
        return fn(x) if x.dtype.is_floating else _pa.fill(_pa.shape(x), for_ints)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(x)``: a bool tensor ({for_ints} everywhere for ints)."
    return op


isnan = _float_predicate("isnan", _tm.is_nan, False)
isinf = _float_predicate("isinf", _tm.is_inf, False)
isfinite = _float_predicate("isfinite", _tm.is_finite, True)
isposinf = _float_predicate("isposinf", lambda x: _tm.logical_and(_tm.is_inf(x), _tm.greater(x, 0)), False)
isneginf = _float_predicate("isneginf", lambda x: _tm.logical_and(_tm.is_inf(x), _tm.less(x, 0)), False)


@keras_op("isreal")
def isreal(x):
    """True where the imaginary part is 0 (everywhere for a real tensor)."""
    x = tensor(x)
    if x.dtype.is_complex:
        return _tm.equal(_tm.imag(x), 0.0)
    return _pa.fill(_pa.shape(x), True)


@keras_op("signbit")
def signbit(x):
    """Where the sign bit is set (negative numbers and -0.0)."""
    return _from_host(np.signbit(_host(x)))


@keras_op("isclose")
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """|x1 - x2| <= atol + rtol * |x2|, elementwise."""
    a, b = promoted(x1, x2)
    if not a.dtype.is_floating:
        a, b = _cast(a, FLOATX), _cast(b, FLOATX)
    close = _tm.less_equal(_tm.abs(a - b), atol + rtol * _tm.abs(b))
    if equal_nan:
        close = _tm.logical_or(close, _tm.logical_and(_tm.is_nan(a), _tm.is_nan(b)))
    return _tm.logical_or(close, _tm.equal(a, b))


@keras_op("allclose")
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """Whether ``isclose`` holds everywhere (a bool scalar tensor)."""
    return _tm.reduce_all(isclose(x1, x2, rtol, atol, equal_nan))


@keras_op("isin")
def isin(x1, x2, assume_unique=False, invert=False):
    """Where an entry of ``x1`` is among ``x2``'s values."""
    found = np.isin(_host(x1), _host(x2), invert=invert)
    return _from_host(found)


# -- reductions -------------------------------------------------------------------------


def _sum_dtype(x):
    """Keras sums small ints and bools as int32 (uint8 as uint32, here int32: tapeviz has no uint32)."""
    name = x.dtype.name
    if name in ("bool", "int8", "int16", "uint8"):
        return _cast(x, "int32")
    return x


@keras_op("sum")
def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """The sum over ``axis`` (all axes when None); bools and small ints are summed as int32."""
    return _tm.reduce_sum(_sum_dtype(tensor(x)), axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("prod")
def prod(x, axis=None, keepdims=False, dtype=None):
    """The product over ``axis``; bools and small ints as int32."""
    x = _sum_dtype(tensor(x))
    if dtype is not None:
        x = tensor(x, dtype)
    return _tm.reduce_prod(x, axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("mean")
def mean(x, axis=None, keepdims=False):
    """The mean over ``axis``; ints and bools give float32."""
    return _tm.reduce_mean(floating(x), axis=axes_tuple(axis), keepdims=keepdims)


def _extreme(name, reduce):
    @keras_op(name)
    def op(x, axis=None, keepdims=False, initial=None):
        x = tensor(x)
        if initial is None and 0 in tuple(x.shape):
            raise InvalidArgumentError(f"Cannot compute the {name.lstrip('a')} of an empty tensor.")
        if x.dtype.name == "bool":  # the max of bools is any, the min all
            logical = _tm.reduce_any if name in ("max", "amax") else _tm.reduce_all
            out = logical(x, axis=axes_tuple(axis), keepdims=keepdims)
            if initial is not None:
                out = (_tm.logical_or if name in ("max", "amax") else _tm.logical_and)(out, bool(initial))
            return out
        out = reduce(x, axis=axes_tuple(axis), keepdims=keepdims)
        if initial is not None:
            out = (_tm.maximum if name in ("max", "amax") else _tm.minimum)(out, tensor(initial, x.dtype))
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(x, axis=None, keepdims=False, initial=None)``; keeps the dtype."
    return op


max = _extreme("max", _tm.reduce_max)  # noqa: A001 - Keras's name
min = _extreme("min", _tm.reduce_min)  # noqa: A001 - Keras's name
amax = _extreme("amax", _tm.reduce_max)
amin = _extreme("amin", _tm.reduce_min)


@keras_op("var")
def var(x, axis=None, keepdims=False):
    """The population variance over ``axis``; ints give float32."""
    return _tm.reduce_variance(floating(x), axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("std")
def std(x, axis=None, keepdims=False):
    """The population standard deviation over ``axis``; ints give float32."""
    return _tm.reduce_std(floating(x), axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("all")
def all(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """Whether every entry is nonzero along ``axis``."""
    return _tm.reduce_all(_cast(tensor(x), "bool"), axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("any")
def any(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """Whether some entry is nonzero along ``axis``."""
    return _tm.reduce_any(_cast(tensor(x), "bool"), axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("ptp")
def ptp(x, axis=None, keepdims=False):
    """max - min along ``axis``."""
    x = tensor(x)
    return _tm.reduce_max(x, axis=axes_tuple(axis), keepdims=keepdims) - _tm.reduce_min(
        x, axis=axes_tuple(axis), keepdims=keepdims
    )


@keras_op("count_nonzero")
def count_nonzero(x, axis=None):
    """How many entries are nonzero along ``axis`` (int32)."""
    x = tensor(x)
    return _tm.reduce_sum(_cast(_tm.not_equal(x, _pa.zeros_like(x)), "int32"), axis=axes_tuple(axis))


@keras_op("average")
def average(x, axis=None, weights=None):
    """The weighted mean along ``axis``: sum(x * w) / sum(w) (``weights`` 1-D along ``axis``, or x's shape)."""
    x = floating(x)
    if weights is None:
        return _tm.reduce_mean(x, axis=axis)
    x, w = promoted(x, floating(weights))
    if axis is not None and len(w.shape) == 1 and len(x.shape) > 1:
        shape = [1] * len(x.shape)
        shape[axis] = -1
        w = _pa.reshape(w, shape)
    w = _pa.broadcast_to(w, x.shape) if tuple(w.shape) != tuple(x.shape) else w
    return _tm.reduce_sum(x * w, axis=axis) / _tm.reduce_sum(w, axis=axis)


def _arg(name, fn):
    @keras_op(name)
    def op(x, axis=None, keepdims=False):
        x = tensor(x)
        if axis is None:
            out = fn(_pa.reshape(x, [-1]), axis=0)
            return _pa.reshape(out, [1] * len(x.shape)) if keepdims else out
        out = fn(x, axis=axis, output_type="int32")
        return _pa.expand_dims(out, axis) if keepdims else out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"``keras.ops.{name}(x, axis=None, keepdims=False)``: int32 indices (of the flattened x if axis is None)."
    )
    return op


argmax = _arg("argmax", lambda x, axis, output_type="int32": _tm.argmax(x, axis=axis, output_type="int32"))
argmin = _arg("argmin", lambda x, axis, output_type="int32": _tm.argmin(x, axis=axis, output_type="int32"))


def _nan_reduction(name, reduce, fill):
    @keras_op(name)
    def op(x, axis=None, keepdims=False):
        x = tensor(x)
        if not (x.dtype.is_floating or x.dtype.is_complex):  # no NaN to drop: the plain reduction, Keras's dtype
            return _NAN_REDUCTION_OF_INTS[name](x, axis=axis, keepdims=keepdims)
        return reduce(_tm.where(_tm.is_nan(x), _pa.zeros_like(x) + fill, x), axis=axes_tuple(axis), keepdims=keepdims)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}``: the reduction with NaNs ignored."
    return op


_NAN_REDUCTION_OF_INTS = {
    "nansum": lambda x, axis, keepdims: sum(x, axis, keepdims),
    "nanprod": lambda x, axis, keepdims: prod(x, axis, keepdims),
    "nanmax": lambda x, axis, keepdims: max(x, axis, keepdims),
    "nanmin": lambda x, axis, keepdims: min(x, axis, keepdims),
}
nansum = _nan_reduction("nansum", _tm.reduce_sum, 0.0)
nanprod = _nan_reduction("nanprod", _tm.reduce_prod, 1.0)
nanmax = _nan_reduction("nanmax", _tm.reduce_max, -np.inf)
nanmin = _nan_reduction("nanmin", _tm.reduce_min, np.inf)


@keras_op("nanmean")
def nanmean(x, axis=None, keepdims=False):
    """The mean of the entries that are not NaN."""
    x = floating(x)
    kept = _cast(_tm.logical_not(_tm.is_nan(x)), x.dtype)
    total = nansum(x, axis=axis, keepdims=keepdims)
    return total / _tm.reduce_sum(kept, axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("nanvar")
def nanvar(x, axis=None, keepdims=False):
    """The variance of the entries that are not NaN."""
    x = floating(x)
    missing = _tm.is_nan(x)
    centre = nanmean(x, axis=axis, keepdims=True)
    # NaN entries are replaced before squaring: square(NaN)'s gradient would be NaN even where unused.
    spread = _tm.where(missing, _pa.zeros_like(x), x - centre)
    kept = _cast(_tm.logical_not(missing), x.dtype)
    total = _tm.reduce_sum(_tm.square(spread), axis=axes_tuple(axis), keepdims=keepdims)
    return total / _tm.reduce_sum(kept, axis=axes_tuple(axis), keepdims=keepdims)


@keras_op("nanstd")
def nanstd(x, axis=None, keepdims=False):
    """The standard deviation of the entries that are not NaN."""
    return _tm.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


# -- cumulative, sorting, order statistics ------------------------------------------------


def _cumulative(name, fn):
    @keras_op(name)
    def op(x, axis=None, dtype=None):
        x = tensor(x)
        if dtype is not None:
            x = tensor(x, dtype)
        elif x.dtype.is_bool:
            x = _cast(x, "int32")
        if axis is None:
            x, axis = _pa.reshape(x, [-1]), 0
        return fn(x, axis=axis)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(x, axis=None, dtype=None)``: over the flattened x when axis is None."
    return op


cumsum = _cumulative("cumsum", _tm.cumsum)
cumprod = _cumulative("cumprod", _tm.cumprod)


@keras_op("sort")
def sort(x, axis=-1):
    """``x`` sorted ascending along ``axis`` (differentiable: a gather)."""
    return _ta.sort(tensor(x), axis=axis)


@keras_op("argsort")
def argsort(x, axis=-1):
    """The int32 indices that sort ``x`` along ``axis`` (stable, as NumPy)."""
    x = tensor(x)
    if axis is None:
        x, axis = _pa.reshape(x, [-1]), -1
    return _from_host(np.argsort(_host(x), axis=axis, kind="stable").astype(np.int32))


@keras_op("argpartition")
def argpartition(x, kth, axis=-1):
    """Indices that put the k-th smallest value in place, smaller ones before it (int32)."""
    return _from_host(np.argpartition(_host(x), kth, axis=axis).astype(np.int32))


def _quantile_of(x, q, axis, method, keepdims):
    """Quantiles ``q`` (in [0, 1]) of ``x`` along ``axis`` by sorting: differentiable through the sort."""
    x = floating(x)
    ndim = len(x.shape)
    axes = _axis_list(axis, ndim)
    rest = [a for a in range(ndim) if a not in axes]
    moved = _pa.transpose(x, rest + axes) if ndim else x
    moved = _pa.reshape(moved, [x.shape[a] for a in rest] + [-1])
    ordered = _ta.sort(moved, axis=-1)
    has_nan = _tm.reduce_any(_tm.is_nan(moved), axis=-1)  # the sort puts NaNs last: they would be skipped
    n = ordered.shape[-1]
    qs = np.atleast_1d(np.asarray(_host(q) if not isinstance(q, (int, float, list, tuple)) else q, np.float64))
    outs = []
    for qi in qs:
        pos = qi * (n - 1)
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        if method == "lower":
            hi = lo
        elif method == "higher":
            lo = hi
        elif method == "nearest":
            lo = hi = int(np.round(pos))
        elif method == "midpoint" and lo != hi:
            pos = lo + 0.5
        low = _pa.gather(ordered, lo, axis=len(ordered.shape) - 1)
        high = _pa.gather(ordered, hi, axis=len(ordered.shape) - 1)
        out = low + (high - low) * (pos - lo) if hi != lo else low
        out = _tm.where(has_nan, _pa.zeros_like(out) + np.nan, out)
        if keepdims:
            shape = [1 if a in axes else x.shape[a] for a in range(ndim)]
            out = _pa.reshape(out, shape)
        outs.append(out)
    is_scalar = np.ndim(q) == 0 if not hasattr(q, "shape") else len(q.shape) == 0
    return outs[0] if is_scalar else _pa.stack(outs)


@keras_op("quantile")
def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantiles (q in [0, 1]) along ``axis``; methods linear, lower, higher, midpoint, nearest."""
    return _quantile_of(x, q, axis, method, keepdims)


@keras_op("percentile")
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` with ``q`` in percent."""
    q = np.asarray(_host(q) if not isinstance(q, (int, float, list, tuple)) else q, np.float64) / 100.0
    return _quantile_of(x, q if q.ndim else float(q), axis, method, keepdims)


@keras_op("median")
def median(x, axis=None, keepdims=False):
    """The median along ``axis`` (the mean of the two middle values for an even count)."""
    return _quantile_of(x, 0.5, axis, "linear", keepdims)


@keras_op("searchsorted")
def searchsorted(sorted_sequence, values, side="left"):
    """Where ``values`` would go into the 1-D ``sorted_sequence`` (int32 indices)."""
    found = np.searchsorted(_host(sorted_sequence), _host(values), side=side)
    return _from_host(found.astype(np.int32))


@keras_op("digitize")
def digitize(x, bins):
    """The index of the bin each value of ``x`` falls in (int32), as ``np.digitize``."""
    return _from_host(np.digitize(_host(x), _host(bins)).astype(np.int32))


@keras_op("bincount")
def bincount(x, weights=None, minlength=0, sparse=False):
    """How often each non-negative int occurs in the 1-D ``x`` (weighted sums if ``weights``)."""
    values = _host(x)
    if weights is None:
        return _from_host(np.bincount(values, minlength=minlength).astype(np.int32))
    w = tensor(weights)
    counts = np.bincount(values, weights=_host(w), minlength=minlength)
    return _from_host(counts.astype(w.dtype.as_numpy_dtype if w.dtype.is_floating else np.int32))


@keras_op("unique")
def unique(x, sorted=True, return_inverse=False, return_counts=False, axis=None, size=None, fill_value=None):  # noqa: A002
    """The sorted unique values of ``x`` (and, if asked, the inverse indices and counts)."""
    values, inverse, counts = np.unique(_host(x), return_inverse=True, return_counts=True, axis=axis)
    out = [_from_host(values, tensor(x).dtype.name)]
    if return_inverse:
        out.append(_from_host(inverse.astype(np.int32)))
    if return_counts:
        out.append(_from_host(counts.astype(np.int32)))
    return out[0] if len(out) == 1 else tuple(out)


@keras_op("nonzero")
def nonzero(x):
    """The int32 indices of the nonzero entries, one tensor per axis."""
    return tuple(_from_host(i.astype(np.int32)) for i in np.nonzero(_host(x)))


@keras_op("diff")
def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis``: a[1:] - a[:-1], n times."""
    a = tensor(a)
    for _ in range(n):
        length = a.shape[axis]
        a = _take_range(a, 1, length, axis) - _take_range(a, 0, length - 1, axis)
    return a


def _take_range(x, start, stop, axis):
    key = [builtins.slice(None)] * len(x.shape)
    key[axis] = builtins.slice(start, stop)
    return x[tuple(key)]


@keras_op("trapezoid")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoid rule."""
    y = floating(y)
    n = y.shape[axis]
    pairs = _take_range(y, 1, n, axis) + _take_range(y, 0, n - 1, axis)
    if x is None:
        return _tm.reduce_sum(pairs, axis=axis) * (dx / 2.0)
    steps = diff(floating(x), axis=axis if len(tensor(x).shape) > 1 else -1)
    if len(steps.shape) == 1 and len(y.shape) > 1:
        shape = [1] * len(y.shape)
        shape[axis] = -1
        steps = _pa.reshape(steps, shape)
    return _tm.reduce_sum(pairs * steps, axis=axis) / 2.0


# -- shape and layout -----------------------------------------------------------------


@keras_op("reshape")
def reshape(x, newshape):
    """The same values in ``newshape`` (one entry may be -1)."""
    sizes = [newshape] if isinstance(newshape, (int, np.integer)) else newshape  # a list, tuple, TensorShape, tensor
    return _pa.reshape(tensor(x), list(sizes) if isinstance(sizes, (list, tuple, _TensorShape)) else sizes)


@keras_op("transpose")
def transpose(x, axes=None):
    """``x`` with its axes permuted (reversed when ``axes`` is None)."""
    return _pa.transpose(tensor(x), perm=list(axes) if axes is not None else None)


@keras_op("expand_dims")
def expand_dims(x, axis):
    """``x`` with size-1 axes inserted at ``axis`` (an int or a tuple of ints)."""
    x = tensor(x)
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    out_ndim = len(x.shape) + len(axes)
    shape, source = [], iter(x.shape)
    where = {a % out_ndim for a in axes}
    for i in range(out_ndim):
        shape.append(1 if i in where else next(source))
    return _pa.reshape(x, shape)


@keras_op("squeeze")
def squeeze(x, axis=None):
    """``x`` without its size-1 axes (only those in ``axis`` if given)."""
    x = tensor(x)
    if axis is None:
        return _pa.squeeze(x)
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"Cannot squeeze axis {a}, because the dimension is not 1. Received: x.shape={x.shape}")
    return _pa.squeeze(x, axis=list(axes))


def ravel(x):
    """``x`` flattened to 1-D."""
    with _scope("ravel"):
        return _pa.reshape(tensor(x), [-1])


def _scope(name):
    from tapeviz.core.scopes import name_scope

    return name_scope(name)


@keras_op("broadcast_to")
def broadcast_to(x, shape):
    """``x`` repeated to ``shape`` along size-1 or missing axes."""
    return _pa.broadcast_to(tensor(x), list(shape))


@keras_op("concatenate")
def concatenate(xs, axis=0):
    """Join tensors along ``axis`` (promoted to one dtype; ``axis=None`` joins them flattened)."""
    tensors = promoted(*xs)
    if axis is None:
        tensors, axis = [_pa.reshape(t, [-1]) for t in tensors], 0
    return _pa.concat(tensors, axis=axis)


@keras_op("append")
def append(x1, x2, axis=None):
    """``x2`` joined after ``x1`` along ``axis`` (both flattened when None)."""
    return concatenate([x1, x2], axis=axis)


@keras_op("stack")
def stack(x, axis=0):
    """Join same-shape tensors along a new axis."""
    return _pa.stack(promoted(*x), axis=axis)


@keras_op("hstack")
def hstack(xs):
    """Join along axis 1 (axis 0 for 1-D tensors)."""
    return concatenate(xs, axis=0 if len(tensor(xs[0]).shape) == 1 else 1)


@keras_op("vstack")
def vstack(xs):
    """Join along axis 0, 1-D tensors as rows."""
    return concatenate([_pa.reshape(tensor(x), [1, -1]) if len(tensor(x).shape) == 1 else x for x in xs], axis=0)


@keras_op("dstack")
def dstack(xs):
    """Join along axis 2, lower-rank tensors raised to 3-D first."""
    raised = []
    for x in xs:
        x = tensor(x)
        shape = {0: [1, 1, 1], 1: [1, -1, 1], 2: list(x.shape) + [1]}.get(len(x.shape))
        raised.append(_pa.reshape(x, shape) if shape else x)
    return concatenate(raised, axis=2)


def _split_points(length, indices_or_sections, even):
    if isinstance(indices_or_sections, int):
        if even and length % indices_or_sections:
            raise ValueError(
                f"array split does not result in an equal division: {length} into {indices_or_sections} sections."
            )
        base, extra = divmod(length, indices_or_sections)
        sizes = [base + 1] * extra + [base] * (indices_or_sections - extra)
        return list(np.cumsum([0] + sizes))
    points = [int(i) for i in indices_or_sections]
    return [0] + [builtins.min(builtins.max(p, 0), length) for p in points] + [length]


@keras_op("split")
def split(x, indices_or_sections, axis=0):
    """NumPy's split: ``indices_or_sections`` equal parts, or the cut points along ``axis``."""
    x = tensor(x)
    points = _split_points(x.shape[axis], indices_or_sections, even=True)
    return [_take_range(x, a, builtins.max(a, b), axis) for a, b in zip(points[:-1], points[1:])]


@keras_op("array_split")
def array_split(x, indices_or_sections, axis=0):
    """``split`` that allows unequal parts (the first ones one longer)."""
    x = tensor(x)
    points = _split_points(x.shape[axis], indices_or_sections, even=False)
    return [_take_range(x, a, builtins.max(a, b), axis) for a, b in zip(points[:-1], points[1:])]


def hsplit(x, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D)."""
    return split(x, indices_or_sections, axis=0 if len(tensor(x).shape) == 1 else 1)


def vsplit(x, indices_or_sections):
    """``split`` along axis 0."""
    return split(x, indices_or_sections, axis=0)


def dsplit(x, indices_or_sections):
    """``split`` along axis 2."""
    return split(x, indices_or_sections, axis=2)


@keras_op("tile")
def tile(x, repeats):
    """``x`` repeated ``repeats[i]`` times along axis i (fewer repeats than axes pad with ones, as NumPy)."""
    x = tensor(x)
    reps = [repeats] if isinstance(repeats, int) else list(repeats)
    if len(reps) > len(x.shape):
        x = _pa.reshape(x, [1] * (len(reps) - len(x.shape)) + list(x.shape))
    reps = [1] * (len(x.shape) - len(reps)) + reps
    return _pa.tile(x, reps)


@keras_op("repeat")
def repeat(x, repeats, axis=None):
    """Each entry repeated ``repeats`` times along ``axis`` (the flattened x when None)."""
    x = tensor(x)
    if axis is None:
        x, axis = _pa.reshape(x, [-1]), 0
    axis %= len(x.shape)
    counts = np.broadcast_to(
        np.asarray(_host(repeats) if not isinstance(repeats, (int, list)) else repeats), (x.shape[axis],)
    )
    index = np.repeat(np.arange(x.shape[axis]), counts).astype(np.int32)
    return _pa.gather(x, _constant(index), axis=axis)


@keras_op("pad")
def pad(x, pad_width, mode="constant", constant_values=None):
    """NumPy-style padding: ``pad_width`` an int, a pair, or one pair per axis; modes constant, reflect, symmetric."""
    x = tensor(x)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (len(x.shape), 2)).tolist()
    if constant_values is not None and mode != "constant":
        raise ValueError(
            "Argument `constant_values` can only be provided when `mode == 'constant'`. "
            f"Received: mode={mode}, constant_values={constant_values}"
        )
    modes = {"constant": "CONSTANT", "reflect": "REFLECT", "symmetric": "SYMMETRIC"}
    if mode not in modes:
        raise ValueError(f"pad: mode must be one of {sorted(modes)} in tapeviz, got {mode!r}.")
    return _pa.pad(x, widths, mode=modes[mode], constant_values=constant_values or 0)


@keras_op("flip")
def flip(x, axis=None):
    """``x`` reversed along ``axis`` (all axes when None)."""
    x = tensor(x)
    return _pa.reverse(x, _axis_list(axis, len(x.shape)))


def fliplr(x):
    """``flip`` along axis 1."""
    return flip(x, axis=1)


def flipud(x):
    """``flip`` along axis 0."""
    return flip(x, axis=0)


@keras_op("roll")
def roll(x, shift, axis=None):
    """``x`` shifted circularly by ``shift`` along ``axis`` (flattened when None)."""
    x = tensor(x)
    shape = x.shape
    if axis is None:
        return _pa.reshape(roll(_pa.reshape(x, [-1]), shift, axis=0), list(shape))
    shifts = shift if isinstance(shift, (list, tuple)) else [shift]
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    for s, a in zip(shifts, axes):
        n = x.shape[a]
        index = (np.arange(n) - s) % n if n else np.arange(0)
        x = _pa.gather(x, _constant(index.astype(np.int32)), axis=a % len(shape))
    return x


@keras_op("moveaxis")
def moveaxis(x, source, destination):
    """``x`` with axes ``source`` moved to ``destination``."""
    x = tensor(x)
    ndim = len(x.shape)
    src = [s % ndim for s in (source if isinstance(source, (list, tuple)) else [source])]
    dst = [d % ndim for d in (destination if isinstance(destination, (list, tuple)) else [destination])]
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _pa.transpose(x, order)


@keras_op("swapaxes")
def swapaxes(x, axis1, axis2):
    """``x`` with two axes exchanged."""
    x = tensor(x)
    order = list(range(len(x.shape)))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return _pa.transpose(x, order)


@keras_op("rot90")
def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    x = tensor(array)
    k %= 4
    a, b = axes
    for _ in range(k):
        x = swapaxes(flip(x, axis=b), a, b)
    return x


@keras_op("take")
def take(x, indices, axis=None):
    """Entries of ``x`` at ``indices`` along ``axis`` (the flattened x when None); negative indices count from the end."""
    x = tensor(x)
    if axis is None:
        x, axis = _pa.reshape(x, [-1]), 0
    index = tensor(indices)
    if not index.dtype.is_integer:
        index = _cast(index, "int32")
    n = x.shape[axis]
    index = _constant(np.where(_host(index) < 0, _host(index) + n, _host(index)).astype(np.int32))
    return _pa.gather(x, index, axis=axis % len(x.shape))


@keras_op("take_along_axis")
def take_along_axis(x, indices, axis=None):
    """``np.take_along_axis``: ``indices`` the shape of ``x`` but along ``axis``."""
    x = tensor(x)
    if axis is None:
        x, axis = _pa.reshape(x, [-1]), 0
    axis %= len(x.shape)
    index = _host(indices).astype(np.int64)
    index = np.where(index < 0, index + x.shape[axis], index)
    shape = np.broadcast_shapes(
        tuple(1 if i == axis else n for i, n in enumerate(x.shape)),
        tuple(1 if i == axis else n for i, n in enumerate(index.shape)),
    )
    full_index = np.broadcast_to(index, shape[:axis] + (index.shape[axis],) + shape[axis + 1 :])
    x = _pa.broadcast_to(x, list(shape[:axis] + (x.shape[axis],) + shape[axis + 1 :]))
    grid = list(np.indices(full_index.shape, sparse=False))
    grid[axis] = full_index
    coords = np.stack(grid, axis=-1).astype(np.int32)
    return _pa.gather_nd(x, _constant(coords))


def get_item(x, key):
    """``x[key]``."""
    return tensor(x)[key]


@keras_op("where")
def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` holds, else ``x2`` (promoted); with neither, the indices where it holds."""
    condition = _cast(tensor(condition), "bool")
    if x1 is None and x2 is None:
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise ValueError("`x1` and `x2` either both should be `None` or both should have non-None value.")
    a, b = promoted(x1, x2)
    shape = np.broadcast_shapes(tuple(condition.shape), tuple(a.shape), tuple(b.shape))
    return _tm.where(
        _pa.broadcast_to(condition, list(shape)), _pa.broadcast_to(a, list(shape)), _pa.broadcast_to(b, list(shape))
    )


@keras_op("select")
def select(condlist, choicelist, default=0):
    """The first ``choicelist`` entry whose condition holds, elementwise, else ``default``."""
    out = tensor(default, result_type(*choicelist))
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = where(cond, choice, out)
    return out


# -- creation ---------------------------------------------------------------------------


def _dtype_or(dtype, default):
    return standardize_dtype(dtype) or default


@keras_op("zeros")
def zeros(shape, dtype=None):
    """Zeros of ``shape`` (float32 unless ``dtype``)."""
    return _pa.zeros(_shape_list(shape), dtype=_dtype_or(dtype, FLOATX))


@keras_op("ones")
def ones(shape, dtype=None):
    """Ones of ``shape`` (float32 unless ``dtype``)."""
    return _pa.ones(_shape_list(shape), dtype=_dtype_or(dtype, FLOATX))


def _shape_list(shape):
    return [shape] if isinstance(shape, int) else list(shape)


empty = zeros


@keras_op("full")
def full(shape, fill_value, dtype=None):
    """``fill_value`` everywhere in ``shape`` (float32 unless ``dtype``)."""
    return _pa.broadcast_to(tensor(fill_value, _dtype_or(dtype, FLOATX)), _shape_list(shape))


@keras_op("zeros_like")
def zeros_like(x, dtype=None):
    """Zeros with ``x``'s shape and dtype (or ``dtype``)."""
    return _pa.zeros_like(tensor(x), dtype=standardize_dtype(dtype))


@keras_op("ones_like")
def ones_like(x, dtype=None):
    """Ones with ``x``'s shape and dtype (or ``dtype``)."""
    return _pa.ones_like(tensor(x), dtype=standardize_dtype(dtype))


empty_like = zeros_like


@keras_op("full_like")
def full_like(x, fill_value, dtype=None):
    """``fill_value`` in ``x``'s shape, with ``x``'s dtype (or ``dtype``)."""
    x = tensor(x)
    return _pa.broadcast_to(tensor(fill_value, _dtype_or(dtype, x.dtype.name)), list(x.shape))


@keras_op("eye")
def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - NumPy's names
    """An N x M matrix with ones on the ``k``-th diagonal (float32 unless ``dtype``)."""
    return _from_host(np.eye(N, M, k, dtype=np.float64), _dtype_or(dtype, FLOATX))


@keras_op("identity")
def identity(n, dtype=None):
    """The n x n identity matrix (float32 unless ``dtype``)."""
    return eye(n, dtype=dtype)


@keras_op("tri")
def tri(N, M=None, k=0, dtype=None):  # noqa: N803 - NumPy's names
    """Ones at and below the ``k``-th diagonal of an N x M matrix."""
    return _from_host(np.tri(N, M, k), _dtype_or(dtype, FLOATX))


def _band(x, k, lower):
    x = tensor(x)
    rows, cols = x.shape[-2], x.shape[-1]
    mask = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return _tm.where(_pa.broadcast_to(_constant(mask), list(x.shape)), x, _pa.zeros_like(x))


@keras_op("tril")
def tril(x, k=0):
    """``x`` with the entries above the ``k``-th diagonal zeroed."""
    return _band(x, k, lower=True)


@keras_op("triu")
def triu(x, k=0):
    """``x`` with the entries below the ``k``-th diagonal zeroed."""
    return _band(x, k, lower=False)


@keras_op("arange")
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop): int32 for ints, float32 if any bound is a float."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    default = result_type(start, stop, step)
    return _from_host(np.arange(_scalar(start), _scalar(stop), _scalar(step)), _dtype_or(dtype, default))


def _scalar(v):
    return _host(v).item() if not isinstance(v, (int, float)) else v


@keras_op("linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (float32 unless ``dtype``)."""
    values, step = np.linspace(_host(start), _host(stop), num, endpoint=endpoint, retstep=True, axis=axis)
    out = _from_host(values, _dtype_or(dtype, FLOATX))
    return (out, _from_host(step, _dtype_or(dtype, FLOATX))) if retstep else out


@keras_op("logspace")
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """base ** linspace(start, stop)."""
    return _from_host(np.logspace(_host(start), _host(stop), num, endpoint, base, axis=axis), _dtype_or(dtype, FLOATX))


@keras_op("geomspace")
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values spaced evenly on a log scale from ``start`` to ``stop``."""
    return _from_host(np.geomspace(_host(start), _host(stop), num, endpoint, axis=axis), _dtype_or(dtype, FLOATX))


@keras_op("meshgrid")
def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-D tensors (``indexing`` "xy" or "ij")."""
    return _ta.meshgrid(*[tensor(v) for v in x], indexing=indexing)


def array(x, dtype=None):
    """``x`` as a tensor (``convert_to_tensor``)."""
    return tensor(x, standardize_dtype(dtype))


@keras_op("copy")
def copy(x):
    """A copy of ``x`` (recorded as an identity)."""
    return _identity(tensor(x))


def _window(name, fn):
    @keras_op(name)
    def op(x):
        return _from_host(fn(int(x)), FLOATX)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The {name} window of length ``x`` (float32)."
    return op


bartlett = _window("bartlett", np.bartlett)
blackman = _window("blackman", np.blackman)
hamming = _window("hamming", np.hamming)
hanning = _window("hanning", np.hanning)


@keras_op("kaiser")
def kaiser(x, beta):
    """The Kaiser window of length ``x`` (float32)."""
    return _from_host(np.kaiser(int(x), beta), FLOATX)


@keras_op("vander")
def vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the 1-D ``x``: columns x**(N-1) ... x**0."""
    x = tensor(x)
    n = x.shape[0] if N is None else N
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    cols = [_pa.ones_like(x) if p == 0 else _tm.pow(x, tensor(int(p), x.dtype)) for p in powers]
    return _pa.stack(cols, axis=1)


# -- products -----------------------------------------------------------------------------


@keras_op("matmul")
def matmul(x1, x2):
    """Matrix product with NumPy's rules: 1-D operands are promoted to matrices and the extra axis dropped."""
    a, b = promoted(x1, x2)
    if a.dtype.is_bool:
        a, b = _cast(a, "int32"), _cast(b, "int32")
    if len(a.shape) == 1 and len(b.shape) == 1:
        return _tm.reduce_sum(a * b)
    if len(a.shape) == 1:
        return _pa.squeeze(_tl.matmul(_pa.reshape(a, [1, -1]), b), axis=[-2])
    if len(b.shape) == 1:
        return _pa.squeeze(_tl.matmul(a, _pa.reshape(b, [-1, 1])), axis=[-1])
    rank = builtins.max(len(a.shape), len(b.shape))
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    if len(a.shape) != rank or tuple(a.shape[:-2]) != batch:
        a = _pa.broadcast_to(a, list(batch) + list(a.shape[-2:]))
    if len(b.shape) != rank or tuple(b.shape[:-2]) != batch:
        b = _pa.broadcast_to(b, list(batch) + list(b.shape[-2:]))
    return _tl.matmul(a, b)


@keras_op("dot")
def dot(x1, x2):
    """NumPy's dot: a product for scalars, matmul up to 2-D, else sum over x1's last and x2's second-to-last axis."""
    a, b = promoted(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return a * b
    if len(b.shape) <= 2:
        return matmul(a, b)
    return _tl.tensordot(a, b, [[len(a.shape) - 1], [len(b.shape) - 2]])


@keras_op("tensordot")
def tensordot(x1, x2, axes=2):
    """Sum products over ``axes`` (an int: the last axes of x1 with the first of x2; or two lists)."""
    a, b = promoted(x1, x2)
    return _tl.tensordot(a, b, axes)


@keras_op("einsum")
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over ``operands`` (promoted to one dtype)."""
    return _tl.einsum(subscripts, *promoted(*operands))


@keras_op("outer")
def outer(x1, x2):
    """The outer product of the flattened inputs."""
    a, b = promoted(x1, x2)
    return _pa.reshape(a, [-1, 1]) * _pa.reshape(b, [1, -1])


@keras_op("inner")
def inner(x1, x2):
    """Sum over the last axes of both inputs."""
    a, b = promoted(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return a * b
    return _tl.tensordot(a, b, [[len(a.shape) - 1], [len(b.shape) - 1]])


@keras_op("vdot")
def vdot(x1, x2):
    """The dot product of the flattened inputs."""
    a, b = promoted(x1, x2)
    return _tm.reduce_sum(_pa.reshape(a, [-1]) * _pa.reshape(b, [-1]))


@keras_op("cross")
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors along the last axis."""
    a, b = promoted(x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError(f"tapeviz's cross takes 3-vectors, got shapes {a.shape} and {b.shape}.")
    ax, ay, az = (a[..., i] for i in range(3))
    bx, by, bz = (b[..., i] for i in range(3))
    out = _pa.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], axis=-1)
    return moveaxis(out, -1, axisc)


@keras_op("kron")
def kron(x1, x2):
    """The Kronecker product of two matrices (or vectors)."""
    a, b = promoted(x1, x2)
    if len(a.shape) == 1 and len(b.shape) == 1:
        return _pa.reshape(outer(a, b), [-1])
    (p, q), (r, s) = a.shape, b.shape
    blocks = _pa.reshape(a, [p, 1, q, 1]) * _pa.reshape(b, [1, r, 1, s])
    return _pa.reshape(blocks, [p * r, q * s])


@keras_op("trace")
def trace(x, offset=0, axis1=0, axis2=1):
    """The sum along a diagonal of ``x`` (of the plane ``axis1``, ``axis2``)."""
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


@keras_op("diagonal")
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the plane ``axis1``, ``axis2``, as the last axis (differentiable: a gather)."""
    x = tensor(x)
    x = moveaxis(x, [axis1, axis2], [-2, -1])
    rows, cols = x.shape[-2], x.shape[-1]
    i = np.arange(builtins.max(0, rows - builtins.max(0, -offset)))
    i = i[(i + offset >= 0) & (i + offset < cols)] if offset >= 0 else np.arange(builtins.max(0, rows + offset))
    pairs = np.stack([i, i + offset], axis=-1) if offset >= 0 else np.stack([i - offset, i], axis=-1)
    pairs = pairs[(pairs[:, 0] < rows) & (pairs[:, 1] < cols)]
    flat = _pa.reshape(x, list(x.shape[:-2]) + [rows * cols])
    index = _constant((pairs[:, 0] * cols + pairs[:, 1]).astype(np.int32))
    return _pa.gather(flat, index, axis=len(flat.shape) - 1)


@keras_op("diag")
def diag(x, k=0):
    """The ``k``-th diagonal of a matrix, or the matrix with the 1-D ``x`` on its ``k``-th diagonal."""
    x = tensor(x)
    if len(x.shape) == 2:
        return diagonal(x, k)
    if len(x.shape) != 1:
        raise ValueError(f"`x` must be 1d or 2d. Received: x.shape={x.shape}")
    n = x.shape[0] + builtins.abs(k)
    rows = np.arange(x.shape[0]) + builtins.max(0, -k)
    cols = np.arange(x.shape[0]) + builtins.max(0, k)
    picks = np.full(n * n, x.shape[0], np.int32)
    picks[rows * n + cols] = np.arange(x.shape[0])
    padded = _pa.concat([x, _pa.zeros([1], dtype=x.dtype)], axis=0)
    return _pa.reshape(_pa.gather(padded, _constant(picks)), [n, n])


@keras_op("diagflat")
def diagflat(x, k=0):
    """The flattened ``x`` on the ``k``-th diagonal of a square matrix."""
    return diag(_pa.reshape(tensor(x), [-1]), k)


@keras_op("correlate")
def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D sequences (modes valid, same, full)."""
    a, b = promoted(floating(x1), floating(x2))
    n, m = a.shape[0], b.shape[0]
    pad_total = {"valid": 0, "same": m - 1, "full": 2 * (m - 1)}[mode]
    before = pad_total // 2 if mode == "same" else pad_total // 2 if mode == "full" else 0
    if mode == "same":
        before = (m - 1) // 2 if m % 2 else m // 2
    padded = _pa.pad(a, [[before, pad_total - before]])
    length = n + pad_total - m + 1
    rows = np.arange(length)[:, None] + np.arange(m)[None, :]
    windows = _pa.gather(padded, _constant(rows.astype(np.int32)))
    return _tl.matmul(windows, _pa.reshape(b, [-1, 1]))[:, 0]


# -- integer-only functions (no gradient, in Keras as here) ------------------------------


def _integer(name, fn):
    @keras_op(name)
    def op(*args):
        values = promoted(*args)
        return _from_host(fn(*[_host(v) for v in values]), values[0].dtype.name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}`` on integer (or bool) tensors; no gradient."
    return op


bitwise_and = _integer("bitwise_and", np.bitwise_and)
bitwise_or = _integer("bitwise_or", np.bitwise_or)
bitwise_xor = _integer("bitwise_xor", np.bitwise_xor)
bitwise_invert = _integer("bitwise_invert", np.invert)
bitwise_not = _integer("bitwise_not", np.invert)
bitwise_left_shift = _integer("bitwise_left_shift", np.left_shift)
bitwise_right_shift = _integer("bitwise_right_shift", np.right_shift)
left_shift = _integer("left_shift", np.left_shift)
right_shift = _integer("right_shift", np.right_shift)
gcd = _integer("gcd", np.gcd)
lcm = _integer("lcm", np.lcm)


@keras_op("ldexp")
def ldexp(x1, x2):
    """x1 * 2 ** x2 (x2 an int tensor)."""
    x1 = floating(x1)
    return x1 * _tm.pow(tensor(2.0, x1.dtype), _cast(tensor(x2), x1.dtype))


@keras_op("unravel_index")
def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in an array of ``shape``, one tensor per axis."""
    return tuple(_from_host(c.astype(np.int32)) for c in np.unravel_index(_host(indices), tuple(shape)))


def ndim(x):
    """The number of axes of ``x`` (a Python int)."""
    return len(tensor(x).shape)


def size(x):
    """The number of entries of ``x`` (an int32 scalar tensor, as Keras)."""
    return _constant(np.int32(np.prod(tensor(x).shape, dtype=np.int64)))


# -- NaN-aware orders, statistics of several variables ------------------------------------------


def _nan_filled(x, fill):
    x = floating(x)
    return _tm.where(_tm.is_nan(x), _pa.zeros_like(x) + fill, x)


@keras_op("nanargmax")
def nanargmax(x, axis=None, keepdims=False):
    """argmax with NaNs ignored."""
    return argmax(_nan_filled(x, -np.inf), axis=axis, keepdims=keepdims)


@keras_op("nanargmin")
def nanargmin(x, axis=None, keepdims=False):
    """argmin with NaNs ignored."""
    return argmin(_nan_filled(x, np.inf), axis=axis, keepdims=keepdims)


@keras_op("nancumsum")
def nancumsum(x, axis=None, dtype=None):
    """cumsum with NaNs counted as 0 (ints and bools: plain cumsum, Keras's dtype)."""
    x = tensor(x)
    return cumsum(_nan_filled(x, 0.0) if x.dtype.is_floating else x, axis=axis, dtype=dtype)


@keras_op("nancumprod")
def nancumprod(x, axis=None, dtype=None):
    """cumprod with NaNs counted as 1 (ints and bools: plain cumprod, Keras's dtype)."""
    x = tensor(x)
    return cumprod(_nan_filled(x, 1.0) if x.dtype.is_floating else x, axis=axis, dtype=dtype)


def _nan_quantile(x, q, axis, keepdims):
    """Linear-interpolated quantiles with NaNs left out: NaNs sort last, each row reads its own count's
    positions; differentiable through the sort and the gathers, as the NaN-free ``quantile``."""
    x = floating(x)
    ndim = len(x.shape)
    axes = _axis_list(axis, ndim)
    rest = [a for a in range(ndim) if a not in axes]
    moved = _pa.transpose(x, rest + axes) if ndim else x
    rows = _pa.reshape(moved, [-1, int(np.prod([x.shape[a] for a in axes]))])
    missing = _tm.is_nan(rows)
    ordered = _ta.sort(_tm.where(missing, _pa.zeros_like(rows) + np.inf, rows), axis=-1)
    counts = np.sum(~_host(missing), axis=-1)
    qs = np.atleast_1d(np.asarray(q, np.float64))
    outs = []
    for qi in qs:
        pos = qi * np.maximum(counts - 1, 0)
        lo, hi = np.floor(pos).astype(np.int32), np.ceil(pos).astype(np.int32)
        low = take_along_axis(ordered, lo[:, None], axis=1)[:, 0]
        high = take_along_axis(ordered, hi[:, None], axis=1)[:, 0]
        frac = _constant((pos - lo).astype(x.dtype.as_numpy_dtype))
        safe_high = _tm.where(_tm.equal(frac, 0), low, high)
        value = low + (safe_high - low) * frac
        value = _tm.where(_constant(counts == 0), _pa.zeros_like(value) + np.nan, value)
        shape = [1 if a in axes else x.shape[a] for a in range(ndim)] if keepdims else [x.shape[a] for a in rest]
        outs.append(_pa.reshape(value, shape))
    return outs[0] if np.ndim(q) == 0 else _pa.stack(outs)


@keras_op("nanquantile")
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` with NaNs left out (method 'linear')."""
    if method != "linear":
        raise ValueError(f"tapeviz's nanquantile supports method='linear' only, got {method!r}.")
    return _nan_quantile(x, q, axis, keepdims)


@keras_op("nanpercentile")
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """``percentile`` with NaNs left out (method 'linear')."""
    return nanquantile(x, np.asarray(q, np.float64) / 100.0, axis=axis, method=method, keepdims=keepdims)


@keras_op("nanmedian")
def nanmedian(x, axis=None, keepdims=False):
    """``median`` with NaNs left out."""
    return _nan_quantile(x, 0.5, axis, keepdims)


@keras_op("corrcoef")
def corrcoef(x):
    """Pearson correlation coefficients of the rows of ``x`` (variables in rows, observations in columns)."""
    x = floating(x)
    centred = x - _tm.reduce_mean(x, axis=-1, keepdims=True)
    cov = _tl.matmul(centred, centred, transpose_b=True)
    scale = _tm.sqrt(_pa.reshape(diagonal(cov), [-1, 1]))
    return cov / (scale * _pa.reshape(scale, [1, -1]))


@keras_op("histogram")
def histogram(x, bins=10, range=None):  # noqa: A002 - NumPy's name
    """(counts, bin edges) of the 1-D ``x``, as ``np.histogram`` (counts float32, as Keras)."""
    if len(tensor(x).shape) != 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={tuple(tensor(x).shape)}")
    counts, edges = np.histogram(_host(x), bins=bins, range=range)
    return _from_host(counts.astype(np.float32)), _from_host(
        edges, tensor(x).dtype.name if tensor(x).dtype.is_floating else FLOATX
    )


@keras_op("nextafter")
def nextafter(x1, x2):
    """The next representable number after x1 towards x2; its gradient is 1 for x1 and 0 for x2 (as Keras's TF backend)."""
    from tapeviz.core.custom_gradient import custom_gradient

    a, b = promoted(floating(x1), floating(x2))
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    a, b = _pa.broadcast_to(a, list(shape)), _pa.broadcast_to(b, list(shape))

    @custom_gradient
    def step(first, second):
        value = _from_host(np.nextafter(_host(first), _host(second)), first.dtype.name)
        return value, lambda upstream: (upstream, _pa.zeros_like(second))

    return step(a, b)


__all__ = sorted(
    n
    for n, v in dict(globals()).items()
    if not n.startswith("_")
    and callable(v)
    and n
    not in (
        "builtins",
        "np",
        "axes_tuple",
        "floating",
        "keras_op",
        "promoted",
        "result_type",
        "standardize_dtype",
        "tensor",
    )
)
