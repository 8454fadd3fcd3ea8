"""``tf.data``: ``Dataset`` pipelines, the file readers, and the cardinality constants."""

from tapeviz.data import experimental
from tapeviz.data.dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset, Iterator
from tapeviz.data.readers import TextLineDataset

__all__ = [
    "AUTOTUNE",
    "Dataset",
    "INFINITE_CARDINALITY",
    "Iterator",
    "TextLineDataset",
    "UNKNOWN_CARDINALITY",
    "experimental",
]

#: ``tf.data.INFINITE_CARDINALITY``: what ``cardinality()`` says of a dataset that never ends (-1, as TF).
INFINITE_CARDINALITY = INFINITE
#: ``tf.data.UNKNOWN_CARDINALITY``: what ``cardinality()`` says when the length cannot be known (-2, as TF).
UNKNOWN_CARDINALITY = UNKNOWN
