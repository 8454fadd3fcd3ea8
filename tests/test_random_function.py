"""Random ops inside tf.function follow TF 2.21's graph seed rule (values from
tests/tf_reference/random_function_reference.py): two functions with the same ops give the same numbers,
each op's kernel moves on per call, a retrace starts afresh, a loop body counts its own op seeds, eager
draws keep their own sequence, and set_seed restarts everything."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import random_function_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "random_function_values.json").read_text())


@pytest.fixture(scope="module")
def got():
    return cases.run(tf)


@pytest.mark.parametrize("key", sorted(VALUES))
def test_the_draws_equal_tfs(got, key):
    for mine, theirs in zip(got[key], VALUES[key]):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-6)


def test_a_function_with_random_ops_still_saves_and_loads(tmp_path):
    class Noisy(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def __call__(self, x):
            return x + tf.random.uniform([2], seed=3)

    tf.random.set_seed(5)
    module = Noisy()
    first = module(tf.zeros([2])).numpy()
    tf.saved_model.save(module, str(tmp_path / "noisy"))
    loaded = tf.saved_model.load(str(tmp_path / "noisy"))
    assert loaded(tf.zeros([2])).shape == (2,) and np.all((first >= 0) & (first < 1))
