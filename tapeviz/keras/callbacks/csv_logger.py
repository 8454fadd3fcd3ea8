"""``CSVLogger``: every epoch's logs as a row of a CSV file, written atomically."""

import csv
import io
import os

import numpy as np

from tapeviz.keras.callbacks.callback import Callback
from tapeviz.keras.utils.file_utils import write_text_atomically


class CSVLogger(Callback):
    """One CSV row per epoch (``epoch`` then the sorted log keys), rewritten atomically after each epoch.

    Args:
        filename: the CSV file.
        separator: the field separator.
        append: add to an existing file instead of starting it again.
    """

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
        write_text_atomically(self.filename, self._text)
