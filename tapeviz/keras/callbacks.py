"""``keras.callbacks``: hooks into ``fit``, ``evaluate`` and ``predict``, called as Keras 3 calls them.

``fit`` wraps the user's callbacks in a ``CallbackList`` (with a ``History``
added), calls ``on_train_begin()``, then per epoch ``on_epoch_begin(epoch)``,
``on_train_batch_begin(step)`` / ``on_train_batch_end(step, logs)``, the
validation pass through the same list (``on_test_*``), ``on_epoch_end(epoch,
logs)`` with the ``val_*`` entries, and ``on_train_end(logs)`` with the last
epoch's logs. Logs are plain Python floats. Files are written atomically
(a temporary file beside the target, then ``os.replace``).
"""

import csv
import io
import math
import os
import warnings

import numpy as np

from tapeviz.keras.callback_base import Callback, learning_rate_of
from tapeviz.keras.progbar import print_message
from tapeviz.keras.tensorboard import TensorBoard

__all__ = [
    "Callback",
    "CallbackList",
    "History",
    "LambdaCallback",
    "EarlyStopping",
    "ModelCheckpoint",
    "ReduceLROnPlateau",
    "LearningRateScheduler",
    "CSVLogger",
    "TerminateOnNaN",
    "BackupAndRestore",
    "TensorBoard",
]


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


class History(Callback):
    """The per-epoch logs of a ``fit``: ``history.history['loss']`` is a list, one value per epoch."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self.model is not None:
            self.model.history = self

    def __repr__(self):
        return f"<History epochs={len(self.epoch)} keys={list(self.history)}>"


class CallbackList(Callback):
    """Callbacks called as one: ``fit`` makes one (adding a ``History``), and passes it on to ``evaluate``."""

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


class LambdaCallback(Callback):
    """A callback from plain functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``.

    Any other ``on_*`` hook may be given by keyword too (``on_test_end=...``).
    """

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_train_begin=None,
        on_train_end=None,
        on_train_batch_begin=None,
        on_train_batch_end=None,
        **kwargs,
    ):
        super().__init__()
        self.__dict__.update(kwargs)
        given = dict(
            on_epoch_begin=on_epoch_begin,
            on_epoch_end=on_epoch_end,
            on_train_begin=on_train_begin,
            on_train_end=on_train_end,
            on_train_batch_begin=on_train_batch_begin,
            on_train_batch_end=on_train_batch_end,
        )
        for name, fn in given.items():
            if fn is not None:
                setattr(self, name, fn)


class MonitorCallback(Callback):
    """What EarlyStopping, ReduceLROnPlateau and ModelCheckpoint share: a watched value and its direction."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ["auto", "min", "max"]:
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = np.less
        elif self.mode == "max":
            self.monitor_op = np.greater
        else:
            metric_name = self.monitor.removeprefix("val_")
            if metric_name == "loss":
                self.monitor_op = np.less
            for metric in getattr(self.model, "metrics", None) or []:
                for inner in getattr(metric, "metrics", [metric]):
                    direction = getattr(inner, "_direction", None)
                    if getattr(inner, "name", None) == metric_name and direction is not None:
                        self.monitor_op = np.greater if direction == "up" else np.less
            if self.monitor_op is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't able to "
                    "automatically determine whether that metric should be maximized or minimized. Pass "
                    "`mode='max'` in order to monitor based on the highest metric value, or pass `mode='min'` "
                    "in order to use the lowest value."
                )
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _is_improvement(self, monitor_value, reference_value):
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))


class EarlyStopping(MonitorCallback):
    """Stop ``fit`` when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs."""

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
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
        return value


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by ``factor`` when ``monitor`` stops improving for ``patience`` epochs."""

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


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch's start to ``schedule(epoch, lr)`` (or ``schedule(epoch)``)."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, learning_rate_of(optimizer))
        except TypeError:  # the one-argument form
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        if self.verbose > 0:
            print_message(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {learning_rate}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = learning_rate_of(self.model.optimizer)


def _write_atomically(path, text):
    """``text`` into ``path`` all or nothing (tapeviz.core.files): never a half-written file."""
    from tapeviz.core.files import write_bytes

    write_bytes(path, text.encode("utf-8"))


class CSVLogger(Callback):
    """One CSV row per epoch (``epoch`` then the sorted log keys), rewritten atomically after each epoch."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.keys = None
        self._text = ""
        self._header_needed = True

    def on_train_begin(self, logs=None):
        self._text, self._header_needed = "", True
        if self.append and os.path.exists(self.filename):
            with open(self.filename, newline="") as f:
                self._text = f.read()
            self._header_needed = not self._text.splitlines()[:1]
        self.keys = None

    @staticmethod
    def _cell(value):
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) > 0:
            return f'"[{", ".join(map(str, value))}]"'
        return value

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=["epoch"] + self.keys, delimiter=self.sep, lineterminator="\r\n")
        if self._header_needed:
            writer.writeheader()
            self._header_needed = False
        writer.writerow({"epoch": epoch, **{k: self._cell(logs.get(k, "NA")) for k in self.keys}})
        self._text += buffer.getvalue()
        _write_atomically(self.filename, self._text)


class ModelCheckpoint(MonitorCallback):
    """Save the model (``.keras``) or its weights (``.weights.h5``) after each epoch, or every ``save_freq`` batches.

    ``filepath`` may hold ``{epoch:02d}`` and log keys (``{val_loss:.2f}``);
    ``save_best_only`` keeps only improvements of ``monitor``. The model's
    own ``save``/``save_weights`` write atomically.
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


class TerminateOnNaN(Callback):
    """Stop training (or raise, with ``raise_error=True``) at the first NaN or infinite batch loss."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (math.isnan(loss) or math.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. Terminating training immediately."
                )
            print_message(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class BackupAndRestore(Callback):
    """Resume an interrupted ``fit``: the weights and the epoch reached are saved in ``backup_dir`` after each
    epoch (atomically), restored when ``fit`` starts again, and deleted when training ends.

    Files: ``latest.weights.h5`` and ``training_metadata.json``, as Keras 3 names them.
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(
                f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. Expected either 'epoch' or an integer value."
            )
        self.backup_dir, self.save_freq = os.fspath(backup_dir), save_freq
        self.double_checkpoint, self.delete_checkpoint = double_checkpoint, delete_checkpoint
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._current_epoch = 0
        self._batches_seen = 0

    def on_train_begin(self, logs=None):
        import json

        if not self.model.built:
            raise ValueError(
                "To use the BackupAndRestore callback, you model must be built before you call `fit()`. "
                f"Model {self.model} is unbuilt. You can build it beforehand by calling it on a batch of data."
            )
        if os.path.exists(self._weights_path) and os.path.exists(self._training_metadata_path):
            self.model.load_weights(self._weights_path)
            with open(self._training_metadata_path) as f:
                self.model._initial_epoch = int(json.loads(f.read())["epoch"])

    def on_train_batch_end(self, batch, logs=None):
        self._batches_seen = batch + 1
        if isinstance(self.save_freq, int) and self._batches_seen % self.save_freq == 0:
            self._save()

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._batches_seen = 0
        if self.save_freq == "epoch":
            self._save()

    def _save(self):
        import json

        os.makedirs(self.backup_dir, exist_ok=True)
        self.model.save_weights(self._weights_path, overwrite=True)  # atomic, as every tapeviz write
        _write_atomically(
            self._training_metadata_path, json.dumps({"epoch": self._current_epoch, "batch": self._batches_seen})
        )

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.isdir(self.backup_dir):
            for name in ("latest.weights.h5", "training_metadata.json"):
                path = os.path.join(self.backup_dir, name)
                if os.path.exists(path):
                    os.remove(path)
            if not os.listdir(self.backup_dir):
                os.rmdir(self.backup_dir)
