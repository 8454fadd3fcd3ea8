"""``keras.datasets.reuters``: Keras's cached ``reuters.npz`` and ``reuters_word_index.json``; never downloaded."""

import numpy as np

from tapeviz.keras.datasets.sequences import cut_long, limit, mark, read_npz, shuffled, word_index

__all__ = ["load_data", "get_word_index", "get_label_names"]


def load_data(
    path="reuters.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    test_split=0.2,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
):
    """Reuters newswires as word indices, 46 topics: ``((x_train, y_train), (x_test, y_test))``, as Keras 3.

    ``x_*`` are object arrays of lists of word indices, ``y_*`` topic labels
    0-45 (:func:`get_label_names`). The 11,228 wires are shuffled with
    ``seed``, then the last ``test_split`` of them are the test set. The
    other options are ``imdb.load_data``'s. Read from ``path`` in Keras's
    cache folder (``~/.keras/datasets`` or ``$KERAS_HOME/datasets``).

    Args:
        path: the cached file's name.
        num_words: keep only the most frequent words (others become ``oov_char``).
        skip_top: drop the most frequent words.
        maxlen: drop longer sequences.
        test_split: the fraction kept for testing.
        seed: the shuffle's seed.
        start_char: the index that starts each sequence.
        oov_char: the index of dropped words.
        index_from: the offset added to word ranks.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.
    """
    xs, labels = read_npz("reuters", path, ["x", "y"])
    xs, labels = shuffled(np.random.RandomState(seed), xs, labels)
    xs = mark(xs, start_char, index_from)
    if maxlen:
        xs, labels = cut_long(maxlen, xs, labels)
    xs = limit(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (
        (np.array(xs[:cut], dtype="object"), np.array(labels[:cut])),
        (np.array(xs[cut:], dtype="object"), np.array(labels[cut:])),
    )


def get_word_index(path="reuters_word_index.json"):
    """Reuters's word -> rank dict, from Keras's cached JSON; in ``load_data`` a rank is ``r + index_from``.

    Args:
        path: the cached file's name.

    Returns:
        A dict from word to rank.
    """
    return word_index("reuters", path)


def get_label_names():
    """The 46 topic names, in label order (``"cocoa"`` is label 0), as Keras 3 lists them.

    Returns:
        A tuple of 46 strings.
    """
    return (
        "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee",
        "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx",
        "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock",
        "retail", "ipi", "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
        "dlr", "gas", "silver", "wpi", "hog", "lead",
    )  # fmt: skip
