"""``tf.keras.metrics``: streaming metrics (state in Variables, ``update_state`` / ``result``).

Metrics are not differentiable and never recorded: they read tensors'
values directly.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.records import RecordsInit
from tapeviz.core.tensor import Tensor, Variable, is_tensor, to_array
from tapeviz.core.tracing import host_call
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
    "get",
]


def _np(value):
    """A tensor, variable or array-like as a host NumPy array."""
    if is_tensor(value):
        value = to_array(value)
    return B.to_numpy(value) if not isinstance(value, (list, tuple, int, float)) else np.asarray(value)


def _squeeze_like(y_true, y_pred):
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred = y_pred[..., 0]
    return y_true, y_pred


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred exactly, else 0.0."""
    y_true, y_pred = _squeeze_like(_np(y_true), _np(y_pred))
    return (y_true == y_pred.astype(y_true.dtype)).astype(np.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Mean over the last axis of (y_pred > threshold) == y_true."""
    y_true, y_pred = _squeeze_like(_np(y_true), _np(y_pred))
    return np.mean(y_true == (y_pred > threshold).astype(y_true.dtype), axis=-1, dtype=np.float32)


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_pred) == argmax(y_true) (one-hot labels)."""
    return (np.argmax(_np(y_true), axis=-1) == np.argmax(_np(y_pred), axis=-1)).astype(np.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_pred) equals the integer label."""
    y_true, y_pred = _np(y_true), _np(y_pred)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    return (np.argmax(y_pred, axis=-1) == y_true.astype(np.int64)).astype(np.float32)


class Metric(RecordsInit):
    """Base class: ``update_state(...)``, ``result()``, ``reset_state()``; state in ``variables``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Metrics compute on the host: inside tf.function both run again on every call.
        if "update_state" in cls.__dict__:
            cls.update_state = host_call(stateful=True)(cls.__dict__["update_state"])
        if "result" in cls.__dict__:
            cls.result = host_call()(cls.__dict__["result"])

    def __init__(self, name=None, dtype="float32"):
        self.name = name or type(self).__name__.lower()
        self.dtype = dtype
        self._variables = []

    def add_variable(self, name, initial=0.0):
        variable = Variable(np.float32(initial), trainable=False, name=f"{self.name}/{name}")
        self._variables.append(variable)
        return variable

    @property
    def variables(self):
        return list(self._variables)

    def reset_state(self):
        for v in self._variables:
            v.assign(np.zeros(v.shape, np.float32))

    @property
    def reset_states(self):
        """Gone in Keras 3 (TF 2.16+): an AttributeError that names the new spelling."""
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute 'reset_states': Keras 3 (TF 2.16+) renamed it. "
            "Call metric.reset_state() instead."
        )

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        """Update with one batch and return the running result."""
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name} result={float(self.result().numpy()):.4g}>"


class Sum(Metric):
    """The running sum of the values."""

    def __init__(self, name="sum", dtype="float32"):
        super().__init__(name, dtype)
        self.total = self.add_variable("total")

    def update_state(self, values, sample_weight=None):
        values = _np(values).astype(np.float32)
        if sample_weight is not None:
            values = values * _np(sample_weight)
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
        values = _np(values).astype(np.float32)
        if sample_weight is None:
            total, count = np.sum(values), values.size
        else:
            weight = (
                np.broadcast_to(_np(sample_weight).astype(np.float32), values.shape)
                if np.ndim(sample_weight)
                else np.full(values.shape, float(_np(sample_weight)), np.float32)
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
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly."""

    def __init__(self, name="accuracy", dtype="float32"):
        super().__init__(accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often (y_pred > threshold) equals the 0/1 label."""

    def __init__(self, name="binary_accuracy", dtype="float32", threshold=0.5):
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) equals the one-hot label's."""

    def __init__(self, name="categorical_accuracy", dtype="float32"):
        super().__init__(categorical_accuracy, name, dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (argmax) equals the integer label."""

    def __init__(self, name="sparse_categorical_accuracy", dtype="float32"):
        super().__init__(sparse_categorical_accuracy, name, dtype)


class MeanSquaredError(MeanMetricWrapper):
    """The running mean squared error."""

    def __init__(self, name="mean_squared_error", dtype="float32"):
        super().__init__(lambda t, p: np.mean(np.square(_np(t) - _np(p)), axis=-1), name, dtype)


class _AutoAccuracy(MeanMetricWrapper):
    """compile(metrics=['accuracy']): binary, sparse or categorical, chosen from the shapes (as Keras)."""

    def __init__(self, name="accuracy"):
        super().__init__(self._pick, name)

    @staticmethod
    def _pick(y_true, y_pred):
        t, p = _np(y_true), _np(y_pred)
        if p.shape[-1:] == (1,) or p.ndim == t.ndim and p.ndim == 1:
            return binary_accuracy(t, p)
        if t.ndim == p.ndim - 1 or (t.ndim == p.ndim and t.shape[-1] == 1):
            return sparse_categorical_accuracy(t, p)
        return categorical_accuracy(t, p)


_BY_NAME = {
    "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError,
}


def get(identifier):
    """A Metric from a name ('accuracy', 'sparse_categorical_accuracy'...), a Metric, or a function."""
    if identifier in ("accuracy", "acc"):
        return _AutoAccuracy(identifier)  # which accuracy depends on the labels' shape
    return resolve(identifier, kind="metric function", table=_BY_NAME, base=Metric, wrap_callable=MeanMetricWrapper)
