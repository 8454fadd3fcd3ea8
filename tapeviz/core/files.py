"""Writing files all or nothing, and the error every loader raises for a file it will not read.

``atomic_write`` writes a temporary file beside the target and moves it into
place with ``os.replace`` only once everything was written: a save that
fails midway, a Ctrl-C, or two processes saving to one path leave either the
old file or a whole new one, never a half-written one. The temporary file
sits in the target's folder because ``os.replace`` is atomic only within one
file system.
"""

import contextlib
import os
import tempfile

__all__ = ["atomic_write", "write_bytes", "FileFormatError", "refuse_existing"]

# mkstemp makes files only the owner can read; a saved file gets the mode open() would give it.
_UMASK = os.umask(0)
os.umask(_UMASK)


class FileFormatError(ValueError):
    """A file that cannot be loaded: malformed, truncated, of another format, or asking for more than data.

    A ``ValueError``, as Keras raises for files it will not read, so ``except ValueError`` keeps working.
    """


def refuse_existing(path):
    """Keras asks before replacing a file when ``overwrite=False``; tapeviz cannot ask, so it refuses."""
    if os.path.exists(path):
        raise FileExistsError(
            f"{path} already exists and overwrite=False, so nothing was written (Keras would ask whether to "
            "overwrite it). Pass overwrite=True to replace it, or choose another path."
        )


@contextlib.contextmanager
def atomic_write(path, overwrite=True):
    """``with atomic_write(path) as f:`` yields a binary file; ``path`` gets its bytes only if the block ends normally.

    With ``overwrite=False`` an existing ``path`` is never replaced, even one that appears while writing.
    """
    path = os.fspath(path)
    if not overwrite:
        refuse_existing(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        os.chmod(temporary, 0o666 & ~_UMASK)
        with os.fdopen(handle, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if overwrite:
            os.replace(temporary, path)
        else:
            _move_unless_present(temporary, path)
    except BaseException:  # Ctrl-C included: the target keeps its old bytes, the partial file goes
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _move_unless_present(temporary, path):
    try:
        os.link(temporary, path)  # fails if path exists: no window between checking and writing
    except FileExistsError:
        refuse_existing(path)
        raise
    except OSError:  # a file system without hard links: check, then replace
        refuse_existing(path)
        os.replace(temporary, path)
        return
    os.unlink(temporary)


def write_bytes(path, data, overwrite=True):
    """Write ``data`` to ``path`` atomically (see ``atomic_write``)."""
    with atomic_write(path, overwrite=overwrite) as f:
        f.write(data)
