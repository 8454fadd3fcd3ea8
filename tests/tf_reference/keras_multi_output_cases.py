"""compile/fit/evaluate of a two-output functional model with dicts and lists of losses, loss weights and
metrics, computed by the same code on Keras 3 / TF and on tapeviz. Nothing here imports TensorFlow or tapeviz."""

import numpy as np

X = np.cos(np.arange(24) * 0.8).reshape(8, 3).astype("float32")
Y1 = np.sin(np.arange(8) * 0.9).reshape(8, 1).astype("float32")
Y2 = np.cos(np.arange(16) * 0.4).reshape(8, 2).astype("float32")

VARIANTS = {
    "dict": (True, {"o1": "mse", "o2": "mae"}, {"o1": ["mae"], "o2": ["mse"]}, {"o1": 1.0, "o2": 0.5}),
    "list": (False, ["mse", "mae"], [["mae"], ["mse"]], [1.0, 0.5]),
    "dict_one_loss_object": (True, {"o1": "mse", "o2": "huber"}, {"o2": ["mae", "mse"]}, None),
    "list_loss_objects": (False, ["mean_absolute_error", "mse"], None, [0.3, 2.0]),
}


def model_of(keras, as_dict):
    L = keras.layers
    a = keras.Input((3,), name="a")
    h = L.Dense(4, name="h")(a)
    o1, o2 = L.Dense(1, name="o1")(h), L.Dense(2, name="o2")(h)
    model = keras.Model(a, {"o1": o1, "o2": o2} if as_dict else [o1, o2])
    model.set_weights(
        [
            (np.sin(np.arange(12) * 0.5) * 0.5).reshape(3, 4).astype("float32"),
            np.zeros(4, "float32"),
            (np.cos(np.arange(4)) * 0.5).reshape(4, 1).astype("float32"),
            np.array([0.1], "float32"),
            (np.sin(np.arange(8) * 0.3) * 0.5).reshape(4, 2).astype("float32"),
            np.array([0.0, -0.1], "float32"),
        ]
    )
    return model


def facts(keras):
    out = {}
    for name, (as_dict, loss, metrics, weights) in VARIANTS.items():
        model = model_of(keras, as_dict)
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss=loss, metrics=metrics, loss_weights=weights)
        y = {"o1": Y1, "o2": Y2} if as_dict else [Y1, Y2]
        history = model.fit(X, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        out[name] = {
            "history": {k: [round(v, 5) for v in vs] for k, vs in sorted(history.history.items())},
            "evaluate": {
                k: round(float(v), 5) for k, v in sorted(model.evaluate(X, y, verbose=0, return_dict=True).items())
            },
        }
    return out
