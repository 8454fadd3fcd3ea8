"""``keras.saving``: whole models in ``.keras`` files, weights in Keras 3's ``.weights.h5`` layout.

Needs h5py (``pip install 'tapeviz[saving]'``), imported only when a file is
read or written.
"""

from tapeviz.keras.saving.model_file import load_model, save_model  # noqa: F401
from tapeviz.keras.saving.registry import (  # noqa: F401
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)

__all__ = ["load_model", "save_model", "register_keras_serializable", "get_registered_name", "get_registered_object"]
