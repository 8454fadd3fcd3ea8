"""A layer or model named "" keeps that name and adds no level to its weights' paths, as Keras 3.15
(TF's custom_layers tutorial builds its ResnetIdentityBlock with ``name=''``)."""

import numpy as np

from tapeviz import keras


def test_an_empty_name_is_kept_and_adds_no_path_level():
    class Block(keras.Model):
        def __init__(self):
            super().__init__(name="")
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    block = Block()
    block(np.ones((1, 3), "float32"))
    assert block.name == "" and keras.layers.Dense(2, name="").name == ""
    inner = block.dense.name  # "dense" in a fresh session, as Keras 3.15's paths "dense/kernel", "dense/bias"
    assert [w.path for w in block.weights] == [f"{inner}/kernel", f"{inner}/bias"]
