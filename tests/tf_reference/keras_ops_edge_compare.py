"""How one tapeviz result differs from Keras's for a case of keras_ops_edge_cases.py: a list of sentences, empty when they agree.

Values and gradients are compared NaN-aware: NaN where Keras has NaN, the same
infinities, finite numbers within float32 tolerance, the sign of a zero where
Keras gives a zero (in values; a gradient's zero may have either sign);
dtypes and shapes exactly. Where Keras refuses a case,
tapeviz must refuse it too (the words may differ).
"""

import math


def _same_number(got, want, rtol, atol, signed_zeros=True):
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want
    if isinstance(want, list):  # complex: [real, imag]
        return isinstance(got, list) and all(_same_number(g, w, rtol, atol, signed_zeros) for g, w in zip(got, want))
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or math.isinf(got) or math.isnan(got):
        return got == want
    if want == 0 and got == 0:
        return not signed_zeros or math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= atol + rtol * abs(want)


def _first_mismatch(got, want, rtol, atol, signed_zeros=True):
    if len(got) != len(want):
        return f"{len(got)} values where Keras has {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        if not _same_number(g, w, rtol, atol, signed_zeros):
            return f"element {k}: {g} where Keras gives {w}"
    return None


def differences(got, want, error=None):
    """``got``: tapeviz's run() result (None if it raised ``error``); ``want``: the stored Keras result."""
    if "error" in want:
        return (
            [] if got is None else [f"Keras refuses ({want['error']}: {want['message'][:80]}), tapeviz returns a value"]
        )
    if got is None:
        return [f"tapeviz raises {type(error).__name__}: {str(error)[:120]}"]
    found = []
    if got["dtypes"] != want["dtypes"]:
        found.append(f"dtypes {got['dtypes']} where Keras gives {want['dtypes']}")
    if got["shapes"] != want["shapes"]:
        found.append(f"shapes {got['shapes']} where Keras gives {want['shapes']}")
    if found:
        return found
    for k, (g, w, dtype) in enumerate(zip(got["values"], want["values"], want["dtypes"])):
        loose = dtype in ("float16", "bfloat16")
        problem = _first_mismatch(g, w, 2e-3 if loose else 2e-5, 2e-3 if loose else 1e-6)
        if problem:
            found.append(f"output {k}: {problem}")
    if len(got["grads"]) != len(want["grads"]):
        found.append(f"{len(got['grads'])} gradients where Keras has {len(want['grads'])}")
    for k, (g, w) in enumerate(zip(got["grads"], want["grads"])):
        if w is None:
            if g is not None and any(v != 0 for v in g):
                found.append(f"gradient {k}: tapeviz has one where Keras has none")
            continue
        problem = _first_mismatch(g if g is not None else [0.0] * len(w), w, 2e-5, 1e-6, signed_zeros=False)
        if problem:
            found.append(f"gradient {k}: {problem}")
    return found
