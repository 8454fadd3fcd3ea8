"""Gradient rules of the matrix primitives."""

from tapeviz.core.errors import UnimplementedError
from tapeviz.core.gradients import defgrad, described, unbroadcast
from tapeviz.core.primitives import decompositions as dec
from tapeviz.core.primitives import linalg as lin
from tapeviz.core.primitives.array import broadcast_to, concat, expand_dims, reshape, slice_tensor, zeros_like
from tapeviz.core.primitives.complex import conj
from tapeviz.core.primitives.linalg import diag, diag_part, einsum, inv, matmul, matrix_transpose
from tapeviz.core.primitives.math import reciprocal, reduce_sum


@defgrad(
    lin.MATMUL,
    "d(A@B)/dA = G @ Bᵀ,  d(A@B)/dB = Aᵀ @ G",
    local=described("B (the upstream times Bᵀ)", "A (Aᵀ times the upstream)"),
)
def _matmul(op, needs, g):
    a, b = op.inputs
    if a._value.dtype.kind == "c":  # TF: G @ adjoint(B) and adjoint(A) @ G
        a, b = conj(a), conj(b)
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    ga = gb = None
    if needs[0]:
        ga = matmul(b, g, transpose_a=tb, transpose_b=True) if ta else matmul(g, b, transpose_b=not tb)
        ga = unbroadcast(ga, a)
    if needs[1]:
        gb = matmul(g, a, transpose_a=True, transpose_b=ta) if tb else matmul(a, g, transpose_a=not ta)
        gb = unbroadcast(gb, b)
    return ga, gb


@defgrad(
    lin.EINSUM,
    "d/d(operand i) = einsum of the upstream with the other operands, onto i's subscripts",
    local=described(every="the other operands (contracted with the upstream)"),
)
def _einsum(op, needs, g):
    equation = op.attrs["equation"]
    lhs, output = equation.split("->")
    terms = lhs.split(",")
    return tuple(_einsum_operand_grad(op, g, terms, output, i) if need else None for i, need in enumerate(needs))


def _einsum_operand_grad(op, g, terms, output, i):

    x = op.inputs[i]
    term = terms[i]
    if len(set(term)) != len(term):
        raise UnimplementedError(
            f"The gradient of einsum {op.attrs['equation']!r} with respect to operand {i} "
            f"({term!r}) repeats a subscript (a diagonal), which tapeviz does not differentiate. "
            "Take diagonals with tf.linalg.diag_part or tf.linalg.trace instead.",
            "Einsum",
        )
    others = [t for j, t in enumerate(terms) if j != i]
    tensors = [t for j, t in enumerate(op.inputs) if j != i]
    known = set(output).union(*others)
    kept = "".join(c for c in term if c in known)
    grad = einsum(",".join(others + [output]) + "->" + kept, *tensors, g)
    # Axes where x had size 1 but was broadcast against a longer one: sum them.
    shape = x._value.shape
    kept_shape = [n for c, n in zip(term, shape) if c in known]
    summed = [k for k, (n, m) in enumerate(zip(kept_shape, grad._value.shape)) if n == 1 and m != 1]
    if summed:
        grad = reduce_sum(grad, axis=summed, keepdims=True)
    # Subscripts only x has were summed away in the forward pass: broadcast back.
    if len(kept) != len(term):
        grad = broadcast_to(reshape(grad, [n if c in known else 1 for c, n in zip(term, shape)]), shape)
    return grad


@defgrad(lin.MATRIX_INVERSE, "d inv(A) = -inv(A)ᵀ G inv(A)ᵀ", local=described("-inv(A)ᵀ · inv(A)ᵀ around the upstream"))
def _matrix_inverse(op, needs, g):
    c = op.outputs[0]
    return (-matmul(c, matmul(g, c, transpose_b=True), transpose_a=True),)


@defgrad(lin.MATRIX_DETERMINANT, "d det(A)/dA = G · det(A) · inv(A)ᵀ", local=described("det(A) · inv(A)ᵀ"))
def _matrix_determinant(op, needs, g):
    a, d = op.inputs[0], op.outputs[0]
    scale = expand_dims(expand_dims(g * d, -1), -1)
    return (scale * inv(a, adjoint=True),)


@defgrad(
    lin.MATRIX_DIAG_PART,
    "put the upstream on the diagonal of zero matrices",
    local=described("1 on the diagonal, 0 elsewhere"),
)
def _matrix_diag_part(op, needs, g):
    rows, cols = op.inputs[0]._value.shape[-2:]
    return (diag(g, num_rows=rows, num_cols=cols),)


@defgrad(lin.MATRIX_DIAG, "the diagonal of the upstream", local=described("1 on the diagonal"))
def _matrix_diag(op, needs, g):
    return (diag_part(g),)


# -- solvers, factorizations, determinants ----------------------------------------------------
# As TF's rules (linalg_grad.py), written in tapeviz ops: each is recorded by an
# outer tape, so second derivatives come from the same rules.


def _t(x):
    return matrix_transpose(x)


def _safe_reciprocal(x):
    """1/x, but about 0 (not inf) where x is 0: x / (x² + 1e-20), TF's guard for repeated
    eigen- and singular values."""
    return x * reciprocal(x * x + 1e-20)


def _off_diagonal_reciprocals(values):
    """f[i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it."""
    return dec.set_diag(_safe_reciprocal(expand_dims(values, -2) - expand_dims(values, -1)), zeros_like(values))


def _columns(x, start, stop):
    return slice_tensor(x, (Ellipsis, slice(None), slice(start, stop)))


@defgrad(dec.MATRIX_BAND_PART, "keep the same band of the upstream", local=described("1 inside the band, 0 outside"))
def _band_part(op, needs, g):
    return (dec.band_part(g, op.attrs["num_lower"], op.attrs["num_upper"]),)


@defgrad(
    dec.MATRIX_SOLVE,
    "x = A⁻¹B:  dB = A⁻ᵀG,  dA = -dB xᵀ",
    local=described("-A⁻ᵀG xᵀ (through the solution x)", "A⁻ᵀ (a solve with Aᵀ)"),
)
def _matrix_solve(op, needs, g):
    a, _ = op.inputs
    x = op.outputs[0]
    adjoint = op.attrs["adjoint"]
    grad_b = dec.solve(a, g, adjoint=not adjoint)
    grad_a = None
    if needs[0]:
        grad_a = -matmul(x, grad_b, transpose_b=True) if adjoint else -matmul(grad_b, x, transpose_b=True)
    return grad_a, grad_b if needs[1] else None


@defgrad(
    dec.MATRIX_TRIANGULAR_SOLVE,
    "x = T⁻¹B:  dB = T⁻ᵀG,  dA = the triangle of -dB xᵀ",
    local=described("the triangle of -T⁻ᵀG xᵀ", "T⁻ᵀ (a solve with Tᵀ)"),
)
def _matrix_triangular_solve(op, needs, g):
    a, b = op.inputs
    x = op.outputs[0]
    lower, adjoint = op.attrs["lower"], op.attrs["adjoint"]
    grad_b = dec.triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    grad_a = None
    if needs[0]:
        grad_a = -matmul(x, grad_b, transpose_b=True) if adjoint else -matmul(grad_b, x, transpose_b=True)
        grad_a = unbroadcast(dec.band_part(grad_a, -1, 0) if lower else dec.band_part(grad_a, 0, -1), a)
    return grad_a, unbroadcast(grad_b, b) if needs[1] else None


@defgrad(
    dec.CHOLESKY,
    "A = LLᵀ:  dA = sym(L⁻ᵀ Φ(LᵀG) L⁻¹), Φ = lower triangle with half the diagonal",
    local=described("L⁻ᵀ Φ(LᵀG) L⁻¹, symmetrised"),
)
def _cholesky(op, needs, g):
    chol = op.outputs[0]
    chol_inverse = dec.triangular_solve(chol, dec.eye_like(chol), lower=True)
    middle = matmul(chol, g, transpose_a=True)
    middle = dec.band_part(dec.set_diag(middle, 0.5 * diag_part(middle)), -1, 0)
    grad = matmul(matmul(chol_inverse, middle, transpose_a=True), chol_inverse)
    return (0.5 * (grad + _t(grad)),)  # symmetric, as TF's


def _qr_tall(q, r, dq, dr):
    """QR's gradient for m >= n (reduced): arXiv 2009.10071, as TF implements it."""

    def times_r_inverse_t(x):  # x @ inv(r)ᵀ, by a triangular solve
        return _t(dec.triangular_solve(r, _t(x), lower=False))

    qdq = matmul(q, dq, transpose_a=True)
    rdr = matmul(r, dr, transpose_b=True)
    lower = dec.band_part((qdq - _t(qdq)) + (rdr - _t(rdr)), -1, 0)
    return matmul(q, dr + times_r_inverse_t(lower)) + times_r_inverse_t(dq - matmul(q, qdq))


@defgrad(
    dec.QR,
    "A = QR:  see arXiv 2009.10071 (not for full_matrices=True with more rows than columns)",
    local=described("through Q and R (arXiv 2009.10071)"),
)
def _qr(op, needs, dq, dr):
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


@defgrad(
    dec.SVD,
    "A = U diag(s) Vᵀ:  dA = U (diag(ds) + sym. F∘(UᵀdU) S + S sym. F∘(VᵀdV)) Vᵀ (+ the rectangular term)",
    local=described("through U, s and V (the rule's formula)"),
)
def _svd(op, needs, gs, gu=None, gv=None):
    from tapeviz.core.errors import UnimplementedError

    a = op.inputs[0]
    if not op.attrs["compute_uv"]:
        _, u, v = dec.svd(a, full_matrices=False)
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


@defgrad(
    dec.EIGH,
    "A = V diag(e) Vᵀ:  dA = V (diag(de) + F∘(VᵀdV)) Vᵀ, folded onto the lower triangle",
    local=described("through the eigenvalues and eigenvectors (the rule's formula)"),
)
def _eigh(op, needs, ge, gv=None):
    e = op.outputs[0]
    if op.attrs["compute_v"]:
        v = op.outputs[1]
        inner = diag(ge) + _off_diagonal_reciprocals(e) * matmul(v, gv, transpose_a=True)
    else:
        _, v = dec.eigh(op.inputs[0])
        inner = diag(ge)
    grad = matmul(v, matmul(inner, v, transpose_b=True))
    # The kernel reads only the lower triangle: fold the gradient onto it.
    grad = dec.band_part(grad + _t(grad), -1, 0)
    return (dec.set_diag(grad, 0.5 * diag_part(grad)),)


@defgrad(dec.LOG_MATRIX_DETERMINANT, "d log|det A|/dA = inv(A)ᵀ (the sign has no gradient)", local=described("inv(A)ᵀ"))
def _log_matrix_determinant(op, needs, _g_sign, g_logabs):
    scale = expand_dims(expand_dims(g_logabs, -1), -1)
    return (scale * inv(op.inputs[0], adjoint=True),)
