"""``tf.bitwise``: and, or, xor, invert and shifts of integer tensors; integer results, so no gradient (TF's None)."""

import operator

from tapeviz import backend as B
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitives._define import binary, unary


def _integers_only(kernel, prim_name):
    """``kernel`` for integer arrays; TF has no bitwise kernel for floats, bools or complex."""

    def checked(*arrays):
        if arrays[0].dtype.kind not in "iu":
            raise InvalidArgumentError(
                f"Value for attr 'T' of {arrays[0].dtype.name} is not in the list of allowed values: int8, int16, "
                f"int32, int64, uint8, uint16, uint32, uint64 [Op:{prim_name}]",
                prim_name,
            )
        return kernel(*arrays)

    return checked


bitwise_and = binary(
    "bitwise_and", "BitwiseAnd", _integers_only(operator.and_, "BitwiseAnd"), "x & y bit by bit.", differentiable=False
)
bitwise_or = binary(
    "bitwise_or", "BitwiseOr", _integers_only(operator.or_, "BitwiseOr"), "x | y bit by bit.", differentiable=False
)
bitwise_xor = binary(
    "bitwise_xor", "BitwiseXor", _integers_only(operator.xor, "BitwiseXor"), "x ^ y bit by bit.", differentiable=False
)
left_shift = binary(
    "left_shift",
    "LeftShift",
    _integers_only(lambda x, y: B.xp.left_shift(x, y), "LeftShift"),
    "x << y (bits shifted out are lost, as in TF).",
    differentiable=False,
)
right_shift = binary(
    "right_shift",
    "RightShift",
    _integers_only(lambda x, y: B.xp.right_shift(x, y), "RightShift"),
    "x >> y (arithmetic for signed integers, as in TF).",
    differentiable=False,
)
invert = unary("invert", "Invert", _integers_only(lambda x: B.xp.invert(x), "Invert"), "~x: every bit flipped.",
               differentiable=False)  # fmt: skip

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]
