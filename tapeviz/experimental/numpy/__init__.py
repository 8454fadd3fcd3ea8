"""``tf.experimental.numpy`` (``tnp``): NumPy's API on tapeviz tensors.

An ``ndarray`` is a ``tf.Tensor``; every function is a composition of tapeviz
ops, so GradientTape records it and the visualizer draws it. Dtypes follow
NumPy (``tnp.ones(3)`` is float64, ``int32 + float32`` is float64);
``experimental_enable_numpy_behavior()`` gives tensors NumPy's methods and
promotion. Covers what TF's guide "NumPy API on TensorFlow" uses.
"""

import math as _math

import numpy as _np

from tapeviz.core.tensor import Tensor as ndarray  # noqa: F401
from tapeviz.experimental.numpy import random  # noqa: F401
from tapeviz.experimental.numpy.behavior import experimental_enable_numpy_behavior  # noqa: F401
from tapeviz.experimental.numpy.creation import (  # noqa: F401
    arange,
    array,
    asanyarray,
    asarray,
    copy,
    empty,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from tapeviz.experimental.numpy.math_ops import (  # noqa: F401
    abs,
    absolute,
    add,
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    ceil,
    clip,
    cos,
    cumsum,
    divide,
    dot,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    power,
    prod,
    reciprocal,
    remainder,
    sign,
    sin,
    sqrt,
    square,
    std,
    subtract,
    sum,
    tan,
    tanh,
    true_divide,
    var,
    where,
)
from tapeviz.experimental.numpy.shape_ops import (  # noqa: F401
    broadcast_to,
    concatenate,
    expand_dims,
    ndim,
    ravel,
    reshape,
    shape,
    size,
    squeeze,
    stack,
    swapaxes,
    take,
    transpose,
)

# NumPy's scalar types, as TF's tnp exports them (tnp.float32 is np.float32).
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16 = _np.uint8, _np.uint16
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
newaxis = None
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives these values (Python scalars weak, as TF)."""
    from tapeviz.core import numpy_promotion

    return numpy_promotion.result_dtype(*arrays_and_dtypes)


__all__ = sorted(n for n in globals() if not n.startswith("_"))
