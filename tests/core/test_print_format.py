"""tf.print (to stderr, TF's element formatting and summaries), shapes and tf.config's devices as TF 2.21
prints them (values from tests/tf_reference/printing_reference.py)."""

import json
import pathlib

import pytest

import tapeviz as tf
from tests.tf_reference import printing_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "printing_values.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.PRINT_CASES))
def test_tf_print_writes_what_tf_writes(name):
    assert cases.run_print(tf, name) == VALUES[f"print/{name}"]


@pytest.mark.parametrize("key", ["shapes", "logical_devices", "logical_cpu", "physical_devices"])
def test_shapes_and_devices_print_as_tf(key):
    assert cases.run_facts(tf)[key] == VALUES[key]


def test_tf_print_writes_to_stderr_by_default(capsys):
    tf.print("x:", tf.constant([1.0, 2.5]))
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "x: [1 2.5]\n")
    assert VALUES["default_stream_is_stderr"] is True


def test_tf_print_inside_a_function_writes_on_every_call(capsys):
    @tf.function
    def f(x):
        tf.print("got", x)
        return x + 1

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    assert capsys.readouterr().err == "got 1\ngot 2\n"


def test_an_unknown_output_stream_is_refused():
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream="nowhere")
