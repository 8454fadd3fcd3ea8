"""Keras optimizers' updates, computed by the same code on Keras 3 / TF and on tapeviz: three steps of
``apply`` on fixed variables and gradients, and a short ``fit``. Nothing here imports TensorFlow or tapeviz."""

import numpy as np

OPTIMIZERS = {
    "Adamax": {"learning_rate": 0.05},
    "Nadam": {"learning_rate": 0.05},
    "Adadelta": {"learning_rate": 1.0},
    "Lion": {"learning_rate": 0.05},
    "Adamax:defaults": {},
    "Nadam:betas": {"beta_1": 0.8, "beta_2": 0.9},
    "Adadelta:rho": {"learning_rate": 0.5, "rho": 0.8},
    "Lion:betas": {"learning_rate": 0.02, "beta_1": 0.5, "beta_2": 0.7},
}


def facts(keras):
    out = {}
    for key, kwargs in OPTIMIZERS.items():
        optimizer = getattr(keras.optimizers, key.split(":")[0])(**kwargs)
        w = keras.Variable(np.array([[0.5, -1.0], [2.0, 0.1]], "float32"), name="w")
        b = keras.Variable(np.array([0.3, -0.2], "float32"), name="b")
        values = []
        for step in range(3):
            grads = [
                np.array([[0.1, -0.4], [0.3, 0.0]], "float32") * (step + 1),
                np.array([-0.2, 0.05], "float32") / (step + 1),
            ]
            optimizer.apply(grads, [w, b])
            values.append([np.round(np.asarray(w), 6).tolist(), np.round(np.asarray(b), 6).tolist()])
        x = (np.cos(np.arange(24) * 0.7)).reshape(8, 3).astype("float32")
        y = np.sin(np.arange(8)).reshape(8, 1).astype("float32")
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.set_weights([np.array([[0.3], [-0.2], [0.5]], "float32"), np.array([0.1], "float32")])
        model.compile(optimizer=getattr(keras.optimizers, key.split(":")[0])(**kwargs), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        out[key] = {"apply": values, "fit_loss": [round(v, 5) for v in history.history["loss"]]}
    for name in ("adamax", "nadam", "adadelta", "lion"):
        out[f"get:{name}"] = type(keras.optimizers.get(name)).__name__
    return out
