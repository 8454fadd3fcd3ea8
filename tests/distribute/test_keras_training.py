"""Keras under a MirroredStrategy: model.fit, and a custom loop through strategy.run, train as on one device.

The strategy mirrors the model, so its training is one replica's worth of math: the weights after
training match those trained without a strategy (to float32 rounding in the custom loop, where the
replicas' gradients are summed before the step, as TF's)."""

import numpy as np

import tapeviz as tf

keras = tf.keras
X = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
Y = X @ np.array([[1.0], [2.0], [-1.0]], "float32")


def _model():
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])


def _fit(strategy):
    with strategy.scope():
        model = _model()
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(X, Y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    return [w.numpy() for w in model.weights], history.history["loss"]


def _custom_loop(strategy):
    with strategy.scope():
        model = _model()
        optimizer = keras.optimizers.SGD(0.05)
    batches = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((X, Y)).batch(16))

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 16.0  # over the global batch, as TF's guides scale it
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for _ in range(3):
        for x, y in batches:
            strategy.run(step, args=(x, y))
    return [w.numpy() for w in model.weights], int(optimizer.iterations.numpy())


def test_fit_under_mirrored_strategy_matches_fit_without_one(three_cpus):
    alone, alone_loss = _fit(tf.distribute.get_strategy())
    mirrored, mirrored_loss = _fit(three_cpus)
    assert mirrored_loss == alone_loss
    for a, b in zip(alone, mirrored):
        np.testing.assert_array_equal(a, b)


def test_custom_loop_through_strategy_run_matches_one_device(three_cpus):
    alone, alone_steps = _custom_loop(tf.distribute.get_strategy())
    mirrored, mirrored_steps = _custom_loop(three_cpus)
    assert mirrored_steps == alone_steps == 6  # one optimizer step per global batch, not one per replica
    for a, b in zip(alone, mirrored):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
