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

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
