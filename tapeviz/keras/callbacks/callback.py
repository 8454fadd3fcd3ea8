"""The base of every Keras callback: ``on_*`` hooks that ``fit``, ``evaluate`` and ``predict`` call."""

import numpy as np


class Callback:
    """Base class: override any ``on_*`` hook. ``self.model`` and ``self.params`` are set by ``fit``."""

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return getattr(self, "_model", None)

    @model.setter
    def model(self, model):
        self._model = model

    def on_batch_begin(self, batch, logs=None):
        """A backwards-compatibility alias for ``on_train_batch_begin``."""

    def on_batch_end(self, batch, logs=None):
        """A backwards-compatibility alias for ``on_train_batch_end``."""

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass


def learning_rate_of(optimizer):
    """The optimizer's current learning rate as a Python float (a schedule's value, or the variable's)."""
    return float(
        np.asarray(
            optimizer.learning_rate.numpy() if hasattr(optimizer.learning_rate, "numpy") else optimizer.learning_rate
        )
    )
