"""The two housing regressions' shared step: read ``x`` and ``y`` from the ``.npz``, shuffle, split as Keras does."""

import numpy as np

from tapeviz.keras.datasets.cache import ORIGIN, find
from tapeviz.keras.datasets.npz import read_npz

__all__ = ["load_split"]


def load_split(dataset, path, test_split, seed, rows=None):
    """``((x_train, y_train), (x_test, y_test))``: Keras's shuffle (NumPy's ``RandomState(seed)``) and split."""
    if not 0 <= test_split < 1:
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1 (exclusive of 1).")
    found = find(f"{dataset}.load_data", [f"{dataset}.npz"], f"{ORIGIN}{dataset}.npz", path=path)
    x, y = read_npz(found, ["x", "y"], max_items=1_000_000)  # California: 20,640 x 8
    if rows is not None:
        x, y = x[:rows], y[:rows]
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)  # Keras's own generator, so the split is Keras's
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
