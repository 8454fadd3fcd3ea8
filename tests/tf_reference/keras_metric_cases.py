"""keras.losses and keras.metrics facts, computed by the same code on Keras 3 / TF and on tapeviz.

``facts(keras, tf)`` returns plain data: each loss's value (default
reduction, with sample weights, reduction='none'), its gradient with respect
to y_pred and its config; each metric's result after two batches and after
reset; the names string ids give in compile's logs; a user metric built with
``add_variable``. Nothing here imports TensorFlow or tapeviz.
"""

import numpy as np

REG_TRUE = np.array([[0.5, 1.5, 2.0], [3.0, 0.2, 1.0]], "float32")
REG_PRED = np.array([[0.7, 1.0, 2.5], [2.0, 0.4, 1.3]], "float32")
BIN_TRUE = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], "float32")
BIN_PRED = np.array([[0.2, 0.7, 0.4], [0.9, 0.6, 0.1]], "float32")
ONEHOT = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], "float32")
PROBS = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]], "float32")
LABELS = np.array([1, 2], "int32")
WEIGHTS = np.array([0.3, 1.2], "float32")

# name -> (y_true, y_pred)
DATA = {
    "regression": (REG_TRUE, REG_PRED),
    "binary": (BIN_TRUE, BIN_PRED),
    "categorical": (ONEHOT, PROBS),
    "sparse": (LABELS, PROBS),
}

LOSSES = {
    "MeanSquaredError": ("regression", {}),
    "MeanAbsoluteError": ("regression", {}),
    "MeanAbsolutePercentageError": ("regression", {}),
    "MeanSquaredLogarithmicError": ("regression", {}),
    "Huber": ("regression", {"delta": 0.5}),
    "LogCosh": ("regression", {}),
    "CosineSimilarity": ("regression", {}),
    "Poisson": ("regression", {}),
    "BinaryCrossentropy": ("binary", {}),
    "BinaryCrossentropy:logits_smoothing": ("binary", {"from_logits": True, "label_smoothing": 0.1}),
    "Hinge": ("binary", {}),
    "SquaredHinge": ("binary", {}),
    "CategoricalCrossentropy": ("categorical", {}),
    "CategoricalCrossentropy:smoothing": ("categorical", {"label_smoothing": 0.2}),
    "CategoricalHinge": ("categorical", {}),
    "KLDivergence": ("categorical", {}),
    "SparseCategoricalCrossentropy": ("sparse", {}),
    "SparseCategoricalCrossentropy:logits": ("sparse", {"from_logits": True}),
    "Dice": ("binary", {}),
    "Dice:axis": ("binary", {"axis": 1}),
    "Tversky": ("binary", {"alpha": 0.3, "beta": 0.7}),
    "BinaryFocalCrossentropy": ("binary", {}),
    "BinaryFocalCrossentropy:balanced_logits": (
        "binary",
        {"apply_class_balancing": True, "from_logits": True, "gamma": 1.5},
    ),
    "CategoricalFocalCrossentropy": ("categorical", {}),
    "CategoricalFocalCrossentropy:smoothing": ("categorical", {"label_smoothing": 0.1, "alpha": 0.5}),
}

LOSS_FUNCTIONS = {
    "mean_squared_error": "regression",
    "mean_absolute_error": "regression",
    "mean_absolute_percentage_error": "regression",
    "mean_squared_logarithmic_error": "regression",
    "huber": "regression",
    "log_cosh": "regression",
    "cosine_similarity": "regression",
    "poisson": "regression",
    "binary_crossentropy": "binary",
    "hinge": "binary",
    "squared_hinge": "binary",
    "categorical_crossentropy": "categorical",
    "categorical_hinge": "categorical",
    "kl_divergence": "categorical",
    "sparse_categorical_crossentropy": "sparse",
    "dice": "binary",
    "tversky": "binary",
    "binary_focal_crossentropy": "binary",
    "categorical_focal_crossentropy": "categorical",
}

METRICS = {
    "MeanSquaredError": ("regression", {}),
    "MeanAbsoluteError": ("regression", {}),
    "MeanAbsolutePercentageError": ("regression", {}),
    "MeanSquaredLogarithmicError": ("regression", {}),
    "RootMeanSquaredError": ("regression", {}),
    "LogCoshError": ("regression", {}),
    "CosineSimilarity": ("regression", {}),
    "Poisson": ("regression", {}),
    "BinaryAccuracy": ("binary", {}),
    "BinaryCrossentropy": ("binary", {}),
    "Hinge": ("binary", {}),
    "SquaredHinge": ("binary", {}),
    "TruePositives": ("binary", {}),
    "FalsePositives": ("binary", {}),
    "TrueNegatives": ("binary", {}),
    "FalseNegatives": ("binary", {"thresholds": 0.65}),
    "Precision": ("binary", {}),
    "Recall": ("binary", {"thresholds": 0.3}),
    "Accuracy": ("binary", {}),
    "CategoricalAccuracy": ("categorical", {}),
    "CategoricalCrossentropy": ("categorical", {}),
    "CategoricalHinge": ("categorical", {}),
    "KLDivergence": ("categorical", {}),
    "TopKCategoricalAccuracy": ("categorical", {"k": 1}),
    "SparseCategoricalAccuracy": ("sparse", {}),
    "SparseCategoricalCrossentropy": ("sparse", {}),
    "SparseTopKCategoricalAccuracy": ("sparse", {"k": 2}),
    "PearsonCorrelation": ("regression", {}),
    "ConcordanceCorrelation": ("regression", {}),
    "R2Score": ("regression", {}),
    "R2Score:variance_weighted": ("regression", {"class_aggregation": "variance_weighted_average"}),
    "R2Score:per_output": ("regression", {"class_aggregation": None}),
    "Mean": (None, {}),
    "Sum": (None, {}),
}

METRIC_FUNCTIONS = {
    "top_k_categorical_accuracy": ("categorical", {"k": 2}),
    "sparse_top_k_categorical_accuracy": ("sparse", {"k": 1}),
    "binary_accuracy": ("binary", {}),
    "categorical_accuracy": ("categorical", {}),
    "sparse_categorical_accuracy": ("sparse", {}),
    "binary_focal_crossentropy": ("binary", {"gamma": 1.0}),
    "pearson_correlation": ("regression", {}),
    "concordance_correlation": ("regression", {}),
    "categorical_focal_crossentropy": ("categorical", {}),
}

STRING_IDS = [
    "mae",
    "mse",
    "mape",
    "msle",
    "MAE",
    "mean_absolute_error",
    "root_mean_squared_error",
    "acc",
    "log_cosh_error",
]


def _value(x):
    return np.round(np.asarray(x, dtype=np.float64), 5).tolist()


def facts(keras, tf):
    out = {}
    for key, (kind, kwargs) in LOSSES.items():
        y_true, y_pred = DATA[kind]
        cls = getattr(keras.losses, key.split(":")[0])
        loss = cls(**kwargs)
        pred = tf.constant(y_pred)
        with tf.GradientTape() as tape:
            tape.watch(pred)
            value = loss(y_true, pred)
        config = loss.get_config()
        out[f"loss:{key}"] = {
            "value": _value(value),
            "grad": _value(tape.gradient(value, pred)),
            "weighted": _value(loss(y_true, y_pred, sample_weight=WEIGHTS)),
            "sum": _value(cls(reduction="sum", **kwargs)(y_true, y_pred)),
            "none": _value(cls(reduction="none", **kwargs)(y_true, y_pred)),
            "name": loss.name,
            "config": {k: config[k] for k in sorted(config) if k in ("name", "reduction", *kwargs)},
        }
    for name, kind in LOSS_FUNCTIONS.items():
        y_true, y_pred = DATA[kind]
        out[f"loss_fn:{name}"] = _value(getattr(keras.losses, name)(y_true, y_pred))
    for name in ["mse", "mae", "mape", "msle", "kld", "binary_crossentropy", "huber", "log_cosh", "hinge"]:
        found = keras.losses.get(name)
        out[f"loss_get:{name}"] = getattr(found, "__name__", type(found).__name__)
    for key, (kind, kwargs) in METRICS.items():
        metric = getattr(keras.metrics, key.split(":")[0])(**kwargs)
        if kind is None:
            metric.update_state([1.0, 2.0, 4.0])
            metric.update_state([3.0, 5.0], sample_weight=[0.5, 2.0])
        else:
            y_true, y_pred = DATA[kind]
            metric.update_state(y_true, y_pred)
            metric.update_state(y_true[:1], y_pred[:1], sample_weight=WEIGHTS[:1])
        result = _value(metric.result())
        metric.reset_state()
        out[f"metric:{key}"] = {"result": result, "after_reset": _value(metric.result()), "name": metric.name}
    for name, (kind, kwargs) in METRIC_FUNCTIONS.items():
        y_true, y_pred = DATA[kind]
        out[f"metric_fn:{name}"] = _value(getattr(keras.metrics, name)(y_true, y_pred, **kwargs))

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3, name="out")])
    model.set_weights([np.eye(3, dtype="float32") * 0.5, np.zeros(3, "float32")])
    model.compile(optimizer="sgd", loss="mse", metrics=STRING_IDS)
    logs = model.evaluate(REG_PRED, REG_TRUE, verbose=0, return_dict=True)
    out["compile_string_ids"] = {k: round(float(v), 5) for k, v in sorted(logs.items())}

    class Centre(keras.metrics.Metric):
        def __init__(self, name="centre", **kwargs):
            super().__init__(name=name, **kwargs)
            self.total = self.add_variable(shape=(3,), initializer="zeros", name="total")
            self.count = self.add_variable(shape=(), initializer="zeros", name="count")

        def update_state(self, values):
            values = keras.ops.convert_to_tensor(values)
            self.total.assign(self.total + keras.ops.sum(values, axis=0))
            self.count.assign(self.count + keras.ops.cast(keras.ops.shape(values)[0], "float32"))

        def result(self):
            return self.total / self.count

    centre = Centre()
    centre.update_state(REG_TRUE)
    centre.update_state(REG_PRED)
    out["user_metric"] = {
        "result": _value(centre.result()),
        "variables": [tuple(v.shape) == s for v, s in zip(centre.variables, [(3,), ()])],
    }
    centre.reset_state()
    out["user_metric"]["after_reset"] = _value(centre.total)
    return out
