"""The dtype of arithmetic between tensors and Python numbers, against TF 2.21's (tests/tf_reference/dtype_rules_*).

Integer true division is the rule people meet first: an image of uint8 pixels
``/ 255`` is float32 in TF (int8, int16, uint8, uint16 give float32; int32,
int64, uint32, uint64 give float64), so it multiplies with float32 weights.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import dtype_rules_cases

REFERENCE = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "dtype_rules_values.json").read_text())


def test_every_pair_gives_tfs_dtype_or_tfs_error():
    got = dtype_rules_cases.facts(tf)
    wrong = {key: (want, got[key]) for key, want in REFERENCE["facts"].items() if got[key] != want}
    assert not wrong, f"{len(wrong)} of {len(got)} differ from TF (TF, tapeviz): {wrong}"


def test_uint8_pixels_over_255_are_float32_and_meet_float32_weights():
    pixels = tf.constant(np.array([[0, 51, 255]], dtype=np.uint8))
    scaled = pixels / 255
    assert scaled.dtype == tf.float32
    np.testing.assert_allclose(scaled.numpy(), [[0.0, 0.2, 1.0]], rtol=1e-7)
    out = tf.matmul(scaled, tf.ones((3, 2)))
    assert out.dtype == tf.float32


@pytest.mark.parametrize(
    "dtype, want", [("int8", "float32"), ("uint16", "float32"), ("int32", "float64"), ("uint64", "float64")]
)
def test_integer_division_values_are_exact(dtype, want):
    x = tf.constant([7, 9], dtype=dtype)
    q = tf.math.truediv(x, tf.constant([2, 4], dtype=dtype))
    assert q.dtype.name == want
    np.testing.assert_array_equal(q.numpy(), np.array([3.5, 2.25], dtype=want))


def test_division_of_floats_keeps_its_gradient():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(3.0 / x + tf.divide(x, 4.0) + tf.math.truediv(x, 2.0))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [-3.0 + 0.75, -0.75 + 0.75], rtol=1e-6)


def test_a_bool_tensor_times_a_number_is_a_logical_and_as_in_tf():
    flags = tf.constant([True, False])
    assert (flags * 3).numpy().tolist() == [True, False]
    assert (flags * 0.0).numpy().tolist() == [False, False]
    with pytest.raises(TypeError):
        2.5 * flags
