"""The old home of :mod:`tapeviz.keras.datasets` (as ``tf.keras.datasets``), kept because lesson 09 imports it."""

from tapeviz.keras.datasets import load_digits

__all__ = ["load_digits"]
