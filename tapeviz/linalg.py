"""``tf.linalg``: matrix products, inverses, determinants, diagonals, solvers and factorizations."""

from tapeviz.core.primitives.decompositions import cholesky, eigh, eigvalsh, logdet, qr, slogdet, svd  # noqa: F401
from tapeviz.core.primitives.linalg import (  # noqa: F401
    det,
    diag,
    diag_part,
    einsum,
    eye,
    inv,
    matmul,
    matrix_transpose,
    matvec,
    tensordot,
    trace,
)
from tapeviz.core.primitives.solvers import adjoint, band_part, cholesky_solve, set_diag, solve, triangular_solve  # noqa: F401
from tapeviz.math import global_norm, l2_normalize, norm  # noqa: F401  (TF lists these here too)

__all__ = [
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "det",
    "diag",
    "diag_part",
    "eigh",
    "eigvalsh",
    "einsum",
    "eye",
    "global_norm",
    "inv",
    "l2_normalize",
    "logdet",
    "matmul",
    "matrix_transpose",
    "matvec",
    "norm",
    "qr",
    "set_diag",
    "slogdet",
    "solve",
    "svd",
    "tensordot",
    "trace",
    "triangular_solve",
]
