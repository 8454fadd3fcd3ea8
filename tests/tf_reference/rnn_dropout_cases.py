"""Cases of LSTM, GRU and SimpleRNN (their cells, RNN and Bidirectional over them) with dropout and
recurrent_dropout, run the same way by Keras 3 on TF 2.21 (rnn_dropout_reference.py) and by tapeviz
(tests/keras/layers/test_rnn_dropout.py). Nothing here imports TensorFlow, Keras or tapeviz."""

import numpy as np

# name: (a function of keras making the layer, input shape)
CASES = {
    "lstm_both": (lambda k: k.layers.LSTM(3, dropout=0.3, recurrent_dropout=0.4, seed=5), (2, 4, 3)),
    "lstm_input_only_sequences": (lambda k: k.layers.LSTM(3, dropout=0.5, seed=6, return_sequences=True), (2, 3, 2)),
    "lstm_recurrent_only_state": (lambda k: k.layers.LSTM(2, recurrent_dropout=0.25, seed=7, return_state=True), (3, 4, 2)),
    # LSTM(implementation=1, dropout>0) without recurrent_dropout raises on Keras 3.15 (its fused path broadcasts the
    # list of 4 masks), so the cell runs in a plain RNN
    "lstm_implementation_1": (lambda k: k.layers.RNN(k.layers.LSTMCell(3, dropout=0.3, implementation=1, seed=8)), (2, 3, 2)),
    "gru_both": (lambda k: k.layers.GRU(3, dropout=0.3, recurrent_dropout=0.4, seed=9), (2, 4, 3)),
    "gru_input_only_backwards": (lambda k: k.layers.GRU(3, dropout=0.4, seed=10, go_backwards=True, return_sequences=True), (2, 3, 2)),
    "gru_reset_before_both": (lambda k: k.layers.GRU(2, dropout=0.2, recurrent_dropout=0.3, reset_after=False, seed=11), (2, 3, 3)),
    "simple_both_sequences": (lambda k: k.layers.SimpleRNN(3, dropout=0.3, recurrent_dropout=0.4, seed=12, return_sequences=True), (2, 4, 3)),
    "simple_recurrent_only": (lambda k: k.layers.SimpleRNN(2, recurrent_dropout=0.5, seed=13), (2, 3, 2)),
    "bidirectional_lstm": (lambda k: k.layers.Bidirectional(k.layers.LSTM(2, dropout=0.3, recurrent_dropout=0.3, seed=14, return_sequences=True)), (2, 3, 2)),
    "bidirectional_gru_sum": (lambda k: k.layers.Bidirectional(k.layers.GRU(2, dropout=0.3, seed=17), merge_mode="sum"), (2, 3, 2)),
    "rnn_of_gru_cell": (lambda k: k.layers.RNN(k.layers.GRUCell(3, dropout=0.3, recurrent_dropout=0.2, seed=15)), (2, 3, 2)),
    "rnn_of_lstm_cell_sequences": (lambda k: k.layers.RNN(k.layers.LSTMCell(2, dropout=0.2, recurrent_dropout=0.4, seed=16), return_sequences=True), (2, 3, 3)),
}  # fmt: skip

# cell name: (a function of keras making the cell, step input shape)
CELLS = {
    "lstm_cell": (lambda k: k.layers.LSTMCell(3, dropout=0.3, recurrent_dropout=0.4, seed=21), (2, 3)),
    "gru_cell": (lambda k: k.layers.GRUCell(3, dropout=0.3, recurrent_dropout=0.4, seed=22), (2, 3)),
    "simple_cell": (lambda k: k.layers.SimpleRNNCell(3, dropout=0.3, recurrent_dropout=0.4, seed=23), (2, 3)),
    "lstm_cell_input_only": (lambda k: k.layers.LSTMCell(2, dropout=0.5, seed=24), (2, 3)),
}  # fmt: skip


def _weights(layer, rng):
    return [rng.normal(size=tuple(v.shape)).astype("float32") * 0.5 for v in layer.weights]


def _list(out):
    return [np.asarray(o).tolist() for o in (out if isinstance(out, (list, tuple)) else [out])]


def run(tf, keras, name):
    """Training outputs (two calls: fresh masks each call), gradients, inference outputs, and a training call
    after inference (inference draws masks too, so the seed generator moves on), with fixed weights."""
    make, shape = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    layer = make(keras)
    x = tf.constant(rng.normal(size=shape).astype("float32"))
    layer(x)  # builds
    layer.set_weights(_weights(layer, rng))
    with tf.GradientTape() as tape:
        tape.watch(x)
        first = layer(x, training=True)
        loss = 0.0
        for i, out in enumerate(first if isinstance(first, (list, tuple)) else [first]):
            weights = np.linspace(-1, 1 + i, int(np.prod(out.shape)), dtype="float32").reshape(tuple(out.shape))
            loss = loss + tf.reduce_sum(out * weights)
    grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
    second = layer(x, training=True)
    inference = layer(x)
    inference_false = layer(x, training=False)
    return {
        "first": _list(first),
        "second": _list(second),
        "grads": [np.asarray(g).tolist() for g in grads],
        "inference": _list(inference),
        "inference_false": _list(inference_false),
        "after_inference": _list(layer(x, training=True)),
    }


def run_cell(tf, keras, name):
    """A cell called on its own: its masks are drawn at its first training call and kept (Keras resets them only
    inside an RNN layer), so a second call with other inputs reuses them; an inference call drops nothing."""
    make, shape = CELLS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    cell = make(keras)
    units = cell.units
    count = 2 if "lstm" in name else 1
    x1, x2 = (tf.constant(rng.normal(size=shape).astype("float32")) for _ in range(2))
    states = [tf.constant(rng.normal(size=(shape[0], units)).astype("float32")) for _ in range(count)]
    cell(x1, states)  # builds
    cell.set_weights(_weights(cell, rng))
    with tf.GradientTape() as tape:
        tape.watch(x1)
        out, _ = cell(x1, states, training=True)
        loss = tf.reduce_sum(out * np.linspace(-1, 1, int(np.prod(out.shape)), dtype="float32").reshape(out.shape))
    grads = tape.gradient(loss, [x1] + list(cell.trainable_weights))
    again, new_states = cell(x2, states, training=True)
    return {
        "first": np.asarray(out).tolist(),
        "again": np.asarray(again).tolist(),
        "again_states": _list(new_states),
        "grads": [np.asarray(g).tolist() for g in grads],
        "inference": np.asarray(cell(x2, states, training=False)[0]).tolist(),
    }


DEFAULT_SEEDS = {
    "lstm": lambda k: k.layers.LSTM(3, dropout=0.3, recurrent_dropout=0.2),
    "gru": lambda k: k.layers.GRU(3, dropout=0.3, recurrent_dropout=0.2, return_sequences=True),
    "simple": lambda k: k.layers.SimpleRNN(3, dropout=0.3, recurrent_dropout=0.2),
    "lstm_input_only": lambda k: k.layers.LSTM(2, dropout=0.4),
    "bidirectional_gru": lambda k: k.layers.Bidirectional(k.layers.GRU(2, dropout=0.3, recurrent_dropout=0.3)),
}


def run_default_seeds(tf, keras, name):
    """An unseeded layer after keras.utils.set_random_seed: its initial weights and its training output
    (its SeedGenerator takes a default seed in Keras's order)."""
    keras.utils.set_random_seed(11)
    layer = DEFAULT_SEEDS[name](keras)
    x = tf.constant(np.random.default_rng(3).normal(size=(2, 3, 2)).astype("float32"))
    out = layer(x, training=True)
    return {"weights": [np.asarray(w).tolist() for w in layer.weights], "output": np.asarray(out).tolist()}


def run_fit(tf, keras):
    """Two epochs of fit on stacked GRU, SimpleRNN and LSTM layers with both dropouts, all unseeded after
    keras.utils.set_random_seed: the losses, the trained weights and predict's outputs."""
    keras.utils.set_random_seed(4)
    model = keras.Sequential(
        [
            keras.Input((5, 3)),
            keras.layers.GRU(4, dropout=0.2, recurrent_dropout=0.3, return_sequences=True),
            keras.layers.SimpleRNN(3, dropout=0.25, recurrent_dropout=0.1, return_sequences=True),
            keras.layers.LSTM(2, dropout=0.3, recurrent_dropout=0.2),
            keras.layers.Dense(1),
        ]
    )
    model.compile(keras.optimizers.SGD(0.1), "mse")
    rng = np.random.default_rng(8)
    x = rng.normal(size=(12, 5, 3)).astype("float32")
    y = rng.normal(size=(12, 1)).astype("float32")
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return {
        "loss": [float(v) for v in history.history["loss"]],
        "weights": [np.asarray(w).tolist() for w in model.get_weights()],
        "predict": np.asarray(model.predict(x, verbose=0)).tolist(),
    }


def run_symbolic_states(keras):
    """A SeedGenerator's state after symbolic calls (a KerasTensor, a Sequential model built from an Input, a
    functional model) and after an eager one: only eager calls draw masks that move it."""
    states = {}

    def state(layer):
        return [int(v) for v in np.asarray(layer.cell.seed_generator.state.numpy())]

    layer = keras.layers.GRU(2, dropout=0.2, recurrent_dropout=0.1, seed=1)
    layer(keras.Input((3, 2)))
    states["keras_tensor"] = state(layer)
    layer(np.ones((1, 3, 2), "float32"))
    states["then_eager"] = state(layer)
    first = keras.layers.LSTM(2, dropout=0.2, seed=2, return_sequences=True)
    keras.Sequential([keras.Input((3, 2)), first, keras.layers.SimpleRNN(2, recurrent_dropout=0.3, seed=3)])
    states["sequential"] = state(first)
    inputs = keras.Input((3, 2))
    layer = keras.layers.SimpleRNN(2, dropout=0.2, seed=4)
    keras.Model(inputs, layer(inputs))
    states["functional"] = state(layer)
    return states


def run_all(tf, keras):
    return {
        "layers": {name: run(tf, keras, name) for name in CASES},
        "cells": {name: run_cell(tf, keras, name) for name in CELLS},
        "default_seeds": {name: run_default_seeds(tf, keras, name) for name in DEFAULT_SEEDS},
        "fit": run_fit(tf, keras),
        "symbolic_states": run_symbolic_states(keras),
    }
