"""``CallbackList``: the user's callbacks called as one, with logs as plain Python floats."""

import numpy as np

from tapeviz.keras.callbacks.callback import Callback
from tapeviz.keras.callbacks.history import History


def _pythonify(logs):
    """Logs with tensors and NumPy scalars as Python floats, as Keras's CallbackList passes them."""
    if not logs:
        return logs if logs is not None else {}
    out = {}
    for key, value in logs.items():
        if hasattr(value, "numpy"):
            value = value.numpy()
        if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0:
            value = float(value)
        out[key] = value
    return out


class CallbackList(Callback):
    """Callbacks called as one: ``fit`` makes one (adding a ``History``), and passes it on to ``evaluate``.

    Args:
        callbacks: the callbacks.
        add_history: add a ``History`` callback.
        add_progbar: add a progress bar.
        model: the model they watch.
        **params: the training parameters (``epochs``, ``steps``, ``verbose``).
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = list(callbacks) if callbacks else []
        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback):
        """Add a callback.

        Args:
            callback: a Callback.
        """
        self.callbacks.append(callback)

    def set_params(self, params):
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model):
        super().set_model(model)
        for callback in self.callbacks:
            callback.set_model(model)

    def _call(self, hook, *args, logs=None):
        logs = _pythonify(logs)
        # Keras passes logs by keyword to the batch hooks, by position to the others (a lambda's names matter).
        by_keyword = "batch" in hook
        for callback in self.callbacks:
            method = getattr(callback, hook)
            method(*args, logs=logs) if by_keyword else method(*args, logs)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs=logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs=logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs=logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs=logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs=logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs=logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs=logs)
