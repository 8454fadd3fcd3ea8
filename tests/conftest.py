"""Shared test configuration, and the quick tier.

``./dev.sh quick`` (or ``./dev.sh test -m quick``) runs the inner-loop tier:
every test not marked ``slow`` (a test that executes a whole lesson, trains
to an accuracy, installs a venv...) or ``browser``, and no notebook (nbval
executes whole lessons). The ``quick`` marker is added here, so a new test
is quick unless it says otherwise.
"""

import pytest

import tapeviz.core


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.suffix == ".ipynb":
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
