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


def formula_on_inputs(op, carried, name_of):
    """The rule's formula on this op's inputs (``d(b*x)/db = x``), for the inputs that carry a gradient or a
    tangent (``carried``: one bool per input); a piece that reads the same twice (``w * w``) is shown once."""
    rule = rule_named(op["name"])
    symbols = rule.local.symbols if rule is not None and rule.local is not None else ()
    pieces = op["formula"].split(",  ")
    wanted = {s for s, flows in zip(symbols, carried) if flows}
    if symbols and wanted:
        kept = [p for p in pieces if (m := re.search(r"/d([a-z])\b", p)) is None or m.group(1) in wanted]
        pieces = kept or pieces
    symbol_of = getattr(name_of, "symbol", name_of)
    shown = named(",  ".join(pieces), op["name"], [symbol_of(t) for t in op["inputs"]]).split(",  ")
    return ",  ".join(dict.fromkeys(shown))


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


def is_big(value):
    """An array the card cannot print in full (more than :data:`format.SMALL` elements)."""
    return value is not None and np.size(value) > fmt.SMALL


def traced(upstream, local, grad, pick=None):
    """One element of an array step traced through: upstream[i] x local[i] = product[i], then, where the
    input is smaller (broadcast), the sum of the products back to its shape.

    ``pick``: a flat index into the product (the element the student chose; default the largest |product|).
    Returns {"at", "flat", "upstream", "local", "product", "count", "summed", "values"} (numbers as text;
    ``values``: the products as floats, for the card's strip) or None where the shapes do not line up."""
    try:
        with np.errstate(all="ignore"):
            up, loc = np.broadcast_arrays(np.asarray(upstream, np.float64), np.asarray(local, np.float64))
            product = up * loc
    except ValueError:
        return None
    if product.size == 0:
        return None
    if pick is None or not 0 <= int(pick) < product.size:
        magnitude = np.where(np.isfinite(product), np.abs(product), -1.0)
        pick = int(np.argmax(magnitude))
    pick = int(pick)
    at = np.unravel_index(pick, product.shape)
    summed = grad is not None and np.shape(grad) != product.shape
    return {
        "at": "[" + ", ".join(str(int(i)) for i in at) + "]",
        "flat": pick,
        "upstream": fmt.number(up.flat[pick]),
        "local": fmt.number(loc.flat[pick]),
        "product": fmt.number(product.flat[pick]),
        "count": int(product.size),
        "summed": bool(summed),
        "values": product.ravel(),
        "factors": (up.ravel(), loc.ravel()),
        "shape": list(product.shape),
    }


def traced_text(element, grad_text):
    """The product cell of an array step: the traced element's own product, never summaries multiplied."""
    text = (
        f"at {element['at']}: {element['upstream']} \u00d7 {element['local']} = {element['product']}"
        f" (each of the {element['count']} elements alike)"
    )
    if element["summed"]:
        text += f"; summed to the input's shape = {grad_text}"
    return text
