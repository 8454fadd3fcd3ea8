"""``keras.datasets.imdb``: Keras's cached ``imdb.npz`` and ``imdb_word_index.json``; never downloaded."""

import numpy as np

from tapeviz.keras.datasets.sequences import cut_long, limit, mark, read_npz, shuffled, word_index

__all__ = ["load_data", "get_word_index"]


def load_data(
    path="imdb.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
):
    """IMDB movie reviews as word indices: ``((x_train, y_train), (x_test, y_test))``, as Keras 3 returns them.

    ``x_*`` are object arrays of lists of word indices (25,000 reviews each),
    ``y_*`` labels 0 (negative) / 1 (positive). Each review starts with
    ``start_char``; a word ranked ``r`` (1 = most frequent) appears as
    ``r + index_from``; words outside ``[skip_top, num_words)`` become
    ``oov_char`` (dropped when it is None); reviews of ``maxlen`` words or
    more are dropped. Both sets are shuffled with ``seed`` as Keras does.
    Read from ``path`` in Keras's cache folder (``~/.keras/datasets`` or
    ``$KERAS_HOME/datasets``); without it, ``FileNotFoundError`` saying where to put it.

    Args:
        path: the cached file's name.
        num_words: keep only the most frequent words (others become ``oov_char``).
        skip_top: drop the most frequent words.
        maxlen: drop reviews of this many words or more.
        seed: the shuffle's seed.
        start_char: the index that starts each review.
        oov_char: the index of dropped words.
        index_from: the offset added to word ranks.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.

    Raises:
        ValueError: a ``maxlen`` that drops every review.
    """
    x_train, y_train, x_test, y_test = read_npz("imdb", path, ["x_train", "y_train", "x_test", "y_test"])
    rng = np.random.RandomState(seed)
    x_train, y_train = shuffled(rng, x_train, y_train)
    x_test, y_test = shuffled(rng, x_test, y_test)
    x_train, x_test = mark(x_train, start_char, index_from), mark(x_test, start_char, index_from)
    if maxlen:
        x_train, y_train = cut_long(maxlen, x_train, y_train)
        x_test, y_test = cut_long(maxlen, x_test, y_test)
        if not x_train or not x_test:
            raise ValueError(
                f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. Increase maxlen."
            )
    xs = limit(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([y_train, y_test])
    cut = len(x_train)
    return (np.array(xs[:cut], dtype="object"), labels[:cut]), (np.array(xs[cut:], dtype="object"), labels[cut:])


def get_word_index(path="imdb_word_index.json"):
    """IMDB's word -> rank dict (``"the": 1``), from Keras's cached JSON; in ``load_data`` a rank is ``r + index_from``.

    Args:
        path: the cached file's name.

    Returns:
        A dict from word to rank.
    """
    return word_index("imdb", path)
