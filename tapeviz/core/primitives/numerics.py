"""CheckNumerics: the identity that raises TF's InvalidArgumentError on NaN or Inf, and its rule.

``tf.debugging.check_numerics`` and ``assert_all_finite`` run it. It is a
primitive (not Python around ``identity``) so that a ``tf.function`` records it
and checks every call's values, and a stateful one, so that a trace keeps it
when its result is unused (core/graph.py). As in TF, the gradient passes
through, checked with the message "Not a number (NaN) or infinity (Inf) values
detected in gradient. " plus the forward message.
"""

from tapeviz import backend as B
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.rules import defgrad, elementwise

GRADIENT_PREFIX = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def nonfinite_kinds(array, signed=False):
    """The words TF's CheckNumerics uses for what is wrong: "NaN", "Inf and NaN"...; "" when all is finite.

    ``signed``: tell -Inf from +Inf, as CheckNumericsV2 (enable_check_numerics) does.
    """
    xp = B.xp
    nan = bool(xp.isnan(array).any())
    if not signed:
        inf = bool(xp.isinf(array).any())
        return " and ".join(word for word, found in (("Inf", inf), ("NaN", nan)) if found)
    infinite = xp.isinf(array)
    found = [
        word
        for word, hit in (
            ("-Inf", (infinite & (array < 0)).any()),
            ("+Inf", (infinite & (array > 0)).any()),
            ("NaN", nan),
        )
        if hit
    ]
    if len(found) == 3:
        return "-Inf, +Inf, and NaN"
    return " and ".join(found)


def _check(x, message):
    if x.dtype.kind != "f":
        raise InvalidArgumentError(
            f"Value for attr 'T' of {x.dtype.name.replace('float64', 'double')} is not in the list of allowed "
            "values: bfloat16, half, float, double. tf.debugging.check_numerics checks float tensors only: cast "
            "first (tf.cast(x, tf.float32)), or check a float result.",
            "CheckNumerics",
        )
    if x.size and not bool(B.xp.isfinite(x).all()):
        raise InvalidArgumentError(f"{message} : Tensor had {nonfinite_kinds(x)} values", "CheckNumerics")
    return x


CHECK_NUMERICS = Primitive("CheckNumerics", _check)


def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged; TF's ``InvalidArgumentError`` if it holds a NaN or an Inf (its gradient is checked too)."""
    return execute(CHECK_NUMERICS, (as_tensor(tensor),), {"message": str(message)})


@defgrad(CHECK_NUMERICS, "d x/dx = 1 (the gradient is checked for NaN and Inf)", local=elementwise("1"))
def _check_numerics_rule(op, needs, g):
    # TF writes the forward message as bytes there (b'...'): kept, so messages read alike
    return (check_numerics(g, GRADIENT_PREFIX + str(op.attrs["message"].encode())),)
