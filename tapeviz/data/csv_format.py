"""CSV records as TensorFlow's ``CsvDataset`` reads them: RFC 4180 quoting, TF's strict errors, TF's numbers.

Why not the standard library's ``csv`` (even with ``strict=True``): it keeps a
quote inside an unquoted field (``a"b``, `` "a"``) where TF refuses the
record, it reports other errors than TF for the same bytes (TF keeps scanning
a quoted field after a stray quote, so ``"a"b,c`` is an unclosed quote), and
its ``field_size_limit`` is process-wide state that would fail long fields.
TF's grammar is small, so it is written here on ``bytes.find`` and regular
expressions; nothing is decoded (a field is the file's bytes) and nothing in
a file is evaluated.

A malformed record raises ``InvalidArgumentError`` with TF's message and the
reader stays usable: the next ``next()`` starts at the following record, as
TF's iterator does, which is what ``Dataset.ignore_errors`` relies on.
"""

import decimal
import math
import re

import numpy as np

from tapeviz.core import dtypes
from tapeviz.core.errors import InvalidArgumentError

__all__ = ["Column", "column", "RecordReader", "read_header", "raw_records"]

STRING = "string"
_CSV_DTYPES = ("float32", "float64", "int32", "int64", STRING)
# TF compares each default with its accepted dtypes, and DType equality converts the
# other side with as_dtype: so the ints 1, 2, 3, 7 and 9 are the dtype enums of
# float32, float64, int32, string and int64 (a required column), not default values.
_DTYPE_ENUMS = {1: "float32", 2: "float64", 3: "int32", 7: STRING, 9: "int64"}
_MESSAGE_DTYPE = {"float32": "float", "float64": "double"}  # TF's C++ names in "not a valid ..."

_SPACE = rb"[ \t\n\v\f\r]*"  # C's isspace: what strtol and double-conversion skip around a number
_INT = re.compile(_SPACE + rb"([+-]?[0-9]+)" + _SPACE + rb"\Z")
_DECIMAL = rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_HEX = rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
_SPECIAL = rb"[+-]?(?:inf|infinity|nan(?:\([0-9a-zA-Z_]*\))?)"
_FLOAT = re.compile(_SPACE + rb"(?:(" + _DECIMAL + rb")|(" + _HEX + rb")|(?i:(" + _SPECIAL + rb")))" + _SPACE + rb"\Z")
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_FLOAT32_TINY = float(np.finfo(np.float32).tiny)  # below it float32 is subnormal: the midpoint test differs
_INT_RANGE = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class Column:
    """One output column: its dtype name and the default for an empty field (None: the field is required)."""

    def __init__(self, dtype, default):
        self.dtype = dtype
        self.default = default


def column(default):
    """A record default as TF reads it: a dtype (the field is required) or a value (used when the field is empty)."""
    if isinstance(default, (list, tuple)) and len(default) == 1:
        return column(default[0])
    if isinstance(default, (list, tuple)) and len(default) == 0:
        raise ValueError("An empty record default needs a dtype: give a dtype, or a value such as 0, 0.0 or ''.")
    if isinstance(default, dtypes.DType) or (isinstance(default, type) and not issubclass(default, bool)):
        return Column(_csv_dtype(default), None)
    if isinstance(default, str):
        return Column(STRING, default.encode("utf-8"))
    if isinstance(default, bytes):
        return Column(STRING, default)
    if isinstance(default, (bool, np.bool_)):
        raise TypeError("CSV record defaults cannot be booleans; use an int, a float or a string.")
    if isinstance(default, int) and default in _DTYPE_ENUMS:
        return Column(_DTYPE_ENUMS[default], None)
    if isinstance(default, (np.integer, np.floating)):  # a NumPy scalar keeps its dtype
        return Column(_csv_dtype(default.dtype), default.item())
    if isinstance(default, int):
        return Column("int32", default)
    if isinstance(default, float):
        return Column("float32", default)
    if hasattr(default, "numpy") and hasattr(default, "dtype"):
        value = np.asarray(default.numpy())
        if value.size == 0:
            return Column(_csv_dtype(default.dtype), None)
        return Column(_csv_dtype(default.dtype), value.reshape(-1)[0].item())
    try:
        return Column(_csv_dtype(default), None)
    except (TypeError, ValueError):
        raise TypeError(f"{default!r} is not a CSV record default: give a dtype or a value (0, 0.0, '').") from None


def _csv_dtype(dtype):
    name = getattr(dtype, "name", None) or (STRING if dtype in (str, bytes) else dtypes.as_dtype(dtype).name)
    name = STRING if name in ("str", "bytes") else name
    if name not in _CSV_DTYPES:
        raise TypeError(f"CSV columns can be float32, float64, int32, int64 or string, not {name}.")
    return name


# -- fields -----------------------------------------------------------------------------------------
class _Scanner:
    """A position in a CSV file's bytes; ``field()`` reads one field as TF's ParseOneField does."""

    def __init__(self, data, delim, use_quote_delim):
        self.data = data
        self.pos = 0
        self._delim = delim
        self._quotes = use_quote_delim
        stops = re.escape(delim) + rb"\r\n" + (b'"' if use_quote_delim else b"")
        self._unquoted = re.compile(rb"[^" + stops + rb"]*")

    def at_end(self):
        return self.pos >= len(self.data)

    def field(self):
        """``(bytes, problem, end_of_record)``; a problem is TF's message, noted but the field is still consumed."""
        if self._quotes and self.data[self.pos : self.pos + 1] == b'"':
            return self._quoted()
        start, problem = self.pos, None
        while True:
            stop = self._unquoted.match(self.data, self.pos).end()
            following = self.data[stop : stop + 1]
            if following == b'"':  # TF notes the error and keeps going to the field's end
                problem = problem or "Unquoted fields cannot have quotes inside"
                self.pos = stop + 1
                continue
            return (self.data[start:stop], problem) + (self._after(stop, following),)

    def _quoted(self):
        start = self.pos + 1
        scan = start
        problem = None
        while True:
            quote = self.data.find(b'"', scan)
            if quote < 0:
                self.pos = len(self.data)
                return b"", "Reached end of file without closing quoted field in record", True
            following = self.data[quote + 1 : quote + 2]
            if following == b'"':
                scan = quote + 2
            elif following in (b"", self._delim, b"\n", b"\r"):
                text = self.data[start:quote].replace(b'""', b'"')
                return text, problem, self._after(quote + 1, following)
            else:  # a lone quote: noted, and the field goes on to the next quote
                problem = problem or "Quote inside a string has to be escaped by another quote"
                scan = quote + 1

    def _after(self, stop, following):
        """Step past the byte that ended a field; True at the end of a record (a newline, '\\r\\n' or the file's end)."""
        self.pos = stop + 1
        if following == self._delim:
            return False
        if following == b"\r" and self.data[self.pos : self.pos + 1] == b"\n":
            self.pos += 1
        return True


# -- values -----------------------------------------------------------------------------------------
def _not_valid(index, dtype, text):
    shown = text.decode("utf-8", errors="backslashreplace")
    return f"Field {index} in record is not a valid {_MESSAGE_DTYPE.get(dtype, dtype)}: {shown}"


def _value(text, col, index, na_value):
    """The field as a NumPy scalar of its column's dtype, or bytes; raises TF's message for what TF refuses."""
    if text == b"" or text == na_value:
        if col.default is None:
            raise InvalidArgumentError(f"Field {index} is required but missing in record!")
        return col.default
    if col.dtype == STRING:
        return text
    if col.dtype in _INT_RANGE:
        digits = _INT.match(text)
        low, high = _INT_RANGE[col.dtype]
        if digits is None or not low <= int(digits.group(1)) <= high:
            raise InvalidArgumentError(_not_valid(index, col.dtype, text))
        return int(digits.group(1))
    number = _FLOAT.match(text)
    if number is None:
        raise InvalidArgumentError(_not_valid(index, col.dtype, text))
    decimal_text, hex_text, special = number.groups()
    if special is not None:
        negative = special.startswith(b"-")
        value = (
            float("nan") if special.lstrip(b"+-").lower().startswith(b"nan") else (-math.inf if negative else math.inf)
        )
    elif hex_text is not None:
        value = float.fromhex(hex_text.decode("ascii"))
    else:
        value = float(decimal_text)
        if col.dtype == "float32":
            return _to_float32(decimal_text, value)
    if col.dtype == "float32":
        with np.errstate(over="ignore"):  # beyond float32's range is inf, as strtof gives, without a warning
            return np.float32(value)
    return value


def _to_float32(text, value):
    """Decimal ``text`` rounded once to float32, as strtof does.

    ``value`` is the double nearest the text; casting it rounds a second time,
    which is wrong only where the double lies exactly midway between two
    float32s: then the exact decimal decides the side.
    """
    magnitude = abs(value)
    if magnitude <= _FLOAT32_MAX and magnitude >= _FLOAT32_TINY:
        rounded = np.float32(value)  # no overflow possible: no warning to silence
        if float(rounded) == value or (math.frexp(value)[0] * 2.0**25) % 2.0 != 1.0:
            return rounded  # exact, or not a midpoint (a midpoint's 25th significant bit is its last)
    with np.errstate(over="ignore"):
        rounded = np.float32(value)
        if float(rounded) == value or not math.isfinite(magnitude):
            return rounded
        near = abs(rounded)
        if float(near) < magnitude:
            low, high = near, np.nextafter(near, np.float32(np.inf))
        else:
            low, high = np.nextafter(near, np.float32(0)), near
    top = float(high) if np.isfinite(high) else 2.0**128  # where float32 rounding overflows to inf
    if magnitude != (float(low) + top) / 2:
        return rounded
    exact = abs(decimal.Decimal(text.decode("ascii")))
    if exact == decimal.Decimal(magnitude):
        return rounded  # a true tie: the cast's round-half-to-even is strtof's too
    side = low if exact < decimal.Decimal(magnitude) else high
    return np.float32(math.copysign(float(side), value))


# -- records ----------------------------------------------------------------------------------------
class RecordReader:
    """The records of one CSV file's bytes as tuples of Python/NumPy scalars and bytes, one per output column.

    ``select`` (sorted column indices) or ``exclude`` (a set) pick the file's
    columns. Like TF's reader, a bad record is read to its end before its
    first problem is raised, and the next record can still be read.
    """

    def __init__(self, data, columns, delim=b",", use_quote_delim=True, na_value=b"", select=None, exclude=None):
        self._scanner = _Scanner(data, delim, use_quote_delim)
        self._columns = columns
        self._na_value = na_value
        self._select = select
        self._exclude = exclude or ()

    def __iter__(self):
        return self

    def __next__(self):
        if self._scanner.at_end():
            raise StopIteration
        values, problem = self._record()
        if problem is not None:
            raise InvalidArgumentError(problem)
        if len(values) != len(self._columns):
            raise InvalidArgumentError(f"Expect {len(self._columns)} fields but have {len(values)} in record")
        return tuple(values)

    def _wanted(self, index, taken):
        if self._select is not None:
            return taken < len(self._select) and self._select[taken] == index
        return not self._exclude or index not in self._exclude

    def _record(self):
        """One record's values and its first problem (TF keeps reading a bad record to its end)."""
        values, problem, index, end = [], None, 0, False
        while not end:
            text, trouble, end = self._scanner.field()
            if self._wanted(index, len(values)):
                if len(values) == len(self._columns):
                    trouble = trouble or f"Expect {len(self._columns)} fields but have more in record"
                elif trouble is None:
                    try:
                        values.append(_value(text, self._columns[len(values)], len(values), self._na_value))
                    except InvalidArgumentError as exc:
                        trouble = exc.message
            problem = problem or trouble
            index += 1
        return values, problem


def read_header(data, delim=b",", use_quote_delim=True):
    """The header record's fields and the bytes after it; TF's "Can't read header of file" where there is none."""
    scanner = _Scanner(data, delim, use_quote_delim)
    fields, end = [], scanner.at_end()
    if end:
        raise InvalidArgumentError("Can't read header of file")
    while not end:
        text, trouble, end = scanner.field()
        if trouble is not None:
            raise InvalidArgumentError("Can't read header of file")
        fields.append(text)
    return fields, data[scanner.pos :]


def raw_records(data, delim=b",", use_quote_delim=True, count=None):
    """The first ``count`` records (all when None) as lists of field bytes; TF's message for a malformed one."""
    scanner = _Scanner(data, delim, use_quote_delim)
    rows = []
    while not scanner.at_end() and (count is None or len(rows) < count):
        fields, end = [], False
        while not end:
            text, trouble, end = scanner.field()
            if trouble is not None:
                raise InvalidArgumentError(trouble)
            fields.append(text)
        rows.append(fields)
    return rows
