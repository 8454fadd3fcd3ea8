"""Correlation metrics: Pearson's and the concordance correlation, averaged over batches."""

import numpy as np

from tapeviz.keras.metrics.metric import host_array, squeeze_like
from tapeviz.keras.metrics.reduction_metrics import MeanMetricWrapper


def pearson_correlation(y_true, y_pred, axis=-1):
    """The Pearson correlation of y_true and y_pred along ``axis`` (as Keras: mean of the standardised products).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = squeeze_like(host_array(y_true).astype(np.float64), host_array(y_pred).astype(np.float64))
    t = y_true - y_true.mean(axis=axis, keepdims=True)
    p = y_pred - y_pred.mean(axis=axis, keepdims=True)
    t, p = t / t.std(axis=axis, keepdims=True), p / p.std(axis=axis, keepdims=True)
    return (t * p).mean(axis=axis).astype(np.float32)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along ``axis``, with Keras 3's formula.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = squeeze_like(host_array(y_true).astype(np.float64), host_array(y_pred).astype(np.float64))
    true_mean, pred_mean = y_true.mean(axis=axis, keepdims=True), y_pred.mean(axis=axis, keepdims=True)
    true_var = (y_true - true_mean).var(axis=axis, keepdims=True)
    pred_var = (y_pred - pred_mean).var(axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)  # Keras 3.15 centres y_true on y_pred's mean
    norm = true_var + pred_var + np.square(true_mean - pred_mean)
    return (2 * covariance / (norm + 1e-7)).mean(axis=axis).astype(np.float32)


class PearsonCorrelation(MeanMetricWrapper):
    """The running mean of the per-example Pearson correlation.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
        axis: the axis the correlation is taken along.
    """

    _direction = "up"

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name, dtype or "float32", axis=axis)


class ConcordanceCorrelation(MeanMetricWrapper):
    """The running mean of the per-example concordance correlation.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
        axis: the axis the correlation is taken along.
    """

    _direction = "up"

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name, dtype or "float32", axis=axis)
