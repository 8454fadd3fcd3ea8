"""THE table of gradient rules: one per primitive, keyed by the primitive's name.

A rule is called as ``rule(op, needs, *upstream)``: the recorded entry
``op`` (``op.inputs``, ``op.outputs``, ``op.attrs``; never changed once
recorded), ``needs`` (one bool per input: does it want a gradient in this
sweep) and the upstream gradient of each output. It returns one gradient per
input (None where ``needs`` is False or no gradient exists).

Rules are written in tapeviz ops, never raw arrays, so the backward pass is
itself recorded by any outer tape: higher-order derivatives need no special
code. The ``formula`` of each rule is what docs and the visualizer show.

``local`` describes each input's *local derivative* for the visualizer's
chain-rule card (upstream x local = product): ``local(inputs, outputs, attrs)``
gets the recorded values as NumPy arrays and returns, per input, ``(text,
value)``: ``value`` is the elementwise local derivative evaluated there
(broadcast to the output's shape), or None when the derivative is not
elementwise (a reshape, a matmul), where the card shows ``text`` and the
product the rule computed; an input that never gets a gradient (integer
indices) is None. It is display only: the sweep never calls it.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.primitives.array import reshape
from tapeviz.core.primitives.math import reduce_sum

RULES = {}


@dataclass(frozen=True)
class Rule:
    primitive: str
    fn: Callable
    formula: str
    local: Callable | None = None


def defgrad(primitive_name, formula, local=None):
    """Register the gradient rule of ``primitive_name`` (decorator); ``local``: see the module docstring."""

    def register(fn):
        if primitive_name in RULES:
            raise ValueError(f"Gradient rule for {primitive_name!r} is defined twice.")
        primitive = PRIMITIVES.get(primitive_name)
        if primitive is None:
            raise ValueError(f"Define the primitive {primitive_name!r} before registering its gradient rule.")
        RULES[primitive_name] = Rule(primitive_name, fn, formula, local)
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


def described(*texts, every=None):
    """A ``local`` for rules that are not elementwise: the card shows ``texts[i]`` for input i
    (None: that input never gets a gradient); ``every``: one text for any number of inputs."""

    def local(inputs, outputs, attrs):
        if every is not None:
            return tuple((every, None) for _ in inputs)
        padded = (list(texts) + [None] * len(inputs))[: len(inputs)]
        return tuple(None if text is None else (text, None) for text in padded)

    return local


def elementwise(*parts, symbols=("x", "y")):
    """A ``local`` for elementwise rules: ``parts[i] = (text, fn)`` for input i, where
    ``fn(*inputs, *outputs)`` evaluates its local derivative; ``text`` may be a function of
    the same arrays (to show a constant exponent: ``2*x``). None: no gradient for that input.
    ``symbols``: the names the texts give the inputs, in order, so a picture can put the
    tensors' own names in their place (``y`` in ``d(x*y)/dx = y`` is the second input)."""

    def local(inputs, outputs, attrs):
        shape = np.shape(outputs[0])
        arrays = (*inputs, *outputs)
        result = []
        for part in parts:
            if part is None:
                result.append(None)
                continue
            text, fn = part
            text = text(*arrays) if callable(text) else text
            value = np.asarray(fn(*arrays), dtype=np.float64)
            result.append((text, np.broadcast_to(value, shape)))
        return tuple(result)

    local.symbols = symbols
    return local


def ones_of(values):
    """A local derivative of 1 everywhere (float64, the shape of ``values``)."""
    return np.ones(np.shape(values), dtype=np.float64)


def scalar_text(values):
    """A scalar's value for a local derivative's text (``2`` in ``2*x``), or None for arrays."""
    value = np.asarray(values)
    if value.size != 1:
        return None
    value = float(value.reshape(()))
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"


def local_derivatives(primitive_name, inputs, outputs, attrs):
    """The rule's ``local`` evaluated at recorded values (NumPy arrays), or None without one."""
    rule = RULES.get(primitive_name)
    if rule is None or rule.local is None:
        return None
    with np.errstate(all="ignore"):
        return rule.local(inputs, outputs, attrs)


def formula(primitive_name):
    """The human-readable rule for a primitive, or a note that it has none."""
    rule = RULES.get(primitive_name)
    return rule.formula if rule else "no gradient"


from tapeviz.core.gradients import array, complex, conv, image, linalg, math, nn, scatter, sorting  # noqa: E402,F401  (fill the table)
