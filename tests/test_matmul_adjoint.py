"""The adjoint of a complex matrix is its conjugate transpose, as in TF: ``matmul(adjoint_a=, adjoint_b=)``,
``matvec(adjoint_a=)``, ``linalg.adjoint``, ``transpose``/``matrix_transpose(conjugate=True)``,
``linalg.inv(adjoint=True)`` and the gradient of ``inv``.

Found while comparing TF's keyword arguments with tapeviz's: these took ``adjoint``
or ``conjugate`` but transposed without conjugating, so complex inputs gave another
matrix and ``inv``'s gradient was wrong (real inputs were right and are unchanged).
Values are checked against the definition (NumPy's ``a.conj().T``), gradients against
finite differences in TF's convention for a real loss of a complex input:
``dL/d(real part) + i dL/d(imaginary part)`` (what TF 2.21 gives for these cases).
"""

import numpy as np
import pytest

import tapeviz as tf

RNG = np.random.default_rng(7)
A = RNG.normal(size=(2, 3, 3)) + 1j * RNG.normal(size=(2, 3, 3))
B = RNG.normal(size=(2, 3, 3)) + 1j * RNG.normal(size=(2, 3, 3))
V = RNG.normal(size=(2, 3)) + 1j * RNG.normal(size=(2, 3))


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize(
    "flags,want",
    [
        ({"adjoint_a": True}, _h(A) @ B),
        ({"adjoint_b": True}, A @ _h(B)),
        ({"adjoint_a": True, "adjoint_b": True}, _h(A) @ _h(B)),
        ({"transpose_a": True}, np.swapaxes(A, -1, -2) @ B),
    ],
)
def test_matmul_adjoint_is_the_conjugate_transpose(flags, want):
    np.testing.assert_allclose(tf.matmul(A, B, **flags).numpy(), want, rtol=1e-12)


def test_the_other_adjoints_conjugate_too():
    np.testing.assert_allclose(tf.linalg.adjoint(A).numpy(), _h(A))
    np.testing.assert_allclose(tf.linalg.matrix_transpose(A, conjugate=True).numpy(), _h(A))
    np.testing.assert_allclose(tf.linalg.matrix_transpose(A).numpy(), np.swapaxes(A, -1, -2))
    np.testing.assert_allclose(tf.transpose(A, [1, 2, 0], conjugate=True).numpy(), np.conj(A.transpose(1, 2, 0)))
    want = np.einsum("...ji,...j->...i", np.conj(A), V)
    np.testing.assert_allclose(tf.linalg.matvec(A, V, adjoint_a=True).numpy(), want, rtol=1e-12)
    m = A + 4 * np.eye(3)
    np.testing.assert_allclose(tf.linalg.inv(m, adjoint=True).numpy(), np.linalg.inv(_h(m)), rtol=1e-12)


def test_real_matrices_are_unchanged():
    a, b = A.real, B.real
    np.testing.assert_allclose(tf.matmul(a, b, adjoint_a=True, adjoint_b=True).numpy(), _h(a) @ _h(b))
    np.testing.assert_allclose(tf.linalg.adjoint(a).numpy(), np.swapaxes(a, -1, -2))


def _complex_fd(loss, x, eps=1e-6):
    """dL/d(real) + i dL/d(imag), element by element (central differences)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        real = (loss(x + step) - loss(x - step)) / (2 * eps)
        imag = (loss(x + 1j * step) - loss(x - 1j * step)) / (2 * eps)
        grad[index] = real + 1j * imag
    return grad


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tf.matmul(x, B, adjoint_a=True),
        lambda x: tf.matmul(B, x, adjoint_b=True),
        lambda x: tf.linalg.adjoint(x) * x,
        lambda x: tf.transpose(x, [2, 0, 1], conjugate=True) * 2.0,
        lambda x: tf.linalg.matvec(x, V, adjoint_a=True),
        lambda x: tf.linalg.inv(x + 4 * np.eye(3)),
        lambda x: tf.linalg.inv(x + 4 * np.eye(3), adjoint=True),
    ],
    ids=[
        "matmul_adjoint_a",
        "matmul_adjoint_b",
        "adjoint",
        "transpose_conjugate",
        "matvec_adjoint_a",
        "inv",
        "inv_adjoint",
    ],
)
def test_complex_gradients_match_finite_differences(fn):
    def loss(x):
        return tf.reduce_sum(tf.abs(fn(tf.constant(x))) ** 2)

    x = tf.constant(A)
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = tf.reduce_sum(tf.abs(fn(x)) ** 2)
    numeric = _complex_fd(lambda a: loss(a).numpy(), A)
    np.testing.assert_allclose(tape.gradient(value, x).numpy(), numeric, rtol=1e-6, atol=1e-6)
    assert np.isclose(value.numpy(), loss(A).numpy())
