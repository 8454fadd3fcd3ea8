"""keras.losses and keras.metrics against Keras 3.15 on TF 2.21.

The same code (tests/tf_reference/keras_metric_cases.py) runs on Keras and on
tapeviz; Keras's results are in tests/tf_reference/keras_metric_facts.json:
each loss's value, reductions, sample weights, gradient and config; each
metric's result over two batches and after reset; string ids in compile;
a user metric made with ``add_variable(shape=, initializer=)``.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_metric_cases as cases

KERAS = json.loads((pathlib.Path(cases.__file__).parent / "keras_metric_facts.json").read_text())["facts"]


@pytest.fixture(scope="module")
def ours():
    return cases.facts(tf.keras, tf)


def _same(actual, expected):
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected)
        for key in expected:
            _same(actual[key], expected[key])
    elif isinstance(expected, list):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            _same(a, e)
    elif isinstance(expected, float) and not isinstance(expected, bool):
        assert np.isclose(actual, expected, rtol=2e-5, atol=2e-5, equal_nan=True), (actual, expected)
    else:
        assert actual == expected


@pytest.mark.parametrize("key", sorted(KERAS))
def test_loss_and_metric_facts_match_keras(ours, key):
    mine = ours[key]
    if key == "loss:Huber":
        # Keras 3.15's Huber.get_config() drops `delta` (from_config then rebuilds delta=1.0); tapeviz keeps it.
        assert mine["config"].pop("delta") == 0.5
    _same(mine, KERAS[key])


def test_metrics_stay_off_the_tape():
    x = tf.constant(cases.REG_PRED)
    metric = tf.keras.metrics.MeanAbsolutePercentageError()
    with tf.GradientTape() as tape:
        tape.watch(x)
        metric.update_state(cases.REG_TRUE, x)
        assert list(tape.recorded_ops) == []
