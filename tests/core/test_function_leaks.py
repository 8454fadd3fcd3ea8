"""A tensor leaked out of a tf.function's trace and captured by another trace: TF's TypeError (function guide, cell 40).

TF's values: tests/tf_reference/summary_values.json ("leaked_tensor"), from tests/tf_reference/summary_reference.py.
tapeviz names the graph tensor by its op (``AddV2:0``, TF: ``add:0``); the rest of the first line is TF's.
"""

import json
import pathlib
import re

import pytest

import tapeviz as tf

TF = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "summary_values.json").read_text())[
    "leaked_tensor"
]


def _leaky():
    stored = []

    @tf.function
    def leaky_function(a):
        stored.append(a + 1)
        return stored[-1]

    return leaky_function, stored


def test_capturing_a_leaked_tensor_is_tfs_type_error():
    leaky_function, stored = _leaky()
    correct_a = leaky_function(tf.constant(1))

    @tf.function
    def captures_leaked_tensor(b):
        return b + stored[0]

    with pytest.raises(TypeError) as caught:
        captures_leaked_tensor(tf.constant(2))
    first_line = str(caught.value).splitlines()[0]
    assert int(correct_a.numpy()) == TF["returned"]
    assert re.sub(r"'\w+:0'", "'NAME'", first_line) == re.sub(r"'\w+:0'", "'NAME'", TF["capture_error_first_line"])
    assert "leaky_function" in str(caught.value)


def test_what_the_function_returned_stays_usable_in_other_traces():
    leaky_function, stored = _leaky()
    returned = leaky_function(tf.constant(1))
    assert returned is not stored[0]  # the caller's tensor, not the trace's

    @tf.function
    def uses(b):
        return b + returned

    assert int(uses(tf.constant(2)).numpy()) == 4
    assert int(leaky_function(tf.constant(5)).numpy()) == 6  # replays make new tensors: nothing leaks


def test_under_a_tape_the_first_call_still_has_its_gradient():
    v = tf.Variable(3.0)

    @tf.function
    def square(x):
        return x * x

    with tf.GradientTape() as tape:
        y = square(v)
    assert float(tape.gradient(y, v)) == 6.0

    @tf.function
    def add(b):
        return b + y

    assert float(add(tf.constant(1.0))) == 10.0  # returned under a tape: the traced tensor, still in scope
