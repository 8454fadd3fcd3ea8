"""The running sum and mean, and the mean of a function of (y_true, y_pred) over every batch seen."""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras import losses
from tapeviz.keras.metrics.metric import Metric, host_array


class Sum(Metric):
    """The running sum of the values.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
    """

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
    """The running (weighted) mean of the values.

    Args:
        name: the metric's name.
        dtype: the dtype of its state.

    Example:
        >>> import tapeviz as tf
        >>> mean = tf.keras.metrics.Mean()
        >>> mean.update_state([1.0, 2.0, 3.0])
        >>> float(mean.result())
        2.0
    """

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
    """The running mean of ``fn(y_true, y_pred)`` over every example seen.

    Args:
        fn: the function of ``(y_true, y_pred)`` that gives one value per example.
        name: the object's name.
        dtype: the dtype of its state.
        **kwargs: passed on to ``fn``.
    """

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
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {"name": self.name, "dtype": self.dtype, **self._fn_kwargs}


def loss_function(name):
    """``keras.losses.<name>``: the loss a metric of that family averages."""
    return getattr(losses, name)


def loss_metric_class(class_name, function, default_name, doc, **defaults):
    """A MeanMetricWrapper subclass over ``losses.<function>``, with Keras's constructor arguments."""

    def __init__(self, name=default_name, dtype="float32", **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{class_name}.__init__() got unexpected keyword arguments {sorted(unknown)}")
        MeanMetricWrapper.__init__(self, loss_function(function), name, dtype, **{**defaults, **kwargs})

    options = "".join(
        f"        {key}: passed to ``losses.{function}`` (default {value!r}).\n" for key, value in defaults.items()
    )
    doc = doc.rstrip() + (
        "\n\n    Args:\n        name: the metric's name.\n        dtype: the dtype of its state.\n"
        + (options.replace("        ", "        ", 1) if defaults else "")
        + "        **kwargs: "
        + ("only the options above." if defaults else "none is taken.")
        + "\n\n    Raises:\n        TypeError: a keyword argument the metric does not take.\n"
    )
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc, "_direction": "down"})
