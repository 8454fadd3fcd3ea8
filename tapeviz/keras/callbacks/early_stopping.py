"""``EarlyStopping``: stop training when the monitored quantity stops improving."""

import warnings

from tapeviz.keras.callbacks.monitor_callback import MonitorCallback
from tapeviz.keras.utils.progbar import print_message


class EarlyStopping(MonitorCallback):
    """Stop ``fit`` when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs.

    Args:
        monitor: the logged value to watch (``"val_loss"``, ``"loss"``, ``"val_accuracy"``...).
        min_delta: the smallest change that counts as an improvement.
        patience: epochs without improvement before training stops.
        verbose: 1 prints when it stops.
        mode: ``"min"``, ``"max"``, or ``"auto"`` (from the name).
        baseline: a value the monitor must beat.
        restore_best_weights: put back the weights of the best epoch when it stops.
        start_from_epoch: epochs to wait before watching.
    """

    def __init__(
        self,
        monitor="val_loss",
        min_delta=0,
        patience=0,
        verbose=0,
        mode="auto",
        baseline=None,
        restore_best_weights=False,
        start_from_epoch=0,
    ):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_message(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_message(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        """The monitored value in ``logs`` (None, with a warning, when it is missing).

        Args:
            logs: the epoch's logs.

        Returns:
            A float, or None.
        """
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
        return value
