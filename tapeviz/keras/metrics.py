"""``tf.keras.metrics``: streaming metrics (state in Variables, ``update_state`` / ``result``).

Metrics are not differentiable and never recorded: they read tensors'
values directly.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras.auc_metric import AUC
from tapeviz.keras.f_score_metrics import F1Score, FBetaScore
from tapeviz.keras.iou_metrics import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from tapeviz.keras.metric_base import Metric, host_array, squeeze_like
from tapeviz.keras.registry import resolve

__all__ = [
    "Metric",
    "Mean",
    "Sum",
    "MeanMetricWrapper",
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "SparseCategoricalAccuracy",
    "MeanSquaredError",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "sparse_categorical_accuracy",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "RootMeanSquaredError",
    "LogCoshError",
    "CosineSimilarity",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "KLDivergence",
    "Poisson",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "TopKCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "TruePositives",
    "FalsePositives",
    "TrueNegatives",
    "FalseNegatives",
    "Precision",
    "Recall",
    "mean_absolute_error",
    "mean_squared_error",
    "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
    "binary_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "hinge",
    "squared_hinge",
    "categorical_hinge",
    "kl_divergence",
    "poisson",
    "log_cosh",
    "huber",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "pearson_correlation",
    "concordance_correlation",
    "PearsonCorrelation",
    "ConcordanceCorrelation",
    "R2Score",
    "AUC",
    "F1Score",
    "FBetaScore",
    "IoU",
    "BinaryIoU",
    "MeanIoU",
    "OneHotIoU",
    "OneHotMeanIoU",
    "top_k_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "get",
    "serialize",
    "deserialize",
]


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred exactly, else 0.0."""
    y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
    return (y_true == y_pred.astype(y_true.dtype)).astype(np.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where (y_pred > threshold) == y_true, elementwise (Keras 3; the metric averages over all)."""
    y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
    return (y_true == (y_pred > threshold).astype(y_true.dtype)).astype(np.float32)


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_pred) == argmax(y_true) (one-hot labels)."""
    return (np.argmax(host_array(y_true), axis=-1) == np.argmax(host_array(y_pred), axis=-1)).astype(np.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_pred) equals the integer label."""
    y_true, y_pred = host_array(y_true), host_array(y_pred)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    return (np.argmax(y_pred, axis=-1) == y_true.astype(np.int64)).astype(np.float32)


class Sum(Metric):
    """The running sum of the values."""

    def __init__(self, name="sum", dtype="float32"):
        super().__init__(name, dtype)
        self.total = self.add_variable("total")

    def update_state(self, values, sample_weight=None):
        values = host_array(values).astype(np.float32)
        if sample_weight is not None:
            values = values * host_array(sample_weight)
        self.total.assign(to_array(self.total) + np.float32(np.sum(values)))

    def result(self):
        return Tensor(B.xp.asarray(to_array(self.total), dtype=np.float32))


class Mean(Metric):
    """The running (weighted) mean of the values."""

    def __init__(self, name="mean", dtype="float32"):
        super().__init__(name, dtype)
        self.total = self.add_variable("total")
        self.count = self.add_variable("count")

    def update_state(self, values, sample_weight=None):
        values = host_array(values).astype(np.float32)
        if sample_weight is None:
            total, count = np.sum(values), values.size
        else:
            weight = (
                np.broadcast_to(host_array(sample_weight).astype(np.float32), values.shape)
                if np.ndim(sample_weight)
                else np.full(values.shape, float(host_array(sample_weight)), np.float32)
            )
            total, count = np.sum(values * weight), np.sum(weight)
        self.total.assign(to_array(self.total) + np.float32(total))
        self.count.assign(to_array(self.count) + np.float32(count))

    def result(self):
        count = float(to_array(self.count))
        return Tensor(B.asarray(np.asarray(float(to_array(self.total)) / count if count else 0.0, np.float32)))


class MeanMetricWrapper(Mean):
    """The running mean of ``fn(y_true, y_pred)`` over every example seen."""

    def __init__(self, fn, name=None, dtype="float32", **kwargs):
        super().__init__(name or fn.__name__, dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        from tapeviz.core import state

        with state.no_tapes():  # a metric is never differentiated: keep its ops off the tapes
            values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, **self._fn_kwargs}


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly."""

    _direction = "up"

    def __init__(self, name="accuracy", dtype="float32"):
        super().__init__(accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often (y_pred > threshold) equals the 0/1 label."""

    _direction = "up"

    def __init__(self, name="binary_accuracy", dtype="float32", threshold=0.5):
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) equals the one-hot label's."""

    _direction = "up"

    def __init__(self, name="categorical_accuracy", dtype="float32"):
        super().__init__(categorical_accuracy, name, dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) equals the integer label."""

    _direction = "up"

    def __init__(self, name="sparse_categorical_accuracy", dtype="float32"):
        super().__init__(sparse_categorical_accuracy, name, dtype)


class MeanSquaredError(MeanMetricWrapper):
    """The running mean squared error."""

    _direction = "down"

    def __init__(self, name="mean_squared_error", dtype="float32"):
        super().__init__(lambda t, p: np.mean(np.square(host_array(t) - host_array(p)), axis=-1), name, dtype)


class _AutoAccuracy(MeanMetricWrapper):
    """compile(metrics=['accuracy']): binary, sparse or categorical, chosen from the shapes (as Keras)."""

    _direction = "up"

    def __init__(self, name="accuracy"):
        super().__init__(self._pick, name)

    @staticmethod
    def _pick(y_true, y_pred):
        t, p = host_array(y_true), host_array(y_pred)
        if p.shape[-1:] == (1,) or p.ndim == t.ndim and p.ndim == 1:
            return binary_accuracy(t, p)
        if t.ndim == p.ndim - 1 or (t.ndim == p.ndim and t.shape[-1] == 1):
            return sparse_categorical_accuracy(t, p)
        return categorical_accuracy(t, p)


# -- more of Keras 3's metrics: the running mean of a loss function, or counts --------------------


def _loss_fn(name):
    from tapeviz.keras import losses

    return getattr(losses, name)


def _wrapping(class_name, function, default_name, doc, **defaults):
    """A MeanMetricWrapper subclass over ``losses.<function>``, with Keras's constructor arguments."""

    def __init__(self, name=default_name, dtype="float32", **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{class_name}.__init__() got unexpected keyword arguments {sorted(unknown)}")
        MeanMetricWrapper.__init__(self, _loss_fn(function), name, dtype, **{**defaults, **kwargs})

    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc, "_direction": "down"})


MeanAbsoluteError = _wrapping("MeanAbsoluteError", "mean_absolute_error", "mean_absolute_error", "The running MAE.")
MeanAbsolutePercentageError = _wrapping(
    "MeanAbsolutePercentageError",
    "mean_absolute_percentage_error",
    "mean_absolute_percentage_error",
    "The running mean absolute percentage error.",
)
MeanSquaredLogarithmicError = _wrapping(
    "MeanSquaredLogarithmicError",
    "mean_squared_logarithmic_error",
    "mean_squared_logarithmic_error",
    "The running mean squared log error.",
)
LogCoshError = _wrapping("LogCoshError", "log_cosh", "logcosh", "The running mean log(cosh(error)).")
BinaryCrossentropy = _wrapping(
    "BinaryCrossentropy",
    "binary_crossentropy",
    "binary_crossentropy",
    "The running binary cross-entropy.",
    from_logits=False,
    label_smoothing=0,
)
CategoricalCrossentropy = _wrapping(
    "CategoricalCrossentropy",
    "categorical_crossentropy",
    "categorical_crossentropy",
    "The running categorical cross-entropy.",
    from_logits=False,
    label_smoothing=0,
    axis=-1,
)
SparseCategoricalCrossentropy = _wrapping(
    "SparseCategoricalCrossentropy",
    "sparse_categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "The running sparse categorical cross-entropy.",
    from_logits=False,
    axis=-1,
)
KLDivergence = _wrapping("KLDivergence", "kl_divergence", "kl_divergence", "The running KL divergence.")
Poisson = _wrapping("Poisson", "poisson", "poisson", "The running Poisson loss.")
Hinge = _wrapping("Hinge", "hinge", "hinge", "The running hinge loss.")
SquaredHinge = _wrapping("SquaredHinge", "squared_hinge", "squared_hinge", "The running squared hinge loss.")
CategoricalHinge = _wrapping(
    "CategoricalHinge", "categorical_hinge", "categorical_hinge", "The running categorical hinge loss."
)


def _positive_cosine(y_true, y_pred, axis=-1):
    return -host_array(_loss_fn("cosine_similarity")(y_true, y_pred, axis=axis))


class CosineSimilarity(MeanMetricWrapper):
    """The running mean cosine similarity (1 for the same direction; the loss is its negative)."""

    _direction = "up"

    def __init__(self, name="cosine_similarity", dtype="float32", axis=-1):
        super().__init__(_positive_cosine, name, dtype, axis=axis)


class RootMeanSquaredError(Mean):
    """sqrt of the running mean squared error."""

    _direction = "down"

    def __init__(self, name="root_mean_squared_error", dtype="float32"):
        super().__init__(name, dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
        super().update_state(np.square(y_pred - y_true), sample_weight)

    def result(self):
        return Tensor(B.asarray(np.sqrt(host_array(super().result())).astype(np.float32)))


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|) over the last axis."""
    return _loss_fn("mean_absolute_error")(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred)**2) over the last axis."""
    return _loss_fn("mean_squared_error")(y_true, y_pred)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / |y_true|) over the last axis."""
    return _loss_fn("mean_absolute_percentage_error")(y_true, y_pred)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(1 + y_pred) - log(1 + y_true))**2) over the last axis."""
    return _loss_fn("mean_squared_logarithmic_error")(y_true, y_pred)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The binary cross-entropy per example."""
    return _loss_fn("binary_crossentropy")(y_true, y_pred, from_logits, label_smoothing, axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The categorical cross-entropy per example."""
    return _loss_fn("categorical_crossentropy")(y_true, y_pred, from_logits, label_smoothing, axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """The sparse categorical cross-entropy per example."""
    return _loss_fn("sparse_categorical_crossentropy")(y_true, y_pred, from_logits, axis)


def hinge(y_true, y_pred):
    """The hinge loss per example."""
    return _loss_fn("hinge")(y_true, y_pred)


def squared_hinge(y_true, y_pred):
    """The squared hinge loss per example."""
    return _loss_fn("squared_hinge")(y_true, y_pred)


def categorical_hinge(y_true, y_pred):
    """The categorical hinge loss per example."""
    return _loss_fn("categorical_hinge")(y_true, y_pred)


def kl_divergence(y_true, y_pred):
    """The KL divergence per example."""
    return _loss_fn("kl_divergence")(y_true, y_pred)


def poisson(y_true, y_pred):
    """The Poisson loss per example."""
    return _loss_fn("poisson")(y_true, y_pred)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(error))) per example."""
    return _loss_fn("log_cosh")(y_true, y_pred)


def huber(y_true, y_pred, delta=1.0):
    """The Huber loss per example."""
    return _loss_fn("huber")(y_true, y_pred, delta)


def binary_focal_crossentropy(
    y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """The binary focal cross-entropy per example."""
    return _loss_fn("binary_focal_crossentropy")(
        y_true, y_pred, apply_class_balancing, alpha, gamma, from_logits, label_smoothing, axis
    )


def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """The categorical focal cross-entropy per example."""
    return _loss_fn("categorical_focal_crossentropy")(y_true, y_pred, alpha, gamma, from_logits, label_smoothing, axis)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is among the ``k`` highest predictions."""
    return sparse_top_k_categorical_accuracy(np.argmax(host_array(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer label is among the ``k`` highest predictions (ties count, as TF's in_top_k)."""
    y_true, y_pred = host_array(y_true), host_array(y_pred).astype(np.float64)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    labels = y_true.astype(np.int64)
    own = np.take_along_axis(y_pred, labels[..., None], axis=-1)
    better = np.sum(y_pred > own, axis=-1)
    return (better < k).astype(np.float32)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the ``k`` highest predictions."""

    _direction = "up"

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype="float32"):
        super().__init__(top_k_categorical_accuracy, name, dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the ``k`` highest predictions."""

    _direction = "up"

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype="float32", from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype, k=k)


class _Confusion(Metric):
    """A count of one cell of the confusion matrix at a threshold (predictions > threshold are positive)."""

    _cell = None

    def __init__(self, thresholds=None, name=None, dtype="float32"):
        super().__init__(name or _snake(type(self).__name__), dtype)
        self.thresholds = 0.5 if thresholds is None else thresholds
        self.accumulator = self.add_variable("accumulator")

    def _counts(self, y_true, y_pred, sample_weight):
        y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
        truth = y_true.astype(bool)
        predicted = y_pred > self.thresholds
        weight = (
            np.ones(truth.shape, np.float32)
            if sample_weight is None
            else np.broadcast_to(host_array(sample_weight), truth.shape)
        )
        return {
            "tp": np.sum(weight * (truth & predicted)),
            "fp": np.sum(weight * (~truth & predicted)),
            "tn": np.sum(weight * (~truth & ~predicted)),
            "fn": np.sum(weight * (truth & ~predicted)),
        }

    def update_state(self, y_true, y_pred, sample_weight=None):
        count = self._counts(y_true, y_pred, sample_weight)[self._cell]
        self.accumulator.assign(to_array(self.accumulator) + np.float32(count))

    def result(self):
        return Tensor(B.asarray(np.asarray(to_array(self.accumulator), np.float32)))

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "thresholds": self.thresholds}


def _snake(name):
    """Keras's snake case of a class name: 'F1Score' -> 'f1_score', 'TopKCategoricalAccuracy' -> 'top_k_...'."""
    import re

    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class TruePositives(_Confusion):
    """The (weighted) number of true positives."""

    _direction = "up"

    _cell = "tp"


class FalsePositives(_Confusion):
    """The (weighted) number of false positives."""

    _direction = "down"

    _cell = "fp"


class TrueNegatives(_Confusion):
    """The (weighted) number of true negatives."""

    _direction = "up"

    _cell = "tn"


class FalseNegatives(_Confusion):
    """The (weighted) number of false negatives."""

    _direction = "down"

    _cell = "fn"


class _Ratio(Metric):
    """tp / (tp + other): precision (other = fp) or recall (other = fn), at ``thresholds``."""

    _direction = "up"

    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype="float32"):
        super().__init__(name or type(self).__name__.lower(), dtype)
        if top_k is not None or class_id is not None:
            raise ValueError(f"tapeviz's {type(self).__name__} has no top_k= or class_id=; threshold the predictions.")
        self.thresholds = 0.5 if thresholds is None else thresholds
        self.true_positives = self.add_variable("true_positives")
        self.others = self.add_variable("false_positives" if self._other == "fp" else "false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _Confusion._counts(self, y_true, y_pred, sample_weight)
        self.true_positives.assign(to_array(self.true_positives) + np.float32(counts["tp"]))
        self.others.assign(to_array(self.others) + np.float32(counts[self._other]))

    def result(self):
        tp, other = float(to_array(self.true_positives)), float(to_array(self.others))
        return Tensor(B.asarray(np.float32(tp / (tp + other) if tp + other else 0.0)))

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "thresholds": self.thresholds}


class Precision(_Ratio):
    """tp / (tp + fp) at ``thresholds`` (default 0.5)."""

    _other = "fp"


class Recall(_Ratio):
    """tp / (tp + fn) at ``thresholds`` (default 0.5)."""

    _other = "fn"


def pearson_correlation(y_true, y_pred, axis=-1):
    """The Pearson correlation of y_true and y_pred along ``axis`` (as Keras: mean of the standardised products)."""
    y_true, y_pred = squeeze_like(host_array(y_true).astype(np.float64), host_array(y_pred).astype(np.float64))
    t = y_true - y_true.mean(axis=axis, keepdims=True)
    p = y_pred - y_pred.mean(axis=axis, keepdims=True)
    t, p = t / t.std(axis=axis, keepdims=True), p / p.std(axis=axis, keepdims=True)
    return (t * p).mean(axis=axis).astype(np.float32)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along ``axis``, with Keras 3's formula."""
    y_true, y_pred = squeeze_like(host_array(y_true).astype(np.float64), host_array(y_pred).astype(np.float64))
    true_mean, pred_mean = y_true.mean(axis=axis, keepdims=True), y_pred.mean(axis=axis, keepdims=True)
    true_var = (y_true - true_mean).var(axis=axis, keepdims=True)
    pred_var = (y_pred - pred_mean).var(axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)  # Keras 3.15 centres y_true on y_pred's mean
    norm = true_var + pred_var + np.square(true_mean - pred_mean)
    return (2 * covariance / (norm + 1e-7)).mean(axis=axis).astype(np.float32)


class PearsonCorrelation(MeanMetricWrapper):
    """The running mean of the per-example Pearson correlation."""

    _direction = "up"

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name, dtype or "float32", axis=axis)


class ConcordanceCorrelation(MeanMetricWrapper):
    """The running mean of the per-example concordance correlation."""

    _direction = "up"

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name, dtype or "float32", axis=axis)


class R2Score(Metric):
    """The coefficient of determination of (batch, outputs) predictions, accumulated over batches;
    ``class_aggregation`` 'uniform_average' (default), 'variance_weighted_average' or None (per output)."""

    _direction = "up"

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name, dtype or "float32")
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                f"(None, 'uniform_average', 'variance_weighted_average'). Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                f"Invalid value for argument `num_regressors`. Expected a value >= 0. Received: num_regressors={num_regressors}"
            )
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_variable("num_samples")
        self._sums = None

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = squeeze_like(host_array(y_true).astype(np.float32), host_array(y_pred).astype(np.float32))
        if y_true.ndim != 2 or y_pred.ndim != 2:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim). Received input shapes: "
                f"y_pred.shape={y_pred.shape} and y_true.shape={y_true.shape}."
            )
        if self._sums is None:
            zeros = (y_pred.shape[-1],)
            self._sums = {
                k: self.add_variable(shape=zeros, name=k) for k in ("squared_sum", "sum", "residual", "count")
            }
        weight = np.float32(1.0) if sample_weight is None else host_array(sample_weight).astype(np.float32)
        weight = np.broadcast_to(weight[:, None] if np.ndim(weight) == 1 else weight, y_true.shape)
        s = self._sums
        s["sum"].assign(to_array(s["sum"]) + np.sum(y_true * weight, axis=0))
        s["squared_sum"].assign(to_array(s["squared_sum"]) + np.sum(y_true * y_true * weight, axis=0))
        s["residual"].assign(to_array(s["residual"]) + np.sum((y_true - y_pred) ** 2 * weight, axis=0))
        s["count"].assign(to_array(s["count"]) + np.sum(weight, axis=0))
        self.num_samples.assign(to_array(self.num_samples) + np.float32(y_true.size))

    def result(self):
        if self._sums is None:
            return Tensor(B.asarray(np.float32(0.0)))
        s = {k: to_array(v).astype(np.float64) for k, v in self._sums.items()}
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = s["sum"] / s["count"]
            total = s["squared_sum"] - s["sum"] * mean
            raw = 1 - s["residual"] / total
        raw = np.where(np.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = raw.mean()
        elif self.class_aggregation == "variance_weighted_average":
            score = np.sum(total * raw) / np.sum(total)
        else:
            score = raw
        if self.num_regressors:
            n, p = float(to_array(self.num_samples)), self.num_regressors
            if n - p - 1 > 0:
                score = 1 - (1 - score) * (n - 1) / (n - p - 1)
        return Tensor(B.asarray(np.asarray(score, np.float32)))

    def reset_state(self):
        super().reset_state()

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }


_CLASSES = [
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    MeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    RootMeanSquaredError,
    LogCoshError,
    CosineSimilarity,
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    KLDivergence,
    Poisson,
    Hinge,
    SquaredHinge,
    CategoricalHinge,
    TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TruePositives,
    FalsePositives,
    TrueNegatives,
    FalseNegatives,
    Precision,
    Recall,
    PearsonCorrelation,
    ConcordanceCorrelation,
    R2Score,
    AUC,
    F1Score,
    FBetaScore,
    IoU,
    BinaryIoU,
    MeanIoU,
    OneHotIoU,
    OneHotMeanIoU,
    Mean,
    Sum,
]

# Keras 3's table: class names, their snake_case, and the short aliases.
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({_snake(cls.__name__): cls for cls in _CLASSES})
_BY_NAME.update(
    {
        "bce": BinaryCrossentropy,
        "BCE": BinaryCrossentropy,
        "mse": MeanSquaredError,
        "MSE": MeanSquaredError,
        "mae": MeanAbsoluteError,
        "MAE": MeanAbsoluteError,
        "mape": MeanAbsolutePercentageError,
        "MAPE": MeanAbsolutePercentageError,
        "msle": MeanSquaredLogarithmicError,
        "MSLE": MeanSquaredLogarithmicError,
    }
)


def get(identifier):
    """A Metric from a name ('accuracy', 'mae', 'MeanSquaredError'...), a Metric, or a function."""
    if identifier in ("accuracy", "acc"):
        return _AutoAccuracy(identifier)  # which accuracy depends on the labels' shape
    return resolve(identifier, kind="metric function", table=_BY_NAME, base=Metric, wrap_callable=MeanMetricWrapper)


def serialize(metric):
    """A metric as Keras's JSON-able dict: module, class_name, config, registered_name."""
    return {
        "module": "keras.metrics",
        "class_name": type(metric).__name__,
        "config": metric.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """A metric from ``serialize``'s dict; classes come from this module or ``custom_objects``, never by import."""
    table = {**_BY_NAME, **(custom_objects or {})}
    name = config.get("class_name") if isinstance(config, dict) else config
    if name not in table:
        raise ValueError(f"Could not interpret metric identifier: {config}")
    found = table[name]
    return found(**config.get("config", {})) if isinstance(config, dict) else get(found)
