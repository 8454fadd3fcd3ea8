"""complex64/complex128 through the elementwise ops, matmul, reductions and tf.math.real/imag/conj/abs/angle.

Values and gradients agree with TensorFlow 2.21 (tests/tf_reference/complex_reference.py), and the
gradients are checked against central finite differences along the real and imaginary parts: for a
real L of z = x + iy, TF's gradient is dL/dx + i dL/dy.
"""

import json

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference.complex_reference import VALUES_FILE, cases, scenario

REFERENCE = json.loads(open(VALUES_FILE).read())
TOLERANCE = {"complex64": 2e-5, "complex128": 1e-10}


@pytest.fixture(scope="module")
def observed():
    return scenario(tf)


@pytest.mark.parametrize("key", sorted(k for k in REFERENCE if "/" in k))
def test_values_and_gradients_agree_with_tensorflow(observed, key):
    ours, theirs = observed[key], REFERENCE[key]
    tol = TOLERANCE[key.split("/")[1]]
    assert ours["value_dtype"] == theirs["value_dtype"]
    np.testing.assert_allclose(ours["value"], theirs["value"], rtol=tol, atol=tol)
    for mine, tfs in zip(ours["grads"], theirs["grads"]):
        assert mine[2] == tfs[2]
        np.testing.assert_allclose(mine[:2], tfs[:2], rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize(
    "key", ["dtype_str", "python_complex", "complex_op_dtype", "abs_dtype", "real_of_real", "imag_of_real"]
)
def test_dtypes_and_real_inputs_agree_with_tensorflow(observed, key):
    assert observed[key] == REFERENCE[key]


def test_angle_of_a_real_tensor(observed):
    np.testing.assert_allclose(observed["angle_of_real"], REFERENCE["angle_of_real"], rtol=1e-6)


def _real_loss(fn):
    """A real scalar from fn's value (the real part summed), as the tape's seed of ones differentiates it."""

    def loss(*sources):
        value = fn(*sources)
        return tf.reduce_sum(tf.math.real(value)) if value.dtype.is_complex else tf.reduce_sum(value)

    return loss


@pytest.mark.parametrize("name", sorted(cases(tf)))
def test_gradients_match_finite_differences(name):
    fn, arrays = cases(tf)[name]
    arrays = [np.asarray(a) for a in arrays]
    loss = _real_loss(fn)
    sources = [tf.Variable(a) for a in arrays]
    with tf.GradientTape() as tape:
        value = loss(*sources)
    grads = [g.numpy() for g in tape.gradient(value, sources)]
    eps = 1e-6

    def at(values):
        return float(loss(*[tf.constant(v) for v in values]).numpy())

    for i, a in enumerate(arrays):
        directions = [1.0, 1j] if np.iscomplexobj(a) else [1.0]
        for index in np.ndindex(a.shape):
            numeric = 0j
            for d in directions:
                up = [v.copy() for v in arrays]
                down = [v.copy() for v in arrays]
                up[i][index] += eps * d
                down[i][index] -= eps * d
                numeric += d * (at(up) - at(down)) / (2 * eps)
            np.testing.assert_allclose(grads[i][index], numeric, rtol=1e-6, atol=1e-6)


def test_complex_tensors_are_watched_and_higher_order_works():
    z = tf.constant(np.array([0.5 + 1j, -1 + 0.25j]))
    with tf.GradientTape() as outer:
        outer.watch(z)
        with tf.GradientTape() as inner:
            inner.watch(z)
            y = tf.reduce_sum(tf.math.real(z * z * z))
        g = inner.gradient(y, z)  # 3 conj(z)^2
        s = tf.reduce_sum(tf.math.real(g))
    np.testing.assert_allclose(g.numpy(), 3 * np.conj(z.numpy()) ** 2)
    np.testing.assert_allclose(outer.gradient(s, z).numpy(), 6 * np.conj(z.numpy()))  # real(3 conj(z)^2) = real(3 z^2)


def test_complex_dtype_bounds_and_bad_parts():
    assert tf.complex64.is_complex and tf.complex64.real_dtype == tf.float32
    with pytest.raises(TypeError, match="Cannot find minimum value"):
        tf.complex128.min  # noqa: B018
    with pytest.raises(tf.errors.InvalidArgumentError, match="two float32 or two float64"):
        tf.complex(tf.constant([1.0]), tf.constant([1.0], tf.float64))
