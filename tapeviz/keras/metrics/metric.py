"""The base of every Keras metric: state in Variables, ``update_state`` / ``result`` / ``reset_state``.

Metrics are not differentiable and never recorded: they read tensors'
values on the host (``host_array``) and compute in NumPy.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.records import RecordsInit
from tapeviz.core.tensor import Variable, is_tensor, to_array
from tapeviz.core.tracing import host_call


def host_array(value):
    """A tensor, variable or array-like as a host NumPy array."""
    if is_tensor(value):
        value = to_array(value)
    return B.to_numpy(value) if not isinstance(value, (list, tuple, int, float)) else np.asarray(value)


def squeeze_like(y_true, y_pred):
    """Drop a trailing axis of size 1 that one of the two has and the other lacks."""
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred = y_pred[..., 0]
    return y_true, y_pred


class Metric(RecordsInit):
    """Base class: ``update_state(...)``, ``result()``, ``reset_state()``; state in ``variables``.

    Args:
        name: the object's name.
        dtype: the dtype of its state.
    """

    _direction = None  # "up" or "down": which way is better, for callbacks' mode="auto"

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

    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation="sum", name=None):
        """A state variable: Keras 3's ``add_variable(shape, initializer, dtype=None, name=None)``.

        (``add_variable("total")``, a name first, is the short internal form: a float32 zero scalar.)

        Args:
            shape: the variable's shape (or, first, its name: the short internal form).
            initializer: its initializer.
            dtype: its dtype (the metric's when None).
            aggregation: how replicas combine it (``"sum"``, ``"mean"``), kept.
            name: its name.

        Returns:
            The Variable, tracked by the metric.
        """
        if isinstance(shape, str):  # add_variable(name, initial)
            name, initial = shape, (0.0 if initializer == "zeros" else initializer)
            value = np.float32(initial)
        else:
            from tapeviz.keras import initializers

            shape = tuple(int(n) for n in ([shape] if isinstance(shape, int) else shape))
            value = to_array(initializers.get(initializer)(shape, dtype=dtype or self.dtype))
        variable = Variable(value, trainable=False, name=f"{self.name}/{name or 'variable'}")
        self._variables.append(variable)
        return variable

    @property
    def variables(self):
        return list(self._variables)

    def reset_state(self):
        """Set every state variable back to zero (``fit`` does it at each epoch's start)."""
        for v in self._variables:
            v.assign(np.zeros(v.shape, v.dtype.as_numpy_dtype))

    @property
    def reset_states(self):
        """Gone in Keras 3 (TF 2.16+): an AttributeError that names the new spelling."""
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute 'reset_states': Keras 3 (TF 2.16+) renamed it. "
            "Call metric.reset_state() instead."
        )

    def update_state(self, *args, **kwargs):
        """Add a batch to the metric's state. Each metric defines it.

        Args:
            y_true, y_pred: (most metrics) the batch's targets and predictions.
            values: (``Mean``, ``Sum``) the values to average or add.
            sample_weight: a weight per example (None: all 1).
            *args: what a metric's own ``update_state`` takes, by position.
            **kwargs: likewise, by keyword.
        """
        raise NotImplementedError

    def result(self):
        """The metric's value from its state so far. Each metric defines it.

        Returns:
            A scalar Tensor.
        """
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        """Update with one batch and return the running result."""
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name} result={float(self.result().numpy()):.4g}>"
