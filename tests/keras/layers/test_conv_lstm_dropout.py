"""ConvLSTM1D/2D/3D dropout and recurrent_dropout against Keras 3.15 on TF 2.21
(values from tests/tf_reference/conv_lstm_dropout_reference.py): the same masks from the same seeds, four per
gate, drawn once per call; none at inference."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras
from tests.tf_reference import conv_lstm_dropout_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "conv_lstm_dropout_values.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_conv_lstm_dropout_matches_keras_in_outputs_and_gradients(name):
    got, want = cases.run(tf, keras, name), VALUES[name]
    for key in ("first", "second", "inference"):
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]), rtol=1e-5, atol=1e-5, err_msg=key)
    for i, (g, w) in enumerate(zip(got["grads"], want["grads"])):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-4, err_msg=f"grad {i}")
    assert got["no_dropout_at_inference"] is want["no_dropout_at_inference"] is True
    assert not np.allclose(got["first"], got["second"])  # a new draw per call


def test_an_unseeded_conv_lstm_takes_keras_default_seeds_in_keras_order():
    got = cases.run_default_seeds(keras)
    for g, w in zip(got, VALUES["default_seeds"]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
