"""``keras.datasets.load_digits()``: the handwritten digits bundled with scikit-learn, never downloaded.

``load_digits()`` returns ``((x_train, y_train), (x_test, y_test))`` like
``tf.keras.datasets.mnist.load_data()``: 1,797 8x8 grey images of the digits
0-9 (scikit-learn ships them inside its package; nothing is fetched from
the network). scikit-learn is imported only when this is called.
"""

import numpy as np

__all__ = ["load_digits"]


def _sklearn_digits():
    try:
        from sklearn.datasets import load_digits as sk_load_digits
    except ImportError as exc:
        raise ImportError(
            "tapeviz.keras.datasets.load_digits needs scikit-learn, which ships the digits data set: "
            "pip install scikit-learn  (or pip install 'tapeviz[lessons]')."
        ) from exc
    return sk_load_digits()


def load_digits(test_fraction=0.2, seed=0, normalize=True, flatten=False):
    """The scikit-learn digits, split into a training and a test set.

    Args:
        test_fraction: share of each class held out for testing (stratified).
        seed: the split's random seed (the same split on every machine).
        normalize: pixels as float32 in [0, 1] (the raw values are 0..16).
        flatten: images as 64-vectors instead of 8x8.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``, images (n, 8, 8) (or
        (n, 64)), labels int64 in 0..9.
    """
    digits = _sklearn_digits()
    images = digits.images.astype(np.float32)
    if normalize:
        images = images / np.float32(16.0)
    if flatten:
        images = images.reshape(len(images), -1)
    labels = digits.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(labels), dtype=bool)
    for digit in range(10):  # stratified: the same share of every class in the test set
        members = np.flatnonzero(labels == digit)
        chosen = rng.choice(members, size=int(round(len(members) * test_fraction)), replace=False)
        test[chosen] = True
    train_rows = rng.permutation(np.flatnonzero(~test))
    test_rows = np.flatnonzero(test)
    return (images[train_rows], labels[train_rows]), (images[test_rows], labels[test_rows])
