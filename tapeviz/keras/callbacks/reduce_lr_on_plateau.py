"""``ReduceLROnPlateau``: lower the learning rate when the monitored quantity stops improving."""

import warnings

import numpy as np

from tapeviz.keras.callbacks.callback import learning_rate_of
from tapeviz.keras.callbacks.monitor_callback import MonitorCallback
from tapeviz.keras.utils.progbar import print_message


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by ``factor`` when ``monitor`` stops improving for ``patience`` epochs.

    Args:
        monitor: the logged value to watch (``"val_loss"``...).
        factor: the factor the learning rate is multiplied by (< 1).
        patience: epochs without improvement before it acts.
        verbose: 1 prints a message when it acts.
        mode: ``"auto"``, ``"min"`` or ``"max"``: whether the monitored value should fall or rise.
        min_delta: the smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction.
        min_lr: the smallest learning rate.
        **kwargs: accepted for compatibility.

    Raises:
        ValueError: a ``factor`` of 1 or more.
    """

    def __init__(
        self,
        monitor="val_loss",
        factor=0.1,
        patience=10,
        verbose=0,
        mode="auto",
        min_delta=1e-4,
        cooldown=0,
        min_lr=0.0,
        **kwargs,
    ):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        """Whether it is still waiting after a reduction.

        Returns:
            A bool.
        """
        return self.cooldown_counter > 0

    def _reduce(self, optimizer, epoch):
        old_lr = learning_rate_of(optimizer)
        if old_lr > np.float32(self.min_lr):
            new_lr = max(old_lr * self.factor, self.min_lr)
            optimizer.learning_rate = new_lr
            if self.verbose > 0:
                print_message(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
            return True
        return False

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs["learning_rate"] = learning_rate_of(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}.",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce(self.model.optimizer, epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0
