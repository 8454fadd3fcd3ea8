"""``tf.types``: the types user code subclasses to take part in TF's machinery (``experimental.TraceType``)."""

from tapeviz.types import experimental

__all__ = ["experimental"]
