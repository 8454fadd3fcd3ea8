"""``History``: every epoch's logs, the object ``fit`` returns."""

from tapeviz.keras.callbacks.callback import Callback


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
