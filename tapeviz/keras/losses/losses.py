"""Keras 3's loss functions (one value per example) and the Loss classes that wrap them.

Formulas follow Keras 3's TensorFlow backend, including the 1e-7 clipping of probabilities.
"""

from tapeviz import math as tf_math
from tapeviz import nn as tf_nn
from tapeviz.core.primitives.array import reshape
from tapeviz.core.primitives.math import cast
from tapeviz.keras.config import epsilon
from tapeviz.keras.losses.loss import Loss, as_tensor, squeeze_or_expand_to_same_rank


def _pair(y_true, y_pred):
    y_pred = as_tensor(y_pred)
    y_true = as_tensor(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred)**2) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.abs(y_true - y_pred), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """0.5 * err**2 where |err| <= delta, else delta * |err| - 0.5 * delta**2; mean over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        delta: where the loss turns from quadratic to linear.

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = _pair(y_true, y_pred)
    error = y_pred - y_true
    abs_error = tf_math.abs(error)
    quadratic = 0.5 * tf_math.square(error)
    linear = delta * abs_error - 0.5 * delta * delta
    return tf_math.reduce_mean(tf_math.where(abs_error <= delta, quadratic, linear), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-(y log p + (1 - y) log(1 - p)), mean over the last axis. p clipped to [1e-7, 1 - 1e-7].

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        values = tf_nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = tf_math.clip_by_value(y_pred, epsilon(), 1.0 - epsilon())
        values = -(y_true * tf_math.log(p) + (1 - y_true) * tf_math.log(1 - p))
    return tf_math.reduce_mean(values, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-sum(y_true * log p) over the classes; y_true one-hot (or soft) labels.

    Without logits, p is renormalized to sum to 1, then clipped to [1e-7, 1 - 1e-7].

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).

    Raises:
        ValueError: ``y_true`` and ``y_pred`` of different shapes.
    """
    y_pred = as_tensor(y_pred)
    y_true = as_tensor(y_true, y_pred.dtype)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. "
            f"Received: target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}. "
            "For integer class labels use sparse_categorical_crossentropy."
        )
    if label_smoothing:
        classes = y_pred.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        return tf_nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = y_pred / tf_math.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = tf_math.clip_by_value(p, epsilon(), 1.0 - epsilon())
    return -tf_math.reduce_sum(y_true * tf_math.log(p), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """-log p[label] for integer labels; without logits, p is clipped to [1e-7, 1 - 1e-7].

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        axis: the axis reduced (the class axis).
        ignore_class: a label whose examples get a loss of 0.

    Returns:
        A Tensor with one value per example (the last axis reduced).

    Raises:
        ValueError: ``y_true`` whose rank is not one less than ``y_pred``'s, or shapes that differ before the class axis.
    """
    y_pred = as_tensor(y_pred)
    y_true = as_tensor(y_true)
    if y_true.dtype.is_floating:
        y_true = cast(y_true, "int64")
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = reshape(y_true, tuple(y_true.shape)[:-1])
    if y_true.ndim != y_pred.ndim - 1:
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. "
            f"Received: target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    if tuple(y_true.shape) != tuple(y_pred.shape)[:-1]:
        raise ValueError(
            "Arguments `target` and `output` must have the same shape up until the last dimension: "
            f"target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    logits = y_pred if from_logits else tf_math.log(tf_math.clip_by_value(y_pred, epsilon(), 1 - epsilon()))
    return tf_nn.sparse_softmax_cross_entropy_with_logits(labels=y_true, logits=logits)


mse = MSE = mean_squared_error


mae = MAE = mean_absolute_error


def _ops():
    from tapeviz.keras import ops

    return ops


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|y_true - y_pred| / max(|y_true|, eps)) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    diff = ops.abs((y_true - y_pred) / ops.maximum(ops.abs(y_true), epsilon()))
    return 100.0 * ops.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))**2) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    first = ops.log(ops.maximum(y_pred, epsilon()) + 1.0)
    second = ops.log(ops.maximum(y_true, epsilon()) + 1.0)
    return ops.mean(ops.square(first - second), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """-sum(unit(y_true) * unit(y_pred)) along ``axis``: -1 for the same direction.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    return -ops.sum(ops.normalize(y_true, axis=axis) * ops.normalize(y_pred, axis=axis), axis=axis)


def _signed_labels(y_true):
    """0/1 labels as -1/1 (labels already in -1/1 are kept), as Keras's hinge losses do."""
    ops = _ops()
    is_binary = ops.all(ops.logical_or(ops.equal(y_true, 0), ops.equal(y_true, 1)))
    return 2.0 * y_true - 1.0 if bool(is_binary.numpy()) else y_true


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis (0/1 labels become -1/1).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    return ops.mean(ops.maximum(1.0 - _signed_labels(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)**2) over the last axis (0/1 labels become -1/1).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    return ops.mean(ops.square(ops.maximum(1.0 - _signed_labels(y_true) * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0) for one-hot labels.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    positive = ops.sum(y_true * y_pred, axis=-1)
    negative = ops.max((1.0 - y_true) * y_pred, axis=-1)
    return ops.maximum(negative - positive + 1.0, 0.0)


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1].

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = ops.clip(y_true, epsilon(), 1.0)
    y_pred = ops.clip(y_pred, epsilon(), 1.0)
    return ops.sum(y_true * ops.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + eps)) over the last axis.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    return ops.mean(y_pred - y_true * ops.log(y_pred + epsilon()), axis=-1)


_LOG_2 = 0.6931471805599453  # log(2)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, computed stably: x + softplus(-2x) - log 2.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return ops.mean(x + ops.softplus(-2.0 * x) - _LOG_2, axis=-1)


def dice(y_true, y_pred, axis=None):
    """1 - 2 sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + eps), summed over ``axis`` (all when None).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype.name)
    intersection = ops.sum(y_true * y_pred, axis=axis)
    return 1.0 - 2.0 * intersection / (ops.sum(y_true, axis=axis) + ops.sum(y_pred, axis=axis) + epsilon())


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """1 - TP / (TP + alpha FP + beta FN + eps), the soft counts summed over ``axis`` (all when None).

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        beta: the weight of false negatives.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype.name)
    intersection = ops.sum(y_true * y_pred, axis=axis)
    false_positives = ops.sum((1.0 - y_pred) * y_true, axis=axis)
    false_negatives = ops.sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - intersection / (intersection + false_positives * alpha + false_negatives * beta + epsilon())


def binary_focal_crossentropy(
    y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """Binary cross-entropy times (1 - p_t)**gamma (and alpha-balanced if asked), mean over ``axis``.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        apply_class_balancing: weight the classes by ``alpha``.
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        gamma: the focusing parameter: how much easy examples are down-weighted.
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype.name)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = ops.sigmoid(y_pred)
    bce = ops.binary_crossentropy(y_true, y_pred)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = ops.power(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return ops.mean(focal, axis=axis)


def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """sum(alpha (1 - p)**gamma * -y_true log p) over the classes; p renormalised and clipped as Keras.

    Args:
        y_true: the targets.
        y_pred: the predictions (of ``y_true``'s shape, or with a class axis for sparse labels).
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        gamma: the focusing parameter: how much easy examples are down-weighted.
        from_logits: ``y_pred`` holds raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis reduced (the class axis).

    Returns:
        A Tensor with one value per example (the last axis reduced).
    """
    ops = _ops()
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype.name)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_true.shape[-1]
    if from_logits:
        y_pred = ops.softmax(y_pred, axis=axis)
    output = ops.clip(y_pred / ops.sum(y_pred, axis=axis, keepdims=True), epsilon(), 1.0 - epsilon())
    cce = -y_true * ops.log(output)
    return ops.sum(ops.power(1.0 - output, gamma) * alpha * cce, axis=axis)


class _Wrapper(Loss):
    fn = None

    def __init__(self, reduction="sum_over_batch_size", name=None, **kwargs):
        super().__init__(reduction, name)
        self._kwargs = kwargs

    def call(self, y_true, y_pred):
        return type(self).fn(y_true, y_pred, **self._kwargs)

    def get_config(self):
        return {**super().get_config(), **self._kwargs}


class MeanSquaredError(_Wrapper):
    """Mean of squared errors.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"``
            (the mean, default), ``"sum"``, or ``None``/``"none"`` (one per example).
        name: the loss's name.

    Example:
        >>> import tapeviz as tf
        >>> mse = tf.keras.losses.MeanSquaredError()
        >>> float(mse([[0.0], [1.0]], [[1.0], [1.0]]))
        0.5
    """

    fn = staticmethod(mean_squared_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error"):
        super().__init__(reduction, name)


class MeanAbsoluteError(_Wrapper):
    """Mean of absolute errors.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(mean_absolute_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error"):
        super().__init__(reduction, name)


class Huber(_Wrapper):
    """Quadratic for small errors (|err| <= delta), linear beyond.

    Args:
        delta: where the loss turns from quadratic to linear.
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(huber)

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss"):
        super().__init__(reduction, name, delta=delta)


class BinaryCrossentropy(_Wrapper):
    """Cross-entropy for 0/1 labels; ``from_logits=True`` when the model outputs raw scores.

    Args:
        from_logits: the predictions are raw scores (a sigmoid is applied here).
        label_smoothing: move the labels this far toward 0.5.
        axis: the axis the mean is taken over.
        reduction: ``"sum_over_batch_size"`` (the mean, default), ``"sum"`` or ``None``.
        name: the loss's name.
    """

    fn = staticmethod(binary_crossentropy)

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_crossentropy",
    ):
        super().__init__(reduction, name, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class CategoricalCrossentropy(_Wrapper):
    """Cross-entropy for one-hot labels; ``from_logits=True`` when the model outputs raw scores.

    Args:
        from_logits: the predictions are raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis it works along.
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(categorical_crossentropy)

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_crossentropy",
    ):
        super().__init__(reduction, name, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(_Wrapper):
    """Cross-entropy for integer labels; ``from_logits=True`` when the model outputs raw scores.

    Args:
        from_logits: the predictions are raw scores (a softmax is applied here).
        reduction: ``"sum_over_batch_size"`` (the mean, default), ``"sum"`` or ``None``.
        name: the loss's name.

    Example:
        >>> import tapeviz as tf
        >>> loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> round(float(loss([0, 1], [[2.0, 0.0], [0.0, 2.0]])), 4)
        0.1269
    """

    fn = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, from_logits=False, reduction="sum_over_batch_size", name="sparse_categorical_crossentropy"):
        super().__init__(reduction, name, from_logits=from_logits)


class MeanAbsolutePercentageError(_Wrapper):
    """Mean absolute percentage error.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(mean_absolute_percentage_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_percentage_error"):
        super().__init__(reduction, name)


class MeanSquaredLogarithmicError(_Wrapper):
    """Mean squared error of log(1 + x).

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(mean_squared_logarithmic_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_logarithmic_error"):
        super().__init__(reduction, name)


class CosineSimilarity(_Wrapper):
    """Negative cosine similarity along ``axis`` (so that minimizing aligns the vectors).

    Args:
        axis: the axis the similarity is taken along.
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(cosine_similarity)

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity"):
        super().__init__(reduction, name, axis=axis)


class Hinge(_Wrapper):
    """Hinge loss for -1/1 (or 0/1) labels.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(hinge)

    def __init__(self, reduction="sum_over_batch_size", name="hinge"):
        super().__init__(reduction, name)


class SquaredHinge(_Wrapper):
    """Squared hinge loss for -1/1 (or 0/1) labels.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(squared_hinge)

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge"):
        super().__init__(reduction, name)


class CategoricalHinge(_Wrapper):
    """Hinge loss for one-hot labels.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(categorical_hinge)

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge"):
        super().__init__(reduction, name)


class KLDivergence(_Wrapper):
    """Kullback-Leibler divergence of y_pred from y_true.

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(kl_divergence)

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence"):
        super().__init__(reduction, name)


class Poisson(_Wrapper):
    """Poisson loss: y_pred - y_true * log(y_pred).

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(poisson)

    def __init__(self, reduction="sum_over_batch_size", name="poisson"):
        super().__init__(reduction, name)


class LogCosh(_Wrapper):
    """Mean log(cosh(error)).

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
    """

    fn = staticmethod(log_cosh)

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh"):
        super().__init__(reduction, name)


class Dice(_Wrapper):
    """The Dice loss (1 - the soft Dice coefficient).

    Args:
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
        axis: the axes the sums run over (all but the batch when None).
        dtype: the dtype of the losses.
    """

    fn = staticmethod(dice)

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(reduction, name, axis=axis)


class Tversky(_Wrapper):
    """The Tversky loss: Dice with false positives and negatives weighted by ``alpha`` and ``beta``.

    Args:
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        beta: the weight of false negatives (Tversky), or of recall (F-beta).
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
        axis: the axes the sums run over (all but the batch when None).
        dtype: the dtype of the losses.
    """

    fn = staticmethod(tversky)

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky", axis=None, dtype=None):
        super().__init__(reduction, name, alpha=alpha, beta=beta, axis=axis)


class BinaryFocalCrossentropy(_Wrapper):
    """Binary cross-entropy down-weighting easy examples by (1 - p_t)**gamma.

    Args:
        apply_class_balancing: weight the classes by ``alpha``.
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        gamma: the focusing parameter: how much easy examples are down-weighted.
        from_logits: the predictions are raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis it works along.
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
        dtype: the dtype of the losses.
    """

    fn = staticmethod(binary_focal_crossentropy)

    def __init__(
        self,
        apply_class_balancing=False,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            reduction,
            name,
            apply_class_balancing=apply_class_balancing,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class CategoricalFocalCrossentropy(_Wrapper):
    """Categorical cross-entropy down-weighting easy examples by alpha (1 - p)**gamma.

    Args:
        alpha: the weight of the positive class (focal) or of false positives (Tversky).
        gamma: the focusing parameter: how much easy examples are down-weighted.
        from_logits: the predictions are raw scores (the sigmoid or softmax is applied here).
        label_smoothing: move the labels this far toward uniform.
        axis: the axis it works along.
        reduction: how the per-example losses are combined: ``"sum_over_batch_size"`` (the mean, default), ``"sum"``, or ``None``/``"none"``.
        name: the object's name.
        dtype: the dtype of the losses.
    """

    fn = staticmethod(categorical_focal_crossentropy)

    def __init__(
        self,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            reduction,
            name,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class LossFunctionWrapper(Loss):
    """A plain function ``fn(y_true, y_pred)`` as a Loss (``compile(loss=my_function)``)."""

    def __init__(self, fn, name):
        super().__init__(name=name)
        self._fn = fn

    def call(self, y_true, y_pred):
        return self._fn(y_true, y_pred)
