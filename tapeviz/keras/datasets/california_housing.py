"""``keras.datasets.california_housing``: Keras's cached ``california_housing.npz``; never downloaded."""

from tapeviz.keras.datasets.housing import load_split

__all__ = ["load_data"]


def load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """California housing prices: ``((x_train, y_train), (x_test, y_test))``, split as Keras 3 splits them.

    ``x_*`` are ``(n, 8)`` features (median income, house age, average rooms,
    average bedrooms, population, average occupancy, latitude, longitude),
    ``y_*`` prices in dollars. ``version="small"`` keeps the first 600 rows
    (of 20,640), before the shuffle with ``seed``; the last ``test_split`` of
    the rows are the test set. Read from ``path`` in Keras's cache folder.

    Args:
        version: ``"large"`` (20,640 houses) or ``"small"`` (600).
        path: the cached file's name.
        test_split: the fraction kept for testing.
        seed: the shuffle's seed.

    Returns:
        ((x_train, y_train), (x_test, y_test)), NumPy arrays.

    Raises:
        ValueError: another ``version``.
    """
    if version not in ("small", "large"):
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: version={version}")
    return load_split("california_housing", path, test_split, seed, rows=600 if version == "small" else None)
