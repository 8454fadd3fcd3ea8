"""``tf.keras.metrics``: streaming metrics (state in Variables, ``update_state`` / ``result``).

Metrics are not differentiable and never recorded: they read tensors'
values directly. One module per family, as Keras 3's ``keras/src/metrics``.
"""

from tapeviz.keras.metrics.accuracy_metrics import (
    Accuracy,
    AutoAccuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from tapeviz.keras.metrics.confusion_metrics import (
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from tapeviz.keras.metrics.correlation_metrics import (
    ConcordanceCorrelation,
    PearsonCorrelation,
    concordance_correlation,
    pearson_correlation,
)
from tapeviz.keras.metrics.f_score_metrics import F1Score, FBetaScore
from tapeviz.keras.metrics.hinge_metrics import (
    CategoricalHinge,
    Hinge,
    SquaredHinge,
    categorical_hinge,
    hinge,
    squared_hinge,
)
from tapeviz.keras.metrics.iou_metrics import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from tapeviz.keras.metrics.metric import Metric
from tapeviz.keras.metrics.probabilistic_metrics import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from tapeviz.keras.metrics.reduction_metrics import Mean, MeanMetricWrapper, Sum
from tapeviz.keras.metrics.regression_metrics import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    R2Score,
    RootMeanSquaredError,
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from tapeviz.keras.saving.serialization_lib import resolve
from tapeviz.keras.utils.naming import to_snake_case

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


_BY_NAME.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})


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
    """A Metric from a name ('accuracy', 'mae', 'MeanSquaredError'...), a Metric, or a function.

    Args:
        identifier: a name, a Metric, a function or None.

    Returns:
        A Metric (or the function, or None).
    """
    if identifier in ("accuracy", "acc"):
        return AutoAccuracy(identifier)  # which accuracy depends on the labels' shape
    return resolve(identifier, kind="metric function", table=_BY_NAME, base=Metric, wrap_callable=MeanMetricWrapper)


def serialize(metric):
    """A metric as Keras's JSON-able dict: module, class_name, config, registered_name.

    Args:
        metric: a Metric.

    Returns:
        A dict.
    """
    return {
        "module": "keras.metrics",
        "class_name": type(metric).__name__,
        "config": metric.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """A metric from ``serialize``'s dict; classes come from this module or ``custom_objects``, never by import.

    Args:
        config: ``serialize``'s dict (or a name).
        custom_objects: a dict of your own classes by name.

    Returns:
        A Metric.

    Raises:
        ValueError: a class it does not know.
    """
    table = {**_BY_NAME, **(custom_objects or {})}
    name = config.get("class_name") if isinstance(config, dict) else config
    if name not in table:
        raise ValueError(f"Could not interpret metric identifier: {config}")
    found = table[name]
    return found(**config.get("config", {})) if isinstance(config, dict) else get(found)
