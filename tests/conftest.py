"""Shared test configuration, and the quick tier.

``./dev.sh quick`` (or ``./dev.sh test -m quick``) runs the inner-loop tier:
every test not marked ``slow`` or ``browser``, without the lessons and the
notebooks, which execute whole lessons. The ``quick`` marker is added here,
so a new test is quick unless it says otherwise.
"""

import pytest

import tapeviz.core

# Files that execute whole lessons: never in the quick tier.
_LESSON_FILES = {"test_lessons.py", "test_browser.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.path
        if path.suffix == ".ipynb" or path.name in _LESSON_FILES:
            continue
        if item.get_closest_marker("slow") or item.get_closest_marker("browser"):
            continue
        item.add_marker(pytest.mark.quick)


@pytest.fixture(autouse=True)
def _tapeviz_numpy_warning_filter():
    # pytest resets warning filters around each test; put back the one the
    # package installs at import (tests/test_numerics.py checks it in a subprocess).
    tapeviz.core.quiet_numpy_warnings()
    yield
