"""AutoGraph (tensor-dependent if/while/for in tf.function), tf.cond, tf.while_loop, tf.case and
tf.switch_case against TF 2.21 (tests/tf_reference/autograph_reference.py made the values)."""

import json
import os
import tempfile

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import autograph_cases

VALUES = json.load(open(os.path.join(os.path.dirname(__file__), "tf_reference", "autograph_values.json")))


@pytest.mark.parametrize("name", sorted(autograph_cases.CASES))
def test_matches_tf(name):
    expected = VALUES[name]
    got = autograph_cases.run(tf, autograph_cases.CASES[name])
    assert got[0] == expected[0], got
    if got[0] == "ok":
        _assert_close(got[1], expected[1])
    else:
        assert expected[1].endswith(got[1]), (got[1], expected[1])


def _assert_close(got, expected):
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            _assert_close(g, e)
    elif isinstance(expected, (int, float)) and not isinstance(expected, bool):
        assert got == pytest.approx(expected, rel=1e-6), (got, expected)
    else:
        assert got == expected


def test_a_traced_if_is_one_graph_node_with_a_sub_graph_per_branch():
    @tf.function
    def f(x):
        if x > 0:
            y = x * 2
        else:
            y = -x
        return y

    f(tf.constant(1.0))
    (node,) = [n for n in f.get_concrete_function(tf.constant(1.0)).graph.nodes if n.op == "If"]
    assert [n.op for n in node.attrs["then"].nodes] == ["Mul"]
    assert [n.op for n in node.attrs["else"].nodes] == ["Neg"]


def test_untaken_branch_changes_nothing_while_tracing():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        if x > 0:
            v.assign_add(1.0)
        else:
            v.assign_sub(100.0)
        return v.read_value()

    assert float(f(tf.constant(1.0))) == 1.0
    assert float(f(tf.constant(1.0))) == 2.0
    assert float(f(tf.constant(-1.0))) == -98.0


def test_gradient_through_a_while_matches_finite_differences():
    @tf.function
    def f(x):
        i = tf.constant(0)
        while i < 3:
            x = tf.sin(x) * x
            i += 1
        return x

    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    eps = 1e-6

    def plain(v):
        for _ in range(3):
            v = np.sin(v) * v
        return v

    numeric = (plain(0.7 + eps) - plain(0.7 - eps)) / (2 * eps)
    assert abs(float(tape.gradient(y, x)) - numeric) < 1e-7


def test_saved_cond_and_while_round_trip_as_data():
    class Loops(tf.Module):
        def __init__(self):
            self.scale = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def positive_sum(self, x):
            total = tf.constant(0.0)
            for v in x:
                if v < 0:
                    continue
                if v > 10:
                    break
                total += v * self.scale
            return total

    module = Loops()
    path = os.path.join(tempfile.mkdtemp(), "loops")
    tf.saved_model.save(module, path)
    loaded = tf.saved_model.load(path)
    for values in ([1.0, -2.0, 3.0, 20.0, 5.0], [4.0, 4.0], [], [11.0]):
        x = tf.constant(values, tf.float32)
        assert float(loaded.positive_sum(x)) == float(module.positive_sum(x))
    x = tf.constant([1.0, 2.0, 30.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loaded.positive_sum(x)
    assert tf.convert_to_tensor(tape.gradient(y, x)).numpy().tolist() == [2.0, 2.0, 0.0]


def test_to_code_returns_the_converted_source():
    def f(x):
        while x < 10:
            x = x + 1
        return x

    code = tf.autograph.to_code(f)
    assert "ag__.while_stmt" in code and "def f(x):" in code
    compile(code, "<to_code>", "exec")


def test_autograph_false_and_do_not_convert_keep_the_python():
    @tf.autograph.experimental.do_not_convert
    def raw(x):
        if x > 0:
            return x
        return -x

    assert tf.autograph.to_graph(raw) is raw


def test_stateful_ops_in_a_branch_are_kept_and_run_per_call():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        if x > 0:
            v.assign_add(x)
        return tf.constant(0.0)  # the result does not use the assignment: it must still run

    for value in (1.0, 2.0, -5.0):
        f(tf.constant(value))
    assert float(v) == 3.0


def test_the_traced_graph_picture_draws_a_box_per_branch_and_body():
    @tf.function
    def f(x):
        total = tf.constant(0.0)
        for v in x:
            if v > 0:
                total += v
        return total

    f(tf.constant([1.0, -2.0]))
    figure = tf.viz.show(f)
    assert "While (tf.while_loop)" in figure.dot and "If (tf.cond)" in figure.dot
    for box in ("cluster_n2_cond", "cluster_n2_body"):
        assert f'id="{box}"' in figure.dot
    assert 'label="if true"' in figure.dot and 'label="if false"' in figure.dot
