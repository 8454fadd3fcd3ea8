"""End to end on real data: the scikit-learn digits, trained three ways, with fixed seeds.

The seeds' custom training loop (GradientTape + apply_gradients) with an
MLP and with a small CNN, and the same MLP through compile/fit. Each must
reach at least 95 % test accuracy. Seeds are fixed, so the figures are
the same on every run of one machine; the bound leaves room for BLAS
rounding differences elsewhere.
"""

import re

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.keras.datasets import load_digits

L = tf.keras.layers


@pytest.fixture(scope="module")
def digits():
    return load_digits()


def _custom_loop(model, x_train, y_train, epochs):
    """The seeds' loop, verbatim apart from the model and data."""
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(2000, seed=1).batch(32)
    for _epoch in range(epochs):
        for inputs, targets in dataset:
            with tf.GradientTape() as tape:
                predictions = model(inputs, training=True)
                loss = loss_fn(targets, predictions)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return float(loss.numpy())


def _accuracy(model, x, y):
    return float(np.mean(np.argmax(model.predict(x, verbose=0), axis=-1) == y))


@pytest.mark.slow  # trains to 95 % accuracy
def test_custom_loop_mlp(digits):
    (x_train, y_train), (x_test, y_test) = digits
    tf.random.set_seed(0)
    model = tf.keras.Sequential([L.Flatten(), L.Dense(64, activation="relu"), L.Dense(10)])
    _custom_loop(model, x_train, y_train, epochs=20)
    assert _accuracy(model, x_test, y_test) >= 0.95


@pytest.mark.slow  # trains to 95 % accuracy
def test_custom_loop_cnn(digits):
    (x_train, y_train), (x_test, y_test) = digits
    tf.random.set_seed(0)
    model = tf.keras.Sequential(
        [
            L.Conv2D(16, 3, padding="same", activation="relu"),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dense(64, activation="relu"),
            L.Dense(10),
        ]
    )
    _custom_loop(model, x_train[..., None], y_train, epochs=10)
    assert _accuracy(model, x_test[..., None], y_test) >= 0.95


@pytest.mark.slow  # trains to 95 % accuracy
def test_compile_fit_evaluate(digits):
    (x_train, y_train), (x_test, y_test) = digits
    tf.random.set_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(8, 8)),
            L.Flatten(),
            L.Dense(64, activation="relu"),
            L.Dropout(0.1),
            L.Dense(10, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x_train, y_train, epochs=25, batch_size=32, validation_data=(x_test, y_test), verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert len(history.history["loss"]) == 25
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy >= 0.95
    assert accuracy == pytest.approx(history.history["val_accuracy"][-1])


def test_fit_on_a_dataset_with_validation_split_and_progress_bar(digits, capsys):
    (x_train, y_train), _ = digits
    tf.random.set_seed(0)
    model = tf.keras.Sequential([L.Flatten(), L.Dense(10)])
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1), loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    history = model.fit(x_train, y_train, epochs=2, validation_split=0.2)
    out = capsys.readouterr().out
    # Keras's time per step: in ms, or in us below a millisecond
    assert "Epoch 1/2" in out and "val_loss" in out and re.search(r"\d+(ms|us)/step", out)
    assert set(history.history) == {"loss", "val_loss"}
    dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)
    history = model.fit(dataset, epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1


def test_two_models_trained_by_one_tape_with_clipping():
    # The seeds' "several models, one tape" and "clip between gradient and apply_gradients".
    tf.random.set_seed(1)
    encoder = tf.keras.Sequential([L.Dense(4, activation="tanh")])
    decoder = tf.keras.Sequential([L.Dense(3)])
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    optimizer = tf.keras.optimizers.Adam(1e-2)
    losses = []
    for _ in range(30):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(decoder(encoder(x)) - x))
        variables = encoder.trainable_variables + decoder.trainable_variables
        gradients = tape.gradient(loss, variables)
        gradients, _ = tf.clip_by_global_norm(gradients, 1.0)
        optimizer.apply_gradients(zip(gradients, variables))
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.7 * losses[0]
