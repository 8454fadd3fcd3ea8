"""``tf.experimental``: TensorFlow's experimental namespaces that tapeviz has (``numpy``)."""

from tapeviz.experimental import numpy

__all__ = ["numpy"]
