"""TensorFlow's error types (``tf.errors``), so ``except`` clauses port unchanged."""


class OpError(Exception):
    """An op could not run. ``op`` names the primitive that failed.

    Args:
        message: what went wrong.
        op: the primitive's name.
    """

    def __init__(self, message, op=None):
        super().__init__(message)
        self.message = message
        self.op = op


class InvalidArgumentError(OpError, ValueError):
    """An op got inputs it cannot take (mismatched dtypes or shapes, bad values).

    Also a ``ValueError``, so plain Python code can catch it.
    """


class UnimplementedError(OpError, NotImplementedError):
    """The op exists in TensorFlow but not (yet) in tapeviz."""


class NotFoundError(OpError, FileNotFoundError):
    """A file or entry that an op needs does not exist (a checkpoint path without its ``-N`` suffix, say).

    Also a ``FileNotFoundError``, so plain Python code can catch it.
    """


class OutOfRangeError(OpError, IndexError):
    """Iterated past the end (a dataset iterator's ``get_next()`` at the end of its data)."""
