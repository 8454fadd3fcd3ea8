"""Each input's local derivative at a recorded op, derived from the op's rule (for the chain-rule card).

The derivative is written once, in the rule. For an elementwise op the local
derivative of every input at every output element is the rule's gradient at
upstream = ones, with the inputs broadcast to the output's shape first (so a
broadcast input gets its local derivative at each element it touched, not
their sum). Display only: the sweep never calls it.
"""

from contextlib import contextmanager
from types import SimpleNamespace

import numpy as np

from tapeviz.core import state
from tapeviz.core.primitives.array import broadcast_to, ones_like
from tapeviz.core.rules import RULES
from tapeviz.core.tensor import to_array


@contextmanager
def _aside():
    """Run the rule as a backward computation: no tape records it, and only the
    listeners that ask for untaped sweep ops see its ops (not the session recorder)."""
    saved_tapes, saved_depth = state.local.tapes, state.local.depth
    state.local.tapes, state.local.depth = [], saved_depth + 1
    try:
        yield
    finally:
        state.local.tapes, state.local.depth = saved_tapes, saved_depth


def elementwise_locals(entry, wanted):
    """Per input: d(output)/d(input) at every output element (float64, the output's shape), or None.

    ``entry``: a recorded elementwise op with one output; ``wanted``: one bool per input.
    """
    output = entry.outputs[0]
    shape = tuple(np.shape(to_array(output)))
    needs = tuple(bool(w) and x.dtype.is_floating for w, x in zip(wanted, entry.inputs))
    if not any(needs):
        return (None,) * len(needs)
    with _aside():
        inputs = tuple(x if tuple(x.shape) == shape else broadcast_to(x, shape) for x in entry.inputs)
        spread = SimpleNamespace(primitive=entry.primitive, inputs=inputs, outputs=entry.outputs, attrs=entry.attrs)
        grads = RULES[entry.primitive].fn(spread, needs, ones_like(output))
    result = []
    for need, grad in zip(needs, grads):
        if not need:
            result.append(None)
        elif grad is None:  # the output does not move with this input
            result.append(np.zeros(shape, dtype=np.float64))
        else:
            result.append(np.broadcast_to(np.asarray(to_array(grad), dtype=np.float64), shape))
    return tuple(result)


def local_derivatives(entry):
    """Per input of the recorded op ``entry``: ``(text, value)`` or None (no gradient for that input).

    ``value`` is the local derivative at every output element for an
    elementwise rule, else None (the card shows the text and the rule's
    product). Returns None when the primitive has no rule that describes itself.
    """
    rule = RULES.get(entry.primitive)
    if rule is None or rule.local is None:
        return None
    texts = rule.local.texts_for(len(entry.inputs))
    if any(callable(t) for t in texts):
        arrays = [np.asarray(to_array(t)) for t in (*entry.inputs, *entry.outputs)]
        texts = tuple(t(*arrays) if callable(t) else t for t in texts)
    if rule.local.elementwise:
        values = elementwise_locals(entry, [t is not None for t in texts])
    else:
        values = (None,) * len(texts)
    return tuple(None if text is None else (text, value) for text, value in zip(texts, values))
