"""The order in which ``./dev.sh test`` hands its units of work to the workers (tests/conftest.py)."""

from pathlib import Path

import pytest

from tests.conftest import longest_first

ROOT = Path(__file__).resolve().parents[2]


class _Item:
    """What ``longest_first`` reads of a collected test: its id, path and markers."""

    def __init__(self, nodeid, *marks):
        self.nodeid, self.path, self.marks = nodeid, Path(nodeid.split("::")[0]), set(marks)

    def get_closest_marker(self, name):
        return name if name in self.marks else None


def test_long_units_go_first_and_a_unit_stays_together_in_its_order():
    items = [
        _Item("tests/test_a.py::test_one"),
        _Item("tests/test_a.py::test_two"),
        _Item("tests/test_a.py::test_three"),
        _Item("notebooks/01.ipynb::Cell 0"),
        _Item("notebooks/01.ipynb::Cell 1"),
        _Item("tests/test_b.py::test_slow", "slow"),
        _Item("tests/test_b.py::test_quick"),
        _Item("tests/test_c.py::test_one"),
        _Item("tests/test_web.py::test_page", "browser"),
        _Item("tests/test_web.py::TestLabA::test_lesson[1]", "browser"),
        _Item("tests/test_web.py::TestLabB::test_lesson[2]", "browser"),
        _Item("tests/test_web.py::TestLabA::test_lesson[3]", "browser"),
    ]
    ordered = [item.nodeid for item in longest_first(items)]
    assert ordered == [
        "tests/test_web.py::TestLabA::test_lesson[1]",  # browser units, the one with more tests first
        "tests/test_web.py::TestLabA::test_lesson[3]",
        "tests/test_web.py::test_page",
        "tests/test_web.py::TestLabB::test_lesson[2]",
        "tests/test_b.py::test_slow",  # a file with a slow test
        "tests/test_b.py::test_quick",
        "notebooks/01.ipynb::Cell 0",  # the notebooks
        "notebooks/01.ipynb::Cell 1",
        "tests/test_a.py::test_one",  # the rest, the larger file first
        "tests/test_a.py::test_two",
        "tests/test_a.py::test_three",
        "tests/test_c.py::test_one",
    ]


@pytest.mark.parametrize("command", ["test", "quick"])
def test_dev_sh_keeps_that_order(command):
    """xdist sorts units by their number of tests unless told not to: both commands tell it."""
    script = (ROOT / "dev.sh").read_text()
    after = script[script.index(f"\n    {command})\n") :].splitlines()
    runs = next(line for line in after if " -m pytest " in line)
    assert "--dist loadscope --no-loadscope-reorder" in runs, runs
