"""IMDB's and Reuters's word-index sequences: Keras's ``.npz`` (ragged, so pickled) and word-index JSON.

The ``.npz`` members are object arrays of lists; they are read by
:func:`~tapeviz.keras.datasets.npz.read_npz`, whose unpickler rebuilds NumPy
arrays and plain values only. ``mark``, ``cut_long`` and ``limit`` are Keras's ``load_data``
options (the start mark and the shift of the indices, the length cut, the
vocabulary limits); each data set applies them in Keras's order, so the
sequences are Keras's, word for word.
"""

import json

import numpy as np

from tapeviz.core.files import FileFormatError
from tapeviz.keras.datasets.cache import ORIGIN, find
from tapeviz.keras.datasets.npz import read_npz as _read_members

__all__ = ["read_npz", "shuffled", "mark", "cut_long", "limit", "word_index"]


def read_npz(dataset, path, keys):
    """The arrays ``keys`` of the dataset's ``.npz`` (``path`` in Keras's cache folder); ragged members at most 512 MB."""
    found = find(f"{dataset}.load_data", [f"{dataset}.npz"], f"{ORIGIN}{dataset}.npz", path=path)
    return _read_members(found, keys, max_items=1_000_000, max_bytes=512 * 2**20)


def shuffled(rng, *arrays):
    """The arrays in one random order (Keras shuffles an index with ``rng``, then takes the rows)."""
    order = np.arange(len(arrays[0]))
    rng.shuffle(order)
    return [array[order] for array in arrays]


def mark(sequences, start_char, index_from):
    """Each sequence's indices shifted by ``index_from``, after a ``start_char`` (when not None)."""
    start = [] if start_char is None else [start_char]
    return [start + [w + index_from for w in seq] for seq in sequences]


def cut_long(maxlen, sequences, labels):
    """Only the sequences shorter than ``maxlen``, with their labels (lists)."""
    kept = [(seq, label) for seq, label in zip(sequences, labels) if len(seq) < maxlen]
    return [seq for seq, _ in kept], [label for _, label in kept]


def limit(sequences, num_words, skip_top, oov_char):
    """Indices outside ``[skip_top, num_words)`` become ``oov_char`` (dropped when it is None)."""
    if not num_words:
        num_words = max(max(seq) for seq in sequences)
    if oov_char is None:
        return [[w for w in seq if skip_top <= w < num_words] for seq in sequences]
    return [[w if skip_top <= w < num_words else oov_char for w in seq] for seq in sequences]


def word_index(dataset, path):
    """The dataset's word -> index dict, from Keras's cached JSON file (``path`` in the cache folder)."""
    filename = f"{dataset}_word_index.json"
    found = find(f"{dataset}.get_word_index", [filename], ORIGIN + filename, path=path)
    with open(found, encoding="utf8") as stream:
        try:
            index = json.load(stream)
        except json.JSONDecodeError as exc:
            raise FileFormatError(f"{found} is not JSON ({exc}); download it again") from exc
    if not isinstance(index, dict):
        raise FileFormatError(f"{found} is not a word index (a JSON object); download it again")
    return index
