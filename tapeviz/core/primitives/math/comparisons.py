"""Comparisons and logic (recorded, not differentiable) and selection (where); each kernel with its gradient rule."""

import operator

import numpy as np

from tapeviz import backend as B
from tapeviz.core.families import math as m
from tapeviz.core.ops import as_tensor, as_tensors, execute
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives._define import binary, unary
from tapeviz.core.primitives.array.constants import zeros_like
from tapeviz.core.primitives.math.arithmetic import xp_function
from tapeviz.core.rules import defgrad, elementwise

# -- comparisons and logic (recorded, not differentiable) ---------------------------
equal = binary("equal", "Equal", operator.eq, "x == y elementwise (bool).", differentiable=False)
not_equal = binary("not_equal", "NotEqual", operator.ne, "x != y elementwise (bool).", differentiable=False)
greater = binary("greater", "Greater", operator.gt, "x > y elementwise (bool).", differentiable=False)
greater_equal = binary("greater_equal", "GreaterEqual", operator.ge, "x >= y elementwise (bool).", differentiable=False)
less = binary("less", "Less", operator.lt, "x < y elementwise (bool).", differentiable=False)
less_equal = binary("less_equal", "LessEqual", operator.le, "x <= y elementwise (bool).", differentiable=False)
logical_and = binary(
    "logical_and", "LogicalAnd", xp_function("logical_and"), "x and y elementwise (bool tensors).", differentiable=False
)
logical_or = binary(
    "logical_or", "LogicalOr", xp_function("logical_or"), "x or y elementwise (bool tensors).", differentiable=False
)
logical_not = unary(
    "logical_not", "LogicalNot", xp_function("logical_not"), "not x elementwise (bool tensor).", differentiable=False
)
is_nan = unary(
    "is_nan", "IsNan", xp_function("isnan"), "Where x is NaN (bool).", differentiable=False, floats_only=True
)
is_inf = unary(
    "is_inf", "IsInf", xp_function("isinf"), "Where x is +-inf (bool).", differentiable=False, floats_only=True
)
is_finite = unary(
    "is_finite",
    "IsFinite",
    xp_function("isfinite"),
    "Where x is finite (bool).",
    differentiable=False,
    floats_only=True,
)

# -- selection -------------------------------------------------------------------
SELECT = Primitive("SelectV2", lambda c, x, y: B.xp.where(c, x, y))


def where(condition, x=None, y=None, name=None):
    """Pick ``x`` where ``condition`` holds, else ``y`` (broadcasting all three).

    With only ``condition``: the indices where it holds, as int64 [n, rank].
    The gradient is masked, but a NaN the unused branch produced in its own
    backward pass still arrives (0 * nan = nan): the "tf.where trap".

    Args:
        condition: a bool tensor.
        x: the values where ``condition`` is True.
        y: the values where it is False (of ``x``'s dtype).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the broadcast shape; with ``condition`` alone, an int64
        Tensor of indices, one row per True element.

    Raises:
        ValueError: ``x`` without ``y`` or ``y`` without ``x``.
        TypeError: a ``condition`` that is not bool (compare first: ``x > 0``).

    Example:
        >>> import tapeviz as tf
        >>> x = tf.constant([-1.0, 2.0, -3.0])
        >>> print(tf.where(x > 0, x, tf.zeros_like(x)))
        tf.Tensor([0. 2. 0.], shape=(3,), dtype=float32)
        >>> print(tf.where(x > 0))
        tf.Tensor([[1]], shape=(1, 1), dtype=int64)
    """
    condition = as_tensor(condition)
    if x is None and y is None:
        return execute(INDICES_WHERE, (condition,))
    if x is None or y is None:
        raise ValueError("tf.where needs both x and y, or neither.")
    if condition.dtype.name != "bool":
        raise TypeError(
            f"tf.where's condition must be a bool tensor, got {condition.dtype.name}. Compare first, e.g. x > 0."
        )
    x, y = as_tensors(x, y)
    return execute(SELECT, (condition, x, y))


@defgrad(
    SELECT,
    "d where(c,x,y)/dx = 1 where c, d/dy = 1 where not c",
    local=elementwise(None, "1 where c", "1 where not c", symbols=("c", "x", "y")),
)
def _select_rule(op, needs, g):
    c, x, y = op.inputs
    zeros = zeros_like(g)
    return (
        None,
        m.unbroadcast(m.where(c, g, zeros), x) if needs[1] else None,
        m.unbroadcast(m.where(c, zeros, g), y) if needs[2] else None,
    )


INDICES_WHERE = Primitive("Where", lambda c: B.xp.stack(B.xp.nonzero(c), axis=-1).astype(np.int64), differentiable=None)
