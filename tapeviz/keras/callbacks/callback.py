"""The base of every Keras callback: ``on_*`` hooks that ``fit``, ``evaluate`` and ``predict`` call."""

import numpy as np


class Callback:
    """Base class: override any ``on_*`` hook. ``self.model`` and ``self.params`` are set by ``fit``."""

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        """Called by ``fit``: keep the training parameters as ``self.params``.

        Args:
            params: a dict (``epochs``, ``steps``, ``verbose``).
        """
        self.params = params

    def set_model(self, model):
        """Called by ``fit``: keep the model as ``self.model``.

        Args:
            model: the model being trained.
        """
        self._model = model

    @property
    def model(self):
        return getattr(self, "_model", None)

    @model.setter
    def model(self, model):
        self._model = model

    def on_batch_begin(self, batch, logs=None):
        """A backwards-compatibility alias for ``on_train_batch_begin``.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (empty at a batch's start); overridden hooks may read it.
        """

    def on_batch_end(self, batch, logs=None):
        """A backwards-compatibility alias for ``on_train_batch_end``.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (loss and metrics); overridden hooks may read it.
        """

    def on_epoch_begin(self, epoch, logs=None):
        """Called by ``fit`` at the start of each epoch. Does nothing here; override it.

        Args:
            epoch: the epoch's index (from 0).
            logs: a dict of the values logged so far (empty at an epoch's start); overridden hooks may read it.
        """
        pass

    def on_epoch_end(self, epoch, logs=None):
        """Called by ``fit`` at the end of each epoch. Does nothing here; override it.

        Args:
            epoch: the epoch's index (from 0).
            logs: a dict of the values logged so far (the epoch's loss and metrics, ``val_`` ones too); overridden hooks may read it.
        """
        pass

    def on_train_batch_begin(self, batch, logs=None):
        """Called by ``fit`` before each training batch; calls ``on_batch_begin``.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (empty at a batch's start); overridden hooks may read it.
        """
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called by ``fit`` after each training batch; calls ``on_batch_end``.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (the running loss and metrics); overridden hooks may read it.
        """
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called by ``evaluate`` (and ``fit``'s validation) before each batch.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (empty at a batch's start); overridden hooks may read it.
        """
        pass

    def on_test_batch_end(self, batch, logs=None):
        """Called by ``evaluate`` (and ``fit``'s validation) after each batch.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (loss and metrics); overridden hooks may read it.
        """
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        """Called by ``predict`` before each batch.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (empty at a batch's start); overridden hooks may read it.
        """
        pass

    def on_predict_batch_end(self, batch, logs=None):
        """Called by ``predict`` after each batch.

        Args:
            batch: the batch's index within the epoch.
            logs: a dict of the values logged so far (``outputs``: the batch's predictions); overridden hooks may read it.
        """
        pass

    def on_train_begin(self, logs=None):
        """Called once when ``fit`` starts. Does nothing here; override it.

        Args:
            logs: a dict of the values logged so far (empty); overridden hooks may read it.
        """
        pass

    def on_train_end(self, logs=None):
        """Called once when ``fit`` ends. Does nothing here; override it.

        Args:
            logs: a dict of the values logged so far (the last epoch's); overridden hooks may read it.
        """
        pass

    def on_test_begin(self, logs=None):
        """Called when ``evaluate`` (or ``fit``'s validation) starts.

        Args:
            logs: a dict of the values logged so far (empty); overridden hooks may read it.
        """
        pass

    def on_test_end(self, logs=None):
        """Called when ``evaluate`` (or ``fit``'s validation) ends.

        Args:
            logs: a dict of the values logged so far (loss and metrics); overridden hooks may read it.
        """
        pass

    def on_predict_begin(self, logs=None):
        """Called when ``predict`` starts.

        Args:
            logs: a dict of the values logged so far (empty); overridden hooks may read it.
        """
        pass

    def on_predict_end(self, logs=None):
        """Called when ``predict`` ends.

        Args:
            logs: a dict of the values logged so far (empty); overridden hooks may read it.
        """
        pass


def learning_rate_of(optimizer):
    """The optimizer's current learning rate as a Python float (a schedule's value, or the variable's)."""
    return float(
        np.asarray(
            optimizer.learning_rate.numpy() if hasattr(optimizer.learning_rate, "numpy") else optimizer.learning_rate
        )
    )
