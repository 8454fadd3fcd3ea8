"""NumPy's math on tensors: elementwise functions, binary ops and reductions, dtypes as NumPy's.

Each is a tapeviz op (or a few), so tapes record it and gradients flow.
"""

import numpy as np

from tapeviz import linalg
from tapeviz import math as tfm
from tapeviz.core.primitives import array as _array
from tapeviz.core.primitives.math import cast
from tapeviz.experimental.numpy._args import numpy_result, promoted, tensor


def _unary(np_function, tf_function, doc):
    def function(x):
        x = tensor(x)
        target = numpy_result(np_function, x)
        return tf_function(x if x.dtype == target else cast(x, target))

    function.__name__ = np_function.__name__
    function.__doc__ = doc
    return function


exp = _unary(np.exp, tfm.exp, "e to the power ``x``, elementwise.")
log = _unary(np.log, tfm.log, "The natural logarithm, elementwise.")
log1p = _unary(np.log1p, tfm.log1p, "``log(1 + x)``, elementwise.")
expm1 = _unary(np.expm1, tfm.expm1, "``exp(x) - 1``, elementwise.")
sqrt = _unary(np.sqrt, tfm.sqrt, "The square root, elementwise (ints become float64, as NumPy).")
square = _unary(np.square, tfm.square, "``x * x``, elementwise.")
absolute = _unary(np.absolute, tfm.abs, "The absolute value, elementwise.")
abs = absolute  # noqa: A001  (NumPy's name)
negative = _unary(np.negative, tfm.negative, "``-x``, elementwise.")
sign = _unary(np.sign, tfm.sign, "-1, 0 or 1 by the sign of ``x``.")
sin = _unary(np.sin, tfm.sin, "The sine, elementwise.")
cos = _unary(np.cos, tfm.cos, "The cosine, elementwise.")
tan = _unary(np.tan, tfm.tan, "The tangent, elementwise.")
tanh = _unary(np.tanh, tfm.tanh, "The hyperbolic tangent, elementwise.")
floor = _unary(np.floor, tfm.floor, "The largest integer not above ``x``, elementwise.")
ceil = _unary(np.ceil, tfm.ceil, "The smallest integer not below ``x``, elementwise.")
reciprocal = _unary(np.reciprocal, tfm.reciprocal, "``1 / x``, elementwise.")


def _binary(np_function, tf_function, doc):
    def function(x1, x2):
        x1, x2 = promoted(x1, x2)
        target = numpy_result(np_function, x1, x2)
        if target.is_floating and not x1.dtype.is_floating:  # ints that divide to floats
            x1, x2 = cast(x1, target), cast(x2, target)
        return tf_function(x1, x2)

    function.__name__ = np_function.__name__
    function.__doc__ = doc
    return function


add = _binary(np.add, tfm.add, "``x1 + x2``, broadcast, in NumPy's result dtype.")
subtract = _binary(np.subtract, tfm.subtract, "``x1 - x2``, broadcast.")
multiply = _binary(np.multiply, tfm.multiply, "``x1 * x2``, broadcast.")
true_divide = _binary(np.true_divide, tfm.truediv, "``x1 / x2``: ints divide to float64, as NumPy.")
divide = true_divide
floor_divide = _binary(np.floor_divide, tfm.floordiv, "``x1 // x2``.")
mod = _binary(np.mod, tfm.floormod, "``x1 % x2`` (the sign of ``x2``, as NumPy).")
remainder = mod
power = _binary(np.power, tfm.pow, "``x1 ** x2``.")
maximum = _binary(np.maximum, tfm.maximum, "The larger of ``x1`` and ``x2``, elementwise.")
minimum = _binary(np.minimum, tfm.minimum, "The smaller of ``x1`` and ``x2``, elementwise.")
equal = _binary(np.equal, tfm.equal, "``x1 == x2``, elementwise.")
not_equal = _binary(np.not_equal, tfm.not_equal, "``x1 != x2``, elementwise.")
less = _binary(np.less, tfm.less, "``x1 < x2``, elementwise.")
less_equal = _binary(np.less_equal, tfm.less_equal, "``x1 <= x2``, elementwise.")
greater = _binary(np.greater, tfm.greater, "``x1 > x2``, elementwise.")
greater_equal = _binary(np.greater_equal, tfm.greater_equal, "``x1 >= x2``, elementwise.")


def matmul(x1, x2):
    """The matrix product (batched over leading dimensions), in NumPy's result dtype."""
    x1, x2 = promoted(x1, x2)
    return linalg.matmul(x1, x2)


def dot(a, b):
    """NumPy's dot: a product of scalars, an inner product of vectors, else a matrix product."""
    a, b = promoted(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return tfm.multiply(a, b)
    if b.ndim == 1:
        return linalg.tensordot(a, b, [[a.ndim - 1], [0]])
    return linalg.tensordot(a, b, [[a.ndim - 1], [b.ndim - 2]])


def clip(a, a_min, a_max):
    """``a`` limited to ``[a_min, a_max]`` elementwise."""
    a, low, high = promoted(a, a_min, a_max)
    return tfm.minimum(tfm.maximum(a, low), high)


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y`` (NumPy's result dtype)."""
    if x is None and y is None:
        raise ValueError("tnp.where(condition) alone (the indices of true values) is not available; pass x and y.")
    x, y = promoted(x, y)
    return tfm.where(tensor(condition, "bool"), x, y)


def _reduction(np_function, tf_function, doc):
    def function(a, axis=None, dtype=None, keepdims=False):
        a = tensor(a)
        target = numpy_result(np_function, a) if dtype is None else dtype
        if a.dtype != target:
            a = cast(a, target)
        return tf_function(a, axis=axis, keepdims=keepdims)

    function.__name__ = np_function.__name__
    function.__doc__ = doc
    return function


sum = _reduction(np.sum, tfm.reduce_sum, "The sum over ``axis`` (ints sum as int64, as NumPy).")  # noqa: A001
mean = _reduction(np.mean, tfm.reduce_mean, "The mean over ``axis`` (ints average as float64).")
prod = _reduction(np.prod, tfm.reduce_prod, "The product over ``axis``.")
var = _reduction(np.var, tfm.reduce_variance, "The variance over ``axis`` (ddof 0).")
std = _reduction(np.std, tfm.reduce_std, "The standard deviation over ``axis`` (ddof 0).")


def amax(a, axis=None, keepdims=False):
    """The largest value over ``axis``."""
    return tfm.reduce_max(tensor(a), axis=axis, keepdims=keepdims)


def amin(a, axis=None, keepdims=False):
    """The smallest value over ``axis``."""
    return tfm.reduce_min(tensor(a), axis=axis, keepdims=keepdims)


max = amax  # noqa: A001
min = amin  # noqa: A001


def argmax(a, axis=None):
    """The index of the largest value (of the flattened array when ``axis`` is None), int64."""
    a = tensor(a)
    return tfm.argmax(_array.reshape(a, [-1]) if axis is None else a, axis=0 if axis is None else axis)


def argmin(a, axis=None):
    """The index of the smallest value (of the flattened array when ``axis`` is None), int64."""
    a = tensor(a)
    return tfm.argmin(_array.reshape(a, [-1]) if axis is None else a, axis=0 if axis is None else axis)


def cumsum(a, axis=None, dtype=None):
    """Running sums along ``axis`` (of the flattened array when None)."""
    a = tensor(a)
    target = numpy_result(np.cumsum, a) if dtype is None else dtype
    a = a if a.dtype == target else cast(a, target)
    return tfm.cumsum(_array.reshape(a, [-1]) if axis is None else a, axis=0 if axis is None else axis)


def all(a, axis=None, keepdims=False):  # noqa: A001
    """Whether every value over ``axis`` is true (nonzero)."""
    return tfm.reduce_all(tfm.not_equal(tensor(a), False), axis=axis, keepdims=keepdims)


def any(a, axis=None, keepdims=False):  # noqa: A001
    """Whether some value over ``axis`` is true (nonzero)."""
    return tfm.reduce_any(tfm.not_equal(tensor(a), False), axis=axis, keepdims=keepdims)
