"""Reshaping, depthwise/separable convolution, preprocessing and wrapper layers against Keras 3.15 on TF 2.21.

The cases are tests/tf_reference/keras_layer_cases_more.py (the same code runs
on Keras); Keras's outputs, gradients and weight paths are in
tests/tf_reference/keras_layer_more_values.json.
"""

import json
import pathlib
import re

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_layer_cases_more as cases

REFERENCE = json.loads((pathlib.Path(cases.__file__).parent / "keras_layer_more_values.json").read_text())


def _unsuffixed(path):
    """A weight path without the _N tapeviz's global naming adds to a second cell ('lstm_cell_1' -> 'lstm_cell')."""
    return re.sub(r"_\d+(?=/|$)", "", path)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_layer_matches_keras(name):
    want = REFERENCE["cases"][name]
    got = cases.run(tf, tf.keras, name)
    assert [_unsuffixed(p) for p in got["weight_paths"]] == [_unsuffixed(p) for p in want["weight_paths"]]
    assert got["weight_shapes"] == want["weight_shapes"]
    for key in ("outputs", "input_grads", "weight_grads"):
        assert len(got[key]) == len(want[key])
        for a, b in zip(got[key], want[key]):
            np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=2e-5, atol=2e-5)


def test_layer_facts_match_keras():
    got, want = cases.facts(tf.keras), REFERENCE["facts"]
    assert sorted(got) == sorted(want)
    for key in ("normalization_adapt", "normalization_axis_none"):
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=2e-5)
    for a, b in zip(got["normalization_weights"], want["normalization_weights"]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)
    assert [_unsuffixed(p) for p in got["bidirectional_names"]] == want["bidirectional_names"]
    assert got["errors"] == want["errors"]
    assert got["activity_regularization_losses"] == pytest.approx(want["activity_regularization_losses"], rel=1e-5)
    assert got["spatial_dropout_whole_maps"] == want["spatial_dropout_whole_maps"]
    assert got["spatial_dropout_values"] == want["spatial_dropout_values"]
    assert got["category_encoding"] == want["category_encoding"]


@pytest.mark.parametrize("variant", ["plain", "value_dim", "causal", "mask"])
def test_multi_head_attention_matches_keras(variant):
    want = REFERENCE["attention"][variant]
    got = cases.attention(tf, tf.keras, variant)
    assert [re.sub(r"^multi_head_attention(_\d+)?/", "", p) for p in got["paths"]] == [
        re.sub(r"^multi_head_attention(_\d+)?/", "", p) for p in want["paths"]
    ]
    assert got["shapes"] == want["shapes"]
    for key in ("output", "scores"):
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=2e-5)
    for a, b in zip(got["grads"], want["grads"]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(cases.MASK_MODELS))
def test_masks_flow_from_embedding_or_masking_through_rnns_as_in_keras(name):
    want = REFERENCE["masked"][name]
    got = cases.masked(tf, tf.keras, name)
    np.testing.assert_allclose(got["output"], want["output"], rtol=2e-5, atol=2e-5)
    assert len(got["grads"]) == len(want["grads"])
    for a, b in zip(got["grads"], want["grads"]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)
