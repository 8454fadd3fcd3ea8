"""``keras.datasets.boston_housing``: Keras's cached ``boston_housing.npz``; never downloaded."""

from tapeviz.keras.datasets.housing import load_split

__all__ = ["load_data"]


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """The Boston housing prices: ``((x_train, y_train), (x_test, y_test))``, split as Keras 3 splits them.

    ``x_*`` are float64 ``(n, 13)`` features, ``y_*`` float64 prices in k$;
    the rows are shuffled with ``seed`` and the last ``test_split`` of them
    are the test set (404 and 102 rows by default). Read from ``path`` in
    Keras's cache folder (``~/.keras/datasets`` or ``$KERAS_HOME/datasets``).
    Keras warns that this data set has an ethical problem (its "B" column);
    ``california_housing`` is the suggested replacement.

    Args:
        path: the cached file's name.
        test_split: the fraction kept for testing.
        seed: the shuffle's seed.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.
    """
    return load_split("boston_housing", path, test_split, seed)
