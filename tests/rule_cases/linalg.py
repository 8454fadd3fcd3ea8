"""Cases for the matrix rules."""

import numpy as np

import tapeviz as tf
from tests.rule_cases import Case, rand


def well_conditioned(*batch, n=3, seed=0):
    """Matrices near 2·I: far from singular, so inverses and determinants are smooth."""
    return rand(*batch, n, n, seed=seed) * 0.5 + 2.0 * np.eye(n)


CASES = {
    # Batch dims broadcast ([2, 1] against [3]) and every transpose flag pairing.
    "MatMul": Case(
        lambda a, b: (
            tf.matmul(a, b)
            + tf.matmul(a, b, transpose_a=True, transpose_b=True) * 0.5
            + tf.matmul(a, b, transpose_a=True) * tf.matmul(a, b, transpose_b=True)
        ),
        [rand(2, 1, 3, 3), rand(3, 3, 3, seed=1)],
    ),
    "Einsum": Case(
        lambda a, b, c: tf.einsum("bij,jk,bk->bi", a * a, b, c), [rand(2, 3, 4), rand(4, 5, seed=1), rand(2, 5, seed=2)]
    ),
    "MatrixInverse": Case(lambda a: tf.linalg.inv(a * a), [well_conditioned(2)]),
    "MatrixDeterminant": Case(lambda a: tf.linalg.det(a * a), [well_conditioned(2)]),
    "MatrixDiagPart": Case(lambda x: tf.linalg.diag_part(x * x), [rand(2, 3, 4)]),
    "MatrixDiag": Case(lambda d: tf.linalg.diag(d * d, num_rows=4), [rand(2, 3)]),
}


def _spd(a):
    """A symmetric positive-definite matrix from any square ``a`` (a aᵀ + 3 I)."""
    n = a.shape[-1]
    return tf.matmul(a, a, transpose_b=True) + 3.0 * tf.eye(n, dtype=a.dtype)


def _sign_free(*tensors):
    """One vector of squares: singular and eigen vectors are defined up to sign, their squares are not."""
    return tf.concat([tf.reshape(t * t, [-1]) for t in tensors], axis=0)


def _separated(*shape, seed=0):
    """Matrices with well-separated singular values (no repeats, none near 0)."""
    base = np.zeros(shape)
    k = min(shape[-2:])
    base[..., np.arange(k), np.arange(k)] = np.arange(k, 0, -1) * 1.5 + 0.5
    return base + rand(*shape, seed=seed) * 0.3


CASES.update(
    {
        "MatrixBandPart": Case(
            lambda x: tf.linalg.band_part(x * x, 1, 0) + tf.linalg.band_part(x, 0, -1), [rand(2, 3, 4)]
        ),
        "MatrixSolve": Case(
            lambda a, b: tf.linalg.solve(a, b * b) + tf.linalg.solve(a, b, adjoint=True),
            [well_conditioned(2), rand(2, 3, 2, seed=1)],
        ),
        # Broadcast batch dims (matrix [3, 3] against rhs [2, 3, 2]) and both triangles, both adjoints.
        "MatrixTriangularSolve": Case(
            lambda a, b: (
                tf.linalg.triangular_solve(a, b * b) + tf.linalg.triangular_solve(a, b, lower=False, adjoint=True)
            ),
            [well_conditioned(), rand(2, 3, 2, seed=1)],
        ),
        "Cholesky": Case(lambda a: tf.linalg.cholesky(_spd(a)), [rand(2, 3, 3)]),
        # Tall (4 x 3) and wide (3 x 4) matrices; Householder signs are fixed, so q and r are smooth.
        "Qr": Case(
            lambda a: tf.concat([tf.reshape(t, [-1]) for t in tf.linalg.qr(a) + tf.linalg.qr(tf.transpose(a))], 0),
            [_separated(4, 3)],
        ),
        # Values only, wide, tall, and full_matrices (one extra column of v).
        "Svd": Case(
            lambda a: tf.concat(
                [
                    tf.linalg.svd(a, compute_uv=False),
                    _sign_free(*tf.linalg.svd(a)[1:]),
                    _sign_free(*tf.linalg.svd(tf.transpose(a))[1:]),
                    _sign_free(*tf.linalg.svd(a, full_matrices=True)[1:]),
                ],
                0,
            ),
            [_separated(3, 4)],
        ),
        "SelfAdjointEigV2": Case(
            lambda a: tf.concat([tf.linalg.eigvalsh(a), _sign_free(tf.linalg.eigh(a)[1])], 0),
            [_separated(3, 3) + _separated(3, 3).T],
        ),
        "LogMatrixDeterminant": Case(lambda a: tf.linalg.slogdet(a * a).log_abs_determinant, [well_conditioned(2)]),
    }
)
