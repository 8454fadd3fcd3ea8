"""Shared test configuration, and the quick tier.

``./dev.sh quick`` (or ``./dev.sh test -m quick``) runs the inner-loop tier:
every test not marked ``slow`` (a test that executes a whole lesson, trains
to an accuracy, installs a venv...) or ``browser``, and no notebook (nbval
executes whole lessons). The ``quick`` marker is added here, so a new test
is quick unless it says otherwise.

Under pytest-xdist, ``./dev.sh test`` runs ``-n auto --dist loadscope
--no-loadscope-reorder``: a unit of work is a file (a notebook's cells share
one kernel, a module's fixtures are set up once) or, for a test in a class,
its class (tests/browser/test_browser.py runs its lessons as two classes, on two
workers at once, each with its own JupyterLab). The units go out in the order
``longest_first`` gives them here, so that no long one starts last.
"""

import os

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.suffix == ".ipynb":
            continue
        if item.get_closest_marker("slow") or item.get_closest_marker("browser"):
            continue
        item.add_marker(pytest.mark.quick)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker collects, and orders, the same way
        items[:] = longest_first(items)


def _unit(item):
    """What ``--dist loadscope`` keeps on one worker: the test's class, else its file."""
    return item.nodeid.rsplit("::", 1)[0]


def _tier(item):
    if item.get_closest_marker("browser"):
        return 0  # a JupyterLab or the docs build, and a browser: the longest units
    if item.get_closest_marker("slow"):
        return 1
    if item.path.suffix == ".ipynb":
        return 2  # nbval runs a whole lesson
    return 3


def longest_first(items):
    """``items`` unit by unit, the units expected to take longest first: the lowest tier of their
    tests, then the most tests. Tests keep their order within a unit."""
    units = {}
    for item in items:
        units.setdefault(_unit(item), []).append(item)
    order = sorted(units.values(), key=lambda tests: (min(_tier(t) for t in tests), -len(tests)))
    return [item for tests in order for item in tests]


@pytest.fixture
def session_recorder():
    """The visualizer's session recorder on during a test, off after it.

    Importing tapeviz.viz switches it on; a viz test module turns it off at import
    (``viz.stop_watching()``) and takes this fixture (``pytestmark``), so test modules
    that do not draw see the core with no listener.
    """
    import tapeviz.viz as viz

    viz.watch_all()
    yield
    viz.stop_watching()
