"""``tf.math``: elementwise math, comparisons and reductions.

The primitives come from ``tapeviz.core.primitives.math``; the rest of this
module are composites (reduce_std, reduce_logsumexp, clip_by_*, norm...):
plain functions of tapeviz ops, differentiable with no rule of their own,
written the way TF writes them so that gradients at kinks and ties agree.
"""

import numpy as _np

from tapeviz import ragged as _ragged
from tapeviz.core.custom_gradient import custom_gradient as _custom_gradient
from tapeviz.core.dtypes import as_dtype as _as_dtype
from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.families import math as _m
from tapeviz.core.indexed_slices import IndexedSlices as _IndexedSlices
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.ops import as_tensors as _as_tensors
from tapeviz.core.primitives.array import concat as _concat
from tapeviz.core.primitives.array import fill as _fill
from tapeviz.core.primitives.array import ones_like as _ones_like
from tapeviz.core.primitives.array import reshape as _reshape
from tapeviz.core.primitives.array import reverse as _reverse
from tapeviz.core.primitives.array import stack as _stack
from tapeviz.core.primitives.array import transpose as _transpose
from tapeviz.core.primitives.array import zeros_like as _zeros_like
from tapeviz.core.primitives.complex import angle, complex, conj, imag, real  # noqa: F401
from tapeviz.core.primitives.math import (  # noqa: F401
    abs,
    acos,
    acosh,
    add,
    add_n,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cast,
    ceil,
    cos,
    cosh,
    cumprod,
    cumsum,
    divide,
    divide_no_nan,
    equal,
    erf,
    exp,
    expm1,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    realdiv,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
    truediv,
    truncatediv,
    truncatemod,
    where,  # noqa: F401
    xdivy,
    xlogy,
)
from tapeviz.core.primitives.math import normalize_axis as _normalize_axis
from tapeviz.core.primitives.math import stop_gradient as _stop_gradient
from tapeviz.core.primitives.nn import log_softmax, softmax, softplus  # noqa: F401
from tapeviz.core.primitives.sorting import top_k  # noqa: F401
from tapeviz.core.tensor import Tensor as _Tensor
from tapeviz.core.tensor import TensorShape as _TensorShape
from tapeviz.core.tensor import is_tensor as _is_tensor
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.core.tracing import host_call as _host_call

mod = floormod


# -- reductions ---------------------------------------------------------------------


def _float_input(x, op):
    x = _as_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{op} needs a float tensor, got {x.dtype.name}. Cast first, e.g. tf.cast(x, tf.float32).")
    return x


def _squeeze_reduced(t, x, axes, keepdims):
    """``t`` reduced with keepdims=True, reshaped as the reduction with ``keepdims`` gives."""
    if keepdims:
        return t
    return _reshape(t, [n for i, n in enumerate(_to_array(x).shape) if i not in axes])


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance over ``axis``: mean((x - mean(x))**2) (population variance, as TF).

    Args:
        input_tensor: a Tensor, or anything ``tf.constant`` converts.
        axis: an int or list of ints; None reduces every axis.
        keepdims: keep each reduced axis with size 1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor without the reduced axes (size 1 with ``keepdims``).
    """
    x = _float_input(input_tensor, "reduce_variance")
    mean = reduce_mean(x, axis=axis, keepdims=True)
    return reduce_mean(square(x - mean), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over ``axis``: sqrt(reduce_variance). Its gradient is inf/nan where it is 0.

    Args:
        input_tensor: a Tensor, or anything ``tf.constant`` converts.
        axis: an int or list of ints; None reduces every axis.
        keepdims: keep each reduced axis with size 1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor without the reduced axes (size 1 with ``keepdims``).
    """
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x), axis)), stable for large |x|.

    Subtracts the max first, behind ``stop_gradient`` as TF does (the result
    does not depend on the shift, so its gradient is unchanged: softmax(x)).
    An infinite max is not subtracted, so -inf rows give -inf, not nan.

    Args:
        input_tensor: a Tensor, or anything ``tf.constant`` converts.
        axis: an int or list of ints; None reduces every axis.
        keepdims: keep each reduced axis with size 1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor without the reduced axes (size 1 with ``keepdims``).
    """
    x = _float_input(input_tensor, "reduce_logsumexp")
    axes = _normalize_axis(axis, x.ndim)
    raw_max = reduce_max(x, axis=axes, keepdims=True)
    shift = _stop_gradient(where(is_finite(raw_max), raw_max, _zeros_like(raw_max)))
    result = log(reduce_sum(exp(x - shift), axis=axes, keepdims=True)) + shift
    return _squeeze_reduced(result, x, axes, keepdims)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x**2, axis)). Its gradient at 0 is nan, as in TF.

    Args:
        input_tensor: a Tensor, or anything ``tf.constant`` converts.
        axis: an int or list of ints; None reduces every axis.
        keepdims: keep each reduced axis with size 1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor without the reduced axes (size 1 with ``keepdims``).
    """
    return sqrt(reduce_sum(square(_as_tensor(input_tensor)), axis=axis, keepdims=keepdims))


# -- clipping -----------------------------------------------------------------------


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` limited to [clip_value_min, clip_value_max] elementwise.

    min(t, max) then max(., min), as TF: at a bound itself the gradient
    passes (ties go to ``t``); beyond it, it is 0.

    Args:
        t: a Tensor, or anything ``tf.constant`` converts.
        clip_value_min: the lower bound (a scalar or a tensor that broadcasts to ``t``).
        clip_value_max: the upper bound, likewise.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``t``'s shape and dtype.

    Raises:
        ValueError: bounds whose shape would make the result larger than ``t``.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0))
        tf.Tensor([-1.   0.5  1. ], shape=(3,), dtype=float32)
    """
    t = _as_tensor(t)
    upper = minimum(t, clip_value_max)
    result = maximum(upper, clip_value_min)
    if _to_array(result).shape != _to_array(t).shape:
        raise ValueError(
            f"clip_by_value: the clip values must broadcast to t's shape {tuple(t.shape)}; "
            f"they made it {tuple(result.shape)}."
        )
    return result


def _l2_norm_safe(t, axes):
    """sqrt(sum(t**2, axes, keepdims)) with a finite gradient where it is 0 (as TF)."""
    squared = reduce_sum(t * t, axis=axes, keepdims=True)
    positive = greater(squared, 0.0)
    safe = where(positive, squared, _ones_like(squared))
    return where(positive, sqrt(safe), squared)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescale if its L2 norm exceeds ``clip_norm``.

    With ``axes`` each slice along them is clipped on its own. A zero tensor
    stays zero with a finite gradient.

    Args:
        t: a Tensor, or anything ``tf.constant`` converts.
        clip_norm: the largest L2 norm to keep.
        axes: the axes the norm is taken over (all when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``t``'s shape.
    """
    t = _float_input(t, "clip_by_norm")
    t, clip_norm = _as_tensors(t, clip_norm)
    norm_ = _l2_norm_safe(t, _normalize_axis(axes, t.ndim))
    return t * clip_norm / maximum(norm_, clip_norm)


def _ragged_aware(kind, dense):
    """``tf.reduce_<kind>`` that also takes a RaggedTensor, as TF dispatches it."""

    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        if isinstance(input_tensor, _ragged.RaggedTensor):
            return _ragged.reduce(input_tensor, kind, axis, keepdims)
        return dense(input_tensor, axis=axis, keepdims=keepdims, name=name)

    reduce.__name__ = reduce.__qualname__ = dense.__name__
    reduce.__doc__ = dense.__doc__
    reduce.primitive = dense.primitive
    return reduce


reduce_sum = _ragged_aware("sum", reduce_sum)
reduce_mean = _ragged_aware("mean", reduce_mean)
reduce_max = _ragged_aware("max", reduce_max)
reduce_min = _ragged_aware("min", reduce_min)
reduce_prod = _ragged_aware("prod", reduce_prod)


def _tensor_list(t_list, op):
    if isinstance(t_list, (str, bytes)) or not hasattr(t_list, "__iter__") or _is_tensor(t_list):
        raise TypeError(f"{op} expects a list or tuple of tensors, got {type(t_list).__name__}.")
    return list(t_list)


def global_norm(t_list, name=None):
    """sqrt(sum of every tensor's squared L2 norm); None entries are skipped, as in TF.

    Args:
        t_list: a list of tensors (None entries are skipped).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A scalar Tensor.

    Raises:
        ValueError: no tensor that is not None.
        TypeError: ``t_list`` that is not a list or tuple.
    """
    tensors = [_as_tensor(_rows(t)) for t in _tensor_list(t_list, "global_norm") if t is not None]
    if not tensors:
        raise ValueError("global_norm needs at least one tensor that is not None.")
    squares = _stack([reduce_sum(t * t) for t in tensors])
    return sqrt(reduce_sum(squares))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(clipped_list, global_norm)``; None entries stay None. Pass
    ``use_norm`` to reuse a norm already computed. If the global norm is inf
    or nan every value becomes nan, as in TF (the caller can detect it).

    Args:
        t_list: a list of tensors (None entries allowed).
        clip_norm: the largest global norm to keep.
        use_norm: a global norm already computed.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``(list_clipped, global_norm)``.
    """
    t_list = _tensor_list(t_list, "clip_by_global_norm")
    norm_ = global_norm(t_list) if use_norm is None else _as_tensor(use_norm)
    clip_norm = _as_tensor(clip_norm, dtype=norm_.dtype) if not _is_tensor(clip_norm) else clip_norm
    scale = clip_norm * minimum(reciprocal(norm_), reciprocal(clip_norm))
    scale = scale + (norm_ - norm_)  # nan when the norm is inf or nan
    clipped = [None if t is None else _scale_any(t, scale) for t in t_list]
    return clipped, norm_


def _rows(t):
    """An IndexedSlices counts by its rows (repeated rows each count), as TF's global_norm."""
    return t.values if isinstance(t, _IndexedSlices) else t


def _scale_any(t, scale):
    if isinstance(t, _IndexedSlices):
        return _IndexedSlices(_scale(t.values, scale), t.indices, t.dense_shape)
    return _scale(_as_tensor(t), scale)


def _scale(t, scale):
    return t * cast(scale, t.dtype)


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a scalar ``scalar`` (also an ``IndexedSlices`` ``x``: its values scaled), as TF.

    Args:
        scalar: a scalar.
        x: a Tensor or an ``IndexedSlices``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``scalar * x``, of ``x``'s kind.

    Raises:
        ValueError: a ``scalar`` that is not a scalar.
    """
    scalar = _as_tensor(scalar)
    if scalar.shape != ():
        raise ValueError(f"Only scalar multiply works, got shape {tuple(scalar.shape)}")
    return _scale_any(x, scalar)


# -- norms ---------------------------------------------------------------------------


def norm(tensor, ord="euclidean", axis=None, keepdims=False, name=None):
    """The vector or matrix norm of ``tensor``, as ``tf.norm``.

    ``axis`` None: the whole tensor as one vector. An int: vector norms along
    it. A pair: matrix norms over those two axes. ``ord``: 'euclidean' (or
    'fro', or 2 for vectors), 1, np.inf, or any p > 0 for vectors. The
    euclidean norm's gradient at 0 is nan, as in TF.

    Args:
        tensor: a Tensor, or anything ``tf.constant`` converts.
        ord: ``"euclidean"``, ``"fro"``, 1, 2, ``np.inf`` or p > 0.
        axis: None (the whole tensor), an int (vector norms), or a pair (matrix norms).
        keepdims: keep the reduced axes with size 1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of norms.

    Raises:
        ValueError: an ``axis`` or ``ord`` it does not take.

    Example:
        >>> import tapeviz as tf
        >>> float(tf.norm([3.0, 4.0]))
        5.0
    """
    x = _float_input(tensor, "norm")
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if isinstance(axis, (list, tuple)) and len(axis) not in (1, 2):
        raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}.")
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    euclid = ord in ("euclidean", "fro") or (ord == 2 and not is_matrix)
    if ord == "fro" and not (is_matrix or axis is None):
        raise ValueError("norm: ord='fro' is a matrix norm; give a pair of axes (or use 'euclidean').")
    if euclid:
        return sqrt(reduce_sum(x * x, axis=axis, keepdims=keepdims))
    if is_matrix:
        return _matrix_norm(x, ord, axis, keepdims)
    if ord == _np.inf:
        return reduce_max(abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0:
        if ord == 1:
            return reduce_sum(abs(x), axis=axis, keepdims=keepdims)
        p = float(ord)
        return pow(reduce_sum(pow(abs(x), p), axis=axis, keepdims=keepdims), 1.0 / p)
    raise ValueError(f"norm: ord must be 'euclidean', 'fro', 1, 2, np.inf or a number p > 0, got {ord!r}.")


def _matrix_norm(x, ord, axis, keepdims):
    rows, cols = (a % x.ndim for a in axis)
    if rows == cols:
        raise ValueError(f"norm: the two axes must differ, got {axis!r}.")
    if ord == 1:  # the largest column sum
        result = reduce_max(reduce_sum(abs(x), axis=rows, keepdims=True), axis=cols, keepdims=True)
    elif ord == _np.inf:  # the largest row sum
        result = reduce_max(reduce_sum(abs(x), axis=cols, keepdims=True), axis=rows, keepdims=True)
    else:
        raise ValueError(
            f"norm: matrix ord must be 'euclidean', 'fro', 1 or np.inf, got {ord!r} "
            "(ord=2 needs singular values, not available yet)."
        )
    return _squeeze_reduced(result, x, (rows, cols), keepdims)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)): unit L2 norm along ``axis`` (all axes when None).

    Args:
        x: a Tensor, or anything ``tf.constant`` converts.
        axis: the axis (or axes) of the norm; all when None.
        epsilon: the smallest squared norm divided by.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape.
    """
    x = _float_input(x, "l2_normalize")
    squared = reduce_sum(square(x), axis=axis, keepdims=True)
    return x * rsqrt(maximum(squared, epsilon))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|.

    Args:
        x: a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape.
    """
    return -softplus(-_as_tensor(x))


# -- elementwise, with TF's special cases ----------------------------------------------


_FLOATS = ("float16", "float32", "float64")
_INEXACT = _FLOATS + ("complex64", "complex128")
_TF_SPELLING = {"float16": "half", "float32": "float", "float64": "double"}  # as TF's kernel errors name them


def _kernel_input(x, op, tf_op, allowed=_INEXACT):
    """``x`` as a tensor, refused with TF's words (its kernel's dtype list) unless its dtype is in ``allowed``."""
    x = _as_tensor(x)
    if x.dtype.name not in allowed:
        spelled = ", ".join(_TF_SPELLING.get(name, name) for name in allowed)
        given = _TF_SPELLING.get(x.dtype.name, x.dtype.name)
        hint = f"tf.cast(x, tf.{'float32' if 'float32' in allowed else allowed[0]})"
        raise _InvalidArgumentError(
            f"Value for attr 'T' of {given} is not in the list of allowed values: {spelled} [Op:{tf_op}]. "
            f"{op} takes no {x.dtype.name}: cast first, e.g. {hint}.",
            tf_op,
        )
    return x


def polyval(coeffs, x, name=None):
    """The polynomial with coefficients ``coeffs`` (highest power first) at ``x``, by Horner's rule.

    ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]``, as ``numpy.polyval``; an
    empty list gives zeros of ``x``'s shape.

    Args:
        coeffs: a list of Tensors (or numbers), the coefficients, highest power first.
        x: a Tensor, or anything ``tf.constant`` converts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the broadcast shape of ``x`` and the coefficients.

    Raises:
        ValueError: ``coeffs`` is not a list.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.polyval([1.0, 2.0, 3.0], tf.constant([0.0, 2.0])))
        tf.Tensor([ 3. 11.], shape=(2,), dtype=float32)
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = _as_tensor(x)
    if not coeffs:
        return _zeros_like(x)
    result = _as_tensor(coeffs[0])
    for c in coeffs[1:]:
        result = c + result * x
    return result


def xlog1py(x, y, name=None):
    """x * log(1 + y), but 0 where x == 0 (whatever y is), as TF.

    The gradient follows TF's: d/dx = log1p(y) and d/dy = x / (1 + y), both 0
    where x == 0.

    Args:
        x: a float or complex tensor.
        y: a tensor of ``x``'s dtype (broadcasts with ``x``).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the broadcast shape of ``x`` and ``y``.

    Raises:
        tf.errors.InvalidArgumentError: integer inputs (cast them to a float first).
        ValueError: a ``y`` tensor of another dtype.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.xlog1py([0.0, 2.0], [-1.0, 1.0]))
        tf.Tensor([0.        1.3862944], shape=(2,), dtype=float32)
    """
    x = _kernel_input(x, "xlog1py", "Xlog1py")
    y = _as_tensor(y, dtype=x.dtype)
    zero = equal(x, 0)
    safe_y = where(zero, _zeros_like(y * x), y)  # log1p(y) never taken where x == 0: no inf * 0 there
    product = x * log1p(safe_y)
    return where(zero, _zeros_like(product), product)


def reciprocal_no_nan(x, name=None):
    """1 / x, but 0 where x == 0 (and the gradient there is 0 too), as TF.

    Args:
        x: a float or complex tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape and dtype.

    Raises:
        tf.errors.InvalidArgumentError: integer inputs (cast them to a float first).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.reciprocal_no_nan([0.0, 2.0, -4.0]))
        tf.Tensor([ 0.    0.5  -0.25], shape=(3,), dtype=float32)
    """
    x = _kernel_input(x, "reciprocal_no_nan", "DivNoNan")
    return divide_no_nan(_ones_like(x), x)


def _product_zero_where_second_is(x, y):
    """x * y, 0 where y == 0, composed so that d/dy stays x there (for finite x), as TF's second order."""
    finite = is_finite(real(x)) & is_finite(imag(x)) if x.dtype.is_complex else is_finite(x)
    return where(logical_and(equal(y, 0), logical_not(finite)), _zeros_like(x), x) * y


@_custom_gradient
def _multiply_no_nan(x, y):
    def grad(upstream):
        # TF's MulNoNan gradient: mul_no_nan(g, y) for x, mul_no_nan(x, g) for y (so x * g where y == 0).
        # Composed, not a call of this function again: tf.function traces grad eagerly, so that would recurse.
        return (
            _m.unbroadcast(_product_zero_where_second_is(upstream, y), x),
            _m.unbroadcast(_product_zero_where_second_is(x, upstream), y),
        )

    product = x * y
    return where(equal(y, 0), _zeros_like(product), product), grad


def multiply_no_nan(x, y, name=None):
    """x * y, but 0 where y == 0, even where x is inf or nan, as TF.

    The gradient is TF's: ``multiply_no_nan(g, y)`` for x (0 where y == 0) and
    ``multiply_no_nan(x, g)`` for y (so x * g where y == 0, inf if x is).

    Args:
        x: a float or complex tensor.
        y: a tensor of ``x``'s dtype (broadcasts with ``x``).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the broadcast shape of ``x`` and ``y``.

    Raises:
        tf.errors.InvalidArgumentError: integer inputs (cast them to a float first).
        ValueError: a ``y`` tensor of another dtype.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.multiply_no_nan([float("inf"), 2.0], [0.0, 3.0]))
        tf.Tensor([0. 6.], shape=(2,), dtype=float32)
    """
    x = _kernel_input(x, "multiply_no_nan", "MulNoNan")
    y = _as_tensor(y, dtype=x.dtype)
    return _multiply_no_nan(x, y)


def softsign(features, name=None):
    """features / (1 + |features|). Also ``tf.nn.softsign``.

    Its gradient is TF's, 1 / (1 + |features|)**2 (0 at +-inf).

    Args:
        features: a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``features``'s shape and dtype.

    Raises:
        tf.errors.InvalidArgumentError: integer inputs (cast them to a float first).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.softsign([-3.0, 0.0, 1.0]))
        tf.Tensor([-0.75  0.    0.5 ], shape=(3,), dtype=float32)
    """
    return _softsign(_kernel_input(features, "softsign", "Softsign", _FLOATS))


@_custom_gradient
def _softsign(x):
    # TF's SoftsignGrad, 1 / (1 + |x|)^2: 0 at +-inf and tiny (not 0) for huge |x|, where the
    # composed quotient's gradient gives nan and 0.
    return x / (1.0 + abs(x)), lambda upstream: upstream / square(1.0 + abs(x))


def rint(x, name=None):
    """The nearest integer to x, halves to the even one (as ``numpy.rint``); float in, float out.

    Like ``tf.round`` it has no gradient (the tape gives None).

    Args:
        x: a float tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape and dtype.

    Raises:
        tf.errors.InvalidArgumentError: integer inputs.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.rint([-1.5, 0.5, 1.5, 2.7]))
        tf.Tensor([-2.  0.  2.  3.], shape=(4,), dtype=float32)
    """
    return round(_kernel_input(x, "rint", "Rint", _FLOATS))


def _bool_input(x, op):
    x = _as_tensor(x)
    if x.dtype.name != "bool":
        raise TypeError(f"{op} needs bool tensors, got {x.dtype.name}. Compare first, e.g. tf.not_equal(x, 0).")
    return x


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y elementwise: true where exactly one of them is, as ``(x or y) and not (x and y)``.

    Args:
        x: a bool tensor.
        y: a bool tensor (broadcasts with ``x``).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A bool Tensor of the broadcast shape.

    Raises:
        TypeError: inputs that are not bool.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.logical_xor([True, False, True], [True, True, False]))
        tf.Tensor([False  True  True], shape=(3,), dtype=bool)
    """
    x, y = _bool_input(x, "logical_xor"), _bool_input(y, "logical_xor")
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


# -- counting -------------------------------------------------------------------------


def count_nonzero(input, axis=None, keepdims=None, dtype="int64", name=None):  # noqa: A002  (TF's name)
    """How many elements along ``axis`` are not zero (not False, not the empty string).

    Args:
        input: a numeric, bool or string tensor.
        axis: an int or list of ints; None counts over every axis.
        keepdims: keep each reduced axis with size 1 (None: False).
        dtype: the result's dtype (int64 as TF).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``dtype`` without the reduced axes (size 1 with ``keepdims``).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.count_nonzero([[0.0, 1.5], [2.0, 0.0]], axis=1))
        tf.Tensor([1 1], shape=(2,), dtype=int64)
    """
    x = _as_tensor(input)
    zero = "" if x.dtype.name == "string" else _zeros_like(x)
    nonzero = cast(not_equal(x, zero), "int64")
    return cast(reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims)), dtype)


def zero_fraction(value, name=None):
    """The fraction of ``value``'s elements that are zero, as a float32 scalar (nan if it is empty).

    Also ``tf.nn.zero_fraction``; handy for watching how sparse activations are.

    Args:
        value: a numeric tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A float32 scalar Tensor.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.zero_fraction([[0.0, 1.5], [2.0, 0.0]]))
        tf.Tensor(0.5, shape=(), dtype=float32)
    """
    x = _as_tensor(value)
    return reduce_mean(cast(equal(x, _zeros_like(x)), "float32"))


# -- order ----------------------------------------------------------------------------


def _ordered(x, strictly):
    x = _as_tensor(x)
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    flat = _reshape(x, [-1])
    before, after = flat[:-1], flat[1:]
    return reduce_all(less(before, after) if strictly else less_equal(before, after))


def is_non_decreasing(x, name=None):
    """True if ``x``'s elements, read in row-major order, never decrease (True for fewer than 2).

    Args:
        x: a numeric tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A bool scalar Tensor.

    Raises:
        TypeError: ``x`` is not numeric.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.is_non_decreasing([1, 1, 2]))
        tf.Tensor(True, shape=(), dtype=bool)
    """
    return _ordered(x, strictly=False)


def is_strictly_increasing(x, name=None):
    """True if ``x``'s elements, read in row-major order, each exceed the one before (True for fewer than 2).

    Args:
        x: a numeric tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A bool scalar Tensor.

    Raises:
        TypeError: ``x`` is not numeric.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.is_strictly_increasing([1, 1, 2]))
        tf.Tensor(False, shape=(), dtype=bool)
    """
    return _ordered(x, strictly=True)


# -- cumulative log-sum-exp ------------------------------------------------------------


def _log_add_exp(a, b):
    """log(exp(a) + exp(b)), shifted by the larger behind stop_gradient (so ties split the gradient evenly).

    Where the larger is +-inf the result is it, computed apart so that no inf/inf or 0/0 reaches
    the gradient of the finite lanes, first or second order (an exclusive scan starts at -inf).
    """
    larger = maximum(a, b)
    infinite = is_inf(larger)
    a, b = where(infinite, _zeros_like(a), a), where(infinite, _zeros_like(b), b)
    shift = _stop_gradient(maximum(a, b))
    return where(infinite, larger, log(exp(a - shift) + exp(b - shift)) + shift)


def _shift_along_first_axis(x, steps):
    """``x`` moved ``steps`` places along axis 0, -inf filling the front (what adds nothing to a logsumexp)."""
    pad = _fill([steps] + list(_to_array(x).shape[1:]), _np.array(-_np.inf, dtype=_to_array(x).dtype))
    return _concat([pad, x[: x.shape[0] - steps]], 0)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """The running log(sum(exp(x))) along ``axis``: element k is the logsumexp of elements 0..k.

    Exact to rounding however far apart the values are: it is a parallel prefix scan of
    log(exp(a) + exp(b)) (log2(n) steps of whole-tensor ops, so tapes and traces stay small).
    Its gradient is TF's (softmax weights), except at an infinite input whose outputs are all
    infinite: TF gives nan there, tapeviz passes the upstream gradient on (no right number either way).

    Args:
        x: a float tensor.
        axis: the axis to scan along (negative counts from the end).
        exclusive: element k leaves out x[k] (so element 0 is -inf).
        reverse: scan from the end: element k is the logsumexp of elements k..n-1.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape and dtype.

    Raises:
        tf.errors.InvalidArgumentError: a non-float ``x``, or an ``axis`` out of range (or a scalar ``x``).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.cumulative_logsumexp([0.0, 0.0, 0.0, 0.0]))
        tf.Tensor([0.        0.6931472 1.0986123 1.3862944], shape=(4,), dtype=float32)
    """
    x = _kernel_input(x, "cumulative_logsumexp", "CumulativeLogsumexp", _FLOATS)
    rank = x.ndim
    axis = int(axis)
    if not -rank <= axis < rank:
        raise _InvalidArgumentError(
            f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {axis} [Op:CumulativeLogsumexp]",
            "CumulativeLogsumexp",
        )
    axis %= rank
    order = [axis] + [i for i in range(rank) if i != axis]  # the scanned axis first, so slices are x[:k]
    y = _transpose(x, order)
    if reverse:
        y = _reverse(y, [0])
    if exclusive:
        y = _shift_along_first_axis(y, 1)
    n, step = y.shape[0], 1
    while step < n:
        y = _log_add_exp(y, _shift_along_first_axis(y, step))
        step *= 2
    if reverse:
        y = _reverse(y, [0])
    return _transpose(y, _np.argsort(order).tolist())


# -- permutations and sums -------------------------------------------------------------


@_host_call("math.invert_permutation")  # inside tf.function: checked and inverted on every call, as TF's op
def _inverse_permutation(x):
    p = _to_array(x)
    if p.ndim != 1:
        raise _InvalidArgumentError(
            "invert_permutation expects a 1D vector. [Op:InvertPermutation]", "InvertPermutation"
        )
    n = p.shape[0]
    inverse = _np.empty(n, dtype=p.dtype)
    in_range = (p >= 0) & (p < n)
    if in_range.all() and (_np.bincount(p, minlength=n) == 1).all():
        inverse[p] = _np.arange(n, dtype=p.dtype)
        return _Tensor(inverse)
    seen = set()
    for value in p.tolist():  # not a permutation: name the first offender, as TF
        if not 0 <= value < n:
            raise _InvalidArgumentError(f"{value} is not between 0 and {n} [Op:InvertPermutation]", "InvertPermutation")
        if value in seen:
            raise _InvalidArgumentError(
                f"{value} is duplicated in the input. [Op:InvertPermutation]", "InvertPermutation"
            )
        seen.add(value)
    raise AssertionError("unreachable: a non-permutation has an offender")


def invert_permutation(x, name=None):
    """The inverse of the permutation ``x``: ``y[x[i]] = i``.

    Args:
        x: a 1-D int32 or int64 tensor holding each of 0..n-1 once.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``x``'s shape and dtype (no gradient, as an integer op).

    Raises:
        tf.errors.InvalidArgumentError: ``x`` not 1-D, not int32/int64, or not a permutation
            (a value out of range or repeated).

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.invert_permutation([3, 4, 0, 2, 1]))
        tf.Tensor([2 4 3 0 1], shape=(5,), dtype=int32)
    """
    return _inverse_permutation(_kernel_input(x, "invert_permutation", "InvertPermutation", ("int32", "int64")))


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of a list of tensors of one dtype and shape (as ``add_n``, which TF now advises).

    Args:
        inputs: a non-empty list of Tensors (or values ``tf.constant`` converts) of one dtype and shape.
        shape: the expected shape of each input (None: any); checked, not used to broadcast.
        tensor_dtype: the expected dtype of the inputs (None: any); checked.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the inputs' shape and dtype.

    Raises:
        ValueError: ``inputs`` empty or not a list, inputs of different dtypes, or shapes that
            do not agree (with each other or with ``shape``).
        TypeError: ``tensor_dtype`` that is not the inputs' dtype.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.math.accumulate_n([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        tf.Tensor([ 9. 12.], shape=(2,), dtype=float32)
    """
    invalid = "inputs must be a list of at least one Tensor with the same dtype and shape"
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(invalid)
    tensors = [_as_tensor(t) for t in inputs]
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise ValueError(f"{invalid}; got {sorted({t.dtype.name for t in tensors})}: cast them to one dtype.")
    merged = _TensorShape(None) if shape is None else _TensorShape(shape)
    for t in tensors:
        merged = merged.merge_with(t.shape)
    if tensor_dtype is not None and _as_dtype(tensor_dtype) != tensors[0].dtype:
        raise TypeError(
            f"The `tensor_dtype` argument is {_as_dtype(tensor_dtype)}, but `input` is of type {tensors[0].dtype}. "
            "These must be equal. Try casting the input to the desired type."
        )
    return tensors[0] if len(tensors) == 1 else add_n(tensors)


__all__ = [name for name in dir() if not name.startswith("_")]
