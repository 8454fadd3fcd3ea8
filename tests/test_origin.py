"""The user's line: the innermost frame outside tapeviz (core/origin.py)."""

import inspect
import os

import tapeviz
from tapeviz.core import origin

# A function compiled as if it were a file of tapeviz: its frame counts as the library's.
_LIBRARY_FILE = os.path.join(os.path.dirname(tapeviz.__file__), "_pretend_module.py")
_namespace = {"origin": origin}
exec(compile("def library_op():\n    return origin.capture()\n", _LIBRARY_FILE, "exec"), _namespace)
library_op = _namespace["library_op"]


def test_capture_names_the_callers_line_past_the_librarys_frames():
    line = inspect.currentframe().f_lineno + 1
    found = library_op()
    assert (found.filename, found.lineno) == (__file__, line)
    assert found.function == "test_capture_names_the_callers_line_past_the_librarys_frames"
    assert str(found) == f"test_origin.py:{line}"


def test_capture_from_user_code_is_that_line():
    line = inspect.currentframe().f_lineno + 1
    found = origin.capture()
    assert (found.filename, found.lineno) == (__file__, line)


def test_a_notebook_cell_is_named_by_its_execution_count():
    cell = origin.Origin("<ipython-input-7-0123abcd>", 3, "<module>")
    assert origin.describe(cell) == "In [7], line 3"


def test_describe_is_empty_for_no_origin():
    assert origin.describe(None) == ""
