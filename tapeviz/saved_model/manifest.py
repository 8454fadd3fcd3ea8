"""A SavedModel folder's names and its manifest (``tapeviz_saved_model.json``), read as data and checked."""

import json
import os
import re

from tapeviz.core.files import (
    FileFormatError,
)

MANIFEST = "tapeviz_saved_model.json"


FORMAT = "tapeviz-saved-model"


_DATA_FILE = re.compile(r"^(variables(-[0-9a-f]{16})?\.npz|model(-[0-9a-f]{16})?\.keras)$")


NUMERIC_KINDS = "biufc"


_MAX_MANIFEST_BYTES = 64 << 20


def read_manifest(path):
    if os.path.getsize(path) > _MAX_MANIFEST_BYTES:
        raise FileFormatError(f"{path} is larger than any tapeviz SavedModel manifest.")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"{path} is not a tapeviz SavedModel manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise FileFormatError(f"{path} is not a tapeviz SavedModel manifest.")
    if manifest.get("kind") == "keras":
        return manifest
    if manifest.get("kind") != "module":
        raise FileFormatError(f"{path}: unknown kind of saved object {manifest.get('kind')!r}.")
    problem = _manifest_problem(manifest)
    if problem:
        raise FileFormatError(f"{path} is malformed: {problem}.")
    return manifest


def _manifest_problem(manifest):
    """What is wrong with a module manifest's shape, or None: checked before anything is built from it."""
    info = manifest.get("class")
    if not isinstance(info, dict) or not all(isinstance(info.get(k, ""), str) for k in ("name", "qualname")):
        return "'class' must name the class as text"
    variables = manifest.get("variables")
    if not isinstance(variables, list):
        return "'variables' must be a list"
    for v in variables:
        if not isinstance(v, dict) or not isinstance(v.get("path"), str) or not v["path"]:
            return "each variable needs a 'path'"
        if not isinstance(v.get("name"), str) or not isinstance(v.get("trainable", True), bool):
            return "each variable needs a 'name' and a boolean 'trainable'"
        shape = v.get("shape")
        if not isinstance(shape, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
            return "each variable's 'shape' must be a list of sizes"
        if not isinstance(v.get("dtype"), str):
            return "each variable needs a 'dtype'"
    functions = manifest.get("functions", {})
    if not isinstance(functions, dict):
        return "'functions' must be a dict"
    for specs in functions.values():
        if specs is not None and not (
            isinstance(specs, list)
            and all(isinstance(s, dict) and isinstance(s.get("dtype"), str) for s in specs)
            and all(s.get("shape") is None or isinstance(s.get("shape"), list) for s in specs)
        ):
            return "each function's input signature must be a list of specs"
    return None


def data_file_name(manifest):
    """The data file's name, which must be one of the names ``save`` writes: never a path out of the folder."""
    default = "model.keras" if manifest.get("kind") == "keras" else "variables.npz"  # version 1 folders
    name = manifest.get("data_file", default)
    if not isinstance(name, str) or not _DATA_FILE.match(name):
        raise FileFormatError(f"The SavedModel manifest names an unexpected data file: {name!r}.")
    return name
