"""``tf.keras.losses``: loss functions (per example) and Loss objects (reduced to a scalar).

The functional forms return one value per example (the mean over the last
axis); a Loss object's call reduces them, by default to their mean
('sum_over_batch_size'), as Keras does. Formulas follow Keras 3's
TensorFlow backend, including the 1e-7 clipping of probabilities.
"""

from tapeviz import math as tf_math
from tapeviz import nn as tf_nn
from tapeviz.core.primitives.array import reshape
from tapeviz.core.primitives.math import cast
from tapeviz.core.records import RecordsInit
from tapeviz.core.scopes import name_scope
from tapeviz.core.tensor import Tensor, convert_to_tensor
from tapeviz.keras.registry import resolve

__all__ = [
    "Loss",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "Huber",
    "mean_squared_error",
    "mean_absolute_error",
    "binary_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "huber",
    "get",
    "mse",
    "mae",
    "MSE",
    "MAE",
]

EPSILON = 1e-7  # keras.backend.epsilon()


def _tensor(value, dtype=None):
    if isinstance(value, Tensor) and dtype is None:
        return value
    if hasattr(value, "read_value"):
        value = value.read_value()
    if isinstance(value, Tensor):
        return value if dtype is None or value.dtype == dtype else cast(value, dtype)
    return convert_to_tensor(value, dtype=dtype)


def _same_rank(y_true, y_pred):
    """Keras's squeeze_or_expand_to_same_rank: fix a trailing axis of size 1 on one side."""
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true = reshape(y_true, tuple(y_true.shape)[:-1])
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred = reshape(y_pred, tuple(y_pred.shape)[:-1])
    return y_true, y_pred


def _pair(y_true, y_pred):
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    return _same_rank(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred)**2) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.abs(y_true - y_pred), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """0.5 * err**2 where |err| <= delta, else delta * |err| - 0.5 * delta**2; mean over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    error = y_pred - y_true
    abs_error = tf_math.abs(error)
    quadratic = 0.5 * tf_math.square(error)
    linear = delta * abs_error - 0.5 * delta * delta
    return tf_math.reduce_mean(tf_math.where(abs_error <= delta, quadratic, linear), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-(y log p + (1 - y) log(1 - p)), mean over the last axis. p clipped to [1e-7, 1 - 1e-7]."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        values = tf_nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = tf_math.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        values = -(y_true * tf_math.log(p) + (1 - y_true) * tf_math.log(1 - p))
    return tf_math.reduce_mean(values, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-sum(y_true * log p) over the classes; y_true one-hot (or soft) labels.

    Without logits, p is renormalized to sum to 1, then clipped to [1e-7, 1 - 1e-7].
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
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
    p = tf_math.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return -tf_math.reduce_sum(y_true * tf_math.log(p), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """-log p[label] for integer labels; without logits, p is clipped to [1e-7, 1 - 1e-7]."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true)
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
    logits = y_pred if from_logits else tf_math.log(tf_math.clip_by_value(y_pred, EPSILON, 1 - EPSILON))
    return tf_nn.sparse_softmax_cross_entropy_with_logits(labels=y_true, logits=logits)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


class Loss(RecordsInit):
    """Base class: ``loss(y_true, y_pred, sample_weight=None)`` -> a scalar (by default).

    ``reduction``: 'sum_over_batch_size' (the mean, Keras's default), 'sum',
    or 'none' (one value per example).
    """

    def __init__(self, reduction="sum_over_batch_size", name=None):
        if reduction not in ("sum_over_batch_size", "sum", "none", "mean", None, "auto"):
            raise ValueError(
                f"Invalid value for argument `reduction`: {reduction!r}. Use 'sum_over_batch_size', 'sum' or 'none'."
            )
        self.reduction = "sum_over_batch_size" if reduction in ("auto", "mean") else reduction
        self.name = name or _snake(type(self).__name__)

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        with name_scope(self.name):
            values = self.call(y_true, y_pred)
            if sample_weight is not None:
                weight = _tensor(sample_weight, values.dtype)
                if weight.ndim > values.ndim:
                    weight = reshape(weight, tuple(values.shape))
                values = values * weight
            if self.reduction in ("none", None):
                return values
            total = tf_math.reduce_sum(values)
            if self.reduction == "sum":
                return total
            return total / float(max(values.shape.num_elements(), 1))

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


def _snake(name):
    import re

    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


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
    """Mean of squared errors."""

    fn = staticmethod(mean_squared_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error"):
        super().__init__(reduction, name)


class MeanAbsoluteError(_Wrapper):
    """Mean of absolute errors."""

    fn = staticmethod(mean_absolute_error)

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error"):
        super().__init__(reduction, name)


class Huber(_Wrapper):
    """Quadratic for small errors (|err| <= delta), linear beyond."""

    fn = staticmethod(huber)

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss"):
        super().__init__(reduction, name, delta=delta)


class BinaryCrossentropy(_Wrapper):
    """Cross-entropy for 0/1 labels; ``from_logits=True`` when the model outputs raw scores."""

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
    """Cross-entropy for one-hot labels; ``from_logits=True`` when the model outputs raw scores."""

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
    """Cross-entropy for integer labels; ``from_logits=True`` when the model outputs raw scores."""

    fn = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, from_logits=False, reduction="sum_over_batch_size", name="sparse_categorical_crossentropy"):
        super().__init__(reduction, name, from_logits=from_logits)


class _FunctionLoss(Loss):
    def __init__(self, fn, name):
        super().__init__(name=name)
        self._fn = fn

    def call(self, y_true, y_pred):
        return self._fn(y_true, y_pred)


_BY_NAME = {
    "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "mean_absolute_error": MeanAbsoluteError,
    "huber": Huber,
    "huber_loss": Huber,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
}


def get(identifier):
    """A Loss from a name ('mse', 'sparse_categorical_crossentropy'...), a Loss, or a function."""
    return resolve(
        identifier,
        kind="loss function",
        table=_BY_NAME,
        base=Loss,
        wrap_callable=lambda fn: _FunctionLoss(fn, getattr(fn, "__name__", "loss")),
    )
