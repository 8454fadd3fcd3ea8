"""Cases of ConvLSTM1D/2D/3D with dropout and recurrent_dropout, run the same way by Keras 3 on TF 2.21
(conv_lstm_dropout_reference.py) and by tapeviz (tests/keras/layers/test_conv_lstm_dropout.py). Nothing here imports
TensorFlow, Keras or tapeviz."""

import numpy as np

# name: (layer class, kwargs, input shape)
CASES = {
    "lstm2d_both": ("ConvLSTM2D", {"filters": 2, "kernel_size": 2, "dropout": 0.3, "recurrent_dropout": 0.4, "seed": 5, "padding": "same"}, (2, 3, 4, 4, 2)),
    "lstm2d_input_only_sequences": ("ConvLSTM2D", {"filters": 3, "kernel_size": 3, "dropout": 0.5, "seed": 6, "return_sequences": True}, (1, 3, 5, 5, 1)),
    "lstm1d_recurrent_only": ("ConvLSTM1D", {"filters": 2, "kernel_size": 2, "recurrent_dropout": 0.25, "seed": 7, "padding": "same"}, (2, 4, 5, 2)),
    "lstm3d_both": ("ConvLSTM3D", {"filters": 1, "kernel_size": 2, "dropout": 0.2, "recurrent_dropout": 0.2, "seed": 8}, (1, 2, 3, 3, 3, 1)),
}  # fmt: skip


def run(tf, keras, name):
    """Training output (two calls: fresh masks each call), gradients, and the inference output, with fixed weights."""
    cls, kwargs, shape = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    layer = getattr(keras.layers, cls)(**kwargs)
    x = tf.constant(rng.normal(size=shape).astype("float32"))
    layer(x)  # builds
    layer.set_weights([rng.normal(size=tuple(v.shape)).astype("float32") * 0.5 for v in layer.weights])
    with tf.GradientTape() as tape:
        tape.watch(x)
        first = layer(x, training=True)
        loss = tf.reduce_sum(
            first * np.linspace(-1, 1, int(np.prod(first.shape)), dtype="float32").reshape(first.shape)
        )
    grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
    second = layer(x, training=True)
    return {
        "first": np.asarray(first).tolist(),
        "second": np.asarray(second).tolist(),
        "grads": [np.asarray(g).tolist() for g in grads],
        "inference": np.asarray(layer(x)).tolist(),
        "no_dropout_at_inference": bool(np.allclose(np.asarray(layer(x)), np.asarray(layer(x, training=False)))),
    }


def run_default_seeds(keras):
    """Initial weights of an unseeded ConvLSTM2D after keras.utils.set_random_seed (its SeedGenerator comes first)."""
    keras.utils.set_random_seed(11)
    layer = keras.layers.ConvLSTM2D(2, 2, dropout=0.1)
    layer.build((None, 2, 4, 4, 1))
    return [np.asarray(w).tolist() for w in layer.weights]


def run_all(tf, keras):
    values = {name: run(tf, keras, name) for name in CASES}
    values["default_seeds"] = run_default_seeds(keras)
    return values
