"""docs/architecture.md lists every module of tapeviz/, each with the test files that check it.

The document's section "Every module, and its tests" has one table per folder
(a heading ``### `tapeviz/core/` ``) and one row per module
(``| `tape.py` | job | `tests/core/test_tape.py` |``). Read as text, nothing run.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Every module, and its tests"
FOLDER = re.compile(r"^### `(tapeviz(?:/[\w.]+)*)/`\s*$")
ROW = re.compile(r"^\|\s*`([\w.]+\.py)`\s*\|")
TEST_PATH = re.compile(r"`(tests/[\w/.-]+)`")


def read_rows(text):
    """(folder, module file name, row text) for each row of the section's tables, in order."""
    if SECTION not in text:
        raise AssertionError(f"docs/architecture.md has no section {SECTION!r}")
    rows, folder = [], None
    for line in text.split(SECTION, 1)[1].splitlines():
        if line.startswith("## "):
            break  # the next section
        heading = FOLDER.match(line)
        if heading:
            folder = heading.group(1)
            continue
        row = ROW.match(line)
        if row:
            assert folder is not None, f"a row before any folder heading: {line}"
            rows.append((folder, row.group(1), line))
    return rows


def listed_modules(rows):
    return [f"{folder}/{name}" for folder, name, _ in rows]


def package_modules():
    return sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "tapeviz").rglob("*.py") if "__pycache__" not in p.parts
    )


@pytest.fixture(scope="module")
def rows():
    return read_rows(DOC.read_text(encoding="utf-8"))


def test_every_module_of_the_package_is_listed(rows):
    missing = sorted(set(package_modules()) - set(listed_modules(rows)))
    assert not missing, (
        "modules missing from docs/architecture.md (add a row under their folder's table, "
        f"with their job and their tests): {missing}"
    )


def test_every_listed_module_exists(rows):
    gone = sorted(set(listed_modules(rows)) - set(package_modules()))
    assert not gone, f"docs/architecture.md lists modules that do not exist (moved or removed?): {gone}"


def test_no_module_is_listed_twice(rows):
    names = listed_modules(rows)
    twice = sorted({name for name in names if names.count(name) > 1})
    assert not twice, f"listed more than once in docs/architecture.md: {twice}"


def test_every_named_test_file_exists(rows):
    named = {path for _, _, line in rows for path in TEST_PATH.findall(line)}
    assert named, "no row names a test file"
    gone = sorted(path for path in named if not (ROOT / path).is_file())
    assert not gone, f"docs/architecture.md names test files that do not exist: {gone}"


def test_every_module_names_a_test_file(rows):
    without = [f"{folder}/{name}" for folder, name, line in rows if not TEST_PATH.search(line)]
    assert not without, f"rows of docs/architecture.md without a test file: {without}"


def test_the_reader_sees_what_the_checks_need():
    # The checks above are only as good as this reading: a missing row, a module that is
    # not there and a test file that is not there must each show.
    text = "\n".join(
        [
            SECTION,
            "### `tapeviz/core/`",
            "| module | job | tests |",
            "|---|---|---|",
            "| `tape.py` | tapes | `tests/core/test_tape.py` |",
            "| `no_such_module.py` | nothing | `tests/core/test_no_such_file.py` |",
            "## Next section",
            "| `after.py` | not read | |",
        ]
    )
    rows = read_rows(text)
    assert listed_modules(rows) == ["tapeviz/core/tape.py", "tapeviz/core/no_such_module.py"]
    assert "tapeviz/core/tensor.py" not in listed_modules(rows)
    assert "tapeviz/core/no_such_module.py" not in package_modules()
    assert not (ROOT / TEST_PATH.findall(rows[1][2])[0]).is_file()
