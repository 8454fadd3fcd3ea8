"""Every tapeviz module path the docs show imports as written (issue 32: ``import tapeviz.events``).

The paths are the API reference's pages (``api_modules`` in docs/conf.py, read with ast: importing
conf.py would build) and every ``tapeviz.x.y`` and ``from tapeviz.x import y`` in docs/*.md. A path
must resolve by attributes from ``import tapeviz``, and each part of it that is a tapeviz module
(or a Keras namespace such as ``tapeviz.keras.models``) must import by that name, so
``import tapeviz.errors`` works wherever ``tapeviz.errors`` is shown.
"""

import ast
import importlib
import pathlib
import re
import types

import pytest

import tapeviz

ROOT = next(p for p in pathlib.Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
DOCS = ROOT / "docs"
_MISSING = object()


def _api_modules():
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "api_modules" for t in node.targets):
            # a literal list with one generator of f-strings: evaluated alone, nothing else of conf.py runs
            return [entry[0] for entry in eval(compile(ast.Expression(node.value), "conf.py", "eval"), {})]
    raise AssertionError("docs/conf.py has no api_modules list")


def _doc_paths():
    paths, imports = set(), set()
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        paths |= set(re.findall(r"\btapeviz(?:\.[A-Za-z_]\w*)+", text))
        for module, names in re.findall(r"from (tapeviz(?:\.\w+)*) import ([\w, ]+)", text):
            # "from tapeviz.core.families import math as m": the name imported is "math"
            imports |= {(module, name.split()[0]) for name in names.split(",") if name.strip()}
    return paths, imports


PATHS, IMPORTS = _doc_paths()
PATHS |= set(_api_modules())


def _is_module_path(obj):
    tapeviz_module = isinstance(obj, types.ModuleType) and obj.__name__.startswith("tapeviz")
    return tapeviz_module or type(obj).__name__ == "_Namespace"


def test_the_paths_were_found():
    assert {"tapeviz.events", "tapeviz.errors", "tapeviz.keras.layers", "tapeviz.viz"} <= PATHS
    assert ("tapeviz.keras", "ops") in IMPORTS


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_path_the_docs_show_resolves_and_its_modules_import(path):
    parts = path.split(".")
    start = len(parts)
    while start > 1:  # the longest prefix that imports, then attributes (tapeviz.lessons.check)
        try:
            obj = importlib.import_module(".".join(parts[:start]))
            break
        except ModuleNotFoundError:
            start -= 1
    else:
        obj = tapeviz
    for end in range(start + 1, len(parts) + 1):
        obj = getattr(obj, parts[end - 1], _MISSING)
        assert obj is not _MISSING, f"{path}: tapeviz has no {'.'.join(parts[:end])}"
        if _is_module_path(obj):
            importlib.import_module(".".join(parts[:end]))  # raises ModuleNotFoundError if only an attribute


@pytest.mark.parametrize("module,name", sorted(IMPORTS))
def test_a_from_import_the_docs_show_works(module, name):
    assert hasattr(importlib.import_module(module), name), f"from {module} import {name}"


@pytest.mark.parametrize("module", ["tapeviz.events", "tapeviz.errors", "tapeviz.nest"])
def test_the_short_module_paths_import_in_a_fresh_interpreter(module):
    import subprocess
    import sys

    code = f"import {module}; from {module} import *; print({module}.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
