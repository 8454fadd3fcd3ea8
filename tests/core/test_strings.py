"""String tensors (tf.string), tf.strings and tf.io.decode_raw against TF 2.21.

Expected values: tests/tf_reference/strings_values.json, written by
tests/tf_reference/strings_reference.py, which runs the cases of
strings_cases.py on TF 2.21 (the same code runs here on tapeviz): each value's
dtype, shape, elements and printed text, or the class of the error TF raises.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.string_array import StringArray
from tests.tf_reference.strings_cases import CASES, run

REFERENCE = json.loads((Path(__file__).parent.parent / "tf_reference" / "strings_values.json").read_text("utf-8"))

# A RaggedTensor's printed text is the ragged module's: TF wraps some nested rows onto a second line.
RAGGED_TEXT_DIFFERS = {"split:maxsplit", "split:matrix"}


def _without_ragged_text(description):
    if isinstance(description, list) and description and description[0] == "ragged":
        return description[:3]
    return description


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_tensorflow(name):
    got = run(tf, CASES[name])
    expected = REFERENCE["cases"][name]
    if name in RAGGED_TEXT_DIFFERS:
        got, expected = [got[0], _without_ragged_text(got[1])], [expected[0], _without_ragged_text(expected[1])]
    assert got == expected


def test_every_case_has_a_reference_and_every_tf_strings_name_a_case():
    assert set(CASES) == set(REFERENCE["cases"])
    covered = {name.split(":")[0] for name in CASES}
    assert set(tf.strings.__all__) <= covered


def test_a_string_tensor_holds_bytes_and_numpy_gives_them_as_tf():
    t = tf.constant(["Gray wolf", "é"])
    assert isinstance(t._value, StringArray)
    value = t.numpy()
    assert type(value) is np.ndarray and value.dtype == object
    assert value.tolist() == [b"Gray wolf", "é".encode()]
    assert type(tf.constant("a").numpy()) is bytes


def _string_tensors(result):
    if isinstance(result, (list, tuple)):
        for item in result:
            yield from _string_tensors(item)
    elif isinstance(result, tf.RaggedTensor):
        yield from _string_tensors(result.flat_values)
    elif isinstance(result, tf.Tensor) and result.dtype == tf.string:
        yield result


@pytest.mark.parametrize("name", sorted(name for name in CASES if REFERENCE["cases"][name][0] == "ok"))
def test_every_string_result_holds_a_string_array(name):
    """A plain object array would give bare bytes at rank 0 (``t[0] + t[1]``): every op keeps StringArray."""
    lines = CASES[name].split("\n")
    scope = {"tf": tf, "np": np}
    exec("\n".join(lines[:-1]), scope)  # noqa: S102 - the shared cases
    for tensor in _string_tensors(eval(lines[-1], scope)):  # noqa: S307
        assert type(tensor._value) is StringArray


def test_results_of_rank_0_stay_tensors():
    """NumPy gives a bare ``bytes`` for these; a string tensor's scalar is still a tensor."""
    t = tf.constant(["a", "b"])
    for scalar in (t[0], tf.gather(t, 1), tf.constant("a") + tf.constant("b"), tf.reduce_max(tf.constant([1])) * 0):
        assert scalar.shape == ()
    assert (t[0] + t[1]).numpy() == b"ab"
    assert tf.strings.length(t[1]).numpy() == 1


def test_string_ops_pass_no_gradient_and_leave_the_rest_of_the_sweep_alone():
    x = tf.constant([1.5, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        text = tf.strings.as_string(x)
        y = tf.reduce_sum(x * x) + tf.reduce_sum(tf.strings.to_number(text))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 4.0])


def test_a_tf_function_of_strings_is_traced_once_per_signature_and_runs_on_new_strings():
    traces = []

    @tf.function
    def shout(s):
        traces.append(s.dtype)
        return tf.strings.upper(s) + "!"

    assert shout(tf.constant("a")).numpy() == b"A!"
    assert shout(tf.constant("b")).numpy() == b"B!"
    assert traces == [tf.string]
    concrete = shout.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    assert concrete(tf.constant("c")).numpy() == b"C!"
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a string tensor but is a int32"):
        concrete(tf.constant(1))
    spec = "TensorSpec(shape=(), dtype=tf.string, name=None)"
    assert str(concrete.function_type) == f"(s: {spec}) -> {spec}"  # as the tf.function guide prints it
    assert concrete.inference_fn(tf.constant("d")).numpy() == b"D!"


def test_a_number_given_to_a_string_op_is_a_type_error_that_says_what_to_do():
    with pytest.raises(TypeError, match="as_string"):
        tf.strings.upper(tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="to_number"):
        tf.constant("a") * tf.constant("b")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"string tensor but is a int32 tensor\. Convert first"):
        tf.constant("a") + 1


def test_the_numeric_conversion_path_is_unchanged():
    assert tf.constant(2.0).dtype == tf.float32
    assert tf.constant([1, 2]).numpy().dtype == np.int32
    with pytest.raises(TypeError):
        tf.constant("1", dtype=tf.float32)
    assert tf.as_dtype("string") is tf.string
    assert not tf.string.is_numeric


def test_0d_string_arrays_nested_in_lists_pack_to_a_string_tensor():
    # what a py_function result or np.array([[t], ...]) of string tensors holds: packed as TF packs [[t1], [t2]]
    from tapeviz.core import string_array

    nested = [[string_array.scalar(b"Open")], [tf.constant("Read")]]
    for value in (nested, np.array(nested, dtype=object)):
        packed = tf.convert_to_tensor(value)
        assert packed.dtype == tf.string and packed.numpy().tolist() == [[b"Open"], [b"Read"]]
        assert type(packed.numpy()) is np.ndarray and all(type(b) is bytes for b in packed.numpy().reshape(-1))
