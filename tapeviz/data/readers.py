"""The tf.data sources that read: ``from_generator``'s checks, ``TextLineDataset``, and the CSV readers.

Files are read as text with Python's ``csv`` module; nothing in a file is
evaluated. Text comes out as string elements (``tapeviz.data.strings``),
numbers as tensors of the dtypes TF gives them.
"""

import csv
import glob
import io
import os

import numpy as np

from tapeviz.core import dtypes, nest
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.tensor import Tensor, convert_to_tensor
from tapeviz.core.tensor_spec import TensorSpec
from tapeviz.data import strings
from tapeviz.data.dataset import UNKNOWN, Dataset

__all__ = ["TextLineDataset", "CsvDataset", "make_csv_dataset", "generator_elements"]


# -- from_generator ---------------------------------------------------------------------------
def _signature(output_signature, output_types, output_shapes):
    if output_signature is not None:
        return output_signature
    if output_types is None:
        raise TypeError("from_generator needs `output_signature` (or the deprecated `output_types`).")
    if output_shapes is None:
        return nest.map_structure(lambda t: TensorSpec(None, t), output_types)
    flat = [
        TensorSpec(shape, dtype)
        for dtype, shape in zip(nest.flatten(output_types), _shapes(output_types, output_shapes))
    ]
    return nest.pack_sequence_as(output_types, flat)


def _shapes(types, shapes):
    if isinstance(types, (tuple, dict)):
        keys = sorted(types) if isinstance(types, dict) else range(len(types))
        return [s for k in keys for s in _shapes(types[k], shapes[k])]
    return [shapes]


def _shape_text(shape):
    return "(" + ", ".join("None" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _checked(value, spec):
    if getattr(spec.dtype, "name", None) == "string":
        return strings.element(strings.as_string_leaf(value))
    tensor = convert_to_tensor(value.numpy() if isinstance(value, Tensor) else value, dtype=spec.dtype)
    if not spec.is_compatible_with(tensor):
        raise InvalidArgumentError(
            f"TypeError: `generator` yielded an element of shape {_shape_text(tuple(tensor.shape))} where an element "
            f"of shape {_shape_text(tuple(spec.shape))} was expected."
        )
    return tensor


def generator_elements(generator, args, output_signature, output_types, output_shapes):
    """One pass of ``generator(*args)``, each element converted and checked against the signature."""
    signature = _signature(output_signature, output_types, output_shapes)
    specs = nest.flatten(signature)
    for value in generator(*(args or ())):
        if isinstance(signature, (tuple, dict)):
            if isinstance(signature, tuple) and (not isinstance(value, (tuple, list)) or len(value) != len(signature)):
                raise InvalidArgumentError(
                    f"TypeError: `generator` yielded an element that did not match the expected structure. The "
                    f"expected structure was {signature}, but the yielded element was {value!r}."
                )
            leaves = _flatten_like(signature, value)
        else:
            leaves = [value]
        yield nest.pack_sequence_as(signature, [_checked(v, s) for v, s in zip(leaves, specs)])


def _flatten_like(signature, value):
    if isinstance(signature, tuple):
        return [leaf for s, v in zip(signature, value) for leaf in _flatten_like(s, v)]
    if isinstance(signature, dict):
        return [leaf for key in sorted(signature) for leaf in _flatten_like(signature[key], value[key])]
    return [value]


# -- text files -------------------------------------------------------------------------------
def _file_names(filenames):
    """``filenames`` as a list of paths: a str, bytes, a list of them, or a dataset of them."""
    if isinstance(filenames, Dataset):
        return [_decode(f) for f in filenames]
    if isinstance(filenames, (str, bytes, os.PathLike)):
        return [_decode(filenames)]
    if isinstance(filenames, np.ndarray):
        return [_decode(f) for f in filenames.reshape(-1)]
    return [_decode(f) for f in filenames]


def _decode(name):
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
    """The lines of one or more text files, in order, as string elements (bytes, as TF's ``.numpy()``).

    ``compression_type`` other than None or '' is not supported.
    """
    if compression_type not in (None, ""):
        raise NotImplementedError(f"TextLineDataset(compression_type={compression_type!r}) is not supported.")
    names = _file_names(filenames)

    def make_iterator():
        for path in names:
            for line in _lines(path):
                yield strings.StringScalar(line)

    return Dataset(make_iterator, UNKNOWN)


# -- CSV --------------------------------------------------------------------------------------
_STRING = "string"


def _column_type(default):
    """A record default: a dtype (the field is required) or a value (used when the field is empty)."""
    if isinstance(default, (dtypes.DType, type)) or (isinstance(default, str) and default in ("string",)):
        name = getattr(default, "name", default)
        return (name if name != "str" else _STRING), None
    if isinstance(default, str) and default not in np.sctypeDict:
        return _STRING, default.encode("utf-8")
    if isinstance(default, bytes):
        return _STRING, default
    if isinstance(default, (list, tuple)) and len(default) == 1:
        return _column_type(default[0])
    if isinstance(default, Tensor):
        return default.dtype.name, default.numpy().item()
    if isinstance(default, bool):
        raise TypeError("CSV record defaults cannot be booleans; use an int or float.")
    if isinstance(default, int):
        return "int32", default
    if isinstance(default, float):
        return "float32", default
    try:
        return dtypes.as_dtype(default).name, None
    except (TypeError, ValueError):
        raise TypeError(f"{default!r} is not a CSV record default: give a dtype or a value (0, 0.0, '').") from None


def _parse_field(text, dtype, default, column, row_text):
    if text == "" or text is None:
        if default is None:
            raise InvalidArgumentError(f"Field {column} is required but missing in record!")
        return default
    if dtype == _STRING:
        return text.encode("utf-8")
    try:
        number = float(text) if np.dtype(dtype).kind == "f" else int(text)
    except ValueError:
        raise InvalidArgumentError(
            f"Field {column} in record is not a valid {dtype}: {text!r} (record: {row_text!r})."
        ) from None
    return number


def _records(path, header, field_delim, use_quote_delim):
    lines = _lines(path)
    if header:
        lines = lines[1:]
    reader = csv.reader(
        io.StringIO("\n".join(line.decode("utf-8") for line in lines)),
        delimiter=field_delim,
        quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE,
    )
    return [row for row in reader]


def _leaf(value, dtype):
    if dtype == _STRING:
        return strings.StringScalar(value)
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
    the field required, a value is used when the field is empty.
    """
    columns = [_column_type(d) for d in record_defaults]
    names = _file_names(filenames)
    if select_cols is not None and exclude_cols is not None:
        raise ValueError("Either select_cols or exclude_cols should be specified, not both.")
    if select_cols is not None and len(select_cols) != len(columns):
        raise ValueError(
            f"Expected len(select_cols) == len(record_defaults), got {len(select_cols)} and {len(columns)}."
        )

    def make_iterator():
        for path in names:
            for row in _records(path, header, field_delim, use_quote_delim):
                if select_cols is not None:
                    fields = [row[i] if i < len(row) else "" for i in select_cols]
                elif exclude_cols is not None:
                    fields = [f for i, f in enumerate(row) if i not in set(exclude_cols)]
                else:
                    fields = row
                if len(fields) != len(columns):
                    raise InvalidArgumentError(
                        f"Expect {len(columns)} fields but have {len(fields)} in record {row!r} of {path}."
                    )
                values = []
                for i, ((dtype, default), text) in enumerate(zip(columns, fields)):
                    text = "" if text == na_value else text
                    values.append(_leaf(_parse_field(text, dtype, default, i, row), dtype))
                yield tuple(values)

    return Dataset(make_iterator, UNKNOWN)


def _infer_type(texts):
    """TF's inference from the first rows: int32 if every value is an integer, else float32, else string."""
    kind = "int32"
    for text in texts:
        if text == "":
            continue
        try:
            int(text)
            continue
        except ValueError:
            pass
        try:
            float(text)
            kind = "float32"
        except ValueError:
            return _STRING
    return kind


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
    inferred from the first ``num_rows_for_inference`` rows (int32, float32
    or string) unless ``column_defaults`` gives them. As in TF, the default
    ``num_epochs=None`` repeats forever and ``shuffle=True`` shuffles.
    """
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes, os.PathLike)) else list(file_pattern)
    paths = sorted({p for pattern in patterns for p in glob.glob(_decode(pattern))})
    if not paths:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    first = _records(paths[0], False, field_delim, use_quote_delim)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header=True`: the column names must come from somewhere.")
        column_names = list(first[0])
    body = first[1:] if header else first
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
        rows = body[:num_rows_for_inference]
        column_defaults = []
        for i in selected:
            kind = _infer_type([row[i] if i < len(row) else "" for row in rows])
            column_defaults.append({"int32": 0, "float32": 0.0, _STRING: ""}[kind])
    records = CsvDataset(
        paths,
        column_defaults,
        header=header,
        field_delim=field_delim,
        use_quote_delim=use_quote_delim,
        na_value=na_value,
        select_cols=selected,
    )

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
