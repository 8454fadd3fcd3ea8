"""Keras 3.15 (TF 2.21): a model fits an input one axis short (last Input size 1) or one longer
(last size 1), and Normalization's ``mean`` / ``variance`` after adapt. For tests/keras/models/test_functional.py:

    /tmp/tfenv/bin/python tests/tf_reference/input_rank_and_normalization_reference.py
"""

import keras
import numpy as np

normalizer = keras.layers.Normalization(axis=-1)
normalizer.adapt(np.arange(12.0).reshape(4, 3))
print("mean", normalizer.mean.numpy().tolist(), "variance", normalizer.variance.numpy().tolist())
scalar = keras.layers.Normalization(input_shape=[1], axis=None)
scalar.adapt(np.array([1.0, 2.0, 3.0, 4.0]))
model = keras.Sequential([scalar, keras.layers.Dense(1, kernel_initializer="ones")])
print("sequential (3,)", model.predict(np.array([1.0, 2.0, 3.0]), verbose=0).tolist())
wide = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones")])
print("sequential (3, 2, 1)", wide(np.ones((3, 2, 1))).shape)
inputs = keras.Input((1,))
functional = keras.Model(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
print("functional (2,)", functional(np.array([1.0, 2.0])).numpy().tolist())
