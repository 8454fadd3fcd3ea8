"""tf.debugging as TF 2.21 (issue 28, item 4): check_numerics, enable_check_numerics, the assert_* family
and Assert, with TF's error types and messages; inside tf.function too.

Expected values: tests/tf_reference/debugging_values.json, written by
tests/tf_reference/debugging_reference.py, which runs the cases of
debugging_cases.py on TF 2.21 (the same code runs here on tapeviz). TF's eager
errors wrap the text in ``{{function_node ...}} ... name: ``; tapeviz's errors
carry the text and the ``[Op:...]`` suffix, as its other ops do (test_tf_messages.py).
"""

import json
import re
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import ops
from tests.tf_reference.debugging_cases import CASES, NUMERICS_CASES, run

REFERENCE = json.loads((Path(__file__).parent / "tf_reference" / "debugging_values.json").read_text())


def tf_words(message):
    """TF's message without the graph-function prefix and the `` name: `` suffix of eager errors."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return message.removesuffix(" name: ")


# Where tapeviz's text differs from TF's on purpose: the part of TF's text that must begin ours.
HEADS = {
    # TF lists its op registry after the first line; tapeviz says what to do instead
    "check_numerics:int": lambda m: m.split("\n")[0],
    "assert_all_finite:int": lambda m: m.split("\n")[0],
    # TF names float32 "float" here; tapeviz's dtype error (ops.same_dtype) says float32 and how to cast
    "assert_equal:dtypes": lambda m: m[: m.index("but is a float") + len("but is a float")],
    # the class of a tensor is tapeviz's own
    "assert_proper_iterable:tensor": lambda m: m[: m.index("Found: <class '") + len("Found: <class '")],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_tensorflow(name):
    kind, message = run(tf, CASES[name])
    expected_kind, expected = REFERENCE["cases"][name]
    assert kind == expected_kind, message
    expected = tf_words(expected)
    if name in HEADS:
        assert message.startswith(HEADS[name](expected)), message
    else:
        assert message == expected


def test_every_case_has_a_reference_and_the_cases_cover_every_public_name():
    assert set(CASES) == set(REFERENCE["cases"])
    tested = {name.split(":")[0] for name in CASES} | {"set_log_device_placement", "get_log_device_placement"}
    tested |= {"enable_check_numerics", "disable_check_numerics"}  # the numerics tests below
    assert set(tf.debugging.__all__) - tested <= {
        "enable_traceback_filtering",
        "disable_traceback_filtering",
        "is_traceback_filtering_enabled",
    }


def test_public_names_are_tfs_but_experimental():
    # tf.debugging.experimental (tfdbg2's dump_debug_info) is not implemented: listed in docs/tf-map.md
    assert sorted(tf.debugging.__all__) == [n for n in REFERENCE["public_names"] if n != "experimental"]
    assert "debugging" in dir(tf)


# -- enable_check_numerics -----------------------------------------------------------------------
@pytest.fixture
def checking():
    tf.debugging.enable_check_numerics()
    try:
        yield
    finally:
        tf.debugging.disable_check_numerics()


MADE_AT = re.compile(r"\n  Made at: [^\n]*")


@pytest.mark.parametrize("name", sorted(n for n in NUMERICS_CASES if n != "in_function"))
def test_check_numerics_mode_agrees_with_tensorflow(checking, name):
    kind, message = run(tf, NUMERICS_CASES[name])
    expected_kind, expected = REFERENCE["check_numerics_mode"][name]
    assert kind == expected_kind
    if kind == "ok":
        assert message == expected
        return
    # TF's text exactly, once the line tapeviz adds (the user's line) is taken out
    assert MADE_AT.sub("", message) == tf_words(expected)
    assert len(MADE_AT.findall(message)) == 1


def test_check_numerics_mode_names_the_users_line(checking):
    x = tf.constant([1.0, 0.0])
    line = sys._getframe().f_lineno + 2
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.math.log(x)
    assert f"\n  Made at: test_debugging.py:{line}\n" in str(info.value)


def test_check_numerics_mode_in_a_sweep_names_the_op_whose_rule_made_it(checking):
    x = tf.constant([0.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sqrt(x))  # finite forward: sqrt(0) = 0
    line = sys._getframe().f_lineno + 2
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tape.gradient(y, x)
    message = str(info.value)
    assert "# of +Inf elements: 1" in message
    assert f'\n  Made at: test_debugging.py:{line}, in the gradient of op "Sqrt"\n' in message


def test_check_numerics_mode_inside_tf_function(checking):
    @tf.function
    def f(x):
        return tf.math.log(x)

    assert f(tf.constant([1.0])).numpy().tolist() == [0.0]  # traced, finite
    with pytest.raises(tf.errors.InvalidArgumentError, match='op "Log"'):
        f(tf.constant([0.0]))  # a replay: the op is checked on every call
    expected_kind, _ = REFERENCE["check_numerics_mode"]["in_function"]
    assert expected_kind == "InvalidArgumentError"


def test_disabled_check_costs_one_test_and_leaves_nan_alone():
    assert ops.numerics_check is None
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()  # twice: one switch, as TF
    assert ops.numerics_check is not None
    tf.debugging.disable_check_numerics()
    assert ops.numerics_check is None
    assert np.isneginf(tf.math.log(tf.constant(0.0)).numpy())
    assert REFERENCE["check_numerics_mode"]["after_disable"] == ["ok", "-inf"]
    tf.debugging.disable_check_numerics()  # not on: nothing happens


def test_the_check_is_per_thread_as_tf():
    enabled, release = threading.Event(), threading.Event()
    errors = []

    def other():
        tf.debugging.enable_check_numerics()
        try:
            enabled.set()
            release.wait(10)
            tf.math.log(tf.constant(0.0))
        except tf.errors.InvalidArgumentError as exc:
            errors.append(exc)
        finally:
            tf.debugging.disable_check_numerics()

    thread = threading.Thread(target=other)
    thread.start()
    try:
        assert enabled.wait(10)
        assert np.isneginf(tf.math.log(tf.constant(0.0)).numpy())  # this thread did not enable it
    finally:
        release.set()
        thread.join(10)
    assert len(errors) == 1
    assert ops.numerics_check is None


# -- check_numerics: gradient and tf.function -------------------------------------------------------
def test_check_numerics_gradient_passes_through_and_matches_finite_differences():
    x = tf.constant([0.3, -1.2, 2.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sin(tf.debugging.check_numerics(x * x, "square")))
    (grad,) = tape.gradient(y, [x])
    eps = 1e-6
    xs = x.numpy()
    numeric = [
        (np.sum(np.sin((xs + eps * e) ** 2)) - np.sum(np.sin((xs - eps * e) ** 2))) / (2 * eps) for e in np.eye(3)
    ]
    np.testing.assert_allclose(grad.numpy(), numeric, rtol=1e-7)


def test_check_numerics_inside_tf_function_checks_every_call_even_unused():
    @tf.function
    def f(x):
        tf.debugging.check_numerics(x, "input")  # result unused: kept, as TF's stateful op
        return x * 2.0

    assert f(tf.constant([1.0])).numpy().tolist() == [2.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="input : Tensor had NaN values"):
        f(tf.constant([np.nan]))
    assert f.experimental_get_tracing_count() == 1


# -- asserts inside tf.function ---------------------------------------------------------------------
def test_value_asserts_inside_tf_function_run_on_every_call():
    @tf.function
    def f(x, y):
        tf.debugging.assert_less(x, y, message="x < y")
        tf.debugging.assert_positive(x)
        tf.debugging.assert_near(x, x + 1e-9)
        tf.debugging.Assert(tf.reduce_all(x < 10.0), ["x too big:", x])
        return x + y

    assert f(tf.constant([1.0]), tf.constant([2.0])).numpy().tolist() == [3.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"x < y\nCondition x < y did not hold"):
        f(tf.constant([3.0]), tf.constant([2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Condition x > 0 did not hold element-wise"):
        f(tf.constant([-3.0]), tf.constant([2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Summarized data: b'x too big:'\n11.0"):
        f(tf.constant([11.0]), tf.constant([12.0]))
    assert f.experimental_get_tracing_count() == 1


def test_assert_shapes_inside_tf_function_checks_each_calls_sizes():
    @tf.function(input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([None])])
    def f(x, y):
        tf.debugging.assert_shapes([(x, ("N", 2)), (y, ("N",))])
        return tf.reduce_sum(x) + tf.reduce_sum(y)

    assert float(f(tf.ones([3, 2]), tf.ones([3]))) == 9.0
    with pytest.raises(ValueError, match=r"Specified by tensor shape=\(4, 2\) dtype=float32 dimension 0"):
        f(tf.ones([4, 2]), tf.ones([5]))
    assert f.experimental_get_tracing_count() == 1


def test_an_assert_failing_in_a_trace_raises_at_the_call():
    @tf.function
    def f(x):
        tf.debugging.assert_equal(x, 0)
        return x

    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x == y did not hold"):
        f(tf.constant(1))


def test_assert_shapes_rejects_bad_specs_with_tfs_words():
    with pytest.raises(ValueError, match=r"Specified shape must be an iterable"):
        tf.debugging.assert_shapes([(tf.zeros([2]), 2)])
    with pytest.raises(ValueError, match=r"only allowed as the first entry"):
        tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, ...))])


def test_a_stored_trace_keeps_its_checks():
    import json as json_module

    from tapeviz.core.function import ConcreteFunction

    @tf.function
    def f(x):
        tf.debugging.assert_positive(x)
        return tf.debugging.check_numerics(x * 2.0, "doubled")

    stored = json_module.loads(json_module.dumps(f.get_concrete_function(tf.constant([1.0])).to_dict()))
    loaded = ConcreteFunction.from_dict(stored, [])
    assert loaded(tf.constant([2.0])).numpy().tolist() == [4.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="doubled : Tensor had Inf values"):
        loaded(tf.constant([np.inf]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0 did not hold"):
        loaded(tf.constant([-1.0]))
