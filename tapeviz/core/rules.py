"""THE table of gradient rules: one per primitive, keyed by the Primitive object.

Each rule is registered beside its kernel, in the family module of
:mod:`tapeviz.core.primitives` that defines the primitive (``sin = unary(...)``
then ``@defgrad(sin, ...)``): importing the primitives fills this table.
This module imports no primitive, so every family can import it.

A rule is called as ``rule(op, needs, *upstream)``: the recorded entry
``op`` (``op.inputs``, ``op.outputs``, ``op.attrs``; never changed once
recorded), ``needs`` (one bool per input: does it want a gradient in this
sweep) and the upstream gradient of each output. It returns one gradient per
input (None where ``needs`` is False or no gradient exists).

Rules are written in tapeviz ops, never raw arrays, so the backward pass is
itself recorded by any outer tape: higher-order derivatives need no special
code. The ``formula`` of each rule is what docs and the visualizer show.

Each derivative is written once, in the rule. ``local`` only says how the
chain-rule card (upstream x local = product) *writes* each input's local
derivative: :func:`elementwise` texts for ops whose output element depends on
one element of each input (the card then shows the value, which
:mod:`tapeviz.core.local_derivatives` gets from the rule itself), or
:func:`described` texts for the others (a reshape, a matmul), where the card
shows the text and the product the rule computed. None for an input that never
gets a gradient (integer indices).
"""

from collections.abc import Callable
from dataclasses import dataclass

from tapeviz.core.primitive import Primitive

RULES = {}  # Primitive -> Rule
_BY_NAME = {}  # primitive name -> Rule, for display (the trace knows ops by name)


@dataclass(frozen=True)
class Local:
    """How the card writes each input's local derivative (text only: the value comes from the rule).

    ``texts``: one per input: a string, a function of the recorded values
    (inputs then outputs, NumPy arrays) returning one (``2*x`` for ``x**2``),
    or None (that input never gets a gradient). ``every``: one text for any
    number of inputs. ``symbols``: the names the texts give the inputs, in
    order, so a picture can put the tensors' own names in their place
    (``y`` in ``d(x*y)/dx = y`` is the second input).
    """

    texts: tuple
    elementwise: bool
    every: str | None = None
    symbols: tuple = ()

    def texts_for(self, n_inputs):
        """One text (or text function, or None) per input."""
        if self.every is not None:
            return (self.every,) * n_inputs
        return tuple((list(self.texts) + [None] * n_inputs)[:n_inputs])


def elementwise(*texts, every=None, symbols=("x", "y")):
    """``local`` of an elementwise rule: the card shows ``texts[i]`` and its value (from the rule)."""
    return Local(tuple(texts), True, every, tuple(symbols))


def described(*texts, every=None):
    """``local`` of a rule that is not elementwise: the card shows ``texts[i]`` and the rule's product."""
    return Local(tuple(texts), False, every)


@dataclass(frozen=True)
class Rule:
    primitive: Primitive
    fn: Callable
    formula: str
    local: Local | None = None

    @property
    def name(self):
        return self.primitive.name


def _as_primitive(key):
    """A Primitive, from itself or from an op function made by the primitive factories (``m.sin``)."""
    primitive = key if isinstance(key, Primitive) else getattr(key, "primitive", None)
    if not isinstance(primitive, Primitive):
        raise TypeError(f"Register a gradient rule under the Primitive object (or its op function), not {key!r}.")
    return primitive


def defgrad(primitive, formula, local=None):
    """Register the gradient rule of ``primitive`` (a Primitive, or an op function with ``.primitive``)."""
    primitive = _as_primitive(primitive)

    def register(fn):
        if primitive in RULES:
            raise ValueError(f"Gradient rule for {primitive.name!r} is defined twice.")
        rule = Rule(primitive, fn, formula, local)
        RULES[primitive] = _BY_NAME[primitive.name] = rule
        if primitive.differentiable:
            primitive.rule = fn  # the sweep's shortcut into this table
        return fn

    return register


def rule_of(primitive):
    """The Rule of a Primitive (or op function), or None."""
    return RULES.get(_as_primitive(primitive))


def rule_named(name):
    """The Rule of the primitive called ``name`` (for display: traces know ops by name), or None."""
    return _BY_NAME.get(name)


def formula(name):
    """The human-readable rule for a primitive (by name or object), or a note that it has none."""
    rule = rule_named(name) if isinstance(name, str) else rule_of(name)
    return rule.formula if rule else "no gradient"
