"""``tf.io``: the part that reads tensors of bytes (``decode_raw``); TF's file and record readers are not here."""

from tapeviz.core.dtypes import as_dtype
from tapeviz.core.ops import execute
from tapeviz.core.primitives import strings as _k
from tapeviz.strings import strings_tensor as _strings

__all__ = ["decode_raw"]


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string's bytes read as numbers of ``out_type`` (``tf.io.decode_raw``).

    Args:
        input_bytes: a string tensor; every string of the same length.
        out_type: the numbers' dtype (uint8, int32, float32...).
        little_endian: the byte order of numbers wider than a byte.
        fixed_length: accepted for TensorFlow compatibility (strings must all be one length).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``out_type`` with one more axis, holding the numbers of each string.

    Raises:
        tf.errors.InvalidArgumentError: strings of different lengths.
        TypeError: a tensor that is not of strings.
    """
    x = _strings(input_bytes, "decode_raw")
    attrs = {"out_type": as_dtype(out_type).name, "little_endian": bool(little_endian)}
    return execute(_k.DECODE_RAW, (x,), attrs)
