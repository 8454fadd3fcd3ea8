"""Keras 3's default model names (run with TF 2.21 / Keras 3.15): the values in tests/keras/test_keras3_api.py.

    /tmp/tfenv/bin/python tests/tf_reference/model_names_reference.py
prints: functional functional_1 my_model sequential
"""

import keras

keras.backend.clear_session()
inputs = keras.Input((3,))
first = keras.Model(inputs, keras.layers.Dense(2)(inputs))
second = keras.Model(inputs=inputs, outputs=inputs)


class MyModel(keras.Model):
    def call(self, x):
        return x


print(first.name, second.name, MyModel().name, keras.Sequential([keras.layers.Dense(1)]).name)
