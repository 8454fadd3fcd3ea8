"""``tf.bitwise``: bit operations on integer tensors (not differentiable, as in TF)."""

from tapeviz.core.primitives.bitwise import (  # noqa: F401
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]
