"""tf.TensorShape against TF 2.21's (values from tests/tf_reference/tensor_shape_reference.py): printing (``%``
included: it is no tuple, so ``"%s" % t.shape`` prints ``(15,)``), equality and hashing with tuples and lists,
indexing, ``+`` with tuples, TF's methods and their errors, NumPy, pickling, JSON."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import tensor_shape_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "tensor_shape_values.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tensor_shape_behaves_as_tf(name):
    got = cases.outcome(cases.CASES[name], tf, tf.TensorShape, cases._shapes(tf))
    assert got == VALUES[name]


def test_every_case_has_a_tf_value():
    assert sorted(VALUES) == sorted(cases.CASES)


def test_percent_formatting_prints_the_shape_as_tf():
    assert "%s" % tf.zeros([15]).shape == "(15,)"  # noqa: UP031 - the guides print shapes so
    with pytest.raises(TypeError, match="not enough arguments"):
        "%s %s" % tf.zeros([2, 3]).shape  # noqa: UP031


def test_a_shape_read_during_tracing_is_still_a_tensor_shape():
    seen = []

    @tf.function
    def f(x):
        seen.append(x.shape)
        return tf.reshape(x, x.shape + (1,))

    assert f(tf.zeros([2, 3])).shape == (2, 3, 1)
    assert isinstance(seen[0], tf.TensorShape) and seen[0] == (2, 3)


def test_numpy_takes_shapes_with_sizes_of_numpy_ints():
    shape = tf.TensorShape(np.array([2, 3]))
    assert np.zeros(shape).shape == (2, 3) and all(type(n) is int for n in shape)
