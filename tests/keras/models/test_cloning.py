"""keras.models.clone_model: the same architecture with new layers and fresh weights (Keras 3's behaviour:
the clone's weights are other variables; ``set_weights`` makes it compute the same)."""

import numpy as np
import pytest

import tapeviz as tf

K = tf.keras
L = K.layers


def _check_clone(model, clone, x):
    assert [type(a) for a in model.layers] == [type(b) for b in clone.layers]
    assert [tuple(w.shape) for w in model.weights] == [tuple(w.shape) for w in clone.weights]
    assert all(a is not b for a, b in zip(model.weights, clone.weights))
    clone.set_weights(model.get_weights())
    first, second = model(x), clone(x)
    for a, b in zip(tf.nest.flatten(first), tf.nest.flatten(second)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_clone_a_sequential_model():
    model = K.Sequential([K.Input((3,)), L.Dense(4, activation="relu"), L.Dropout(0.2), L.Dense(2)], name="seq")
    clone = K.models.clone_model(model)
    assert clone.name == "seq"
    _check_clone(model, clone, np.ones((2, 3), np.float32))


def test_clone_a_functional_model_with_two_inputs_and_a_dict_of_outputs():
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    shared = L.Dense(4, name="shared")
    h = L.Concatenate()([shared(a), L.Dense(4)(b)])
    model = K.Model([a, b], {"o1": L.Dense(1, name="o1")(h), "o2": L.Dense(2, name="o2")(shared(a))})
    clone = K.models.clone_model(model)
    _check_clone(model, clone, [np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)])


def test_clone_function_and_subclassed_models():
    model = K.Sequential([K.Input((3,)), L.Dense(2, name="d")])
    renamed = K.models.clone_model(model, clone_function=lambda layer: L.Dense(2, name="copy_" + layer.name))
    assert renamed.layers[0].name == "copy_d"

    class Sub(K.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1)

        def call(self, x):
            return self.d(x)

    with pytest.raises(ValueError, match="subclassed model cannot be cloned"):
        K.models.clone_model(Sub())
