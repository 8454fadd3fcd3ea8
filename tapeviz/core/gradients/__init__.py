"""THE table of gradient rules: one per primitive, keyed by the primitive's name.

A rule is called as ``rule(op, needs, *upstream)``: the recorded entry
``op`` (``op.inputs``, ``op.outputs``, ``op.attrs``; never changed once
recorded), ``needs`` (one bool per input: does it want a gradient in this
sweep) and the upstream gradient of each output. It returns one gradient per
input (None where ``needs`` is False or no gradient exists).

Rules are written in tapeviz ops, never raw arrays, so the backward pass is
itself recorded by any outer tape: higher-order derivatives need no special
code. The ``formula`` of each rule is what docs and the visualizer show.
"""

from dataclasses import dataclass
from typing import Callable

from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.primitives.array import reshape
from tapeviz.core.primitives.math import reduce_sum

RULES = {}


@dataclass(frozen=True)
class Rule:
    primitive: str
    fn: Callable
    formula: str


def defgrad(primitive_name, formula):
    """Register the gradient rule of ``primitive_name`` (decorator)."""

    def register(fn):
        if primitive_name in RULES:
            raise ValueError(f"Gradient rule for {primitive_name!r} is defined twice.")
        primitive = PRIMITIVES.get(primitive_name)
        if primitive is None:
            raise ValueError(f"Define the primitive {primitive_name!r} before registering its gradient rule.")
        RULES[primitive_name] = Rule(primitive_name, fn, formula)
        if primitive.differentiable:
            primitive.rule = fn  # the sweep's shortcut into this table
        return fn

    return register


def unbroadcast(grad, like):
    """Sum ``grad`` back to the shape of ``like`` (undoing broadcasting)."""
    shape = like._value.shape
    if grad._value.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    axes = list(range(extra)) + [extra + i for i, n in enumerate(shape) if n == 1 and grad._value.shape[extra + i] != 1]
    if not axes:
        return reshape(grad, shape)
    summed = reduce_sum(grad, axis=axes)
    # Summing away leading axes (a bias) already gives the shape: no Reshape op.
    return summed if summed._value.shape == shape else reshape(summed, shape)


def formula(primitive_name):
    """The human-readable rule for a primitive, or a note that it has none."""
    rule = RULES.get(primitive_name)
    return rule.formula if rule else "no gradient"


from tapeviz.core.gradients import array, conv, image, linalg, math, nn, scatter, sorting  # noqa: E402,F401  (fill the table)
