"""Adamax, Nadam, Adadelta and Lion against Keras 3.15 on TF 2.21: three ``apply`` steps and a short ``fit``.

The same code (tests/tf_reference/keras_optimizer_cases.py) runs on Keras and on
tapeviz; Keras's results are in tests/tf_reference/keras_optimizer_facts.json.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_optimizer_cases as cases

KERAS = json.loads((pathlib.Path(cases.__file__).parent / "keras_optimizer_facts.json").read_text())["facts"]


@pytest.fixture(scope="module")
def ours():
    return cases.facts(tf.keras)


@pytest.mark.parametrize("key", sorted(KERAS))
def test_optimizer_matches_keras(ours, key):
    got, want = ours[key], KERAS[key]
    if isinstance(want, str):
        assert got == want
        return
    for step_got, step_want in zip(got["apply"], want["apply"]):
        for a, b in zip(step_got, step_want):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got["fit_loss"], want["fit_loss"], rtol=1e-4, atol=2e-5)
