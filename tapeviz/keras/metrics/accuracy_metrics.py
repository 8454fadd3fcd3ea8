"""Accuracy metrics: exact match, binary, categorical, sparse and top-k accuracy."""

import numpy as np

from tapeviz.keras.metrics.metric import host_array, squeeze_like
from tapeviz.keras.metrics.reduction_metrics import MeanMetricWrapper


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred exactly, else 0.0.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
    return (y_true == y_pred.astype(y_true.dtype)).astype(np.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where (y_pred > threshold) == y_true, elementwise (Keras 3; the metric averages over all).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        threshold: predictions above it count as 1.

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = squeeze_like(host_array(y_true), host_array(y_pred))
    return (y_true == (y_pred > threshold).astype(y_true.dtype)).astype(np.float32)


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_pred) == argmax(y_true) (one-hot labels).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return (np.argmax(host_array(y_true), axis=-1) == np.argmax(host_array(y_pred), axis=-1)).astype(np.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_pred) equals the integer label.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = host_array(y_true), host_array(y_pred)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    return (np.argmax(y_pred, axis=-1) == y_true.astype(np.int64)).astype(np.float32)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly.

    Args:
        name: the metric's name.
        dtype: the dtype of its state.
    """

    _direction = "up"

    def __init__(self, name="accuracy", dtype="float32"):
        super().__init__(accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often (y_pred > threshold) equals the 0/1 label.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
        threshold: predictions above it count as 1.
    """

    _direction = "up"

    def __init__(self, name="binary_accuracy", dtype="float32", threshold=0.5):
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) equals the one-hot label's.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "up"

    def __init__(self, name="categorical_accuracy", dtype="float32"):
        super().__init__(categorical_accuracy, name, dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) equals the integer label.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "up"

    def __init__(self, name="sparse_categorical_accuracy", dtype="float32"):
        super().__init__(sparse_categorical_accuracy, name, dtype)


class AutoAccuracy(MeanMetricWrapper):
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


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is among the ``k`` highest predictions.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        k: how many top predictions count.

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    return sparse_top_k_categorical_accuracy(np.argmax(host_array(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer label is among the ``k`` highest predictions (ties count, as TF's in_top_k).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        k: how many top predictions count.
        from_sorted_ids: ``y_pred`` already holds the sorted top ids.

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = host_array(y_true), host_array(y_pred).astype(np.float64)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    labels = y_true.astype(np.int64)
    own = np.take_along_axis(y_pred, labels[..., None], axis=-1)
    better = np.sum(y_pred > own, axis=-1)
    return (better < k).astype(np.float32)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the ``k`` highest predictions.

    Args:
        k: how many top predictions count.
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = "up"

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype="float32"):
        super().__init__(top_k_categorical_accuracy, name, dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the ``k`` highest predictions.

    Args:
        k: how many top predictions count.
        name: the object's name.
        dtype: the dtype of its state.
        from_sorted_ids: the predictions are already the sorted top ids.
    """

    _direction = "up"

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype="float32", from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype, k=k)
