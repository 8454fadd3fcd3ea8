"""Cases for the math rules."""

import numpy as np

import tapeviz as tf
from tapeviz.core.primitives.math import reciprocal_grad, rsqrt_grad, sqrt_grad
from tests.rule_cases import Case, rand

pos = dict(low=0.5, high=2.0)

CASES = {
    "AddV2": Case(lambda x, y: x + y, [rand(2, 3), rand(3)]),
    "Sub": Case(lambda x, y: x - y, [rand(2, 1), rand(1, 3)]),
    "Mul": Case(lambda x, y: x * y, [rand(2, 3), rand(2, 1)]),
    "RealDiv": Case(lambda x, y: x / y, [rand(2, 3), rand(3, **pos)]),
    "FloorMod": Case(lambda x, y: tf.math.floormod(x, y), [rand(4, low=0.1, high=0.9), rand(4, low=1.1, high=1.9)]),
    "Pow": Case(lambda x, y: x**y, [rand(2, 3, **pos), rand(3, **pos)]),
    "Maximum": Case(tf.maximum, [rand(2, 3, seed=1), rand(2, 3, seed=2)], second_order=True),
    "Minimum": Case(tf.minimum, [rand(2, 3, seed=1), rand(2, 3, seed=2)]),
    "SquaredDifference": Case(tf.math.squared_difference, [rand(2, 3), rand(3)]),
    "Atan2": Case(tf.math.atan2, [rand(3, **pos), rand(3, **pos)]),
    "DivNoNan": Case(tf.math.divide_no_nan, [rand(3), rand(3, **pos)]),
    "Xlogy": Case(tf.math.xlogy, [rand(3), rand(3, **pos)]),
    "Xdivy": Case(tf.math.xdivy, [rand(3), rand(3, **pos)]),
    "Neg": Case(lambda x: -x, [rand(3)]),
    "Identity": Case(tf.identity, [rand(3)]),
    "CheckNumerics": Case(lambda x: tf.debugging.check_numerics(x, "checked"), [rand(3)]),
    "Abs": Case(tf.abs, [np.array([-1.5, -0.3, 0.4, 2.0])]),
    "Exp": Case(tf.exp, [rand(3)]),
    "Expm1": Case(tf.math.expm1, [rand(3)]),
    "Log": Case(tf.math.log, [rand(3, **pos)]),
    "Log1p": Case(tf.math.log1p, [rand(3, **pos)]),
    "Sqrt": Case(tf.sqrt, [rand(3, **pos)]),
    "Rsqrt": Case(tf.math.rsqrt, [rand(3, **pos)]),
    "Square": Case(tf.square, [rand(3)]),
    "Reciprocal": Case(tf.math.reciprocal, [rand(3, **pos)]),
    # The fused backward kernels, away from a zero upstream (where they are 0 by fiat).
    "SqrtGrad": Case(lambda y, dy: sqrt_grad(y * y + 0.5, dy), [rand(3), rand(3, **pos)]),
    "RsqrtGrad": Case(lambda y, dy: rsqrt_grad(y * y + 0.5, dy), [rand(3), rand(3, **pos)]),
    "ReciprocalGrad": Case(lambda y, dy: reciprocal_grad(y * y + 0.5, dy), [rand(3), rand(3, **pos)]),
    "Sin": Case(tf.sin, [rand(3)]),
    "Cos": Case(tf.cos, [rand(3)]),
    "Tan": Case(tf.math.tan, [rand(3)]),
    "Asin": Case(tf.math.asin, [rand(3, low=-0.8, high=0.8)]),
    "Acos": Case(tf.math.acos, [rand(3, low=-0.8, high=0.8)]),
    "Atan": Case(tf.math.atan, [rand(3)]),
    "Sinh": Case(tf.math.sinh, [rand(3)]),
    "Asinh": Case(tf.math.asinh, [rand(3)]),
    "Acosh": Case(tf.math.acosh, [rand(3, low=1.2, high=3.0)]),
    "Atanh": Case(tf.math.atanh, [rand(3, low=-0.8, high=0.8)]),
    "Cosh": Case(tf.math.cosh, [rand(3)]),
    "Tanh": Case(tf.tanh, [rand(3)]),
    "Sigmoid": Case(tf.sigmoid, [rand(3)]),
    "Erf": Case(tf.math.erf, [rand(3)]),
    "Sign": Case(lambda x: tf.sign(x) * x, [np.array([-1.5, 0.7])]),
    "Cast": Case(
        lambda x: tf.cast(tf.cast(x, tf.float32), tf.float64) * x,
        [rand(3)],
        tol=1e-3,
        eps=1e-2,
        notes="float64 -> float32 -> float64; a wide step because float32 rounds",
    ),
    "SelectV2": Case(lambda x, y: tf.where(x > 0, x, y), [np.array([-0.5, 0.3, 1.2]), rand(3)]),
    "AddN": Case(lambda x, y: tf.add_n([x, y, x]), [rand(2, 2), rand(2, 2)]),
    "Sum": Case(lambda x: tf.reduce_sum(x, axis=1), [rand(2, 3)]),
    "Mean": Case(lambda x: tf.reduce_mean(x, axis=0, keepdims=True), [rand(2, 3)]),
    "Max": Case(lambda x: tf.reduce_max(x, axis=1), [rand(2, 3)]),
    "Min": Case(lambda x: tf.reduce_min(x), [rand(2, 3)]),
    "Prod": Case(lambda x: tf.reduce_prod(x, axis=1), [rand(2, 3, **pos)]),
    "Cumsum": Case(lambda x: tf.math.cumsum(x, axis=1, exclusive=True), [rand(2, 3)]),
    # zeros along the axis (two in column 0: the exact rule folds one level per zero), and the
    # zero-free path through a positive input
    "Cumprod": Case(
        lambda x: tf.math.cumprod(x, axis=0, reverse=True) + tf.math.cumprod(x * x + 0.5, axis=1, exclusive=True),
        [np.array([[0.0, 1.3, -0.7], [0.9, 0.0, 1.1], [-1.2, 0.8, 0.6], [0.0, 1.4, 0.0]])],
    ),
}
