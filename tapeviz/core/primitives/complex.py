"""Complex numbers: building them from parts and taking them apart (``tf.complex``, ``tf.math.real`` ...).

The arithmetic itself (add, multiply, matmul, exp, reductions) is the
ordinary primitives on complex64/complex128 tensors; their gradient rules
follow TF's convention for complex inputs (the upstream times the conjugate
of the derivative), through ``conj_if_complex`` below.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core import families
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import NAME_ARG, unary, with_fields
from tapeviz.core.primitives.array.constants import zeros_like
from tapeviz.core.rules import defgrad, described

__all__ = ["complex", "real", "imag", "conj", "angle"]

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _complex_kernel(re, im):
    target = _COMPLEX_OF[re.dtype]
    return (re + 1j * im).astype(target, copy=False)


COMPLEX = Primitive("Complex", _complex_kernel)


def complex(real, imag, name=None):  # noqa: A001  (TF's name)
    """``real + i * imag`` elementwise: float32 parts give complex64, float64 parts complex128.

    Args:
        real: the real parts, a float32 or float64 tensor.
        imag: the imaginary parts, of ``real``'s dtype and a shape that broadcasts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A complex64 or complex128 Tensor.

    Raises:
        tf.errors.InvalidArgumentError: parts of different dtypes, or not float32/float64.
    """
    real, imag = as_tensor(real), as_tensor(imag)
    if real.dtype != imag.dtype or real._value.dtype not in _COMPLEX_OF:
        raise InvalidArgumentError(
            f"tf.complex needs two float32 or two float64 tensors, got {real.dtype.name} and {imag.dtype.name}: "
            "cast them first. [Op:Complex]",
            "Complex",
        )
    return execute(COMPLEX, (real, imag))


def conj_if_complex(t):
    """``conj(t)`` for a complex tensor; a real one unchanged (no op recorded)."""
    return conj(t) if t._value.dtype.kind == "c" else t


@defgrad(COMPLEX, "d/d re = real(G),  d/d im = imag(G)", local=described("real(G)", "imag(G)"))
def _complex_rule(op, needs, g):
    return (real(g) if needs[0] else None, imag(g) if needs[1] else None)


def _part(name, prim_name, take, doc):
    op = unary(name, prim_name, take, doc)
    plain = op

    def part(input, name=None):  # noqa: A002  (TF's argument name)
        x = as_tensor(input)
        if x._value.dtype.kind != "c":
            return _of_real(prim_name, x)
        return plain(x)

    part.__name__ = part.__qualname__ = name
    part.__doc__ = with_fields(
        doc,
        args=["input: a Tensor, or anything ``tf.constant`` converts (real or complex).", NAME_ARG],
        returns="A Tensor of ``input``'s shape (real, except for ``conj`` of a complex input).",
    )
    part.primitive = op.primitive
    return part


def _of_real(prim_name, x):
    """TF on a real tensor: real and conj return it, imag gives zeros, angle 0 or pi."""
    if prim_name in ("Real", "Conj"):
        return x
    if prim_name == "Imag":
        return zeros_like(x)
    return execute(ANGLE_OF_REAL, (x,))


real = _part("real", "Real", lambda x: B.xp.real(x).copy(), "The real part (a real tensor is returned as it is).")


@defgrad(real, "d real(z)/dz: complex(G, 0)", local=described("complex(G, 0)"))
def _real_rule(op, needs, g):
    return (complex(g, zeros_like(g)),)


imag = _part("imag", "Imag", lambda x: B.xp.imag(x).copy(), "The imaginary part (zeros for a real tensor).")


@defgrad(imag, "d imag(z)/dz: complex(0, G)", local=described("complex(0, G)"))
def _imag_rule(op, needs, g):
    return (complex(zeros_like(g), g),)


conj = _part("conj", "Conj", B.xp.conj, "The complex conjugate (a real tensor is returned as it is).")


@defgrad(conj, "d conj(z): conj(G)", local=described("conj(G)"))
def _conj_rule(op, needs, g):
    return (conj(g),)


angle = _part("angle", "Angle", B.xp.angle, "The argument atan2(imag, real), in (-pi, pi].")


@defgrad(angle, "d angle(z): -G / conj(z) * i ... = G * i / conj(z)", local=described("i / conj(z)"))
def _angle_rule(op, needs, g):
    z = op.inputs[0]
    upstream = complex(zeros_like(g), g)  # i * G
    return (m.multiply(upstream, m.reciprocal(conj(z))),)


ANGLE_OF_REAL = Primitive("AngleOfReal", lambda x: B.xp.where(x < 0, np.pi, 0.0).astype(x.dtype), differentiable=False)


families.publish(families.complex_numbers, globals())  # how array's transpose(conjugate=True) reaches conj
