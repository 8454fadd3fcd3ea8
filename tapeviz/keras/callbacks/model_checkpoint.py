"""``ModelCheckpoint``: save the model or its weights during training, every epoch or at the best."""

import os
import warnings

from tapeviz.keras.callbacks.monitor_callback import MonitorCallback
from tapeviz.keras.utils.progbar import print_message


class ModelCheckpoint(MonitorCallback):
    """Save the model (``.keras``) or its weights (``.weights.h5``) after each epoch, or every ``save_freq`` batches.

    ``filepath`` may hold ``{epoch:02d}`` and log keys (``{val_loss:.2f}``);
    ``save_best_only`` keeps only improvements of ``monitor``. The model's
    own ``save``/``save_weights`` write atomically.

    Args:
        filepath: where to save (may hold ``{epoch}`` and logged names).
        monitor: the logged value to watch (``"val_loss"``...).
        verbose: 1 prints a message when it acts.
        save_best_only: save only when the monitored value improves.
        save_weights_only: save the weights only (a ``.weights.h5`` path).
        mode: ``"auto"``, ``"min"`` or ``"max"``: whether the monitored value should fall or rise.
        save_freq: ``"epoch"`` or a number of batches.
        initial_value_threshold: the value to beat at first.

    Raises:
        ValueError: a ``save_freq`` that is neither ``"epoch"`` nor an int, or a path of the wrong ending (``.keras``; ``.weights.h5`` with ``save_weights_only``).
    """

    def __init__(
        self,
        filepath,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        save_weights_only=False,
        mode="auto",
        save_freq="epoch",
        initial_value_threshold=None,
    ):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(
                f"Unrecognized save_freq: {self.save_freq}. Expected save_freq are 'epoch' or integer values"
            )
        if save_weights_only:
            if not self.filepath.endswith(".weights.h5"):
                raise ValueError(
                    "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in "
                    f"`.weights.h5` (Keras weights format). Received: filepath={self.filepath}"
                )
        elif not any(self.filepath.endswith(ext) for ext in (".keras", ".h5")):
            raise ValueError(
                f"The filepath provided must end in `.keras` (Keras model format). Received: filepath={self.filepath}"
            )

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch, logs, filepath):
        logs = logs or {}
        if not self.save_best_only:
            if self.verbose > 0:
                print_message(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=2)
            return True
        if self.monitor_op is None:
            self._set_monitor_op()
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print_message(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {current:.5f}, saving model to {filepath}"
                )
            self.best = current
            return True
        if self.verbose > 0:
            print_message(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _get_file_path(self, epoch, batch, logs):
        logs = logs or {}
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from None

    def _save_model(self, epoch, batch, logs):
        filepath = self._get_file_path(epoch, batch, logs)
        if os.path.isdir(filepath):
            raise OSError(
                f"Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an existing directory: {filepath}"
            )
        if not self._should_save_model(epoch, logs, filepath):
            return
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            print_message(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")
