"""tf.nn.conv3d, max_pool3d and avg_pool3d (composed from the 2-D ops) against TF 2.21: outputs and gradients
(tests/tf_reference/volume_ops_cases.py, values from volume_ops_reference.py), and finite differences."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import volume_ops_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "volume_ops_values.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_3d_op_matches_tf_in_value_and_gradients(name):
    got, want = cases.run(tf, name), VALUES[name]
    assert sorted(got) == sorted(want)
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]), rtol=2e-5, atol=2e-5, err_msg=key)


def test_conv3d_gradient_matches_finite_differences_in_float64():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 4, 3, 3, 2))
    w = rng.normal(size=(2, 2, 2, 2, 1))

    def f(x, w):
        return tf.reduce_sum(tf.nn.conv3d(x, w, strides=[1, 1, 1, 1, 1], padding="SAME") ** 2)

    result = tf.viz.gradcheck(f, x, w)
    assert result.ok, str(result)


def test_other_layouts_and_ranks_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match="NDHWC"):
        tf.nn.conv3d(tf.ones([1, 2, 3, 3, 3]), tf.ones([1, 1, 1, 2, 1]), [1] * 5, "VALID", data_format="NCDHW")
    with pytest.raises(ValueError, match="5-D input"):
        tf.nn.max_pool3d(tf.ones([1, 3, 3, 3]), 2, 2, "VALID")
