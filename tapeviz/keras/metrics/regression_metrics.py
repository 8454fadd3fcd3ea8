"""Regression metrics: the running mean of an error (MSE, MAE, MAPE, MSLE, log-cosh, cosine), RMSE and R^2."""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras.metrics.metric import Metric, host_array, squeeze_like
from tapeviz.keras.metrics.reduction_metrics import Mean, MeanMetricWrapper, loss_function, loss_metric_class


class MeanSquaredError(MeanMetricWrapper):
    """The running mean squared error.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "down"

    def __init__(self, name="mean_squared_error", dtype="float32"):
        super().__init__(lambda t, p: np.mean(np.square(host_array(t) - host_array(p)), axis=-1), name, dtype)


MeanAbsoluteError = loss_metric_class(
    "MeanAbsoluteError", "mean_absolute_error", "mean_absolute_error", "The running MAE."
)


MeanAbsolutePercentageError = loss_metric_class(
    "MeanAbsolutePercentageError",
    "mean_absolute_percentage_error",
    "mean_absolute_percentage_error",
    "The running mean absolute percentage error.",
)


MeanSquaredLogarithmicError = loss_metric_class(
    "MeanSquaredLogarithmicError",
    "mean_squared_logarithmic_error",
    "mean_squared_logarithmic_error",
    "The running mean squared log error.",
)


LogCoshError = loss_metric_class("LogCoshError", "log_cosh", "logcosh", "The running mean log(cosh(error)).")


def _positive_cosine(y_true, y_pred, axis=-1):
    return -host_array(loss_function("cosine_similarity")(y_true, y_pred, axis=axis))


class CosineSimilarity(MeanMetricWrapper):
    """The running mean cosine similarity (1 for the same direction; the loss is its negative).

    Args:
        name: the object's name.
        dtype: the dtype of its state.
        axis: the axis the similarity is taken along.
    """

    _direction = "up"

    def __init__(self, name="cosine_similarity", dtype="float32", axis=-1):
        super().__init__(_positive_cosine, name, dtype, axis=axis)


class RootMeanSquaredError(Mean):
    """sqrt of the running mean squared error.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "down"

    def __init__(self, name="root_mean_squared_error", dtype="float32"):
        super().__init__(name, dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
        super().update_state(np.square(y_pred - y_true), sample_weight)

    def result(self):
        return Tensor(B.asarray(np.sqrt(host_array(super().result())).astype(np.float32)))


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("mean_absolute_error")(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred)**2) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("mean_squared_error")(y_true, y_pred)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / |y_true|) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("mean_absolute_percentage_error")(y_true, y_pred)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(1 + y_pred) - log(1 + y_true))**2) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("mean_squared_logarithmic_error")(y_true, y_pred)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(error))) per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("log_cosh")(y_true, y_pred)


def huber(y_true, y_pred, delta=1.0):
    """The Huber loss per example.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        delta: where the loss turns from quadratic to linear.

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return loss_function("huber")(y_true, y_pred, delta)


class R2Score(Metric):
    """The coefficient of determination of (batch, outputs) predictions, accumulated over batches;
    ``class_aggregation`` 'uniform_average' (default), 'variance_weighted_average' or None (per output).

    Args:
        class_aggregation: ``"uniform_average"``, ``"variance_weighted_average"`` or None (one score per output).
        num_regressors: the number of regressors, for the adjusted score (>= 0).
        name: the object's name.
        dtype: the dtype of its state.

    Raises:
        ValueError: an unknown ``class_aggregation``, or a negative ``num_regressors``.
    """

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
        """Add a batch of targets and predictions.

        Args:
            y_true: the targets, [batch, outputs].
            y_pred: the predictions, of the same shape.
            sample_weight: a weight per example.

        Raises:
            ValueError: inputs that are not 2-D.
        """
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
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {
            "name": self.name,
            "dtype": self.dtype,
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }
