"""Optimizers given IndexedSlices gradients whose indices repeat (an Embedding batch that repeats a token,
``tf.gather`` with repeated indices), computed by the same code on Keras 3 / TF and on tapeviz.

Keras 3 does not sum the repeated rows first: each occurrence's row goes through the optimizer's
elementwise ops (``square``, ``abs``, clipping) and the results are then added per index. So Adam,
RMSprop, Adagrad... move an embedding row differently from the equivalent dense gradient. Nothing here
imports TensorFlow or tapeviz: ``facts(tf, keras)`` gets the modules.
"""

import numpy as np

OPTIMIZERS = {
    "SGD": {"learning_rate": 0.1},
    "SGD:momentum": {"learning_rate": 0.1, "momentum": 0.9},
    "SGD:nesterov": {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True},
    "Adam": {"learning_rate": 0.1},
    "Adam:amsgrad": {"learning_rate": 0.1, "amsgrad": True},
    "AdamW": {"learning_rate": 0.1},
    "RMSprop": {"learning_rate": 0.1},
    "RMSprop:centered": {"learning_rate": 0.1, "centered": True, "momentum": 0.5},
    "Adagrad": {"learning_rate": 0.1},
    "Adamax": {"learning_rate": 0.1},
    "Nadam": {"learning_rate": 0.1},
    "Adadelta": {"learning_rate": 1.0},
    "Lion": {"learning_rate": 0.1},
    "Adam:clipnorm": {"learning_rate": 0.1, "clipnorm": 1.0},
    "Adam:clipvalue": {"learning_rate": 0.1, "clipvalue": 1.5},
    "Adam:global_clipnorm": {"learning_rate": 0.1, "global_clipnorm": 2.0},
    "SGD:clipnorm": {"learning_rate": 0.1, "clipnorm": 1.0},
    "SGD:clipvalue": {"learning_rate": 0.1, "clipvalue": 1.5},
}

ROWS = np.array([[1.0, -2.0], [0.5, 0.25], [3.0, 1.0], [-1.0, 0.5]], "float32")
INDICES = np.array([0, 2, 0, 0])  # row 0 three times, row 2 once, rows 1 and 3 never


def _rounded(array):
    return np.round(np.asarray(array, "float64"), 5).tolist()


def _make(keras, key):
    return getattr(keras.optimizers, key.split(":")[0])(**OPTIMIZERS[key])


def _apply_slices(tf, keras, key):
    """Three apply_gradients steps with IndexedSlices (rows 0 and 2 only at step 2)."""
    optimizer = _make(keras, key)
    w = tf.Variable(np.arange(8, dtype="float32").reshape(4, 2) / 4)
    b = tf.Variable(np.array([0.1, -0.1], "float32"))
    out = []
    for step in range(3):
        rows, indices = (ROWS[:2], INDICES[:2]) if step == 1 else (ROWS, INDICES)
        slices = tf.IndexedSlices(tf.constant(rows * (step + 1)), tf.constant(indices), tf.constant([4, 2]))
        optimizer.apply_gradients([(slices, w), (tf.constant([0.3, -0.6], "float32"), b)])
        out.append(_rounded(w.numpy()))
    out.append(_rounded(b.numpy()))
    return out


def _tape_gather(tf, keras, key):
    """tf.gather with repeated indices under a GradientTape, then one apply_gradients."""
    optimizer = _make(keras, key)
    table = tf.Variable(np.linspace(-1, 1, 10).reshape(5, 2).astype("float32"))
    for _ in range(2):
        with tf.GradientTape() as tape:
            rows = tf.gather(table, [1, 3, 1, 1, 4])
            loss = tf.reduce_sum(rows * tf.constant([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.0], [1.0, 1.0]]))
        gradient = tape.gradient(loss, table)
        optimizer.apply_gradients([(gradient, table)])
    return [type(gradient).__name__, _rounded(table.numpy())]


def _fit_embedding(keras, key):
    """model.fit of an Embedding model whose batches repeat tokens."""
    inputs = keras.Input((3,), dtype="int32")
    hidden = keras.layers.Flatten()(keras.layers.Embedding(5, 2)(inputs))
    model = keras.Model(inputs, keras.layers.Dense(1)(hidden))
    model.set_weights(
        [
            np.linspace(-1, 1, 10).reshape(5, 2).astype("float32"),
            np.array([[0.5], [-0.3], [0.2], [0.1], [-0.4], [0.3]], "float32"),
            np.zeros(1, "float32"),
        ]
    )
    model.compile(optimizer=_make(keras, key), loss="mse")
    x = np.array([[1, 1, 3], [3, 1, 0], [2, 2, 2], [4, 1, 1]], "int32")
    y = np.array([[1.0], [-1.0], [0.5], [2.0]], "float32")
    model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    return _rounded(model.get_weights()[0])


def facts(tf, keras):
    out = {}
    for key in OPTIMIZERS:
        out[f"slices:{key}"] = _apply_slices(tf, keras, key)
    for key in ("SGD", "Adam", "RMSprop", "Adagrad"):
        out[f"gather:{key}"] = _tape_gather(tf, keras, key)
    for key in ("SGD:momentum", "Adam", "RMSprop", "Adagrad", "Adamax", "Nadam", "Adadelta"):
        out[f"fit:{key}"] = _fit_embedding(keras, key)
    return out
