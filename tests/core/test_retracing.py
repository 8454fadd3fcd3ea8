"""Retracing as TF 2.21 does it (issue 30, item 4): which calls trace, the shapes a
``reduce_retracing`` trace generalises to, and the warning when a function traces on
too many of its recent calls (its thresholds and text).

Expected values: tests/tf_reference/retracing_values.json, written by
tests/tf_reference/retracing_reference.py on TF 2.21 (the same cases, run there).
How the lookup scales with the number of traces: benchmarks/bench_retracing.py.
"""

import itertools
import json
import logging
import re
from pathlib import Path

import pytest

import tapeviz as tf
from tapeviz.core import retracing

REFERENCE = json.loads((Path(__file__).parents[1] / "tf_reference" / "retracing_values.json").read_text())
CASES = REFERENCE["cases"]
_serial = itertools.count()


@pytest.fixture
def warnings_logged(caplog):
    caplog.set_level(logging.WARNING, logger="tapeviz")
    return caplog


def run_case(caplog, python_function, calls, **options):
    """The reference script's rows for tapeviz: [traced?, the new trace's input shapes/values, [warnings]]."""

    def traced(*args):
        return python_function(*args)

    traced.__code__ = traced.__code__.replace(co_name=f"traced_{next(_serial)}")  # TF counts per code object
    f = tf.function(traced, **options)
    rows = []
    for args in calls:
        before = f.experimental_get_tracing_count()
        caplog.clear()
        f(*args)
        text = [r.getMessage().replace(repr(traced), "{function}") for r in caplog.records if r.name == "tapeviz"]
        if f.experimental_get_tracing_count() > before:
            (signature,) = f.concrete_functions[-1].structured_input_signature[0]  # the one parameter, *args
            inputs = [_shape(s) if isinstance(s, tf.TensorSpec) else s for s in signature]
            rows.append([True, inputs, text])
        else:
            rows.append([False, None, text])
    return rows


def _shape(spec):
    return None if spec.shape is None or spec.shape.rank is None else list(spec.shape)


def shapes(*sizes):
    return [(tf.ones(s),) for s in sizes]


def test_each_distinct_python_value_traces_and_the_fifth_and_sixth_warn(warnings_logged):
    got = run_case(warnings_logged, lambda n: n + 1, [(n,) for n in range(12)])
    assert got == CASES["python_values_12"]
    assert [i for i, row in enumerate(got) if row[2]] == [4, 5]  # at most two warnings per function


def test_the_window_is_the_last_ten_calls(warnings_logged):
    pattern = [0, 1, 0, 2, 0, 3, 0, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 9, 10, 11, 12, 13, 14, 15]
    got = run_case(warnings_logged, lambda n: n + 1, [(n,) for n in pattern])
    assert got == CASES["mixed"]
    assert got[7][2][0].startswith("5 out of the last 8 calls to {function} triggered tf.function retracing.")


def test_new_shapes_retrace_without_reduce_retracing(warnings_logged):
    sizes = [[1], [2], [3], [4], [5], [6], [2, 2], [3, 3], [7], [2, 2, 2], [1]]
    assert run_case(warnings_logged, lambda x: x * 2, shapes(*sizes)) == CASES["shapes"]


@pytest.mark.parametrize(
    "case, sizes",
    [
        ("shapes_reduce_retracing", [[1], [2], [3], [4], [5], [6], [2, 2], [3, 3], [7], [2, 2, 2], [1]]),
        ("matrices_reduce_retracing", [[2, 3], [4, 3], [5, 3], [4, 7], [1, 1], [6, 6, 6]]),
    ],
)
def test_reduce_retracing_generalises_shapes_as_tf(warnings_logged, case, sizes):
    got = run_case(warnings_logged, lambda x: x * 2, shapes(*sizes), reduce_retracing=True)
    assert got == CASES[case]


def test_reduce_retracing_generalises_only_across_equal_python_values(warnings_logged):
    calls = [(tf.ones([1]), 1), (tf.ones([2]), 1), (tf.ones([3]), 2), (tf.ones([4]), 2), (tf.ones([5]), 1)]
    got = run_case(warnings_logged, lambda x, n: x * n, calls, reduce_retracing=True)
    assert got == CASES["shapes_and_values_reduce_retracing"]


def test_a_function_made_again_in_a_loop_counts_as_one(warnings_logged):
    def g(x):
        return x + 1

    for _ in range(7):
        tf.function(g)(tf.constant(1.0))
    got = [r.getMessage().replace(repr(g), "{function}") for r in warnings_logged.records if r.name == "tapeviz"]
    assert got == CASES["new_function_each_call"]


def test_a_method_warns_with_its_plain_functions_name(warnings_logged):
    class Model(tf.Module):
        @tf.function
        def step(self, n):
            return n

    model = Model()
    for n in range(5):
        model.step(n)
    got = [r.getMessage() for r in warnings_logged.records if r.name == "tapeviz"]
    (expected,) = CASES["method"]
    pattern = re.compile(r"<function \S+\.Model\.step at 0x[0-9a-f]+>")
    assert len(got) == 1 and pattern.search(got[0])
    assert pattern.sub("F", got[0]) == pattern.sub("F", expected.replace(" at ADDR>", " at 0x0>"))


def test_calls_inside_another_trace_are_not_counted(warnings_logged):
    @tf.function
    def inner(x, n):
        return x * n

    @tf.function
    def outer(x, n):
        return inner(x, n)

    for n in range(6):
        outer(tf.constant(1.0), n)
    messages = [r.getMessage() for r in warnings_logged.records if r.name == "tapeviz"]
    assert len(messages) == 2 and all("outer" in m and "inner" not in m for m in messages)


def test_the_text_is_tfs():
    text = CASES["python_values_12"][4][2][0]
    assert retracing.message(5, 5, "{function}").replace("'{function}'", "{function}") == text


def test_seen_and_general_calls_find_their_trace_by_lookup():
    # 300 signatures: a call seen before, and a size new to a general trace, each trace nothing new
    # (the time per call against the number of traces: benchmarks/bench_retracing.py).
    @tf.function(reduce_retracing=True)
    def f(x, n):
        return tf.reduce_sum(x) + n

    for n in range(300):
        f(tf.ones([1]), n)
        f(tf.ones([2]), n)
    count = f.experimental_get_tracing_count()
    assert count == 600
    assert float(f(tf.ones([9]), 123)) == 132.0
    assert float(f(tf.ones([1]), 5)) == 6.0
    assert f.experimental_get_tracing_count() == count


def test_a_call_is_compared_with_no_trace_but_the_general_ones_of_its_outline(monkeypatch):
    # The lookup is by dictionary: a new Python value, or one seen before, is compared with no
    # earlier trace; a new size with only the one general trace of its outline (issue 30: each
    # call was compared with every earlier trace, 9-13 ms a call after 1,900 traces).
    from tapeviz.core import function as core_function

    @tf.function(reduce_retracing=True)
    def f(x, n):
        return x * n

    for n in range(200):
        f(tf.ones([1]), n)
    f(tf.ones([2]), 7)  # n=7 now has a general trace, shape (None,)
    comparisons = []
    real = core_function._fits_key
    monkeypatch.setattr(core_function, "_fits_key", lambda g, k: comparisons.append(g) or real(g, k))
    f(tf.ones([1]), 500)  # new value: traces without comparing
    f(tf.ones([1]), 3)  # seen before
    assert comparisons == []
    f(tf.ones([5]), 7)  # a size new to n=7's general trace
    f(tf.ones([5]), 7)  # the same again: remembered
    assert len(comparisons) == 1
    assert f.experimental_get_tracing_count() == 202  # 200 values, the general trace of 7, and 500
