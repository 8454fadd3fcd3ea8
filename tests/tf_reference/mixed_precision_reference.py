"""Keras 3 (on TF 2.21) values for keras.mixed_precision: tests/tf_reference/mixed_precision_values.json.

Run with TensorFlow installed (never a dependency of tapeviz):

    python tests/tf_reference/mixed_precision_reference.py
"""

import json
import pathlib

import numpy as np

X = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0], [3.0, 0.5, -1.0], [-1.0, -1.0, 1.0]] * 2, dtype="float32")
Y = np.array([[1.0], [0.0], [2.0], [-1.0]] * 2, dtype="float32")
K1 = np.array([[0.2, -0.1, 0.3, 0.05], [0.1, 0.4, -0.2, 0.3], [-0.3, 0.2, 0.1, 0.25]], dtype="float32")
B1 = np.array([0.01, -0.02, 0.03, 0.0], dtype="float32")
K2 = np.array([[0.5], [-0.4], [0.3], [0.2]], dtype="float32")
B2 = np.array([0.1], dtype="float32")
HAND_GRADS = [[8.0, 16.0], [float("inf"), 1.0], [4.0, 4.0], [4.0, 8.0], [float("nan"), 0.0], [2.0, 2.0], [2.0, 6.0]]
BIG_X = np.full((4, 2), 10.0, dtype="float32")
BIG_K = np.array([[2.5], [2.5]], dtype="float32")


def main():
    import keras

    mp = keras.mixed_precision
    values = {"policies": {}}
    for name in ["mixed_float16", "float32", "float64", "float16"]:
        p = mp.Policy(name)
        values["policies"][name] = [repr(p), p.name, p.compute_dtype, p.variable_dtype]
    try:
        mp.Policy("mixed_int8")
    except ValueError as e:
        values["bad_policy_message"] = str(e)
    values["default_global"] = repr(mp.global_policy())

    mp.set_global_policy("mixed_float16")
    dense = keras.layers.Dense(2)
    out = dense(np.ones((1, 3), "float32"))
    softmax = keras.layers.Activation("softmax", dtype="float32")
    values["layers"] = {
        "global": repr(mp.global_policy()),
        "config_dtype_policy": repr(keras.config.dtype_policy()),
        "dense": [dense.dtype, dense.compute_dtype, dense.variable_dtype, repr(dense.dtype_policy)],
        "dense_kernel": dense.kernel.dtype,
        "dense_output": out.dtype.name,
        "softmax_output": softmax(out).dtype.name,
        "softmax_policy": repr(softmax.dtype_policy),
        "float64_layer": repr(keras.layers.Dense(2, dtype="float64").dtype_policy),
    }

    inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(1, dtype="float32")])
    values["layers"]["float32_last_layer_output"] = inner(np.ones((2, 3), "float32")).dtype.name

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
    model.layers[0].set_weights([K1, B1])
    model.layers[1].set_weights([K2, B2])
    model.compile(keras.optimizers.SGD(0.05), "mse")
    history = model.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    values["fit"] = {
        "optimizer": type(model.optimizer).__name__,
        "optimizer_name": model.optimizer.name,
        "loss": history.history["loss"],
        "dynamic_scale": float(model.optimizer.dynamic_scale.numpy()),
        "step_counter": int(model.optimizer.step_counter.numpy()),
        "iterations": int(model.optimizer.iterations.numpy()),
        "weights": [w.tolist() for w in model.get_weights()],
        "weight_dtypes": [str(w.dtype) for w in model.get_weights()],
        "predict_dtype": str(model.predict(X[:2], verbose=0).dtype),
    }

    # A custom loop whose scaled gradients overflow float16: skipped steps halve the scale.
    big = keras.layers.Dense(1, use_bias=False)
    big.build((None, 2))
    big.set_weights([BIG_K])
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.001))
    mse = keras.losses.MeanSquaredError()
    import tensorflow as tf

    steps = []
    for _ in range(12):
        with tf.GradientTape() as tape:
            pred = big(BIG_X)
            loss = mse(np.zeros((4, 1), "float32"), pred)
            scaled = opt.scale_loss(loss)
        grads = tape.gradient(scaled, big.trainable_variables)
        opt.apply(grads, big.trainable_variables)
        steps.append(
            {
                "loss": float(loss),
                "loss_dtype": loss.dtype.name,
                "pred_dtype": pred.dtype.name,
                "grad_finite": bool(np.all(np.isfinite(grads[0].numpy()))),
                "grad_dtype": grads[0].dtype.name,
                "scale": float(opt.dynamic_scale.numpy()),
                "iterations": int(opt.iterations.numpy()),
                "kernel": big.kernel.numpy().tolist(),
            }
        )
    values["overflow_loop"] = steps
    mp.set_global_policy("float32")

    # Hand-made gradients: finite ones are unscaled and applied, inf/nan ones skipped.
    var = keras.Variable(np.array([1.0, 2.0], "float32"))
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=8.0, dynamic_growth_steps=2)
    values["hand"] = {"scale_loss_3": float(opt.scale_loss(3.0)), "steps": []}
    for grad in HAND_GRADS:
        opt.apply([np.array(grad, "float32")], [var])
        values["hand"]["steps"].append(
            {
                "var": var.numpy().tolist(),
                "scale": float(opt.dynamic_scale.numpy()),
                "step_counter": int(opt.step_counter.numpy()),
                "iterations": int(opt.iterations.numpy()),
            }
        )
    values["hand"]["variable_paths"] = [v.path for v in opt.variables]
    path = pathlib.Path(__file__).with_name("mixed_precision_values.json")
    path.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
