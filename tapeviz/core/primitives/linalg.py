"""Matrix ops; each kernel with its gradient rule.

Primitives: MatMul, Einsum, MatrixInverse, MatrixDeterminant, MatrixDiagPart
and MatrixDiag. ``tensordot``, ``trace``, ``matvec`` and ``matrix_transpose``
are compositions of primitives, as in TensorFlow, each inside a name scope.
The checks every matrix op shares (``float_matrices``, used by decompositions
and solvers too) live here.
"""

import string

import numpy as np

from tapeviz import backend as B
from tapeviz.core import tensor as _tensor
from tapeviz.core.errors import InvalidArgumentError, UnimplementedError
from tapeviz.core.ops import as_tensor, as_tensors, execute, same_dtype
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array.arguments import invalid_argument
from tapeviz.core.primitives.array.constants import eye
from tapeviz.core.primitives.array.shapes import broadcast_to, expand_dims, reshape, squeeze, transpose
from tapeviz.core.primitives.complex import conj
from tapeviz.core.primitives.math.reductions import reduce_sum, unbroadcast
from tapeviz.core.rules import defgrad, described
from tapeviz.core.scopes import name_scope


def _invalid(message, op):
    return InvalidArgumentError(f"{message} [Op:{op}]", op)


def float_matrices(x, op, square=True):
    """``x`` as a float tensor of rank >= 2 (square in its last two axes when asked)."""
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise invalid_argument(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: half, float, double. "
            f"{op} takes float matrices: cast first, e.g. tf.cast(x, tf.float32).",
            op,
        )
    if x.ndim < 2:
        raise invalid_argument(
            f"Input tensor 0 must have rank >= 2, got shape {list(x._value.shape)} (the last two axes are the matrix).",
            op,
        )
    if square and x._value.shape[-1] != x._value.shape[-2]:
        raise invalid_argument(f"Input matrix must be square, got shape {list(x._value.shape)}.", op)
    return x


def _matmul(a, b, transpose_a, transpose_b):
    xp = B.xp
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(
            f"matmul needs tensors of rank >= 2, got ranks {a.ndim} and {b.ndim}; use tf.tensordot or reshape."
        )
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"Matrix size-incompatible: In[0]: [{','.join(map(str, a.shape))}], In[1]: [{','.join(map(str, b.shape))}]. "
            "The inner sizes "
            f"must match ({a.shape[-1]} vs {b.shape[-2]}): transpose one side (transpose_b=True) or reshape it."
        )
    if a.dtype == xp.float16:
        # NumPy has no BLAS for float16 (a 2048x784 @ 784x64 product: 414 ms, 35x the float32 route): multiply in
        # float32 and round each result once (the weights after training match Keras to 1e-4 either way)
        return B.matmul(a.astype(xp.float32), b.astype(xp.float32)).astype(xp.float16)
    if a.shape[-1] == 1 and a.ndim == 2 and b.ndim == 2:
        # An outer product (a weight gradient over a batch of one): NumPy's
        # matmul leaves BLAS there and is six times slower than dot.
        return B.dot(a, b)
    return B.matmul(a, b)


MATMUL = Primitive("MatMul", _matmul)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, name=None):
    """Matrix product of the last two axes (batched over leading axes, broadcasting).

    Args:
        a: a tensor of rank >= 2.
        b: a tensor of ``a``'s dtype and rank >= 2, whose second-to-last axis
            matches ``a``'s last.
        transpose_a: transpose the last two axes of ``a`` first.
        transpose_b: transpose the last two axes of ``b`` first.
        adjoint_a: conjugate-transpose ``a`` first (a transpose for real tensors).
        adjoint_b: conjugate-transpose ``b`` first.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of shape ``[..., a's rows, b's columns]``.

    Example:
        >>> import tapeviz as tf
        >>> a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> print(tf.matmul(a, [[1.0], [1.0]]))
        tf.Tensor(
        [[3.]
         [7.]], shape=(2, 1), dtype=float32)
        >>> print(a @ tf.transpose(a))
        tf.Tensor(
        [[ 5. 11.]
         [11. 25.]], shape=(2, 2), dtype=float32)
    """
    a, b = as_tensors(a, b, "MatMul")
    if adjoint_a and a._value.dtype.kind == "c":  # the adjoint is the conjugate transpose
        a = conj(a)
    if adjoint_b and b._value.dtype.kind == "c":
        b = conj(b)
    return execute(
        MATMUL, (a, b), {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b)}
    )


@defgrad(
    MATMUL,
    "d(A@B)/dA = G @ Bᵀ,  d(A@B)/dB = Aᵀ @ G",
    local=described("B (the upstream times Bᵀ)", "A (Aᵀ times the upstream)"),
)
def _matmul_rule(op, needs, g):
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


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two axes (a batch of matrices transposed).

    Args:
        a: a tensor of rank >= 2.
        name: TensorFlow's op name; accepted for compatibility, unused.
        conjugate: also conjugate (for complex matrices).

    Returns:
        A Tensor with the last two axes swapped.

    Raises:
        ValueError: a tensor of rank below 2.
    """
    x = as_tensor(a)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs a tensor of rank >= 2, got rank {x.ndim}.")
    perm = list(np.arange(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm, conjugate=conjugate)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix-vector product ``a @ b`` over the last axes: [..., m, n] x [..., n] -> [..., m].

    Args:
        a: matrices [..., m, n].
        b: vectors [..., n].
        transpose_a: transpose ``a`` first.
        adjoint_a: conjugate-transpose ``a`` first.
        a_is_sparse: accepted for TensorFlow compatibility.
        b_is_sparse: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [..., m].

    Raises:
        ValueError: a scalar ``b``.
    """
    a, b = as_tensors(a, b)
    if b.ndim < 1:
        raise ValueError("matvec needs a vector b of rank >= 1.")
    with name_scope("MatVec"):
        return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a), axis=-1)


# -- tensordot: transpose, reshape to matrices, one MatMul (as TF does) -------------------------


def _tensordot_axes(axes, rank_a, rank_b):
    if hasattr(axes, "_value"):
        axes = np.asarray(B.to_numpy(axes._value)).tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if not 0 <= n <= min(rank_a, rank_b):
            raise ValueError(
                f"tensordot: axes={n} must be in [0, {min(rank_a, rank_b)}] for ranks {rank_a} and {rank_b}."
            )
        return list(range(rank_a - n, rank_a)), list(range(n))
    if len(axes) != 2:
        raise ValueError(f"tensordot: axes must be an int or a pair [axes_of_a, axes_of_b], got {axes!r}.")
    a_axes, b_axes = ([int(v)] if np.ndim(v) == 0 else [int(i) for i in v] for v in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: {a_axes} and {b_axes} must name as many axes of a as of b.")
    for axes_, rank in ((a_axes, rank_a), (b_axes, rank_b)):
        if any(not -rank <= i < rank for i in axes_):
            raise ValueError(f"tensordot: axis in {axes_} is out of range for a tensor of rank {rank}.")
    return [i % rank_a for i in a_axes], [i % rank_b for i in b_axes]


def tensordot(a, b, axes, name=None):
    """Sum of products over ``axes``: an int n (the last n of a with the first n of b)
    or a pair of axis lists. The result has a's free axes then b's.

    Args:
        a: a Tensor, or anything ``tf.constant`` converts.
        b: another.
        axes: an int n, or a pair of axis lists to contract.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``a``'s free axes then ``b``'s.

    Raises:
        ValueError: contracted axes whose sizes differ, or an ``axes`` it does not take.
    """
    a, b = as_tensors(a, b)
    a_axes, b_axes = _tensordot_axes(axes, a.ndim, b.ndim)
    sa, sb = a._value.shape, b._value.shape
    for i, j in zip(a_axes, b_axes):
        if sa[i] != sb[j]:
            raise ValueError(
                f"tensordot: dimension {i} of a (size {sa[i]}) does not match dimension {j} of b "
                f"(size {sb[j]}); shapes {list(sa)} and {list(sb)}."
            )
    free_a = [i for i in range(a.ndim) if i not in a_axes]
    free_b = [j for j in range(b.ndim) if j not in b_axes]
    inner = int(np.prod([sa[i] for i in a_axes], dtype=np.int64))
    with name_scope("Tensordot"):
        left = _permuted(a, free_a + a_axes)
        right = _permuted(b, b_axes + free_b)
        left = reshape(left, (int(np.prod([sa[i] for i in free_a], dtype=np.int64)), inner))
        right = reshape(right, (inner, int(np.prod([sb[j] for j in free_b], dtype=np.int64))))
        return reshape(matmul(left, right), [sa[i] for i in free_a] + [sb[j] for j in free_b])


def _permuted(x, perm):
    return x if perm == list(range(x.ndim)) else transpose(x, perm)


# -- einsum ---------------------------------------------------------------------------------------

EINSUM = Primitive("Einsum", lambda *xs, equation: B.xp.einsum(equation, *xs))


def _einsum_labels(equation, ranks):
    """Parse ``equation`` into explicit per-operand label strings and the output's.

    "..." becomes fresh letters (right-aligned, as broadcasting aligns), and
    an equation without "->" gets NumPy's and TF's implicit output: the
    ellipsis axes, then the labels used once, in alphabetical order.
    """
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(f"einsum: the equation {equation!r} names {len(terms)} operands but {len(ranks)} were given.")
    used = set(equation) - set(".,->")
    bad = sorted(c for c in used if c not in string.ascii_letters)
    if bad:
        raise ValueError(f"einsum: subscripts must be letters, got {bad} in {equation!r}.")
    spare = [c for c in string.ascii_letters if c not in used]
    ell_rank = max([rank - len(t.replace("...", "")) for t, rank in zip(terms, ranks) if "..." in t] or [0])
    ell = "".join(spare[:ell_rank])
    inputs = []
    for term, rank in zip(terms, ranks):
        if "..." in term:
            n = rank - len(term.replace("...", ""))
            term = term.replace("...", ell[ell_rank - n :] if n else "")
        if len(term) != rank:
            raise ValueError(
                f"einsum: operand subscripts {term!r} name {len(term)} axes, but the operand has rank {rank}."
            )
        inputs.append(term)
    if arrow:
        output = rhs.replace("...", ell)
    else:
        counts = {c: "".join(inputs).count(c) for c in set("".join(inputs))}
        output = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    missing = sorted(set(output) - set("".join(inputs)))
    if missing or len(set(output)) != len(output):
        raise ValueError(
            f"einsum: output subscripts {output!r} must be distinct and appear in the inputs of {equation!r}."
        )
    return inputs, output


def einsum(equation, *inputs, **kwargs):
    """Einstein summation, as ``tf.einsum``: e.g. "ij,jk->ik", "bij,bjk->bik", "...ij->...ji".

    Gradients are einsums with the subscripts permuted. Not differentiable
    (UnimplementedError when a gradient is asked for): an operand that
    repeats a subscript, such as "ii->i" (use tf.linalg.diag_part / trace).

    Args:
        equation: the subscripts, e.g. ``"ij,jk->ik"``.
        *inputs: the operands, one per term of the equation.
        **kwargs: ``name`` (accepted, unused).

    Returns:
        A Tensor.

    Raises:
        ValueError: no operand, or subscripts that do not fit the operands' ranks.
        tf.errors.InvalidArgumentError: one subscript over axes of different sizes.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.einsum("i,i->", [1.0, 2.0], [3.0, 4.0]))
        tf.Tensor(11.0, shape=(), dtype=float32)
    """
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    tensors = [as_tensor(x) for x in inputs]
    if not tensors:
        raise ValueError("einsum needs at least one operand.")
    same_dtype(*tensors, op="Einsum")
    terms, output = _einsum_labels(equation, [t.ndim for t in tensors])
    sizes = {}
    for term, t in zip(terms, tensors):
        for label, n in zip(term, t._value.shape):
            if sizes.get(label, 1) not in (1, n) and n != 1:
                raise _invalid(
                    f"Expected dimension {sizes[label]} at axis of subscript {label!r} of an input, "
                    f"but got dimension {n} (equation {equation!r}).",
                    "Einsum",
                )
            sizes[label] = max(sizes.get(label, 1), n)
    explicit = ",".join(terms) + "->" + output
    return execute(EINSUM, tuple(tensors), {"equation": explicit})


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


@defgrad(
    EINSUM,
    "d/d(operand i) = einsum of the upstream with the other operands, onto i's subscripts",
    local=described(every="the other operands (contracted with the upstream)"),
)
def _einsum_rule(op, needs, g):
    equation = op.attrs["equation"]
    lhs, output = equation.split("->")
    terms = lhs.split(",")
    return tuple(_einsum_operand_grad(op, g, terms, output, i) if need else None for i, need in enumerate(needs))


# -- inverse, determinant, diagonals ---------------------------------------------------------


def _inverse(a):
    try:
        return B.xp.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise ValueError("Input is not invertible.") from None


MATRIX_INVERSE = Primitive("MatrixInverse", _inverse)
MATRIX_DETERMINANT = Primitive("MatrixDeterminant", lambda a: B.xp.linalg.det(a))
MATRIX_DIAG_PART = Primitive("MatrixDiagPart", lambda x: B.xp.diagonal(x, axis1=-2, axis2=-1).copy())


def _diag(d, num_rows, num_cols):
    xp = B.xp
    out = xp.zeros(d.shape[:-1] + (num_rows, num_cols), dtype=d.dtype)
    i = xp.arange(d.shape[-1])
    out[..., i, i] = d  # a fresh array: the kernel owns it
    return out


MATRIX_DIAG = Primitive("MatrixDiag", _diag)


def _square(x, op):
    if x.ndim < 2 or x._value.shape[-1] != x._value.shape[-2]:
        raise _invalid(
            f"Input matrix must be square, got shape {list(x._value.shape)} (the last two axes are the matrix).", op
        )


def inv(input, adjoint=False, name=None):
    """The inverse of each square matrix in the last two axes. Singular input: InvalidArgumentError.

    Args:
        input: square matrices [..., n, n].
        adjoint: invert the conjugate transpose instead.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``input``'s shape.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.linalg.inv([[2.0, 0.0], [0.0, 4.0]]))
        tf.Tensor(
        [[0.5  0.  ]
         [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    x = as_tensor(input)
    _square(x, "MatrixInverse")
    if adjoint:
        x = matrix_transpose(x, conjugate=True)
    return execute(MATRIX_INVERSE, (x,))


@defgrad(MATRIX_INVERSE, "d inv(A) = -inv(A)ᵀ G inv(A)ᵀ", local=described("-inv(A)ᵀ · inv(A)ᵀ around the upstream"))
def _matrix_inverse_rule(op, needs, g):
    c = op.outputs[0]  # adjoints: conjugate transposes for complex matrices, as TF's rule
    return (-matmul(c, matmul(g, c, adjoint_b=True), adjoint_a=True),)


def det(input, name=None):
    """The determinant of each square matrix in the last two axes.

    Args:
        input: square matrices [..., n, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [...] of determinants.
    """
    x = as_tensor(input)
    _square(x, "MatrixDeterminant")
    return execute(MATRIX_DETERMINANT, (x,))


@defgrad(MATRIX_DETERMINANT, "d det(A)/dA = G · det(A) · inv(A)ᵀ", local=described("det(A) · inv(A)ᵀ"))
def _matrix_determinant_rule(op, needs, g):
    a, d = op.inputs[0], op.outputs[0]
    scale = expand_dims(expand_dims(g * d, -1), -1)
    return (scale * inv(a, adjoint=True),)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    """The main diagonal of each matrix in the last two axes: [..., m, n] -> [..., min(m, n)].

    Only ``k=0`` (the main diagonal) is supported.

    Args:
        input: matrices [..., m, n].
        name: TensorFlow's op name; accepted for compatibility, unused.
        k: only 0.
        padding_value: only 0.
        align: accepted for TensorFlow compatibility.

    Returns:
        A Tensor [..., min(m, n)].

    Raises:
        tf.errors.InvalidArgumentError: an input of rank below 2.
    """
    x = as_tensor(input)
    if k != 0:
        raise NotImplementedError(
            "tapeviz's diag_part takes only the main diagonal (k=0); slice the matrix for others."
        )
    if x.ndim < 2:
        raise _invalid(f"diag_part needs a tensor of rank >= 2, got rank {x.ndim}.", "MatrixDiagPart")
    return execute(MATRIX_DIAG_PART, (x,))


@defgrad(
    MATRIX_DIAG_PART,
    "put the upstream on the diagonal of zero matrices",
    local=described("1 on the diagonal, 0 elsewhere"),
)
def _matrix_diag_part_rule(op, needs, g):
    rows, cols = op.inputs[0]._value.shape[-2:]
    return (diag(g, num_rows=rows, num_cols=cols),)


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with ``diagonal`` [..., n] on the main diagonal: [..., num_rows, num_cols].

    ``num_rows``/``num_cols`` default to n; their minimum must be n. Only
    ``k=0`` and ``padding_value=0`` are supported.

    Args:
        diagonal: a tensor [..., n].
        name: TensorFlow's op name; accepted for compatibility, unused.
        k: only 0.
        num_rows: the matrix's rows (-1: n).
        num_cols: its columns (-1: n).
        padding_value: only 0.
        align: accepted for TensorFlow compatibility.

    Returns:
        A Tensor [..., num_rows, num_cols].

    Raises:
        tf.errors.InvalidArgumentError: a scalar ``diagonal``, or a size smaller than it.
    """
    d = as_tensor(diagonal)
    if k != 0 or padding_value != 0:
        raise NotImplementedError("tapeviz's diag supports only k=0 and padding_value=0.")
    if d.ndim < 1:
        raise _invalid("diag needs a diagonal of rank >= 1.", "MatrixDiag")
    n = d._value.shape[-1]
    rows = n if num_rows == -1 else int(num_rows)
    cols = n if num_cols == -1 else int(num_cols)
    if min(rows, cols) != n:
        raise _invalid(
            f"The diagonal of length {n} does not fit a {rows}x{cols} matrix: min(num_rows, num_cols) must be {n}.",
            "MatrixDiag",
        )
    return execute(MATRIX_DIAG, (d,), {"num_rows": rows, "num_cols": cols})


@defgrad(MATRIX_DIAG, "the diagonal of the upstream", local=described("1 on the diagonal"))
def _matrix_diag_rule(op, needs, g):
    return (diag_part(g),)


def trace(x, name=None):
    """The sum of each matrix's main diagonal: [..., m, n] -> [...].

    Args:
        x: matrices [..., m, n].
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [...].
    """

    with name_scope("Trace"):
        return reduce_sum(diag_part(x), axis=-1)


__all__ = [
    "matmul",
    "matvec",
    "matrix_transpose",
    "tensordot",
    "einsum",
    "inv",
    "det",
    "diag_part",
    "diag",
    "trace",
    "eye",
]


_tensor.bind_ops(matmul=matmul)  # `@`
