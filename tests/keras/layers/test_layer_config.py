"""get_config / from_config for every built-in layer: the config lists the constructor arguments (objects as
Keras's {"module", "class_name", "config", "registered_name"} dicts, activations by name), and
``type(layer).from_config(layer.get_config())`` makes a layer that computes the same thing."""

import numpy as np
import pytest

import tapeviz as tf

K = tf.keras
L = K.layers

LAYERS = {
    "dense": (
        lambda: L.Dense(
            3,
            activation="relu",
            kernel_regularizer=K.regularizers.L2(0.1),
            kernel_initializer=K.initializers.HeNormal(seed=1),
        ),
        (2, 4),
    ),
    "conv2d": (lambda: L.Conv2D(2, 3, padding="same", kernel_constraint=K.constraints.MaxNorm(2.0)), (1, 4, 4, 2)),
    "depthwise": (lambda: L.DepthwiseConv2D(2, depth_multiplier=2), (1, 3, 3, 2)),
    "separable": (lambda: L.SeparableConv2D(2, 2), (1, 3, 3, 2)),
    "lstm": (lambda: L.LSTM(3, return_sequences=True), (2, 4, 2)),
    "gru": (lambda: L.GRU(2, reset_after=False), (2, 3, 2)),
    "embedding": (lambda: L.Embedding(5, 2), (2, 3)),
    "batchnorm": (lambda: L.BatchNormalization(momentum=0.9), (3, 2)),
    "layernorm": (lambda: L.LayerNormalization(epsilon=1e-5), (3, 2)),
    "dropout": (lambda: L.Dropout(0.3), (2, 3)),
    "zero_padding": (lambda: L.ZeroPadding2D(((1, 0), (0, 2))), (1, 2, 2, 1)),
    "upsampling": (lambda: L.UpSampling2D((2, 1)), (1, 2, 2, 1)),
    "rescaling": (lambda: L.Rescaling(0.5, offset=1.0), (2, 3)),
    "bidirectional": (lambda: L.Bidirectional(L.GRU(2), merge_mode="sum"), (2, 3, 2)),
    "time_distributed": (lambda: L.TimeDistributed(L.Dense(2)), (2, 3, 4)),
    "attention_free_prelu": (lambda: L.PReLU(shared_axes=[1]), (2, 3, 2)),
    "permute": (lambda: L.Permute((2, 1)), (2, 3, 4)),
    "max_pool": (lambda: L.MaxPooling2D(2, strides=1), (1, 3, 3, 1)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_from_config_of_get_config_computes_the_same(name):
    make, shape = LAYERS[name]
    layer = make()
    x = (np.arange(np.prod(shape)) % 5).reshape(shape).astype(np.float32) / 3.0
    if name == "embedding":
        x = x.astype(np.int32) % 5
    first = layer(x)
    config = layer.get_config()
    assert config["name"] == layer.name and "trainable" in config
    clone = type(layer).from_config({**config, "name": layer.name + "_clone"})
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), first.numpy(), rtol=1e-6, atol=1e-6)
    again = {k: v for k, v in clone.get_config().items() if k != "name"}
    assert again == {k: v for k, v in config.items() if k != "name"}


def test_a_dense_config_matches_keras_for_the_arguments_it_shares():
    config = L.Dense(3, activation="relu").get_config()
    # Keras 3.15: {'units': 3, 'activation': 'relu', 'use_bias': True, 'kernel_initializer': {... 'GlorotUniform' ...},
    # 'bias_initializer': {... 'Zeros' ...}, 'kernel_regularizer': None, ...}
    assert config["units"] == 3 and config["activation"] == "relu" and config["use_bias"] is True
    # Difference: an initializer given by name stays a name here (Keras writes its class dict).
    assert config["kernel_initializer"] == "glorot_uniform" and config["bias_initializer"] == "zeros"
    assert config["kernel_regularizer"] is None


def test_a_user_layer_gets_the_documented_default():
    class Scale(L.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    layer = Scale(3.0, name="s")
    clone = Scale.from_config(layer.get_config())
    assert clone.factor == 3.0 and clone.name == "s"
