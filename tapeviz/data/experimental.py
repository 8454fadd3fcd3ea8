"""``tf.data.experimental``: the CSV readers, ``cardinality`` and the constants code refers to."""

from tapeviz.data.dataset import AUTOTUNE, INFINITE, UNKNOWN
from tapeviz.data.readers import CsvDataset, make_csv_dataset

__all__ = [
    "AUTOTUNE",
    "CsvDataset",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "cardinality",
    "ignore_errors",
    "make_csv_dataset",
]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def cardinality(dataset):
    """``dataset.cardinality()``: an int64 tensor, -1 for infinite, -2 for unknown."""
    return dataset.cardinality()


def ignore_errors(log_warning=False):
    """A transformation for ``dataset.apply``: ``dataset.ignore_errors(log_warning)`` (TF's deprecated spelling)."""

    def _apply(dataset):
        return dataset.ignore_errors(log_warning=log_warning)

    return _apply
