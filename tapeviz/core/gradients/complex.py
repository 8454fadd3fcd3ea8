"""Gradient rules of the complex primitives, in TF's convention.

For a real loss L of z = x + iy, TF's gradient is dL/dx + i dL/dy: the
upstream times the conjugate of the derivative for holomorphic ops. The
rules of the ordinary primitives conjugate through ``conj_if_complex``.
"""

from tapeviz.core.gradients import defgrad, described
from tapeviz.core.primitives import complex as c
from tapeviz.core.primitives.array import zeros_like
from tapeviz.core.primitives.math import multiply, reciprocal


@defgrad(c.COMPLEX, "d/d re = real(G),  d/d im = imag(G)", local=described("real(G)", "imag(G)"))
def _complex(op, needs, g):
    return (c.real(g) if needs[0] else None, c.imag(g) if needs[1] else None)


@defgrad(c.real, "d real(z)/dz: complex(G, 0)", local=described("complex(G, 0)"))
def _real(op, needs, g):
    return (c.complex(g, zeros_like(g)),)


@defgrad(c.imag, "d imag(z)/dz: complex(0, G)", local=described("complex(0, G)"))
def _imag(op, needs, g):
    return (c.complex(zeros_like(g), g),)


@defgrad(c.conj, "d conj(z): conj(G)", local=described("conj(G)"))
def _conj(op, needs, g):
    return (c.conj(g),)


@defgrad(c.angle, "d angle(z): -G / conj(z) * i ... = G * i / conj(z)", local=described("i / conj(z)"))
def _angle(op, needs, g):
    z = op.inputs[0]
    upstream = c.complex(zeros_like(g), g)  # i * G
    return (multiply(upstream, reciprocal(c.conj(z))),)


def conj_if_complex(t):
    """``conj(t)`` for a complex tensor; a real one unchanged (no op recorded)."""
    return c.conj(t) if t._value.dtype.kind == "c" else t
