"""What the reverse (chain-rule) card and the forward (tangent) card share.

Reading live values, the local derivatives at a recorded op (derived from its
rule by :mod:`tapeviz.core.local_derivatives`), the symbols of a rule's texts
replaced by the tensors' names, and the ``d/dx`` spellings. Both cards import
this module; neither imports the other's helpers, so there is no cycle.
"""

import re

import numpy as np

from tapeviz.core.local_derivatives import local_derivatives
from tapeviz.core.rules import rule_named
from tapeviz.core.tensor import is_tensor
from tapeviz.viz import format as fmt


def array_of(obj):
    """A float64 array of a live tensor, or None for a released value or a summary."""
    value = raw(obj)
    return value.astype(np.float64) if value is not None and value.dtype.kind in "biuf" else None


def raw(obj):
    """A live tensor's value as recorded (host NumPy), or None."""
    if obj is None or not is_tensor(obj):
        return None
    try:
        return np.asarray(obj.numpy())
    except Exception:  # a value that cannot be read (a device error): show no number
        return None


def evaluated_locals(op, entry):
    """The rule's local derivatives at the recorded inputs/outputs, or None when values are gone."""
    if entry is None:
        return None
    if any(raw(t) is None for t in (*entry.inputs, *entry.outputs)):
        return None
    try:
        return local_derivatives(entry)
    except Exception:  # a rule that cannot be evaluated here: the card falls back to the formula
        return None


def named(text, primitive_name, input_names):
    """A local derivative's text with the rule's symbols replaced by the inputs' names:
    ``d(x*y)/dx = y`` becomes ``x`` for ``x * x``, ``2*x`` stays ``2*x`` for ``x ** 2``."""
    rule = rule_named(primitive_name)
    symbols = rule.local.symbols if rule is not None and rule.local is not None else ()
    if not symbols:
        return text
    mapping = {s: n for s, n in zip(symbols, input_names)}

    def swap(match):
        if match.group(1):  # after ``/d``: ``/db``, or ``/d(loss)`` for a longer name
            return _wrapped(mapping.get(match.group(1), match.group(1)))
        return mapping.get(match.group(2), match.group(2))

    # ASCII boundaries: ``x²`` names x (a Unicode \b would take ² for part of the word).
    return re.sub(r"(?:(?<=/d)([a-z])|(?<![A-Za-z0-9_])([a-z]))(?![A-Za-z0-9_])", swap, text)


def ratio(top, bottom):
    """``dy/dx`` for one-letter names, ``d(loss)/d(w)`` for longer ones; ``d(dy)/dx`` for a second order."""
    return f"d{_wrapped(top)}/d{_wrapped(bottom)}"


def _wrapped(name):
    return name if is_bare(name) else f"({name})"


def is_bare(name):
    """A name written after ``d`` without brackets: one letter, or a letter and digits (``x1``), never ``d...``."""
    return len(name) <= 2 and name[:1].isalpha() and (len(name) == 1 or name[1].isdigit())


def wrt(name):
    """``d/dx``, or ``d/d(player_x)`` for a longer name."""
    return f"d/d{_wrapped(name)}"


def local_shown(row):
    """``2*x = 6``, or just ``1`` when the derivative is a number to begin with."""
    if row["local_value"] is None or row["local"] == row["local_value"]:
        return row["local"] or ""
    return f"{row['local']} = {row['local_value']}"


def value_text(value, limit=40):
    return fmt.clip(fmt.preview(value), limit) if value is not None else "?"
