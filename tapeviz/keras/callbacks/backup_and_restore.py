"""``BackupAndRestore``: resume an interrupted ``fit`` from its last backup."""

import os

from tapeviz.keras.callbacks.callback import Callback
from tapeviz.keras.utils.file_utils import write_text_atomically


class BackupAndRestore(Callback):
    """Resume an interrupted ``fit``: the weights and the epoch reached are saved in ``backup_dir`` after each
    epoch (atomically), restored when ``fit`` starts again, and deleted when training ends.

    Files: ``latest.weights.h5`` and ``training_metadata.json``, as Keras 3 names them.

    Args:
        backup_dir: the folder of the backup.
        save_freq: ``"epoch"`` or a number of batches.
        double_checkpoint: keep the previous backup too.
        delete_checkpoint: delete the backup when training ends.

    Raises:
        ValueError: an empty ``backup_dir``, or a ``save_freq`` that is neither ``"epoch"`` nor an int.
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
        """Restore the weights and the epoch from the backup, if there is one.

        Args:
            logs: unused.

        Raises:
            ValueError: a model not built yet.
        """
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
        write_text_atomically(
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
