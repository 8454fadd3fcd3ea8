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


def _recorded_entries(make):
    """The entries a fresh tape recorded while ``make(x)`` ran."""
    import tapeviz as tf

    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        make(x)
    return tape.recorded_ops


def test_a_recorded_op_notes_the_users_line_when_asked():
    import tapeviz as tf

    def make(x):
        return tf.math.log(x * x)

    line = inspect.getsourcelines(make)[1] + 1
    with origin.noted():
        entries = _recorded_entries(make)
    mul, log = [e for e in entries if e.primitive.name in ("Mul", "Log")]
    assert str(origin.of(mul)) == f"test_origin.py:{line}"
    assert origin.of(log).lineno == line


def test_an_op_notes_the_users_line_when_asked_and_nobody_listens():
    # A binary op records itself on the one tape when nobody listens: its line is still the user's
    # (the line of `make`, not the line that called it).
    import tapeviz as tf
    from tapeviz.core import events

    def make(x):
        return x * x + x

    line = inspect.getsourcelines(make)[1] + 1
    x = tf.constant(2.0)
    with events.silenced(), origin.noted():
        for _ in range(2):  # the second time through, the depth found the first time is tried first
            with tf.GradientTape() as tape:
                tape.watch(x)
                make(x)
            assert [origin.of(e).lineno for e in tape.recorded_ops] == [line, line]


def test_no_origin_is_noted_when_nobody_listens_or_asked():
    from tapeviz.core import state
    from tapeviz.viz import recorder

    was_watching = recorder.is_watching()
    recorder.stop_watching()
    try:
        if state.listeners:  # another listener of this test session (a trace): origins are wanted then
            return
        entries = _recorded_entries(lambda x: x * x)
    finally:
        if was_watching:
            recorder.watch_all()
    assert entries and all(e.origin is None for e in entries)


def test_a_released_tapes_sketch_and_the_trace_keep_the_line():
    import tapeviz as tf
    from tapeviz import viz

    x = tf.Variable(3.0)
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            line = inspect.currentframe().f_lineno + 1
            y = tf.sqrt(x)
        tape.gradient(y, x)
    (sketch,) = [e for e in tape.history if e.name == "Sqrt"]
    assert origin.of(sketch).lineno == line
    (op,) = [op for op in recorded.data["ops"] if op["name"] == "Sqrt"]
    assert op["where"] == f"test_origin.py:{line}"


def test_enable_and_disable_pair_up():
    assert not origin.is_enabled()
    origin.enable()
    origin.enable()
    origin.disable()
    assert origin.is_enabled()
    origin.disable()
    assert not origin.is_enabled()
