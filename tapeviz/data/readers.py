"""The tf.data sources that read files: ``TextLineDataset`` and the CSV readers.

Files are read as text with Python's ``csv`` module; nothing in a file is
evaluated. Text comes out as ``tf.string`` tensors (``tapeviz.data.strings``),
numbers as tensors of the dtypes TF gives them.
"""

import glob
import gzip
import os
import zlib

import numpy as np

from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.tensor import Tensor
from tapeviz.data import csv_format, strings
from tapeviz.data.dataset import UNKNOWN, Dataset

__all__ = ["TextLineDataset", "CsvDataset", "make_csv_dataset"]


# -- text files -------------------------------------------------------------------------------
def _file_names(filenames):
    """``filenames`` as a list of paths: a str, bytes, a list of them, or a dataset of them."""
    if isinstance(filenames, Dataset):
        return [_decode(f) for f in filenames]
    if isinstance(filenames, (str, bytes, os.PathLike)):
        return [_decode(filenames)]
    if isinstance(filenames, (np.ndarray, Tensor)):
        return [_decode(f) for f in np.asarray(filenames).reshape(-1)]
    return [_decode(f) for f in filenames]


def _decode(name):
    if isinstance(name, Tensor):  # a string tensor holding one file name
        name = name.numpy()
    if isinstance(name, bytes):
        return name.decode("utf-8")
    return os.fspath(name)


def _lines(path):
    """The lines of a file as TF reads them: split on '\\n', a trailing '\\r' dropped, no final empty line."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def TextLineDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):  # noqa: N802
    """The lines of one or more text files, in order, as ``tf.string`` tensors (``.numpy()`` gives bytes).

    ``compression_type`` other than None or '' is not supported.

    Args:
        filenames: a file name or a list of them.
        compression_type: None or ``""`` only.
        buffer_size: accepted for TensorFlow compatibility.
        num_parallel_reads: accepted for TensorFlow compatibility.
        name: accepted for TensorFlow compatibility.

    Returns:
        A Dataset of scalar string tensors, one per line.
    """
    if compression_type not in (None, ""):
        raise NotImplementedError(f"TextLineDataset(compression_type={compression_type!r}) is not supported.")
    names = _file_names(filenames)

    def make_iterator():
        for path in names:
            for line in _lines(path):
                yield strings.element(line)

    return Dataset(make_iterator, UNKNOWN)


# -- CSV --------------------------------------------------------------------------------------
_DECOMPRESS = {"": None, "GZIP": gzip.decompress, "ZLIB": zlib.decompress}


def _file_bytes(path, compression_type):
    kind = compression_type or ""
    if kind not in _DECOMPRESS:
        raise ValueError(f"compression_type must be '', 'GZIP' or 'ZLIB', not {compression_type!r}.")
    with open(path, "rb") as f:
        data = f.read()
    return _DECOMPRESS[kind](data) if _DECOMPRESS[kind] else data


def _as_bytes(text, what):
    value = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    if what == "field_delim" and len(value) != 1:
        raise ValueError(f"field_delim must be one character (one byte), got {text!r}.")
    return value


def _checked_columns(indices, what):
    if indices is None:
        return None
    indices = [int(i) for i in indices]
    if any(i < 0 for i in indices) or any(a >= b for a, b in zip(indices, indices[1:])):
        raise InvalidArgumentError(f"{what} should be strictly increasing indices")
    return indices


class _CsvRecords:
    """CsvDataset's iterator: the files' records in order; after a bad record, ``next()`` goes on with the next one."""

    def __init__(self, paths, columns, options):
        self._paths = iter(paths)
        self._columns = columns
        self._options = options
        self._records = iter(())

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            for values in self._records:
                return tuple(_leaf(v, c.dtype) for v, c in zip(values, self._columns))
            self._records = self._open(next(self._paths))

    def _open(self, path):
        options = dict(self._options)
        data = _file_bytes(path, options.pop("compression_type"))
        if options.pop("header"):
            self._records = iter(())  # a file whose header is bad yields nothing more after the error
            data = csv_format.read_header(data, options["delim"], options["use_quote_delim"])[1]
        return csv_format.RecordReader(data, self._columns, **options)


def _leaf(value, dtype):
    if dtype == csv_format.STRING:
        return strings.element(value)
    return Tensor(np.asarray(value, dtype=dtype))


def CsvDataset(  # noqa: N802
    filenames,
    record_defaults,
    compression_type=None,
    buffer_size=None,
    header=False,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    select_cols=None,
    exclude_cols=None,
):
    """One tuple of scalars per CSV record, as ``tf.data.experimental.CsvDataset``.

    ``record_defaults`` has one entry per (selected) column: a dtype makes
    the field required, a value is used when the field is empty (as in TF,
    the ints 1, 2, 3, 7 and 9 are dtype enums: float32, float64, int32,
    string, int64). Parsing is TF's: RFC 4180 quotes, ASCII numbers (C
    whitespace around them allowed, hex floats, inf and nan), strings kept
    as the file's bytes, and ``InvalidArgumentError`` with TF's message for a
    malformed record (``Dataset.ignore_errors`` skips it and goes on).
    """
    columns = [csv_format.column(d) for d in record_defaults]
    names = _file_names(filenames)
    if select_cols is not None and exclude_cols is not None:
        raise ValueError("Either select_cols or exclude_cols should be specified, not both.")
    if select_cols is not None and len(select_cols) != len(columns):
        raise ValueError(
            f"Expected len(select_cols) == len(record_defaults), got {len(select_cols)} and {len(columns)}."
        )
    if compression_type not in _DECOMPRESS and compression_type is not None:
        raise ValueError(f"compression_type must be '', 'GZIP' or 'ZLIB', not {compression_type!r}.")
    options = {
        "compression_type": compression_type,
        "header": bool(header),
        "delim": _as_bytes(field_delim, "field_delim"),
        "use_quote_delim": bool(use_quote_delim),
        "na_value": _as_bytes(na_value, "na_value"),
        "select": _checked_columns(select_cols, "select_cols"),
        "exclude": set(_checked_columns(exclude_cols, "exclude_cols") or ()),
    }
    return Dataset(lambda: _CsvRecords(names, columns, options), UNKNOWN)


def _first_rows(path, field_delim, use_quote_delim, header, count, encoding):
    """The first file's header names (or None) and its first ``count`` records as lists of text."""
    delim = _as_bytes(field_delim, "field_delim")
    data = _file_bytes(path, None)
    names = None
    if header:
        fields, data = csv_format.read_header(data, delim, use_quote_delim)
        names = [f.decode(encoding) for f in fields]
    rows = csv_format.raw_records(data, delim, use_quote_delim, count)
    return names, [[f.decode(encoding, errors="replace") for f in row] for row in rows]


def _fits(text, kind):
    """TF's inference test for one value (NumPy's parsing of the text, as make_csv_dataset's Python does)."""
    try:
        if kind in ("int32", "int64"):
            number = int(text)
            bits = 31 if kind == "int32" else 63
            return -(2**bits) <= number < 2**bits
        with np.errstate(over="ignore"):
            return bool(np.asarray(float(text), dtype=kind) < np.inf)
    except ValueError:
        return False


_NUMPY = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
_INFERENCE_ORDER = ["int32", "int64", "float32", "float64", csv_format.STRING]


def _infer_type(texts, na_value):
    """TF's column inference: the first of int32, int64, float32, float64, string that every value fits (no value: string)."""
    kind = None
    for text in texts:
        if text in ("", na_value):
            continue
        start = _INFERENCE_ORDER.index(kind or "int32")
        kind = next(k for k in _INFERENCE_ORDER[start:] if k == csv_format.STRING or _fits(text, k))
    return kind or csv_format.STRING


def make_csv_dataset(
    file_pattern,
    batch_size,
    column_names=None,
    column_defaults=None,
    label_name=None,
    select_columns=None,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    header=True,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    num_parallel_reads=None,
    sloppy=False,
    num_rows_for_inference=100,
    compression_type=None,
    ignore_errors=False,
    encoding="utf-8",
):
    """Batches of ``(features, label)`` (or ``features``) read from CSV files, as TF's helper.

    ``features`` is a dict of column name to a batch; column types are
    inferred from the first ``num_rows_for_inference`` rows as TF infers them
    (the first of int32, int64, float32, float64, string that all values fit)
    unless ``column_defaults`` gives them; ``ignore_errors=True`` skips
    malformed records. As in TF, the default
    ``num_epochs=None`` repeats forever and ``shuffle=True`` shuffles.
    """
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes, os.PathLike)) else list(file_pattern)
    paths = sorted({p for pattern in patterns for p in glob.glob(_decode(pattern))})
    if not paths:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    header_names, rows = _first_rows(paths[0], field_delim, use_quote_delim, header, num_rows_for_inference, encoding)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header=True`: the column names must come from somewhere.")
        column_names = header_names
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Cannot have duplicate column names.")
    if select_columns is not None:
        selected = [column_names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
        if any(isinstance(c, str) and c not in column_names for c in select_columns):
            raise ValueError(f"Some `select_columns` are not in the column names {column_names}.")
        selected = sorted(selected)
    else:
        selected = list(range(len(column_names)))
    names = [column_names[i] for i in selected]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: {label_name}.")
    if column_defaults is None:
        if any(len(row) != len(column_names) for row in rows):
            raise ValueError("Problem inferring types: CSV row has different number of fields than expected.")
        kinds = [_infer_type([row[i] for row in rows], na_value) for i in selected]
        column_defaults = [np.zeros((), _NUMPY[k])[()] if k != csv_format.STRING else "" for k in kinds]
    records = CsvDataset(
        paths,
        column_defaults,
        header=header,
        field_delim=field_delim,
        use_quote_delim=use_quote_delim,
        na_value=na_value,
        select_cols=selected,
    )
    if ignore_errors:
        records = records.ignore_errors()

    def to_features(*values):
        features = dict(zip(names, values))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    dataset = records
    if shuffle:  # shuffle, then repeat, as TF: each epoch is a whole permutation
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    return dataset.batch(batch_size).map(to_features)
