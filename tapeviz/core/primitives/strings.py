"""String kernels (``tf.strings``, ``tf.io.decode_raw``): each a primitive without a gradient, as in TF.

Tapes record them (a gradient asked through one is None) and traces keep them, so a
``tf.function`` of strings runs again on new strings. Their kernels read and write
StringArrays (core/string_array.py): NumPy object arrays of ``bytes``. Ops whose
result is ragged (split, decode) return flat values and ``row_splits``; the
``tf.strings`` face (tapeviz/strings.py) builds the RaggedTensor.
"""

import re

import numpy as np

from tapeviz.core import farmhash
from tapeviz.core import string_array as S
from tapeviz.core.dtypes import as_dtype
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitive import Primitive


def _flat(array):
    return np.asarray(array).reshape(-1)


def _numbers(function, array, dtype):
    """``function`` of each bytes of ``array``, as a NumPy array of ``dtype`` and ``array``'s shape."""
    return np.array([function(item) for item in _flat(array)], dtype=dtype).reshape(np.shape(array))


def _splits(pieces):
    """Flat values and int64 row_splits from one list of pieces per row."""
    lengths = [len(row) for row in pieces]
    splits = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
    return [item for row in pieces for item in row], splits


def _utf8(item, what):
    try:
        return item.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgumentError(f"{what}: {item!r} is not valid UTF-8", what) from None


# -- length, case, strip ---------------------------------------------------------------
def _length(x, unit):
    if unit == "BYTE":
        return _numbers(len, x, np.int32)
    return _numbers(lambda item: len(_utf8(item, "StringLength")), x, np.int32)


def _lower(x, encoding):
    if encoding:  # Unicode-aware, as TF's ICU case mapping
        return S.map_bytes(lambda item: _utf8(item, "StringLower").lower().encode("utf-8"), x)
    return S.map_bytes(bytes.lower, x)  # ASCII letters only, as TF without an encoding


def _upper(x, encoding):
    if encoding:
        return S.map_bytes(lambda item: _utf8(item, "StringUpper").upper().encode("utf-8"), x)
    return S.map_bytes(bytes.upper, x)


_ASCII_SPACE = b" \t\n\v\f\r"

STRING_LENGTH = Primitive("StringLength", _length, differentiable=False)
STRING_LOWER = Primitive("StringLower", _lower, differentiable=False)
STRING_UPPER = Primitive("StringUpper", _upper, differentiable=False)
STRING_STRIP = Primitive("StringStrip", lambda x: S.map_bytes(lambda b: b.strip(_ASCII_SPACE), x), differentiable=False)


# -- split and join ----------------------------------------------------------------------
def _split_one(item, sep, maxsplit):
    if sep:
        return item.split(sep, maxsplit)
    parts = item.split(None, maxsplit)  # runs of whitespace, none at the ends (TF's sep="")
    if 0 < maxsplit == len(parts):  # TF cuts after the last token it may cut at, leaving an empty part
        parts.append(b"")
    return parts


def _split(x, sep, maxsplit):
    values, splits = _splits([_split_one(item, sep, maxsplit) for item in _flat(x)])
    return S.of_bytes(values, (len(values),)), splits


def _bytes_split(x):
    values, splits = _splits([[item[i : i + 1] for i in range(len(item))] for item in _flat(x)])
    return S.of_bytes(values, (len(values),)), splits


def _join(*inputs, separator):
    shape = np.broadcast_shapes(*(np.shape(a) for a in inputs))
    columns = [np.broadcast_to(np.asarray(a), shape).reshape(-1) for a in inputs]
    return S.of_bytes((separator.join(row) for row in zip(*columns)), shape)


def _reduce_join(x, axis, keepdims, separator):
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    out_shape = tuple(x.shape[a] for a in kept)
    rows = moved.reshape(out_shape + (-1,)).reshape(-1, int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
    joined = S.of_bytes((separator.join(row) for row in rows), out_shape)
    if keepdims:
        joined = joined.reshape(tuple(1 if a in axes else n for a, n in enumerate(x.shape)))
    return joined


STRING_SPLIT = Primitive("StringSplitV2", _split, n_outputs=2, differentiable=False)
BYTES_SPLIT = Primitive("StringBytesSplit", _bytes_split, n_outputs=2, differentiable=False)
STRING_JOIN = Primitive("StringJoin", _join, differentiable=False)
REDUCE_JOIN = Primitive("ReduceJoin", _reduce_join, differentiable=False)


# -- substrings and regular expressions -----------------------------------------------------
def _substr(x, pos, length, unit):
    shape = np.broadcast_shapes(np.shape(x), np.shape(pos), np.shape(length))
    items = np.broadcast_to(np.asarray(x), shape).reshape(-1)
    starts = np.broadcast_to(pos, shape).reshape(-1)
    lengths = np.broadcast_to(length, shape).reshape(-1)
    out = []
    for item, start, size in zip(items, starts.tolist(), lengths.tolist()):
        text = item if unit == "BYTE" else _utf8(item, "Substr")
        first = start + len(text) if start < 0 else start
        if not 0 <= first <= len(text):
            raise InvalidArgumentError(f"pos {start} out of range for string {item!r} at index 0", "Substr")
        part = text[first : first + max(size, 0)]
        out.append(part if unit == "BYTE" else part.encode("utf-8"))
    return S.of_bytes(out, shape)


def _regex(pattern, op):
    """RE2's pattern as a Python one over bytes (the two agree on the common syntax)."""
    try:
        return re.compile(pattern.encode("utf-8") if isinstance(pattern, str) else pattern)
    except re.error as exc:
        raise InvalidArgumentError(f"Invalid pattern: {pattern!r}, error: {exc}", op) from None


def _regex_full_match(x, pattern):
    compiled = _regex(pattern, "RegexFullMatch")
    return _numbers(lambda item: compiled.fullmatch(item) is not None, x, np.bool_)


def _regex_replace(x, pattern, rewrite, replace_global):
    compiled = _regex(pattern, "RegexReplace")
    count = 0 if replace_global else 1
    rewrite = rewrite.encode("utf-8") if isinstance(rewrite, str) else rewrite
    rewrite = re.sub(rb"\\0", rb"\\g<0>", rewrite)  # RE2's \0 (the whole match) is Python's \g<0>
    return S.map_bytes(lambda item: compiled.sub(rewrite, item, count=count), x)


SUBSTR = Primitive("Substr", _substr, differentiable=False)
REGEX_FULL_MATCH = Primitive("RegexFullMatch", _regex_full_match, differentiable=False)
REGEX_REPLACE = Primitive("RegexReplace", _regex_replace, differentiable=False)


# -- numbers <-> strings --------------------------------------------------------------------
def _to_number(x, out_type):
    dtype = as_dtype(out_type).as_numpy_dtype

    def parse(item):
        text = item.decode("utf-8", "replace").strip()
        try:
            return int(text, 10) if np.issubdtype(dtype, np.integer) else float(text)
        except ValueError:
            raise InvalidArgumentError(
                f"StringToNumberOp could not correctly convert string: {item.decode('utf-8', 'replace')}",
                "StringToNumber",
            ) from None

    return np.asarray(_numbers(parse, x, dtype))[()]


def _as_string(x, precision, scientific, shortest, width, fill):
    x = np.asarray(x)
    pad = ">" if not fill or fill == " " else f"{fill}>"
    field = f"{pad}{width}" if width > 0 else ""
    if x.dtype.kind == "b":
        texts = ["true" if v else "false" for v in x.reshape(-1).tolist()]
        return S.of_bytes((format(t, field).encode() for t in texts), x.shape)
    if x.dtype.kind in "iu":
        spec = field + "d"
    elif shortest:
        spec = field + "g"
    else:
        digits = 6 if precision < 0 else precision
        spec = f"{field}.{digits}{'e' if scientific else 'f'}"
    return S.of_bytes((format(v, spec).encode() for v in x.reshape(-1).tolist()), x.shape)


def _decode_raw(x, out_type, little_endian):
    dtype = np.dtype(as_dtype(out_type).as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    rows = [np.frombuffer(item, dtype=dtype) for item in _flat(x)]
    if len({len(row) for row in rows}) > 1:
        raise InvalidArgumentError("DecodeRaw requires input strings to all be the same size", "DecodeRaw")
    width = len(rows[0]) if rows else 0
    out = np.array(rows, dtype=dtype.newbyteorder("=")).reshape(np.shape(x) + (width,))
    return out


def _to_hash_bucket_fast(x, num_buckets):
    return _numbers(lambda item: farmhash.fingerprint64(item) % num_buckets, x, np.int64)


STRING_TO_HASH_BUCKET_FAST = Primitive("StringToHashBucketFast", _to_hash_bucket_fast, differentiable=False)
STRING_TO_NUMBER = Primitive("StringToNumber", _to_number, differentiable=False)
AS_STRING = Primitive("AsString", _as_string, differentiable=False)
DECODE_RAW = Primitive("DecodeRaw", _decode_raw, differentiable=False)


# -- Unicode ----------------------------------------------------------------------------------
_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def codec(encoding, op):
    """Python's codec for one of TF's encoding names (UTF-8, UTF-16-BE, UTF-32-BE)."""
    if encoding not in _CODECS:
        raise InvalidArgumentError(
            f"Could not create converter for input encoding: {encoding}; use one of {', '.join(_CODECS)}", op
        )
    return _CODECS[encoding]


def _unicode_decode(x, input_encoding, errors, replacement_char):
    name = codec(input_encoding, "UnicodeDecode")
    handling = {"strict": "strict", "replace": "replace", "ignore": "ignore"}[errors]
    codepoints, offsets = [], []
    for item in _flat(x):
        try:
            text = item.decode(name, handling)
        except UnicodeDecodeError:
            raise InvalidArgumentError(f"Invalid formatting on input string {item!r}", "UnicodeDecode") from None
        points = [replacement_char if ch == "\ufffd" and errors == "replace" else ord(ch) for ch in text]
        codepoints.append(points)
        starts, at = [], 0
        for ch in text:
            starts.append(at)
            at += len(ch.encode(name))
        offsets.append(starts)
    values, splits = _splits(codepoints)
    flat_offsets, _ = _splits(offsets)
    return np.array(values, dtype=np.int32), np.array(flat_offsets, dtype=np.int64), splits


def _unicode_encode(codepoints, row_splits, output_encoding):
    name = codec(output_encoding, "UnicodeEncode")
    points = np.asarray(codepoints).tolist()
    bounds = np.asarray(row_splits).tolist()
    rows = ["".join(map(chr, points[a:b])).encode(name) for a, b in zip(bounds[:-1], bounds[1:])]
    return S.of_bytes(rows, (len(rows),))


def _unicode_encode_rows(codepoints, output_encoding):
    points = np.asarray(codepoints)
    width = points.shape[-1]
    flat = _unicode_encode(points.reshape(-1), np.arange(points.size // max(width, 1) + 1) * width, output_encoding)
    return flat.reshape(points.shape[:-1])


def _unicode_transcode(x, input_encoding, output_encoding):
    source = codec(input_encoding, "UnicodeTranscode")
    target = codec(output_encoding, "UnicodeTranscode")
    return S.map_bytes(lambda item: item.decode(source, "replace").encode(target), x)


UNICODE_DECODE = Primitive("UnicodeDecodeWithOffsets", _unicode_decode, n_outputs=3, differentiable=False)
UNICODE_ENCODE = Primitive("UnicodeEncode", _unicode_encode, differentiable=False)
UNICODE_ENCODE_ROWS = Primitive("UnicodeEncodeRows", _unicode_encode_rows, differentiable=False)
UNICODE_TRANSCODE = Primitive("UnicodeTranscode", _unicode_transcode, differentiable=False)


# -- format ---------------------------------------------------------------------------------------
def _summarized(array, summarize):
    """TF's text for one tensor in tf.strings.format: NumPy's layout, strings quoted, long axes cut."""
    array = np.asarray(array)
    if array.dtype == object:
        array = np.vectorize(lambda b: '"' + b.decode("utf-8", "replace") + '"', otypes=[object])(array)
        return _nested_text(array, summarize)
    if array.ndim == 0:
        return _scalar_text(array[()])
    return _nested_text(array, summarize)


def _scalar_text(value):
    if isinstance(value, (float, np.floating)):
        return format(float(value), "g") if np.isfinite(value) else str(float(value))
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"  # as TF writes bools
    return str(value)


def _nested_text(array, summarize, depth=0):
    if not isinstance(array, np.ndarray) or array.ndim == 0:
        item = array[()] if isinstance(array, np.ndarray) else array
        return item if isinstance(item, str) else _scalar_text(item)
    n = array.shape[0]
    cut = summarize >= 0 and n > 2 * summarize
    indices = list(range(summarize)) + [None] + list(range(n - summarize, n)) if cut else list(range(n))
    parts = ["..." if i is None else _nested_text(array[i], summarize, depth + 1) for i in indices]
    joiner = " " if array.ndim == 1 else "\n" + " " * (depth + 1)
    return "[" + joiner.join(parts) + "]"


def _format(*inputs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise InvalidArgumentError(
            f"num placeholders in template and num inputs must match: {len(pieces) - 1} vs. {len(inputs)}",
            "StringFormat",
        )
    text = pieces[0]
    for value, piece in zip(inputs, pieces[1:]):
        text += _summarized(value, summarize) + piece
    return S.scalar(text.encode("utf-8"))


STRING_FORMAT = Primitive("StringFormat", _format, differentiable=False)
