"""Keras 3 layers against TF 2.21 / Keras 3.15: outputs and gradients (inputs and weights) with the same weights.

The cases are in tests/tf_reference/keras_cases.py; TensorFlow's numbers in
tests/tf_reference/keras_values.py were produced by running the same code on
TensorFlow (tests/tf_reference/keras_reference.py layers). Each new primitive
behind these layers (AvgPool, AvgPoolGrad) also has a float64
finite-difference case in tests/rule_cases/conv.py.
"""

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_cases
from tests.tf_reference.keras_values import VALUES


@pytest.mark.parametrize("name", sorted(keras_cases.CASES))
def test_layer_matches_keras(name):
    expected = VALUES[name]
    got = keras_cases.run(tf, tf.keras, name)
    assert got["weight_shapes"] == expected["weight_shapes"], "weights in Keras's order and shapes"
    for key in ("outputs", "input_grads", "weight_grads"):
        assert len(got[key]) == len(expected[key]), key
        for mine, theirs in zip(got[key], expected[key]):
            np.testing.assert_allclose(
                np.asarray(mine), np.asarray(theirs), rtol=2e-5, atol=2e-6, err_msg=f"{name}: {key}"
            )


def test_every_case_has_tf_values():
    assert set(keras_cases.CASES) == set(VALUES)
