"""The checkpoint files: what they hold, how they are written, and how they are read back as data.

A checkpoint written at ``prefix`` is two files (TF's names, tapeviz's own
contents; TensorFlow cannot read them, nor tapeviz TensorFlow's):

- ``prefix.data-00000-of-00001``: a NumPy ``.npz`` archive; member ``<i>``
  is the i-th variable's value.
- ``prefix.index``: JSON, ``{"format": "tapeviz.checkpoint", "version": 1,
  "variables": [{"key": ..., "dtype": ..., "shape": [...]}, ...], "aliases":
  {other path: key}}`` in the archive's order. A key is the variable's path of attributes from the root
  followed by ``.ATTRIBUTES/VARIABLE_VALUE``, as TF writes it.

A folder of checkpoints also holds ``checkpoint``, TF's text state file
(``model_checkpoint_path: "ckpt-3"``, ``all_model_checkpoint_paths``,
timestamps) naming checkpoints in that folder. Each file is written
atomically (the data file first, then the index that describes it); reading
parses JSON and ``.npz`` without pickles, compares each value's declared dtype
and shape with the variable it fills before inflating it, inflates no more
than those bytes, and never resolves a name.
"""

import json
import os
import re

import numpy as np

from tapeviz.core.errors import NotFoundError
from tapeviz.core.files import (
    FileFormatError,
    NpzArrays,
    atomic_write,
    remove_stale_temporaries,
)

__all__ = [
    "DATA_SUFFIX",
    "INDEX_SUFFIX",
    "STATE_FILE",
    "write_checkpoint",
    "read_index",
    "read_values",
    "read_state",
    "write_state",
    "remove_checkpoint",
    "resolve",
]

DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"
STATE_FILE = "checkpoint"
_FORMAT = "tapeviz.checkpoint"
_NUMERIC_KINDS = "biufc"
_KEY = re.compile(r"^(?:[^/]+/)+\.ATTRIBUTES/VARIABLE_VALUE$")
_MAX_INDEX_BYTES = 64 << 20


def write_checkpoint(prefix, items, aliases=None):
    """Write ``{key: array}`` at ``prefix``: the data file, then the index naming it. Returns ``prefix``.

    ``aliases`` (``{other path: key}``) names variables reachable by more than one path.
    """
    prefix = os.fspath(prefix)
    folder = os.path.dirname(prefix)
    if folder:
        os.makedirs(folder, exist_ok=True)
    keys = sorted(items)
    arrays = [np.asarray(items[key]) for key in keys]
    with atomic_write(prefix + DATA_SUFFIX) as f:
        np.savez(f, **{str(i): array for i, array in enumerate(arrays)})
    index = {
        "format": _FORMAT,
        "version": 1,
        "variables": [
            {"key": key, "dtype": array.dtype.name, "shape": list(array.shape)} for key, array in zip(keys, arrays)
        ],
        "aliases": dict(sorted((aliases or {}).items())),
    }
    with atomic_write(prefix + INDEX_SUFFIX) as f:
        f.write(json.dumps(index, indent=1).encode("utf-8"))
    return prefix


def _missing(prefix):
    return NotFoundError(
        f"Error when restoring from checkpoint or SavedModel at {prefix}: Unsuccessful TensorSliceReader "
        f"constructor: Failed to find any matching files for {prefix}\nPlease double-check that the path is "
        "correct. You may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1')."
    )


def read_index(prefix):
    """The index's list of ``{"key", "dtype", "shape"}``, checked; ``NotFoundError`` if there is no checkpoint."""
    path = os.fspath(prefix) + INDEX_SUFFIX
    remove_stale_temporaries(os.path.dirname(path))  # what a save killed midway left in this folder
    try:
        if os.path.getsize(path) > _MAX_INDEX_BYTES:
            raise FileFormatError(f"{path} is larger than any checkpoint index tapeviz writes.")
        with open(path, "rb") as f:
            index = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise _missing(prefix) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise FileFormatError(f"{path} is not a tapeviz checkpoint index (JSON): {exc}") from None
    problem = _index_problem(index)
    if problem:
        raise FileFormatError(f"{path} is not a tapeviz checkpoint index: {problem}.")
    return index["variables"]


def read_aliases(prefix):
    """The index's ``{other path: key}`` (checked: every alias names a key of the index)."""
    path = os.fspath(prefix) + INDEX_SUFFIX
    with open(path, "rb") as f:
        index = json.loads(f.read().decode("utf-8"))
    aliases = index.get("aliases", {}) if isinstance(index, dict) else {}
    keys = {info["key"] for info in read_index(prefix)}
    if not isinstance(aliases, dict) or not all(
        isinstance(a, str) and isinstance(k, str) and _KEY.match(a) and a not in keys and k in keys
        for a, k in aliases.items()
    ):
        raise FileFormatError(f"{path}: 'aliases' must map other paths to keys of the index.")
    return aliases


def _index_problem(index):
    if not isinstance(index, dict) or index.get("format") != _FORMAT:
        return f"it does not say format {_FORMAT!r} (a TensorFlow checkpoint cannot be read by tapeviz)"
    if set(index) - {"format", "version", "variables", "aliases"}:
        return f"it has unexpected entries {sorted(set(index) - {'format', 'version', 'variables', 'aliases'})}"
    if index.get("version") != 1:
        return f"version {index.get('version')!r} is not one this tapeviz reads (1)"
    variables = index.get("variables")
    if not isinstance(variables, list):
        return "'variables' is not a list"
    keys = set()
    for i, info in enumerate(variables):
        if not isinstance(info, dict) or set(info) != {"key", "dtype", "shape"}:
            return f"entry {i} is not {{'key', 'dtype', 'shape'}}"
        key, dtype, shape = info["key"], info["dtype"], info["shape"]
        if not isinstance(key, str) or not _KEY.match(key) or key in keys:
            return f"entry {i} has a malformed or repeated key {key!r}"
        keys.add(key)
        if not isinstance(dtype, str) or dtype not in np.sctypeDict or np.dtype(dtype).kind not in _NUMERIC_KINDS:
            return f"entry {i} ({key}) has dtype {dtype!r}, not a number type"
        if (
            not isinstance(shape, list)
            or len(shape) > 32
            or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**40 for n in shape)
        ):
            return f"entry {i} ({key}) has a malformed shape {shape!r}"
    return None


def read_values(prefix, variables):
    """The values of the checkpoint at ``prefix`` (``variables``: its index) by key, read as asked
    (:class:`tapeviz.core.files.NpzArrays`, the reader SavedModel shares)."""
    declared = {info["key"]: (f"{i}.npy", info["dtype"], info["shape"]) for i, info in enumerate(variables)}
    return NpzArrays(os.fspath(prefix) + DATA_SUFFIX, declared, "the checkpoint's values")


def remove_checkpoint(prefix):
    """Delete the two files of the checkpoint at ``prefix`` (those that exist)."""
    for suffix in (INDEX_SUFFIX, DATA_SUFFIX):
        try:
            os.remove(prefix + suffix)
        except FileNotFoundError:
            pass


# -- the state file -------------------------------------------------------------------------
_STATE_LINE = re.compile(r'^([a-z_]+): (?:"((?:[^"\\]|\\.)*)"|([0-9.eE+-]+))$')
_STATE_STRINGS = ("model_checkpoint_path", "all_model_checkpoint_paths")
_STATE_NUMBERS = ("all_model_checkpoint_timestamps", "last_preserved_timestamp")


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_state(folder, latest, paths, timestamps=None, last_preserved=None):
    """Write ``folder/checkpoint`` naming ``latest`` and ``paths`` (checkpoint names in ``folder``)."""
    lines = [f"model_checkpoint_path: {_quote(os.path.basename(latest))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(os.path.basename(p))}" for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps or ()]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    with atomic_write(os.path.join(folder, STATE_FILE)) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))


def read_state(folder):
    """The state file of ``folder`` as a dict, or None if there is none. Names must be files in ``folder``."""
    path = os.path.join(os.fspath(folder), STATE_FILE)
    try:
        if os.path.getsize(path) > _MAX_INDEX_BYTES:
            raise FileFormatError(f"{path} is larger than any checkpoint state file.")
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path} is not a checkpoint state file: {exc}") from None
    state = {"model_checkpoint_path": None, "all_model_checkpoint_paths": [], "all_model_checkpoint_timestamps": []}
    state["last_preserved_timestamp"] = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _STATE_LINE.match(line.strip())
        name = match.group(1) if match else None
        if name in _STATE_STRINGS and match.group(2) is not None:
            value = re.sub(r"\\(.)", r"\1", match.group(2))
            if not value or value in (".", "..") or "/" in value or "\\" in value or "\0" in value:
                raise FileFormatError(f"{path}, line {number}: {value!r} is not a checkpoint name in this folder.")
            value = os.path.join(folder, value)
        elif name in _STATE_NUMBERS and match.group(3) is not None:
            try:
                value = float(match.group(3))
            except ValueError:
                raise FileFormatError(f"{path}, line {number}: {line!r} is not a number.") from None
        else:
            raise FileFormatError(f"{path}, line {number}: {line[:80]!r} is not a line of a checkpoint state file.")
        if name == "model_checkpoint_path" or name == "last_preserved_timestamp":
            state[name] = value
        else:
            state[name].append(value)
    return state


def resolve(path):
    """A folder means its latest checkpoint (as ``tf.train.list_variables`` takes either)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        state = read_state(path)
        latest = state and state["model_checkpoint_path"]
        if not latest:
            raise _missing(path)
        return latest
    return path
