"""keras.regularizers and keras.constraints facts, computed by the same code on Keras 3 / TF and on tapeviz.

``facts(keras)`` returns plain data (numbers, lists, strings); the reference
script stores Keras 3.15's in keras_penalty_facts.json and the test compares
tapeviz's with it. Nothing here imports TensorFlow or tapeviz.
"""

import numpy as np

W = (np.sin(np.arange(12) * 1.3 + 0.2) * 1.5).reshape(3, 4).astype(np.float32)


def _value(x):
    return np.asarray(x).astype(np.float64).round(6).tolist()


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the message is the fact
        return [type(exc).__name__, str(exc)]
    return None


def facts(keras, tf):
    R, C, L, ops = keras.regularizers, keras.constraints, keras.layers, keras.ops
    out = {}
    for name, reg in {
        "L1": R.L1(0.3),
        "L2": R.L2(0.1),
        "L1L2": R.L1L2(l1=0.01, l2=0.02),
        "orthogonal_rows": R.OrthogonalRegularizer(0.5),
        "orthogonal_columns": R.OrthogonalRegularizer(0.5, mode="columns"),
        "string_l1": R.get("l1"),
        "string_l2": R.get("l2"),
        "string_l1l2": R.get("l1l2"),
        "string_class_name": R.get("L2"),
        "alias_l1_l2": R.l1_l2(l1=0.1),
    }.items():
        x = tf.constant(W)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = reg(x)
        out[f"reg_{name}"] = {
            "value": _value(y),
            "grad": _value(tape.gradient(y, x)),
            "config": reg.get_config(),
            "class": type(reg).__name__,
            "serialized": R.serialize(reg),
        }
    out["reg_roundtrip"] = R.deserialize(R.serialize(R.L2(0.5))).get_config()
    out["reg_errors"] = [
        _error(lambda: R.L1(-1.0)),
        _error(lambda: R.L2(float("nan"))),
        _error(lambda: R.OrthogonalRegularizer(mode="diag")),
        _error(lambda: R.get("nope")),
        _error(lambda: R.get("l1_l2")),
        _error(lambda: R.OrthogonalRegularizer()(np.ones((2, 2, 2), "float32"))),
    ]
    for name, con in {
        "MaxNorm": C.MaxNorm(1.0),
        "MaxNorm_axis1": C.MaxNorm(2.0, axis=1),
        "MinMaxNorm": C.MinMaxNorm(0.5, 1.0, rate=0.5),
        "NonNeg": C.NonNeg(),
        "UnitNorm": C.UnitNorm(axis=1),
        "string_max_norm": C.get("max_norm"),
        "string_non_neg": C.get("non_neg"),
        "alias_unit_norm": C.unit_norm(),
    }.items():
        out[f"con_{name}"] = {
            "value": _value(con(tf.constant(W))),
            "config": con.get_config(),
            "class": type(con).__name__,
            "serialized": C.serialize(con),
        }
    out["con_errors"] = [_error(lambda: C.get("nope"))]
    # Keras's own docstring example: kernel L1 0.25 + activity L2 5.0 (divided by the batch of 5).
    layer = L.Dense(5, kernel_initializer="ones", kernel_regularizer=R.L1(0.01), activity_regularizer=R.L2(0.01))
    layer(ops.ones((5, 5)) * 2.0)
    out["dense_losses"] = [_value(v) for v in layer.losses]
    out["dense_regularizer_attrs"] = [
        type(layer.kernel_regularizer).__name__,
        type(layer.activity_regularizer).__name__,
        layer.bias_regularizer,
    ]
    conv = L.Conv2D(2, 2, kernel_initializer="ones", bias_initializer="ones", bias_regularizer="l2")
    conv(ops.ones((1, 3, 3, 1)))
    out["conv_losses"] = [_value(v) for v in conv.losses]
    emb = L.Embedding(4, 2, embeddings_initializer="ones", embeddings_regularizer=R.L1(0.5))
    emb(np.array([[1, 2]]))
    out["embedding_losses"] = [_value(v) for v in emb.losses]
    # A model's losses, and fit: penalties added to the loss, constraints applied after each step.
    model = keras.Sequential(
        [
            keras.Input((4,)),
            L.Dense(3, kernel_regularizer=R.L2(0.1), kernel_constraint=C.MaxNorm(0.6), name="d1"),
            L.Dense(1, bias_constraint=C.NonNeg(), activity_regularizer=R.L1(0.05), name="d2"),
        ]
    )
    model.set_weights([W.T * 0.3, np.array([0.1, -0.2, 0.3], "float32"), W[:3, :1], np.array([-0.05], "float32")])
    x = (np.cos(np.arange(24) * 0.7) * 1.2).reshape(6, 4).astype("float32")
    y = np.sin(np.arange(6)).reshape(6, 1).astype("float32")
    model(x)
    out["model_losses_before"] = [_value(v) for v in model.losses]
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, batch_size=6, epochs=2, verbose=0, shuffle=False)
    out["fit_loss"] = _value(history.history["loss"])
    out["fit_weights"] = [_value(w) for w in model.get_weights()]
    out["evaluate"] = _value(model.evaluate(x, y, verbose=0))
    return out
