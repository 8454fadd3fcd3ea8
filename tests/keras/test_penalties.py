"""keras.regularizers and keras.constraints against Keras 3.15 on TF 2.21.

The same code (tests/tf_reference/keras_penalty_cases.py) runs on Keras and on
tapeviz; Keras's results are in tests/tf_reference/keras_penalty_facts.json.
It covers each regularizer's value, gradient, config and serialized form,
each constraint's projection, the string identifiers and errors,
``kernel_regularizer=``/``activity_regularizer=`` on Dense, Conv2D and
Embedding (``layer.losses``), and a model trained by ``fit`` with penalties
in its loss and constraints applied after each step.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_penalty_cases

KERAS = json.loads((pathlib.Path(keras_penalty_cases.__file__).parent / "keras_penalty_facts.json").read_text())[
    "facts"
]


@pytest.fixture(scope="module")
def ours():
    tf.keras.utils.set_random_seed(1)
    return keras_penalty_cases.facts(tf.keras, tf)


def _same(actual, expected):
    if isinstance(expected, dict):
        assert set(actual) == set(expected)
        for key in expected:
            _same(actual[key], expected[key])
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _same(a, e)
    elif isinstance(expected, float):
        assert np.isclose(actual, expected, rtol=2e-5, atol=2e-6, equal_nan=True), (actual, expected)
    else:
        assert actual == expected


@pytest.mark.parametrize("key", sorted(KERAS))
def test_penalty_facts_match_keras(ours, key):
    _same(ours[key], KERAS[key])


def test_regularizers_are_drawn_under_their_names():
    x = tf.constant(np.ones((2, 2), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        tf.keras.regularizers.L1L2(0.1, 0.2)(x)
        scopes = {e.scope for e in tape.recorded_ops}
    assert scopes and all(s.startswith("l1_l2") for s in scopes)


def test_a_saved_model_keeps_its_regularizers_and_constraints(tmp_path):
    pytest.importorskip("h5py")
    K = tf.keras
    model = K.Sequential(
        [
            K.Input((3,)),
            K.layers.Dense(2, kernel_regularizer=K.regularizers.L2(0.1), kernel_constraint=K.constraints.MaxNorm(1.5)),
        ]
    )
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = K.models.load_model(path)
    dense = loaded.layers[-1]
    assert isinstance(dense.kernel.regularizer, K.regularizers.L2) and dense.kernel.regularizer.l2 == 0.1
    assert isinstance(dense.kernel.constraint, K.constraints.MaxNorm) and dense.kernel.constraint.max_value == 1.5
    np.testing.assert_allclose(loaded.losses[0].numpy(), model.losses[0].numpy(), rtol=1e-6)
