"""``tf.strings``: ops on ``tf.string`` tensors (bytes), as TF 2.21 names and computes them.

Each runs one kernel of core/primitives/strings.py; none has a gradient (a tape gives None
through them, as TF). Elementwise ops also take a RaggedTensor of strings (applied to its
flat values); ops whose rows differ in length (``split``, ``unicode_decode``...) return a
RaggedTensor for an input of rank 1 or more, and a dense tensor for a single string.
"""

import numpy as np

from tapeviz.core.dtypes import as_dtype, float32, int32, string
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import execute
from tapeviz.core.primitives import strings as _k
from tapeviz.core.tensor import Tensor, convert_to_tensor
from tapeviz.ragged import RaggedTensor

__all__ = [
    "as_string",
    "bytes_split",
    "format",
    "join",
    "length",
    "lower",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket_fast",
    "to_number",
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_split",
    "unicode_transcode",
    "upper",
]


def strings_tensor(value, op):
    """``value`` as a string Tensor, for the ops that take strings.

    Args:
        value: a string Tensor, or Python or NumPy strings.
        op: the op's name, for the error.

    Returns:
        A Tensor of dtype string.

    Raises:
        TypeError: a value that is not of strings (TF's error for numbers given to a string op).
    """
    tensor = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=None)
    if tensor.dtype != string:
        raise TypeError(
            f"tf.strings.{op} takes string tensors, not {tensor.dtype.name}: convert numbers first, "
            "e.g. tf.strings.as_string(x)."
        )
    return tensor


def _on_flat_values(op, value, *args, **kwargs):
    """``op`` of a RaggedTensor's flat values, in its rows; of a dense value as it is."""
    if isinstance(value, RaggedTensor):
        return value.with_flat_values(op(value.flat_values, *args, **kwargs))
    return op(value, *args, **kwargs)


def _rows(values, row_splits, shape):
    """Flat values cut into rows: dense for one string, else a RaggedTensor one ragged level below ``shape``."""
    if not shape:
        return values
    nested = [row_splits]
    for size in reversed(shape[1:]):  # the input's own (uniform) dimensions, outermost first
        rows = int(np.prod(shape[: len(shape) - len(nested)], dtype=np.int64))
        nested.insert(0, np.arange(rows + 1, dtype=np.int64) * size)
    return RaggedTensor.from_nested_row_splits(values, nested, validate=False)


def _unit(unit):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return unit


def length(input, unit="BYTE", name=None):  # noqa: A002 - TF's name
    """The length of each string, in bytes or in UTF-8 characters.

    Args:
        input: a string tensor (or RaggedTensor, or Python strings).
        unit: ``"BYTE"`` (the default) or ``"UTF8_CHAR"`` (Unicode code points).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        An int32 Tensor of ``input``'s shape.

    Raises:
        ValueError: another ``unit``.
        TypeError: a tensor that is not of strings.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strings.length(["Gray wolf", "🥳"]))
        tf.Tensor([9 4], shape=(2,), dtype=int32)
    """
    unit = _unit(unit)
    return _on_flat_values(lambda x: execute(_k.STRING_LENGTH, (strings_tensor(x, "length"),), {"unit": unit}), input)


def lower(input, encoding="", name=None):  # noqa: A002
    """Each string in lower case: ASCII letters only, or every letter with ``encoding="utf-8"``.

    Args:
        input: a string tensor (or RaggedTensor).
        encoding: ``""`` (bytes, ASCII letters) or ``"utf-8"``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of ``input``'s shape.

    Raises:
        TypeError: a tensor that is not of strings.
    """
    attrs = {"encoding": bool(encoding)}
    return _on_flat_values(lambda x: execute(_k.STRING_LOWER, (strings_tensor(x, "lower"),), attrs), input)


def upper(input, encoding="", name=None):  # noqa: A002
    """Each string in upper case: ASCII letters only, or every letter with ``encoding="utf-8"``.

    Args:
        input: a string tensor (or RaggedTensor).
        encoding: ``""`` (bytes, ASCII letters) or ``"utf-8"``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of ``input``'s shape.

    Raises:
        TypeError: a tensor that is not of strings.
    """
    attrs = {"encoding": bool(encoding)}
    return _on_flat_values(lambda x: execute(_k.STRING_UPPER, (strings_tensor(x, "upper"),), attrs), input)


def strip(input, name=None):  # noqa: A002
    """Each string without the ASCII whitespace at its two ends.

    Args:
        input: a string tensor (or RaggedTensor).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of ``input``'s shape.

    Raises:
        TypeError: a tensor that is not of strings.
    """
    return _on_flat_values(lambda x: execute(_k.STRING_STRIP, (strings_tensor(x, "strip"),)), input)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """Each string cut at ``sep`` (at runs of whitespace when ``sep`` is None or empty).

    Args:
        input: a string tensor.
        sep: the separator (bytes or str); None splits at whitespace and drops empty parts.
        maxsplit: at most this many cuts per string; -1 for no limit.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        For one string a string Tensor of its parts; for rank 1 or more a RaggedTensor
        with one more (ragged) dimension.

    Raises:
        TypeError: a tensor that is not of strings.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strings.split(tf.constant(["Gray wolf", "Lazy dog"])))
        <tf.RaggedTensor [[b'Gray', b'wolf'], [b'Lazy', b'dog']]>
    """
    x = strings_tensor(input, "split")
    sep = sep.encode("utf-8") if isinstance(sep, str) else (sep or b"")
    values, splits = execute(_k.STRING_SPLIT, (x,), {"sep": sep, "maxsplit": int(maxsplit)})
    return _rows(values, splits.numpy(), tuple(x.shape))


def bytes_split(input, name=None):  # noqa: A002
    """Each string cut into its bytes, each a string of length 1.

    Args:
        input: a string tensor.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        For one string a string Tensor of its bytes; for rank 1 or more a RaggedTensor.

    Raises:
        TypeError: a tensor that is not of strings.
    """
    x = strings_tensor(input, "bytes_split")
    values, splits = execute(_k.BYTES_SPLIT, (x,))
    return _rows(values, splits.numpy(), tuple(x.shape))


def join(inputs, separator="", name=None):
    """The strings of several tensors joined elementwise (shapes broadcast), ``separator`` between them.

    Args:
        inputs: a list of string tensors (or Python strings).
        separator: put between the parts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of the broadcast shape.

    Raises:
        TypeError: a tensor that is not of strings.
        tf.errors.InvalidArgumentError: shapes that do not broadcast.
    """
    tensors = tuple(strings_tensor(x, "join") for x in inputs)
    try:
        return execute(_k.STRING_JOIN, tensors, {"separator": _as_bytes(separator)})
    except ValueError as exc:  # shapes that do not broadcast
        raise InvalidArgumentError(str(exc), "StringJoin") from None


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings along ``axis`` joined into one, ``separator`` between them.

    Args:
        inputs: a string tensor.
        axis: an int or a list of ints; None joins every string into one.
        keepdims: keep the joined axes with size 1.
        separator: put between the parts.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor without the joined axes (or with size 1 there, with ``keepdims``).

    Raises:
        TypeError: a tensor that is not of strings.
    """
    x = strings_tensor(inputs, "reduce_join")
    axes = None if axis is None else tuple(int(a) for a in np.atleast_1d(np.asarray(axis)))
    attrs = {"axis": axes, "keepdims": bool(keepdims), "separator": _as_bytes(separator)}
    return execute(_k.REDUCE_JOIN, (x,), attrs)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TF's names
    """The part of each string that starts at ``pos`` (from the end when negative) and is ``len`` long.

    Args:
        input: a string tensor.
        pos: the start, an int or an int tensor that broadcasts with ``input``.
        len: the length, the same; a part past the end stops at the end.
        unit: ``"BYTE"`` or ``"UTF8_CHAR"``.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor.

    Raises:
        tf.errors.InvalidArgumentError: a ``pos`` outside a string.
        TypeError: a tensor that is not of strings.
    """
    x = strings_tensor(input, "substr")
    positions = convert_to_tensor(pos, dtype_hint=int32)
    lengths = convert_to_tensor(len, dtype_hint=int32)
    return execute(_k.SUBSTR, (x, positions, lengths), {"unit": _unit(unit)})


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """True where the whole string matches the regular expression ``pattern``.

    Args:
        input: a string tensor (or RaggedTensor).
        pattern: a regular expression (RE2's syntax, which Python's ``re`` shares for common patterns).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A bool Tensor of ``input``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: a pattern that does not compile.
        TypeError: a tensor that is not of strings.
    """
    attrs = {"pattern": _as_text(pattern)}
    return _on_flat_values(
        lambda x: execute(_k.REGEX_FULL_MATCH, (strings_tensor(x, "regex_full_match"),), attrs), input
    )


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Each string with the matches of ``pattern`` replaced by ``rewrite`` (``\\1`` for a group).

    Args:
        input: a string tensor (or RaggedTensor).
        pattern: a regular expression.
        rewrite: the replacement; ``\\1``... name groups, ``\\0`` the whole match.
        replace_global: replace every match (True) or only the first.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of ``input``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: a pattern that does not compile.
        TypeError: a tensor that is not of strings.
    """
    attrs = {"pattern": _as_text(pattern), "rewrite": _as_text(rewrite), "replace_global": bool(replace_global)}
    return _on_flat_values(lambda x: execute(_k.REGEX_REPLACE, (strings_tensor(x, "regex_replace"),), attrs), input)


def to_number(input, out_type=float32, name=None):  # noqa: A002
    """Each string read as a number.

    Args:
        input: a string tensor (or RaggedTensor).
        out_type: float32 (the default), float64, int32 or int64.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``out_type`` and ``input``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: a string that is not a number of that type.
        TypeError: a tensor that is not of strings.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strings.to_number(tf.strings.split("1 10 100")))
        tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)
    """
    attrs = {"out_type": as_dtype(out_type).name}
    return _on_flat_values(lambda x: execute(_k.STRING_TO_NUMBER, (strings_tensor(x, "to_number"),), attrs), input)


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """Each string's bucket: its Farmhash Fingerprint64 modulo ``num_buckets`` (TF's exact buckets).

    Args:
        input: a string tensor (or RaggedTensor).
        num_buckets: how many buckets (1 or more).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        An int64 Tensor of ``input``'s shape, each in [0, num_buckets).

    Raises:
        tf.errors.InvalidArgumentError: ``num_buckets`` under 1.
        TypeError: a tensor that is not of strings.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3))
        tf.Tensor([0 2 2], shape=(3,), dtype=int64)
    """
    if int(num_buckets) < 1:
        raise InvalidArgumentError(f"num_buckets must be 1 or more, got {num_buckets}", "StringToHashBucketFast")
    attrs = {"num_buckets": int(num_buckets)}
    return _on_flat_values(
        lambda x: execute(_k.STRING_TO_HASH_BUCKET_FAST, (strings_tensor(x, "to_hash_bucket_fast"),), attrs), input
    )


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each number (or bool) written as a string, as C's printf writes it (``"%f"`` for floats).

    Args:
        input: a numeric or bool tensor.
        precision: digits after the point for floats (-1: 6).
        scientific: floats as ``1.234500e+03``.
        shortest: floats in the shortest of the two (``"%g"``).
        width: pad each to this many characters (-1: no padding).
        fill: the padding character (a space by default, or ``"0"``).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of ``input``'s shape.

    Raises:
        TypeError: a string tensor (it already is one).
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if x.dtype == string:
        raise TypeError("tf.strings.as_string takes numbers or bools; this tensor already holds strings.")
    attrs = {
        "precision": int(precision),
        "scientific": bool(scientific),
        "shortest": bool(shortest),
        "width": int(width),
        "fill": fill,
    }
    return execute(_k.AS_STRING, (x,), attrs)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TF's name
    """One string: ``template`` with each ``placeholder`` replaced by the next tensor, written as TF prints it.

    Args:
        template: the text, with one ``placeholder`` per input.
        inputs: a tensor or a list of tensors (numbers, bools or strings).
        placeholder: what marks a place in ``template``.
        summarize: the first and last this many entries of each long axis; -1 for all.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A scalar string Tensor.

    Raises:
        tf.errors.InvalidArgumentError: a number of placeholders other than the number of inputs.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strings.format("x={}", tf.range(10)))
        tf.Tensor(b'x=[0 1 2 ... 7 8 9]', shape=(), dtype=string)
    """
    values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    tensors = tuple(convert_to_tensor(v) for v in values)
    attrs = {"template": template, "placeholder": placeholder, "summarize": int(summarize)}
    return execute(_k.STRING_FORMAT, tensors, attrs)


def unicode_decode_with_offsets(
    input,  # noqa: A002
    input_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """Each string's Unicode code points, and the byte offset where each starts.

    Args:
        input: a string tensor.
        input_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
        errors: ``"replace"`` (bad bytes become ``replacement_char``), ``"ignore"`` or ``"strict"``.
        replacement_char: the code point for bad bytes.
        replace_control_characters: accepted for TensorFlow compatibility (control characters are kept).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A pair (code points as int32, offsets as int64), each a Tensor for one string and a
        RaggedTensor for rank 1 or more.

    Raises:
        tf.errors.InvalidArgumentError: an encoding TF does not name, or bad bytes with ``errors="strict"``.
        TypeError: a tensor that is not of strings.
    """
    x = strings_tensor(input, "unicode_decode")
    attrs = {"input_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char)}
    codepoints, offsets, splits = execute(_k.UNICODE_DECODE, (x,), attrs)
    bounds = splits.numpy()
    return _rows(codepoints, bounds, tuple(x.shape)), _rows(offsets, bounds, tuple(x.shape))


def unicode_decode(
    input,  # noqa: A002
    input_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """Each string's Unicode code points.

    Args:
        input: a string tensor.
        input_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
        errors: ``"replace"``, ``"ignore"`` or ``"strict"``.
        replacement_char: the code point for bad bytes.
        replace_control_characters: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        The int32 code points, a Tensor for one string and a RaggedTensor for rank 1 or more.

    Raises:
        tf.errors.InvalidArgumentError: an encoding TF does not name, or bad bytes with ``errors="strict"``.
        TypeError: a tensor that is not of strings.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.strings.unicode_decode("aé", "UTF-8"))
        tf.Tensor([ 97 233], shape=(2,), dtype=int32)
    """
    return unicode_decode_with_offsets(input, input_encoding, errors, replacement_char)[0]


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string cut into its characters, each a string (of 1 to 4 bytes in UTF-8).

    Args:
        input: a string tensor.
        input_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
        errors: ``"replace"``, ``"ignore"`` or ``"strict"``.
        replacement_char: the code point for bad bytes.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor for one string, a RaggedTensor for rank 1 or more.

    Raises:
        tf.errors.InvalidArgumentError: an encoding TF does not name, or bad bytes with ``errors="strict"``.
        TypeError: a tensor that is not of strings.
    """
    x = strings_tensor(input, "unicode_split")
    attrs = {"input_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char)}
    codepoints, _, splits = execute(_k.UNICODE_DECODE, (x,), attrs)
    each = convert_to_tensor(np.arange(codepoints.shape[0] + 1, dtype=np.int64))
    characters = execute(_k.UNICODE_ENCODE, (codepoints, each), {"output_encoding": input_encoding})
    return _rows(characters, splits.numpy(), tuple(x.shape))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Rows of Unicode code points encoded as strings (the last axis is each string's characters).

    Args:
        input: int32 code points: a Tensor (rank 1 or more) or a RaggedTensor.
        output_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
        errors: accepted for TensorFlow compatibility (code points are always valid here).
        replacement_char: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor with one dimension fewer than ``input``.

    Raises:
        tf.errors.InvalidArgumentError: an encoding TF does not name.
    """
    attrs = {"output_encoding": output_encoding}
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, output_encoding))
        return execute(_k.UNICODE_ENCODE, (input.values, convert_to_tensor(input.row_splits)), attrs)
    x = convert_to_tensor(input, dtype_hint=int32)
    if x.ndim == 0:
        raise ValueError("tf.strings.unicode_encode needs code points of rank 1 or more (one row per string).")
    return execute(_k.UNICODE_ENCODE_ROWS, (x,), attrs)


def unicode_transcode(
    input,  # noqa: A002
    input_encoding,
    output_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """Each string re-encoded from ``input_encoding`` to ``output_encoding``.

    Args:
        input: a string tensor (or RaggedTensor).
        input_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
        output_encoding: the same.
        errors: accepted for TensorFlow compatibility (bad bytes are replaced).
        replacement_char: accepted for TensorFlow compatibility.
        replace_control_characters: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A string Tensor of ``input``'s shape.

    Raises:
        tf.errors.InvalidArgumentError: an encoding TF does not name.
        TypeError: a tensor that is not of strings.
    """
    attrs = {"input_encoding": input_encoding, "output_encoding": output_encoding}
    return _on_flat_values(
        lambda x: execute(_k.UNICODE_TRANSCODE, (strings_tensor(x, "unicode_transcode"),), attrs), input
    )


def _as_bytes(text):
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)


def _as_text(text):
    return text.decode("utf-8") if isinstance(text, bytes) else str(text)
