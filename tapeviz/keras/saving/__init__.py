"""``keras.saving``: whole models in ``.keras`` files, weights in Keras 3's ``.weights.h5`` layout.

Needs h5py (``pip install 'tapeviz[saving]'``), imported only when a file is
read or written.
"""

from tapeviz.keras.saving.config import register_keras_serializable  # noqa: F401
from tapeviz.keras.saving.model_file import load_model, save_model  # noqa: F401

__all__ = ["load_model", "save_model", "register_keras_serializable"]
