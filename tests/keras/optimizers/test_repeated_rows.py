"""Optimizers given IndexedSlices gradients with repeated indices, against Keras 3.15 on TF 2.21.

Keras 3 passes each occurrence's row through the optimizer's elementwise ops (``square``, ``abs``,
clipping) before rows that share an index add up, so Adam, RMSprop, Adagrad, Adamax, Nadam and
Adadelta move a repeated embedding row differently from the same gradient given dense. The same code
(tests/tf_reference/keras_sparse_optimizer_cases.py) runs on Keras and on tapeviz; Keras's results
are in tests/tf_reference/keras_sparse_optimizer_facts.json.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_sparse_optimizer_cases as cases

KERAS = json.loads((pathlib.Path(cases.__file__).parent / "keras_sparse_optimizer_facts.json").read_text())["facts"]


@pytest.fixture(scope="module")
def ours():
    return cases.facts(tf, tf.keras)


@pytest.mark.parametrize("key", sorted(KERAS))
def test_sparse_update_matches_keras(ours, key):
    got, want = ours[key], KERAS[key]
    if key.startswith("gather:"):
        assert got[0] == want[0] == "IndexedSlices"
        got, want = [got[1]], [want[1]]
    if key.startswith("fit:"):
        got, want = [got], [want]
    assert len(got) == len(want)
    for a, b in zip(got, want):  # slices: the weights after each step, then the dense-gradient bias
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", ["Adam", "RMSprop", "Adagrad"])
def test_repeated_rows_differ_from_the_dense_gradient_as_in_keras(name):
    """The point of the facts: summing the rows first (the dense gradient) gives other numbers."""
    slices_values = cases._apply_slices(tf, tf.keras, name)[0]
    optimizer = getattr(tf.keras.optimizers, name)(**cases.OPTIMIZERS[name])
    w = tf.Variable(np.arange(8, dtype="float32").reshape(4, 2) / 4)
    dense = tf.convert_to_tensor(
        tf.IndexedSlices(tf.constant(cases.ROWS), tf.constant(cases.INDICES), tf.constant([4, 2]))
    )
    optimizer.apply_gradients([(dense, w)])
    assert not np.allclose(w.numpy()[0], slices_values[0], atol=1e-3)  # row 0 repeats: differs
    np.testing.assert_allclose(w.numpy()[2], slices_values[2], atol=1e-5)  # row 2 once: the same


def test_slices_without_repeats_update_as_the_dense_gradient():
    rows, indices = cases.ROWS[:2], np.array([3, 1])
    results = []
    for gradient in (
        tf.IndexedSlices(tf.constant(rows), tf.constant(indices), tf.constant([4, 2])),
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant(rows), tf.constant(indices), tf.constant([4, 2]))),
    ):
        w = tf.Variable(np.ones((4, 2), "float32"))
        tf.keras.optimizers.Adam(0.1).apply_gradients([(gradient, w)])
        results.append(w.numpy())
    np.testing.assert_array_equal(results[0], results[1])
