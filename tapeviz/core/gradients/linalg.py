"""Gradient rules of the matrix primitives."""

from tapeviz.core.gradients import defgrad, described, unbroadcast
from tapeviz.core.errors import UnimplementedError
from tapeviz.core.primitives.math import reduce_sum
from tapeviz.core.primitives.array import broadcast_to, expand_dims, reshape
from tapeviz.core.primitives.linalg import diag, diag_part, einsum, inv, matmul


@defgrad("MatMul", "d(A@B)/dA = G @ Bᵀ,  d(A@B)/dB = Aᵀ @ G",
         local=described("B (the upstream times Bᵀ)", "A (Aᵀ times the upstream)"))
def _matmul(op, needs, g):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    ga = gb = None
    if needs[0]:
        ga = matmul(b, g, transpose_a=tb, transpose_b=True) if ta else matmul(g, b, transpose_b=not tb)
        ga = unbroadcast(ga, a)
    if needs[1]:
        gb = matmul(g, a, transpose_a=True, transpose_b=ta) if tb else matmul(a, g, transpose_a=not ta)
        gb = unbroadcast(gb, b)
    return ga, gb


@defgrad("Einsum", "d/d(operand i) = einsum of the upstream with the other operands, onto i's subscripts",
         local=described(every="the other operands (contracted with the upstream)"))
def _einsum(op, needs, g):
    equation = op.attrs["equation"]
    lhs, output = equation.split("->")
    terms = lhs.split(",")
    return tuple(_einsum_operand_grad(op, g, terms, output, i) if need else None
                 for i, need in enumerate(needs))


def _einsum_operand_grad(op, g, terms, output, i):

    x = op.inputs[i]
    term = terms[i]
    if len(set(term)) != len(term):
        raise UnimplementedError(
            f"The gradient of einsum {op.attrs['equation']!r} with respect to operand {i} "
            f"({term!r}) repeats a subscript (a diagonal), which tapeviz does not differentiate. "
            "Take diagonals with tf.linalg.diag_part or tf.linalg.trace instead.", "Einsum")
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


@defgrad("MatrixInverse", "d inv(A) = -inv(A)ᵀ G inv(A)ᵀ",
         local=described("-inv(A)ᵀ · inv(A)ᵀ around the upstream"))
def _matrix_inverse(op, needs, g):
    c = op.outputs[0]
    return (-matmul(c, matmul(g, c, transpose_b=True), transpose_a=True),)


@defgrad("MatrixDeterminant", "d det(A)/dA = G · det(A) · inv(A)ᵀ",
         local=described("det(A) · inv(A)ᵀ"))
def _matrix_determinant(op, needs, g):
    a, d = op.inputs[0], op.outputs[0]
    scale = expand_dims(expand_dims(g * d, -1), -1)
    return (scale * inv(a, adjoint=True),)


@defgrad("MatrixDiagPart", "put the upstream on the diagonal of zero matrices",
         local=described("1 on the diagonal, 0 elsewhere"))
def _matrix_diag_part(op, needs, g):
    rows, cols = op.inputs[0]._value.shape[-2:]
    return (diag(g, num_rows=rows, num_cols=cols),)


@defgrad("MatrixDiag", "the diagonal of the upstream",
         local=described("1 on the diagonal"))
def _matrix_diag(op, needs, g):
    return (diag_part(g),)
