"""Band masks and linear solvers of matrices; each kernel with its gradient rule.

Primitives: MatrixBandPart, MatrixSolve, MatrixTriangularSolve: TF's ops of
the same names. ``set_diag``, ``adjoint`` and ``cholesky_solve`` are
compositions, as in TF. Every op works on the last two axes, batched over the others.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.ops import as_tensor, execute, same_dtype
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array.arguments import invalid_argument
from tapeviz.core.primitives.linalg import diag, diag_part, float_matrices, matmul, matrix_transpose
from tapeviz.core.primitives.math.reductions import unbroadcast
from tapeviz.core.rules import defgrad, described
from tapeviz.core.scopes import name_scope
from tapeviz.core.tensor import host_value

# -- band_part -------------------------------------------------------------------------------


def _band_mask(rows, cols, num_lower, num_upper):
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = np.ones((rows, cols), dtype=bool)
    if num_lower >= 0:
        keep &= i - j <= num_lower
    if num_upper >= 0:
        keep &= j - i <= num_upper
    return B.xp.asarray(keep)


def _band_part(x, num_lower, num_upper):
    keep = _band_mask(x.shape[-2], x.shape[-1], num_lower, num_upper)
    return B.xp.where(keep, x, B.xp.zeros((), dtype=x.dtype))


MATRIX_BAND_PART = Primitive("MatrixBandPart", _band_part)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's name
    """Keep ``num_lower`` diagonals below the main one and ``num_upper`` above; zero the rest.

    A negative count keeps the whole triangle: ``band_part(x, -1, 0)`` is the
    lower triangle, ``band_part(x, 0, 0)`` the diagonal.

    Args:
        input: matrices [..., m, n].
        num_lower: diagonals to keep below the main one (negative: all).
        num_upper: diagonals to keep above it (negative: all).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``input``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: an input of rank below 2, or band sizes larger than the matrix.
    """
    x = as_tensor(input)
    if x.ndim < 2:
        raise invalid_argument(
            f"input must be at least 2-dim, received shape: {list(x._value.shape)}", "MatrixBandPart"
        )
    lower = int(host_value(num_lower, "band_part's num_lower")) if hasattr(num_lower, "_value") else int(num_lower)
    upper = int(host_value(num_upper, "band_part's num_upper")) if hasattr(num_upper, "_value") else int(num_upper)
    rows, cols = x._value.shape[-2:]
    if lower > rows:
        raise invalid_argument(
            f"num_lower must be negative or less or equal to number of rows ({rows}) got: {lower}", "MatrixBandPart"
        )
    if upper > cols:
        raise invalid_argument(
            f"num_upper must be negative or less or equal to number of columns ({cols}) got: {upper}", "MatrixBandPart"
        )
    return execute(MATRIX_BAND_PART, (x,), {"num_lower": lower, "num_upper": upper})


@defgrad(MATRIX_BAND_PART, "keep the same band of the upstream", local=described("1 inside the band, 0 outside"))
def _band_part_rule(op, needs, g):
    return (band_part(g, op.attrs["num_lower"], op.attrs["num_upper"]),)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with its main diagonal replaced by ``diagonal`` (a composite: x - diag(x) + diag(d)).

    Args:
        input: matrices [..., m, n].
        diagonal: the new diagonals [..., min(m, n)].
        name: TensorFlow's op name; accepted for compatibility, unused.
        k: only 0 (the main diagonal).
        align: accepted for TensorFlow compatibility.

    Returns:
        A Tensor of ``input``'s shape.
    """
    x = as_tensor(input)
    d = as_tensor(diagonal, dtype=x.dtype)
    if k != 0:
        raise NotImplementedError("tapeviz's set_diag replaces only the main diagonal (k=0).")
    rows, cols = x._value.shape[-2:]
    with name_scope("set_diag"):
        return x - diag(diag_part(x), num_rows=rows, num_cols=cols) + diag(d, num_rows=rows, num_cols=cols)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes (the transpose, for real matrices).

    Args:
        matrix: a tensor of rank >= 2.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the last two axes swapped (and conjugated).
    """
    return matrix_transpose(matrix, conjugate=True)


# -- solving ---------------------------------------------------------------------------------


def _solve(a, b, adjoint):
    xp = B.xp
    if adjoint:
        a = xp.swapaxes(a, -1, -2)
    try:
        return xp.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise ValueError("Input matrix is not invertible.") from None


MATRIX_SOLVE = Primitive("MatrixSolve", _solve)


def solve(matrix, rhs, adjoint=False, name=None):
    """x with ``matrix @ x = rhs`` (``matrix^T @ x = rhs`` with ``adjoint``), as ``tf.linalg.solve``.

    ``matrix`` [..., M, M], ``rhs`` [..., M, K] with the same batch shape.
    A singular matrix raises InvalidArgumentError, as in TF.

    Args:
        matrix: square matrices [..., n, n].
        rhs: right-hand sides [..., n, k].
        adjoint: solve with the conjugate transpose.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [..., n, k].

    Raises:
        tf.errors.InvalidArgumentError: matrices that are not square, shapes that do not
            match, or a singular matrix.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[2.0], [2.0]]))
        tf.Tensor(
        [[1. ]
         [0.5]], shape=(2, 1), dtype=float32)
    """
    a = float_matrices(matrix, "MatrixSolve")
    b = as_tensor(rhs)
    same_dtype(a, b, op="MatrixSolve")
    if b.ndim != a.ndim:
        raise invalid_argument(
            f"All input tensors must have the same rank: matrix {list(a._value.shape)}, "
            f"rhs {list(b._value.shape)}. Give rhs a last axis, e.g. rhs[..., None].",
            "MatrixSolve",
        )
    if a._value.shape[:-2] != b._value.shape[:-2] or a._value.shape[-1] != b._value.shape[-2]:
        raise invalid_argument(
            f"Input matrix and right-hand side must have the same batch shape and number of rows: "
            f"{list(a._value.shape)} vs. {list(b._value.shape)}",
            "MatrixSolve",
        )
    return execute(MATRIX_SOLVE, (a, b), {"adjoint": bool(adjoint)})


@defgrad(
    MATRIX_SOLVE,
    "x = A⁻¹B:  dB = A⁻ᵀG,  dA = -dB xᵀ",
    local=described("-A⁻ᵀG xᵀ (through the solution x)", "A⁻ᵀ (a solve with Aᵀ)"),
)
def _matrix_solve_rule(op, needs, g):
    a, _ = op.inputs
    x = op.outputs[0]
    adjoint = op.attrs["adjoint"]
    grad_b = solve(a, g, adjoint=not adjoint)
    grad_a = None
    if needs[0]:
        grad_a = -matmul(x, grad_b, transpose_b=True) if adjoint else -matmul(grad_b, x, transpose_b=True)
    return grad_a, grad_b if needs[1] else None


def _triangular_solve(a, b, lower, adjoint):
    """Forward or back substitution, one row at a time, batched (broadcasting).

    A zero on the diagonal gives inf/nan, as TF's kernel does, not an error.
    """
    xp = B.xp
    a = xp.tril(a) if lower else xp.triu(a)
    if adjoint:
        a, lower = xp.swapaxes(a, -1, -2), not lower
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    x = xp.array(xp.broadcast_to(b, batch + b.shape[-2:]))  # a copy the rows are written into
    n = a.shape[-1]
    for i in range(n) if lower else range(n - 1, -1, -1):
        done = slice(0, i) if lower else slice(i + 1, n)
        row = x[..., i : i + 1, :] - xp.matmul(a[..., i : i + 1, done], x[..., done, :])
        x[..., i : i + 1, :] = row / a[..., i : i + 1, i : i + 1]
    return x


MATRIX_TRIANGULAR_SOLVE = Primitive("MatrixTriangularSolve", _triangular_solve)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """x with ``T @ x = rhs``, T the lower (or upper) triangle of ``matrix``, as ``tf.linalg.triangular_solve``.

    The other triangle is ignored. With ``adjoint``, T^T is used. Batch
    dimensions broadcast. Zeros on the diagonal give inf/nan, as in TF.

    Args:
        matrix: square matrices [..., n, n] (one triangle is read).
        rhs: right-hand sides [..., n, k].
        lower: read the lower triangle (else the upper).
        adjoint: solve with the conjugate transpose.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [..., n, k].

    Raises:
        tf.errors.InvalidArgumentError: matrices that are not square, or shapes that do not match.
    """
    a = float_matrices(matrix, "MatrixTriangularSolve")
    b = as_tensor(rhs)
    same_dtype(a, b, op="MatrixTriangularSolve")
    if b.ndim < 2 or b._value.shape[-2] != a._value.shape[-1]:
        raise invalid_argument(
            f"Input matrix and rhs are incompatible: {list(a._value.shape)} vs. {list(b._value.shape)}; "
            "rhs needs shape [..., M, K].",
            "MatrixTriangularSolve",
        )
    try:
        np.broadcast_shapes(a._value.shape[:-2], b._value.shape[:-2])
    except ValueError:
        raise invalid_argument(
            f"Incompatible batch shapes {list(a._value.shape[:-2])} and {list(b._value.shape[:-2])}.",
            "MatrixTriangularSolve",
        ) from None
    return execute(MATRIX_TRIANGULAR_SOLVE, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)})


@defgrad(
    MATRIX_TRIANGULAR_SOLVE,
    "x = T⁻¹B:  dB = T⁻ᵀG,  dA = the triangle of -dB xᵀ",
    local=described("the triangle of -T⁻ᵀG xᵀ", "T⁻ᵀ (a solve with Tᵀ)"),
)
def _matrix_triangular_solve_rule(op, needs, g):
    a, b = op.inputs
    x = op.outputs[0]
    lower, adjoint = op.attrs["lower"], op.attrs["adjoint"]
    grad_b = triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    grad_a = None
    if needs[0]:
        grad_a = -matmul(x, grad_b, transpose_b=True) if adjoint else -matmul(grad_b, x, transpose_b=True)
        grad_a = unbroadcast(band_part(grad_a, -1, 0) if lower else band_part(grad_a, 0, -1), a)
    return grad_a, unbroadcast(grad_b, b) if needs[1] else None


def cholesky_solve(chol, rhs, name=None):
    """x with ``A @ x = rhs``, given A's Cholesky factor ``chol`` (two triangular solves).

    Args:
        chol: the Cholesky factors [..., n, n] (from ``cholesky``).
        rhs: the right-hand sides [..., n, k].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [..., n, k].
    """
    with name_scope("cholesky_solve"):
        y = triangular_solve(chol, rhs, lower=True)
        return triangular_solve(chol, y, lower=True, adjoint=True)
