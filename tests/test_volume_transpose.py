"""tf.nn.conv3d_transpose and keras.layers.Conv3DTranspose against TF 2.21 / Keras 3.15
(values from tests/tf_reference/volume_transpose_reference.py), and against finite differences."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras
from tests.tf_reference import volume_transpose_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "volume_transpose_values.json").read_text())


def _close(got, want):
    for key in want:
        if key == "output_shape":
            assert list(got[key]) == want[key]
            continue
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]), rtol=2e-5, atol=2e-5, err_msg=key)


@pytest.mark.parametrize("name", sorted(cases.OP_CASES))
def test_conv3d_transpose_matches_tf_in_value_and_gradients(name):
    _close(cases.run_op(tf, name), VALUES[name])


@pytest.mark.parametrize("name", sorted(cases.LAYER_CASES))
def test_conv3d_transpose_layer_matches_keras_in_value_gradients_and_shape(name):
    _close(cases.run_layer(tf, keras, name), VALUES[name])


def test_conv3d_transpose_gradient_matches_finite_differences_in_float64():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 2, 3, 2, 2))
    w = rng.normal(size=(3, 2, 2, 1, 2))

    def f(x, w):
        y = tf.nn.conv3d_transpose(x, w, (1, 4, 6, 4, 1), strides=2, padding="SAME")
        return tf.reduce_sum(y * tf.constant(np.linspace(-1, 1, 96).reshape(1, 4, 6, 4, 1)))

    result = tf.viz.gradcheck(f, x, w)
    assert result.ok, str(result)


def test_conv3d_transpose_refuses_shapes_that_do_not_fit():
    x, w = np.zeros((1, 2, 2, 2, 3), "float32"), np.zeros((2, 2, 2, 4, 3), "float32")
    with pytest.raises(ValueError, match="would have depth"):
        tf.nn.conv3d_transpose(x, w, (1, 9, 4, 4, 4), strides=2, padding="SAME")
    with pytest.raises(ValueError, match="output_channels, input_channels"):
        tf.nn.conv3d_transpose(x, w, (1, 4, 4, 4, 5), strides=2, padding="SAME")
    with pytest.raises(ValueError, match="NDHWC"):
        tf.nn.conv3d_transpose(x, w, (1, 4, 4, 4, 4), strides=2, data_format="NCDHW")
