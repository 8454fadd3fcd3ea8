"""Every code snippet in the docs runs, and prints what the page says it prints.

Why a pytest that reads the pages (and not Sphinx's doctest builder): the pages
stay plain Markdown code blocks, readable on GitHub and copyable without
``>>>`` prompts; each page runs in a fresh interpreter, top to bottom, as a
reader running it would; and the check runs with the rest of the suite,
without a second Sphinx build.

The convention the pages follow: every ```` ```python ```` block runs, in page
order, in one fresh ``python`` process per page (so a later block sees the
names an earlier one made). A ```` ```text ```` block right after a Python
block (only blank lines between) is what that block prints: the test compares
them line by line (trailing spaces ignored). Blocks in other languages
(``bash``) are not run.

The examples in the API docstrings (``>>>``) run too, with :mod:`doctest`, one
fresh namespace per docstring.
"""

import doctest
import inspect
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md") if "```python" in p.read_text(encoding="utf-8"))

FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")


def blocks(text):
    """The fenced blocks of a Markdown page: (language, code, first line number), in order."""
    found, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, language, start = match.group(1), match.group(2).lower(), i + 1
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        found.append((language, "\n".join(body) + "\n", start, i))
        i += 1
    return found


def snippets(page):
    """The page's Python blocks: (code, expected output or None, line number)."""
    text = (DOCS / page).read_text(encoding="utf-8")
    lines = text.splitlines()
    found = blocks(text)
    result = []
    for position, (language, code, start, end) in enumerate(found):
        if language not in ("python", "py", "python3"):
            continue
        expected = None
        if position + 1 < len(found):
            language_after, output, start_after, _ = found[position + 1]
            between = lines[end + 1 : start_after - 1]
            if language_after == "text" and not any(line.strip() for line in between):
                expected = output
        result.append((code, expected, start))
    return result


RUNNER = r"""
import contextlib, io, json, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__main__"}
results = []
for code, line in blocks:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"<docs block at line {line}>", "exec"), namespace)
    except BaseException:
        results.append({"line": line, "stdout": out.getvalue(), "error": traceback.format_exc()})
        break
    results.append({"line": line, "stdout": out.getvalue(), "error": None})
json.dump(results, open(sys.argv[2], "w"))
"""


def _normal(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


@pytest.mark.parametrize("page", PAGES)
def test_page_snippets_run_and_print_what_the_page_says(page, tmp_path):
    found = snippets(page)
    (tmp_path / "blocks.json").write_text(json.dumps([[code, line] for code, _, line in found]))
    (tmp_path / "runner.py").write_text(RUNNER)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("MPLBACKEND", None)
    run = subprocess.run(
        [sys.executable, str(tmp_path / "runner.py"), str(tmp_path / "blocks.json"), str(tmp_path / "out.json")],
        cwd=tmp_path,  # files a snippet writes land here
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"the runner failed:\n{run.stderr[-3000:]}"
    results = json.loads((tmp_path / "out.json").read_text())
    problems = []
    for (_code, expected, line), result in zip(found, results):
        if result["error"]:
            problems.append(f"docs/{page}:{line}: the block raised\n{result['error']}")
        elif expected is not None and _normal(result["stdout"]) != _normal(expected):
            problems.append(f"docs/{page}:{line}: the block printed\n{result['stdout']}\nbut the page says\n{expected}")
    assert len(results) == len(found) or problems, "the runner stopped early without an error"
    assert not problems, "\n\n".join(problems)


# -- the examples in the docstrings ----------------------------------------------------------
def _resolve(dotted):
    import importlib

    module = importlib.import_module(dotted.split(".")[0])
    for part in dotted.split(".")[1:]:
        module = getattr(module, part, None) or importlib.import_module(f"{module.__name__}.{part}")
    return module


def _documented_objects():
    """Every public function, class and method of the modules the API reference documents."""
    from tests.docs.test_api_reference import docs_conf, reference_objects

    modules = [name for name, _, _ in docs_conf().api_modules]  # every page of the reference
    seen, found = set(), []
    for name in modules:
        module = _resolve(name)
        for attribute in getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]:
            obj = getattr(module, attribute, None)
            if isinstance(obj, types.ModuleType) or obj is None or id(obj) in seen:
                continue
            seen.add(id(obj))
            found.append((f"{name}.{attribute}", obj))
            if inspect.isclass(obj):
                for member_name in dir(obj):  # inherited too: Model.fit is defined on a base class
                    member = getattr(obj, member_name, None)
                    if not member_name.startswith("_") and callable(member) and id(member) not in seen:
                        seen.add(id(member))
                        found.append((f"{name}.{attribute}.{member_name}", member))
    for name, obj, _ in reference_objects():  # what the pages add beyond __all__ (tf.show's Figure)
        if id(obj) not in seen:
            seen.add(id(obj))
            found.append((name, obj))
    return [(name, obj) for name, obj in found if ">>>" in (inspect.getdoc(obj) or "")]


EXAMPLES = _documented_objects()


def test_the_most_used_names_have_examples_to_run():
    names = {name for name, _ in EXAMPLES}
    for wanted in ("tapeviz.GradientTape.gradient", "tapeviz.keras.Model.fit", "tapeviz.saved_model.load"):
        assert wanted in names, f"{wanted} has no example"


FRESH_PRINT_OPTIONS = np.get_printoptions()  # read at collection, before any test ran in this process


@pytest.fixture
def fresh_session_recorder():
    """A docstring example runs as in a fresh interpreter, where importing the visualizer turns the
    session recorder on (other test modules turn it off for this process) and NumPy prints with its
    own defaults (a lesson run in this process may have asked for fewer digits)."""
    from tapeviz.viz import recorder

    was_on = recorder.is_watching()
    recorder.watch_all()
    with np.printoptions(**FRESH_PRINT_OPTIONS):
        yield
    if not was_on:
        recorder.stop_watching()


@pytest.mark.parametrize("name, obj", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_docstring_examples_run(name, obj, tmp_path, monkeypatch, fresh_session_recorder):
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, name, globs={})
    assert tests, f"{name}: no example found"
    for test in tests:
        runner.run(test, out=lambda text: None)
    result = runner.summarize(verbose=False)
    if result.failed:
        report = []
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in tests:
            runner.run(test, out=report.append)
        pytest.fail(f"{name}: {result.failed} example(s) failed\n" + "".join(report))


# -- the TF map's "Not available" section ----------------------------------------------------
def _not_available_names():
    text = (DOCS / "tf-map.md").read_text(encoding="utf-8")
    section = text.split("\n## Not available\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `tf.")]
    names = []
    for row in rows:
        names += re.findall(r"`(tf\.[A-Za-z_]\w*)`", row.split("|")[1])
    return names


def test_the_map_lists_what_is_not_available_and_those_names_are_absent():
    import tapeviz

    names = _not_available_names()
    for wanted in ("tf.numpy_function", "tf.Graph", "tf.lookup"):
        assert wanted in names, f"{wanted} is not in the map's 'Not available' section"
    present = [name for name in names if hasattr(tapeviz, name.split(".")[1])]
    assert not present, f"listed as not available, but tapeviz has them: {present} (move them to their section)"


@pytest.mark.parametrize("name", ["Operation", "raw_ops", "numpy_function"])
def test_an_absent_tf_name_raises_an_attribute_error_naming_the_map(name):
    import tapeviz

    with pytest.raises(AttributeError, match=rf"no attribute '{name}'.*docs/tf-map\.md.*Not available"):
        getattr(tapeviz, name)
    with pytest.raises(AttributeError, match="^module 'tapeviz' has no attribute '__wrapped__'$"):
        tapeviz.__wrapped__  # Python's own probes get the plain message
