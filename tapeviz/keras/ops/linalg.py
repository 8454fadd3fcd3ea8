"""``keras.ops.linalg``: factorizations, solvers, norms and inverses, as Keras 3 defines them.

Each is a tapeviz linalg primitive (with its gradient rule) or a composite of them.
"""

import numpy as np

from tapeviz import linalg as _tl
from tapeviz import math as _tm
from tapeviz.core.primitives import array as _pa
from tapeviz.core.tensor import constant as _constant
from tapeviz.keras.ops._common import floating, keras_op, promoted


@keras_op("cholesky")
def cholesky(x, upper=False):
    """The lower (or, with ``upper=True``, upper) Cholesky factor of a symmetric positive definite matrix."""
    factor = _tl.cholesky(floating(x))
    if np.isnan(factor.numpy()).any():  # TF's kernel returns NaNs here; Keras checks and raises
        raise ValueError(
            "Cholesky decomposition failed: Cholesky : Tensor had NaN values. "
            "The input is not a symmetric positive definite matrix (or holds NaNs)."
        )
    return _tl.matrix_transpose(factor) if upper else factor


@keras_op("cholesky_inverse")
def cholesky_inverse(x, upper=False):
    """The inverse of A from its Cholesky factor ``x`` (A = L L^T, or U^T U with ``upper=True``)."""
    factor = floating(x)
    lower = _tl.matrix_transpose(factor) if upper else factor
    return _tl.cholesky_solve(lower, _eye_like(lower))


def _eye_like(x):
    n = x.shape[-1]
    eye = _constant(np.eye(n, dtype=x.dtype.as_numpy_dtype))
    return _pa.broadcast_to(eye, list(x.shape[:-2]) + [n, n])


@keras_op("det")
def det(x):
    """The determinant of each square matrix."""
    return _tl.det(floating(x))


@keras_op("inv")
def inv(x):
    """The inverse of each square matrix."""
    return _tl.inv(floating(x))


@keras_op("eigh")
def eigh(x):
    """(eigenvalues ascending, eigenvectors) of a symmetric matrix."""
    return _tl.eigh(floating(x))


@keras_op("solve")
def solve(a, b):
    """x with a @ x = b."""
    a, b = promoted(floating(a), floating(b))
    if len(b.shape) == len(a.shape) - 1:
        return _tl.solve(a, _pa.expand_dims(b, -1))[..., 0]
    return _tl.solve(a, b)


@keras_op("solve_triangular")
def solve_triangular(a, b, lower=False):
    """x with a @ x = b for triangular ``a`` (upper unless ``lower=True``)."""
    a, b = promoted(floating(a), floating(b))
    if len(b.shape) == len(a.shape) - 1:
        return _tl.triangular_solve(a, _pa.expand_dims(b, -1), lower=lower)[..., 0]
    return _tl.triangular_solve(a, b, lower=lower)


@keras_op("qr")
def qr(x, mode="reduced"):
    """(q, r) with x = q @ r; ``mode`` "reduced" or "complete"."""
    if mode not in ("reduced", "complete"):
        raise ValueError(
            f"`mode` argument value not supported. Expected one of {{'reduced', 'complete'}}. Received: mode={mode}"
        )
    return _tl.qr(floating(x), full_matrices=mode == "complete")


@keras_op("svd")
def svd(x, full_matrices=True, compute_uv=True):
    """(u, s, v^T) with x = u @ diag(s) @ v^T, as NumPy orders them; only s when ``compute_uv=False``."""
    x = floating(x)
    if not compute_uv:
        return _tl.svd(x, compute_uv=False)
    s, u, v = _tl.svd(x, full_matrices=full_matrices)
    return u, s, _tl.matrix_transpose(v)


@keras_op("pinv")
def pinv(x, rcond=1e-15):
    """The Moore-Penrose pseudo-inverse, from the SVD (singular values below rcond * max dropped)."""
    x = floating(x)
    s, u, v = _tl.svd(x, full_matrices=False)
    cutoff = rcond * _tm.reduce_max(s, axis=-1, keepdims=True)
    keep = _tm.greater(s, cutoff)
    s_inv = _tm.where(keep, 1.0 / _tm.where(keep, s, _pa.ones_like(s)), _pa.zeros_like(s))
    return _tl.matmul(v * _pa.expand_dims(s_inv, -2), u, transpose_b=True)


@keras_op("lstsq")
def lstsq(a, b, rcond=None):
    """The least-squares solution x of a @ x = b (via the pseudo-inverse)."""
    a, b = promoted(floating(a), floating(b))
    cutoff = np.finfo(a.dtype.as_numpy_dtype).eps * max(a.shape[-2:]) if rcond is None else rcond
    solution = _tl.matmul(pinv(a, rcond=cutoff), _pa.expand_dims(b, -1) if len(b.shape) == 1 else b)
    return solution[..., 0] if len(b.shape) == 1 else solution


@keras_op("matrix_rank")
def matrix_rank(x, tol=None):
    """The number of singular values above ``tol`` (default max(s) * max(m, n) * eps), as int32."""
    x = floating(x)
    s = _tl.svd(x, compute_uv=False)
    if tol is None:
        tol = _tm.reduce_max(s, axis=-1, keepdims=True) * (max(x.shape[-2:]) * np.finfo(x.dtype.as_numpy_dtype).eps)
    return _tm.reduce_sum(_tm.cast(_tm.greater(s, tol), "int32"), axis=-1)


@keras_op("norm")
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - Keras's name
    """A vector or matrix norm, as ``numpy.linalg.norm`` (Frobenius/2-norm by default)."""
    x = floating(x)
    ndim = len(x.shape)
    if axis is None:
        axis = tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % ndim for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if ord is None or ord == "fro":
        return _tm.sqrt(_tm.reduce_sum(_tm.square(x), axis=list(axes), keepdims=keepdims))
    row, col = axes
    if ord in (1, -1):
        sums = _tm.reduce_sum(_tm.abs(x), axis=row, keepdims=True)
        pick = _tm.reduce_max if ord == 1 else _tm.reduce_min
        out = pick(sums, axis=col, keepdims=True)
    elif ord in (np.inf, -np.inf):
        sums = _tm.reduce_sum(_tm.abs(x), axis=col, keepdims=True)
        pick = _tm.reduce_max if ord == np.inf else _tm.reduce_min
        out = pick(sums, axis=row, keepdims=True)
    elif ord in (2, -2, "nuc"):
        moved = _pa.transpose(x, [a for a in range(ndim) if a not in axes] + [row, col])
        s = _tl.svd(moved, compute_uv=False)
        out = (
            _tm.reduce_sum(s, axis=-1) if ord == "nuc" else (_tm.reduce_max if ord == 2 else _tm.reduce_min)(s, axis=-1)
        )
        if keepdims:
            shape = [1 if a in axes else n for a, n in enumerate(x.shape)]
            out = _pa.reshape(out, shape)
        return out
    else:
        raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")
    if not keepdims:
        out = _pa.squeeze(out, axis=list(axes))
    return out


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return _tm.sqrt(_tm.reduce_sum(_tm.square(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _tm.reduce_max(_tm.abs(x), axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _tm.reduce_min(_tm.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return _tm.reduce_sum(_tm.cast(_tm.not_equal(x, 0), x.dtype), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
    return _tm.reduce_sum(_tm.abs(x) ** float(ord), axis=axis, keepdims=keepdims) ** (1.0 / ord)


@keras_op("slogdet")
def slogdet(x):
    """(sign, log|det|) of each square matrix."""
    return _tl.slogdet(floating(x))


__all__ = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eigh",
    "inv",
    "lstsq",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
]
