"""``Model`` (subclassed or functional), ``Sequential`` and ``clone_model``, as Keras 3's ``keras/src/models``."""

from tapeviz.keras.models.cloning import clone_model
from tapeviz.keras.models.model import Model
from tapeviz.keras.models.sequential import Sequential

__all__ = ["Model", "Sequential", "clone_model"]
