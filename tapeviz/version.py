"""``tf.version``: the version of what runs: tapeviz's (``tf.version.VERSION`` is ``tf.__version__``)."""

__all__ = ["VERSION"]

#: tapeviz's version, where TF code reads TensorFlow's (``print(tf.version.VERSION)``).
VERSION = "0.1.0"
