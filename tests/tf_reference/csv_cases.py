"""The CSV reader cases compared with TF 2.21: shared by csv_reference.py (TF) and tests/data/test_csv_format.py (tapeviz).

A case is ``name -> (file bytes, record_defaults, options)``. A default is a
value (0, 0.0, "x": the field may be empty) or ``("dtype", name)`` (the field
is required). ``options`` are CsvDataset's keyword arguments plus two of this
table: ``"ignore_errors": True`` reads through ``Dataset.ignore_errors()``,
``"make_csv": {...}`` reads with ``make_csv_dataset(batch_size=2,
shuffle=False, num_epochs=1, **that)`` instead. ``run`` returns the elements
read before the end or the first error, and the error's type and message, as
JSON-ready data. Nothing here imports TensorFlow or tapeviz.
"""

import math
import os

import numpy as np

REQUIRED_INT = ("dtype", "int32")
REQUIRED_STRING = ("dtype", "string")

CASES = {
    # the faults of issue 30
    "unterminated_quote": (b'1,"unterminated\n2,3\n', [0, ""], {}),
    "stray_quote_in_quoted": (b'2,"x"y"\n', [0, ""], {}),
    "underscore_digits": (b"1_000,a\n", [0, ""], {}),
    "arabic_indic_digit": ("\u0663,a\n".encode(), [0, ""], {}),
    "latin1_byte_kept": (b"1,\xe9\n", [0, ""], {}),
    "int32_overflow": (b"3000000000,a\n", [0, ""], {}),
    "int32_underflow": (b"-2147483649,1\n", [0, 0], {}),
    "float32_overflow_is_inf": (b"1e40,a\n", [0.0, ""], {}),
    # quoting (RFC 4180) and its malformed forms
    "quoted_escapes_and_newline": (b'"a""b","c\nd"\n', ["", ""], {}),
    "quoted_crlf_kept": (b'"a\r\nb",1\n', ["", 0], {}),
    "quoted_empty_takes_default": (b'"",x\n', ["d", ""], {}),
    "quoted_numbers": (b'"1","2.5"\n', [0, 0.0], {}),
    "quote_in_unquoted": (b'a"b,c\n', ["", ""], {}),
    "quote_at_end_of_unquoted": (b'ab"\n', [""], {}),
    "space_before_quote": (b' "a",c\n', ["", ""], {}),
    "space_after_quote": (b'"a" ,c\n', ["", ""], {}),
    "text_after_closing_quote": (b'"a"b,c\n', ["", ""], {}),
    "two_stray_quotes": (b'"a" ,"c"\n', ["", ""], {}),
    "escaped_then_stray": (b'"a"""b",c\n', ["", ""], {}),
    "lone_quote_line": (b'1,2\n"\n', [0, 0], {}),
    "quoted_field_at_eof": (b'"a"', [""], {}),
    "quote_then_cr": (b'"a"\r,b\n', [""], {}),
    "quotes_literal_without_quote_delim": (b'1,"a"b"\n', [0, ""], {"use_quote_delim": False}),
    "quoted_newline_without_quote_delim": (b'"a\nb",c\n', ["", ""], {"use_quote_delim": False}),
    # records and line ends
    "crlf_lines": (b"1,2\r\n3,4\r\n", [0, 0], {}),
    "cr_lines": (b"1,2\r3,4\r", [0, 0], {}),
    "no_final_newline": (b"1,2\n3,4", [0, 0], {}),
    "empty_line_is_a_record": (b"1,2\n\n3,4\n", [0, 0], {}),
    "empty_line_takes_default": (b"1\n\n", [8], {}),
    "empty_file": (b"", [0], {}),
    "too_many_fields": (b"1,2,3\n", [0, 0], {}),
    "too_few_fields": (b"1\n", [0, 0], {}),
    "trailing_delimiter": (b'1,"a",\n', [0, "", ""], {}),
    "required_missing": (b"1,\n", [0, REQUIRED_STRING], {}),
    "required_int_missing": (b",\n", [REQUIRED_INT, "d"], {}),
    "dtype_enum_ints_are_dtypes": (b"1,2\n", [1, 3], {}),
    "semicolon_delimiter": (b'1;"a;b"\n', [0, ""], {"field_delim": ";"}),
    "tab_delimiter": (b"1\t2\n", [0, 0], {"field_delim": "\t"}),
    "na_value_quoted_and_not": (b'NA,"NA",1\n', [5, "d", 0], {"na_value": "NA"}),
    "select_cols": (b"1,2,3,4\n", [0, 0], {"select_cols": [0, 2]}),
    "select_cols_short_record": (b"1,2\n", [0, 0], {"select_cols": [0, 2]}),
    "select_cols_required_missing": (b"1,2,\n", [0, REQUIRED_INT], {"select_cols": [0, 2]}),
    "exclude_cols": (b"1,2,3,4\n", [0, 0], {"exclude_cols": [0, 1]}),
    "header_skipped": (b'"a\nb",c\n1,2\n', [0, 0], {"header": True}),
    "header_empty_file": (b"", [0, 0], {"header": True}),
    "header_malformed": (b'a"b,c\n1,2\n', [0, 0], {"header": True}),
    "header_only": (b"a,b", [0, 0], {"header": True}),
    # numbers: ASCII only, TF's whitespace, signs, hex floats, inf and nan
    "int_whitespace_and_signs": (b" 1, +2 ,\t-3,\x0b4\x0c\n", [0, 0, 0, 0], {}),
    "int_leading_zeros": (b"00012,-0\n", [0, 0], {}),
    "int_hex_refused": (b"0x10,1\n", [0, 0], {}),
    "int_decimal_point_refused": (b"1.5,1\n", [0, 0], {}),
    "int_inner_space_refused": (b"1 2,1\n", [0, 0], {}),
    "int_blank_is_not_empty": (b" ,1\n", [0, 0], {}),
    "int_nul_byte": (b"1\x002,1\n", [0, 0], {}),
    "int_bom_refused": (b"\xef\xbb\xbf1,2\n", [0, 0], {}),
    "int32_limits": (b"2147483647,-2147483648\n", [0, 0], {}),
    "int64_limits": (b"9223372036854775807,-9223372036854775808\n", [("dtype", "int64"), ("dtype", "int64")], {}),
    "int64_overflow": (b"9223372036854775808,1\n", [("dtype", "int64"), 0], {}),
    "float_forms": (b"1.,.5,+.5,-.5e-3,1E5,0001.5000,1e+5\n", [0.0] * 7, {}),
    "float_specials": (b"inf,-Infinity,NaN,nan(123),+nan,iNfInItY\n", [0.0] * 6, {}),
    "float_hex": (b"0x1.8p1,0X1P3,0x10,0x1.,0x.8,0x1p-200\n", [0.0] * 6, {}),
    "double_hex_small": (b"0x1p-200\n", [("dtype", "float64")], {}),
    "float_underscore_refused": (b"1_0.5\n", [0.0], {}),
    "float_bad_exponent": (b"1e\n", [0.0], {}),
    "double_bad_suffix": (b"1.5f\n", [("dtype", "float64")], {}),
    "float_arabic_indic_refused": ("\u0663.5\n".encode(), [0.0], {}),
    "float32_rounds_once": (b"3.4028235677973366e38,3.4028236e38,7e-46,1.401298464324817e-45\n", [0.0] * 4, {}),
    "float32_underflow_and_negative_zero": (b"1e-50,-0.0,1e-46\n", [0.0] * 3, {}),
    "double_overflow_is_inf": (b"1.7976931348623157e308,1e309\n", [("dtype", "float64")] * 2, {}),
    "bytes_default": (b"\xff,\n", ["", b"\xfe"], {}),
    # ignore_errors: the bad record is skipped and reading goes on where TF goes on
    "ignore_bad_int": (b"1\nx\n3\n", [0], {"ignore_errors": True}),
    "ignore_unterminated": (b'1,"unterminated\n2,3\n', [0, ""], {"ignore_errors": True}),
    "ignore_quote_in_unquoted": (b'a"b,c\n1,2\nd,e\n', ["", ""], {"ignore_errors": True}),
    "ignore_bad_first_field": (b"x,1,2\n3,4\n", [0, 0], {"ignore_errors": True}),
    "ignore_too_many_fields": (b"1,2,3\n4,5\n", [0, 0], {"ignore_errors": True}),
    "ignore_stray_quote": (b'"a"b",c\n"d",e\n', ["", ""], {"ignore_errors": True}),
    "ignore_overflow_and_missing": (b"3000000000,1\n,2\n5,6\n", [REQUIRED_INT, 0], {"ignore_errors": True}),
    # make_csv_dataset: TF's type inference and ignore_errors
    "make_csv_inference": (b"a,b,c,d,e\n1,3000000000,1.5,x,\n2,,1e40,3,\n", None, {"make_csv": {}}),
    "make_csv_nan_column_is_string": (b"a,b\nnan,1\n1.5,2\n", None, {"make_csv": {}}),
    "make_csv_ignore_errors": (
        b"a,b\n1,2\nx,3\n4,5\n",
        None,
        {"make_csv": {"column_defaults": [0, 0], "ignore_errors": True}},
    ),
    "make_csv_bad_record_raises": (b"a,b\n1,2\nx,3\n4,5\n", None, {"make_csv": {"column_defaults": [0, 0]}}),
}


def _default(tf, spec):
    if isinstance(spec, tuple):
        # tapeviz has no string dtype: a required string column is given as the type ``bytes``
        return getattr(tf, spec[1], bytes)
    return spec


def plain(value):
    """One value as JSON-ready data: ["bytes", latin-1 text], [dtype, int] or [dtype, repr of the float]."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return ["bytes", value.decode("latin-1")]
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind == "S":
        return ["bytes", [bytes(v).decode("latin-1") for v in array.reshape(-1)]]
    if array.dtype.kind == "f":
        return [array.dtype.name, [_float(v) for v in array.reshape(-1).tolist()], list(array.shape)]
    return [array.dtype.name, array.reshape(-1).tolist(), list(array.shape)]


def _float(v):
    return "nan" if math.isnan(v) else repr(v)


def core_message(exc):
    """The error's own text: TF's graph-function prefix and ``[Op:...]`` suffix taken off."""
    text = str(exc)
    if "}} " in text:
        text = text.split("}} ", 1)[1]
    return text.split(" [Op:", 1)[0].strip()


def run(tf, name, folder):
    """Case ``name`` read with ``tf`` (TensorFlow or tapeviz): ``{"elements": [...], "error": null or [type, message]}``."""
    data, defaults, options = CASES[name]
    options = dict(options)
    path = os.path.join(folder, name + ".csv")
    with open(path, "wb") as f:
        f.write(data)
    if "make_csv" in options:
        dataset = tf.data.experimental.make_csv_dataset(
            path, batch_size=2, shuffle=False, num_epochs=1, **options.pop("make_csv")
        )
    else:
        ignore = options.pop("ignore_errors", False)
        dataset = tf.data.experimental.CsvDataset(path, [_default(tf, d) for d in defaults], **options)
        if ignore:
            dataset = dataset.ignore_errors()
    elements, error = [], None
    try:
        for element in dataset.as_numpy_iterator():
            elements.append(plain(element))
    except Exception as exc:  # noqa: BLE001  (what each library raises is the reference)
        error = [type(exc).__name__, core_message(exc)]
    return {"elements": elements, "error": error}
