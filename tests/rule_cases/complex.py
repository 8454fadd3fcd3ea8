"""Cases for the complex rules: real float64 inputs made complex, so finite differences along each
real input check TF's convention (the real and imaginary parts of a complex gradient) end to end."""

import tapeviz as tf
from tests.rule_cases import Case, rand


def _z(x, y):
    return tf.complex(x, y)


CASES = {
    "Complex": Case(lambda x, y: tf.abs(_z(x, y) * _z(y, x)), [rand(2, 3), rand(2, 3, seed=1)]),
    "Real": Case(lambda x, y: tf.math.real(_z(x, y) * _z(x, y) * _z(y, 0.5 * x)), [rand(3), rand(3, seed=1)]),
    "Imag": Case(lambda x, y: tf.math.imag(tf.exp(_z(x, y)) / _z(y + 3.0, x)), [rand(3), rand(3, seed=1)]),
    "Conj": Case(lambda x, y: tf.math.imag(tf.math.conj(_z(x, y)) * _z(y, x * x)), [rand(3), rand(3, seed=1)]),
    "Angle": Case(
        lambda x, y: tf.math.angle(_z(x, y) * _z(y, tf.ones_like(y))), [rand(3, low=0.5, high=2.0), rand(3, seed=1)]
    ),
}
