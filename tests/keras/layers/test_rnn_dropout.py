"""LSTM, GRU and SimpleRNN dropout and recurrent_dropout against Keras 3.15 on TF 2.21 (values from
tests/tf_reference/rnn_dropout_reference.py): the same masks from the same seeds (one per gate where Keras
draws one per gate), drawn once per call of the RNN layer, at inference too, and applied only in training;
a cell called on its own keeps its masks; unseeded layers after set_random_seed and after fit steps."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras
from tests.tf_reference import rnn_dropout_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "rnn_dropout_values.json").read_text())


def close(got, want, tol, what):
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol, err_msg=f"{what} {i}")


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_rnn_dropout_matches_keras_in_outputs_and_gradients(name):
    got, want = cases.run(tf, keras, name), VALUES["layers"][name]
    for key in ("first", "second", "inference", "inference_false", "after_inference"):
        close(got[key], want[key], 1e-5, key)
    close(got["grads"], want["grads"], 1e-4, "grad")
    assert not np.allclose(got["first"][0], got["second"][0])  # a new draw per call
    np.testing.assert_array_equal(got["inference"][0], got["inference_false"][0])  # nothing dropped


@pytest.mark.parametrize("name", sorted(cases.CELLS))
def test_a_cell_called_alone_keeps_its_masks_as_keras(name):
    got, want = cases.run_cell(tf, keras, name), VALUES["cells"][name]
    for key in ("first", "again", "inference"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-5, err_msg=key)
    close(got["again_states"], want["again_states"], 1e-5, "states")
    close(got["grads"], want["grads"], 1e-4, "grad")


@pytest.mark.parametrize("name", sorted(cases.DEFAULT_SEEDS))
def test_an_unseeded_rnn_after_set_random_seed_draws_keras_weights_and_masks(name):
    got, want = cases.run_default_seeds(tf, keras, name), VALUES["default_seeds"][name]
    close(got["weights"], want["weights"], 1e-6, "weight")
    np.testing.assert_allclose(got["output"], want["output"], rtol=1e-5, atol=1e-5)


def test_fit_with_rnn_dropout_trains_as_keras():
    got, want = cases.run_fit(tf, keras), VALUES["fit"]
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-4)
    close(got["weights"], want["weights"], 1e-4, "weight")
    np.testing.assert_allclose(got["predict"], want["predict"], rtol=1e-4, atol=1e-5)


def test_symbolic_calls_draw_no_masks_so_the_seed_generator_stays():
    assert cases.run_symbolic_states(keras) == VALUES["symbolic_states"]
    assert VALUES["symbolic_states"]["then_eager"][1] == 6  # the eager call drew 3 + 3 masks (one per gate)
