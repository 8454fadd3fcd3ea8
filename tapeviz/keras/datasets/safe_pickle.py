"""Keras's pickled data sets, read as data: only NumPy arrays may be rebuilt, nothing else is called.

CIFAR's batches are Python pickles, and IMDB's and Reuters's ``.npz`` files
hold ragged sequences as object arrays (pickles inside ``.npy`` members).
Writing a pickle parser of our own would copy most of ``pickle``; instead
this is ``pickle.Unpickler`` with one change: a pickle's opcodes by
themselves build only plain values (dicts, lists, tuples, str, bytes,
numbers); everything that runs code (a class, a function, ``__reduce__``)
goes through ``find_class``, and here that allows only the three names
NumPy uses to rebuild an array (``ndarray``, ``dtype``, ``_reconstruct``).
Any other name is refused with a ``FileFormatError``, before anything runs.
"""

import pickle

from tapeviz.core.files import FileFormatError

__all__ = ["load_pickle"]

_ARRAY_NAMES = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),  # written by NumPy 1.x
        ("numpy._core.multiarray", "_reconstruct"),  # written by NumPy 2.x
    }
)


class _ArraysOnly(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _ARRAY_NAMES:
            return super().find_class(module, name)
        raise FileFormatError(
            f"the file asks to call {module}.{name} while loading; a data set file holds only data "
            "(NumPy arrays, lists, dicts, strings and numbers), so it was not loaded. Download it again."
        )


def load_pickle(file, encoding="bytes"):
    """The value pickled in ``file`` (an open binary file), if it is made of plain values and NumPy arrays."""
    try:
        return _ArraysOnly(file, encoding=encoding).load()
    except FileFormatError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise FileFormatError(f"not a readable pickle ({type(exc).__name__}: {exc}); download the file again") from exc
