"""compile with dicts and lists of losses, loss weights and metrics for a two-output model, against Keras 3.15.

The same code (tests/tf_reference/keras_multi_output_cases.py) runs on Keras
and on tapeviz; Keras's histories and evaluations (with their ``<output>_loss``
and ``<output>_<metric>`` names) are in tests/tf_reference/keras_multi_output_facts.json.
"""

import json
import pathlib

import pytest

import tapeviz as tf
from tests.tf_reference import keras_multi_output_cases as cases

KERAS = json.loads((pathlib.Path(cases.__file__).parent / "keras_multi_output_facts.json").read_text())["facts"]


@pytest.fixture(scope="module")
def ours():
    return cases.facts(tf.keras)


@pytest.mark.parametrize("variant", sorted(cases.VARIANTS))
def test_multi_output_training_matches_keras(ours, variant):
    got, want = ours[variant], KERAS[variant]
    assert sorted(got["history"]) == sorted(want["history"])
    for key, values in want["history"].items():
        assert got["history"][key] == pytest.approx(values, rel=1e-4, abs=2e-5), key
    assert got["evaluate"] == pytest.approx(want["evaluate"], rel=1e-4, abs=2e-5)


def test_a_loss_dict_with_an_unknown_output_name_is_refused():
    model = cases.model_of(tf.keras, as_dict=True)
    with pytest.raises(ValueError, match="do not correspond to any model output"):
        model.compile(optimizer="sgd", loss={"o1": "mse", "out3": "mae"})
    with pytest.raises(ValueError, match="as many entries as the model has outputs"):
        cases.model_of(tf.keras, as_dict=False).compile(optimizer="sgd", loss=["mse"])
