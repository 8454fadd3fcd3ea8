"""Factorizations of matrices and their determinants; each kernel with its gradient rule.

Primitives: Cholesky, Qr, Svd, SelfAdjointEigV2, LogMatrixDeterminant: TF's
ops of the same names. ``logdet`` and ``eigvalsh`` are compositions, as in TF.
Every op works on the last two axes, batched over the others.
"""

import collections

import numpy as np

from tapeviz import backend as B
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives import solvers
from tapeviz.core.primitives.array.constants import zeros_like
from tapeviz.core.primitives.array.indexing import slice_tensor
from tapeviz.core.primitives.array.shapes import concat, expand_dims
from tapeviz.core.primitives.linalg import diag, diag_part, float_matrices, inv, matmul, matrix_transpose
from tapeviz.core.primitives.math.elementary import log, reciprocal
from tapeviz.core.primitives.math.reductions import reduce_sum
from tapeviz.core.rules import defgrad, described
from tapeviz.core.scopes import name_scope

Qr = collections.namedtuple("Qr", ["q", "r"])
LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


# -- factorizations --------------------------------------------------------------------------


def _cholesky(a):
    xp = B.xp
    try:
        return xp.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        pass
    # Some matrix is not positive definite: as TF 2.21's kernel, fill its lower
    # triangle with NaN (TF leaves the upper one unset; we put zeros there)
    # and factor the others.
    flat = a.reshape((-1,) + a.shape[-2:])
    failed = xp.tril(xp.full(flat.shape[1:], xp.nan, dtype=a.dtype))
    out = xp.empty_like(flat)
    for k in range(flat.shape[0]):
        try:
            out[k] = xp.linalg.cholesky(flat[k])
        except np.linalg.LinAlgError:
            out[k] = failed
    return out.reshape(a.shape)


CHOLESKY = Primitive("Cholesky", _cholesky)


def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular L with ``L @ L^T = input``, for symmetric positive-definite input.

    Only the lower triangle of ``input`` is read. A matrix that is not
    positive definite gives NaN in its lower triangle, as TF 2.21 does.

    Args:
        input: symmetric positive-definite matrices [..., n, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of lower-triangular factors.
    """
    return execute(CHOLESKY, (float_matrices(input, "Cholesky"),))


# As TF's rules (linalg_grad.py), written in tapeviz ops: each is recorded by an
# outer tape, so second derivatives come from the same rules.
def _t(x):
    return matrix_transpose(x)


@defgrad(
    CHOLESKY,
    "A = LLᵀ:  dA = sym(L⁻ᵀ Φ(LᵀG) L⁻¹), Φ = lower triangle with half the diagonal",
    local=described("L⁻ᵀ Φ(LᵀG) L⁻¹, symmetrised"),
)
def _cholesky_rule(op, needs, g):
    chol = op.outputs[0]
    chol_inverse = solvers.triangular_solve(chol, eye_like(chol), lower=True)
    middle = matmul(chol, g, transpose_a=True)
    middle = solvers.band_part(solvers.set_diag(middle, 0.5 * diag_part(middle)), -1, 0)
    grad = matmul(matmul(chol_inverse, middle, transpose_a=True), chol_inverse)
    return (0.5 * (grad + _t(grad)),)  # symmetric, as TF's


def _qr(a, full_matrices):
    q, r = B.xp.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q, r


QR = Primitive("Qr", _qr, n_outputs=2)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """``Qr(q, r)`` with ``input = q @ r``, q orthonormal columns, r upper triangular (Householder,
    the same signs as TF's).

    Args:
        input: matrices [..., m, n].
        full_matrices: full-size q and r instead of the reduced ones.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``Qr(q, r)``.
    """
    q, r = execute(QR, (float_matrices(input, "Qr", square=False),), {"full_matrices": bool(full_matrices)})
    return Qr(q, r)


def _columns(x, start, stop):
    return slice_tensor(x, (Ellipsis, slice(None), slice(start, stop)))


def _qr_tall(q, r, dq, dr):
    """QR's gradient for m >= n (reduced): arXiv 2009.10071, as TF implements it."""

    def times_r_inverse_t(x):  # x @ inv(r)ᵀ, by a triangular solve
        return _t(solvers.triangular_solve(r, _t(x), lower=False))

    qdq = matmul(q, dq, transpose_a=True)
    rdr = matmul(r, dr, transpose_b=True)
    lower = solvers.band_part((qdq - _t(qdq)) + (rdr - _t(rdr)), -1, 0)
    return matmul(q, dr + times_r_inverse_t(lower)) + times_r_inverse_t(dq - matmul(q, qdq))


@defgrad(
    QR,
    "A = QR:  see arXiv 2009.10071 (not for full_matrices=True with more rows than columns)",
    local=described("through Q and R (arXiv 2009.10071)"),
)
def _qr_rule(op, needs, dq, dr):
    from tapeviz.core.errors import UnimplementedError

    q, r = op.outputs
    m, n = q._value.shape[-2], r._value.shape[-1]
    if r._value.shape[-2] > n and q._value.shape[-1] == m:
        raise UnimplementedError(
            f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received r.shape="
            f"{list(r._value.shape)}: use tf.linalg.qr(x, full_matrices=False) to differentiate.",
            "Qr",
        )
    if m >= n:
        return (_qr_tall(q, r, dq, dr),)
    # A wide matrix: split A = [X, Y], R = [U, V] and reduce to the square case.
    a = op.inputs[0]
    y = _columns(a, m, None)
    u = _columns(r, 0, m)
    dv, du = _columns(dr, m, None), _columns(dr, 0, m)
    dx = _qr_tall(q, u, dq + matmul(y, dv, transpose_b=True), du)
    return (concat([dx, matmul(q, dv)], axis=-1),)


def _svd(a, full_matrices, compute_uv):
    xp = B.xp
    if not compute_uv:
        return (xp.linalg.svd(a, compute_uv=False),)
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return s, u, xp.swapaxes(vh, -1, -2)


SVD = Primitive("Svd", _svd, n_outputs=None)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular values ``s`` (descending) and, with ``compute_uv``, ``(s, u, v)``
    with ``tensor = u @ diag(s) @ v^T``, as ``tf.linalg.svd`` (note: v, not v^T).

    Singular vectors are defined up to sign: tapeviz's (LAPACK's) signs can
    differ from TF's; anything that does not depend on them agrees. The
    gradient through u and v is infinite where singular values repeat.

    Args:
        tensor: matrices [..., m, n].
        full_matrices: full-size u and v.
        compute_uv: also return u and v.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``s``, or ``(s, u, v)`` with ``compute_uv``.
    """
    outputs = execute(
        SVD,
        (float_matrices(tensor, "Svd", square=False),),
        {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)},
    )
    return tuple(outputs) if compute_uv else outputs[0]


def _safe_reciprocal(x):
    """1/x, but about 0 (not inf) where x is 0: x / (x² + 1e-20), TF's guard for repeated
    eigen- and singular values."""
    return x * reciprocal(x * x + 1e-20)


def _off_diagonal_reciprocals(values):
    """f[i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it."""
    return solvers.set_diag(_safe_reciprocal(expand_dims(values, -2) - expand_dims(values, -1)), zeros_like(values))


@defgrad(
    SVD,
    "A = U diag(s) Vᵀ:  dA = U (diag(ds) + sym. F∘(UᵀdU) S + S sym. F∘(VᵀdV)) Vᵀ (+ the rectangular term)",
    local=described("through U, s and V (the rule's formula)"),
)
def _svd_rule(op, needs, gs, gu=None, gv=None):
    from tapeviz.core.errors import UnimplementedError

    a = op.inputs[0]
    if not op.attrs["compute_uv"]:
        _, u, v = svd(a, full_matrices=False)
        return (matmul(u, matmul(diag(gs), v, transpose_b=True)),)
    s, u, v = op.outputs
    m, n = a._value.shape[-2:]
    transposed = m > n
    if transposed:  # differentiate Aᵀ = V diag(s) Uᵀ instead
        m, n, u, v, gu, gv = n, m, v, u, gv, gu
    full = op.attrs["full_matrices"]
    if full and abs(m - n) > 1:
        raise UnimplementedError(
            f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True; the input has "
            f"shape {list(a._value.shape)}. Use tf.linalg.svd(x, full_matrices=False) to differentiate.",
            "Svd",
        )
    s_mat = diag(s)
    f = _off_diagonal_reciprocals(s * s)
    v1, gv1 = _columns(v, 0, m), _columns(gv, 0, m)
    f_u = f * matmul(u, gu, transpose_a=True)
    f_v = f * matmul(v1, gv1, transpose_a=True)
    inner = diag(gs) + matmul(f_u + _t(f_u), s_mat) + matmul(s_mat, f_v + _t(f_v))
    grad = matmul(u, matmul(inner, v1, transpose_b=True))
    if m != n:
        gv1_t = _t(gv1)
        rest = gv1_t - matmul(matmul(gv1_t, v1), v1, transpose_b=True)
        if full:
            v2, gv2 = _columns(v, m, n), _columns(gv, m, n)
            rest = rest - matmul(matmul(v1, gv2, transpose_a=True), v2, transpose_b=True)
        grad = grad + matmul(matmul(u, diag(_safe_reciprocal(s))), rest)
    return (_t(grad) if transposed else grad,)


def _eigh(a, compute_v):
    xp = B.xp
    if not compute_v:
        return (xp.linalg.eigvalsh(a, UPLO="L"),)
    return tuple(xp.linalg.eigh(a, UPLO="L"))


EIGH = Primitive("SelfAdjointEigV2", _eigh, n_outputs=None)


def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices: ``(e, v)``.

    Only the lower triangle is read. Eigenvectors are defined up to sign:
    tapeviz's (LAPACK's) can differ from TF's.

    Args:
        tensor: symmetric matrices [..., n, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``(e, v)``, eigenvalues [..., n] and eigenvectors [..., n, n].
    """
    return tuple(execute(EIGH, (float_matrices(tensor, "SelfAdjointEigV2"),), {"compute_v": True}))


@defgrad(
    EIGH,
    "A = V diag(e) Vᵀ:  dA = V (diag(de) + F∘(VᵀdV)) Vᵀ, folded onto the lower triangle",
    local=described("through the eigenvalues and eigenvectors (the rule's formula)"),
)
def _eigh_rule(op, needs, ge, gv=None):
    e = op.outputs[0]
    if op.attrs["compute_v"]:
        v = op.outputs[1]
        inner = diag(ge) + _off_diagonal_reciprocals(e) * matmul(v, gv, transpose_a=True)
    else:
        _, v = eigh(op.inputs[0])
        inner = diag(ge)
    grad = matmul(v, matmul(inner, v, transpose_b=True))
    # The kernel reads only the lower triangle: fold the gradient onto it.
    grad = solvers.band_part(grad + _t(grad), -1, 0)
    return (solvers.set_diag(grad, 0.5 * diag_part(grad)),)


def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of symmetric matrices (lower triangle read).

    Args:
        tensor: symmetric matrices [..., n, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [..., n] of eigenvalues.
    """
    return execute(EIGH, (float_matrices(tensor, "SelfAdjointEigV2"),), {"compute_v": False})[0]


# -- determinants ------------------------------------------------------------------------------


def _slogdet(a):
    sign, logabs = B.xp.linalg.slogdet(a)
    return sign.astype(a.dtype), logabs.astype(a.dtype)


LOG_MATRIX_DETERMINANT = Primitive("LogMatrixDeterminant", _slogdet, n_outputs=2)


def slogdet(input, name=None):  # noqa: A002
    """``(sign, log_abs_determinant)`` of square matrices: log|det| without overflow.

    A singular matrix gives sign 0 and -inf, as in TF.

    Args:
        input: square matrices [..., n, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``(sign, log_abs_determinant)``, two Tensors [...].
    """
    sign, logabs = execute(LOG_MATRIX_DETERMINANT, (float_matrices(input, "LogMatrixDeterminant"),))
    return LogMatrixDeterminant(sign, logabs)


@defgrad(LOG_MATRIX_DETERMINANT, "d log|det A|/dA = inv(A)ᵀ (the sign has no gradient)", local=described("inv(A)ᵀ"))
def _log_matrix_determinant_rule(op, needs, _g_sign, g_logabs):
    scale = expand_dims(expand_dims(g_logabs, -1), -1)
    return (scale * inv(op.inputs[0], adjoint=True),)


def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive-definite matrices: 2 * sum(log(diag(cholesky))).

    NaN where a matrix is not positive definite, as in TF.

    Args:
        matrix: Hermitian positive-definite matrices [..., n, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [...].
    """
    with name_scope("logdet"):
        return 2.0 * reduce_sum(log(diag_part(cholesky(matrix))), axis=-1)


def eye_like(x):
    """Identity matrices of ``x``'s shape and dtype (for the rules)."""
    xp = B.xp
    shape = x._value.shape
    return as_tensor(xp.broadcast_to(xp.eye(shape[-2], shape[-1], dtype=x._value.dtype), shape).copy())
