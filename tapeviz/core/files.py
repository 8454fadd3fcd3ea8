"""Writing files all or nothing, reading stored arrays within bounds, and the error every loader raises.

``atomic_write`` writes a temporary file beside the target and moves it into
place with ``os.replace`` only once everything was written: a save that
fails midway, a Ctrl-C, or two processes saving to one path leave either the
old file or a whole new one, never a half-written one. The temporary file
sits in the target's folder because ``os.replace`` is atomic only within one
file system, and its name holds the writer's process id: a process killed
mid-save (``kill -9``, no ``except`` runs) leaves one behind, and the next
save or load in that folder removes it (``remove_stale_temporaries``).

``read_array_member`` reads one ``.npy`` member of a zip (an ``.npz``) only
after its header says the dtype and shape expected, and inflates no more
than those bytes: a small file cannot make a loader allocate what no object
it fills can hold.
"""

import contextlib
import io
import os
import re
import tempfile
import zipfile
import zlib

import numpy as np

__all__ = [
    "atomic_write",
    "write_bytes",
    "FileFormatError",
    "refuse_existing",
    "read_array_member",
    "read_npy_header",
    "NpzArrays",
    "remove_stale_temporaries",
]

# mkstemp makes files only the owner can read; a saved file gets the mode open() would give it.
_UMASK = os.umask(0)
os.umask(_UMASK)


class FileFormatError(ValueError):
    """A file that cannot be loaded: malformed, truncated, of another format, or asking for more than data.

    A ``ValueError``, as Keras raises for files it will not read, so ``except ValueError`` keeps working.
    """


# What reading a damaged or hostile zip archive (.npz, a checkpoint's values) raises: each loader turns these
# into a FileFormatError that names the file. RuntimeError: an "encrypted" member; NotImplementedError: an
# unknown compression method.
ARCHIVE_ERRORS = (
    OSError,
    ValueError,
    KeyError,
    EOFError,
    TypeError,
    RuntimeError,
    NotImplementedError,
    zipfile.BadZipFile,
    zlib.error,
)


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
    remove_stale_temporaries(folder)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.{os.getpid()}.", suffix=".tmp")
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


# What atomic_write names its temporary files: "." + the target's name + "." + the writer's pid + "." + mkstemp's
# random letters + ".tmp".
_TEMPORARY = re.compile(r"^\..+\.(\d+)\.[A-Za-z0-9_]{6,}\.tmp$")


def remove_stale_temporaries(folder):
    """Delete the temporary files ``atomic_write`` left in ``folder`` when a process was killed mid-save.

    A temporary file is stale when the process that named it is gone; those of running processes
    (another save under way, in this process or another) are left alone. Returns the names removed.
    """
    removed = []
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False) or _running(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(entry.name)
    return removed


def _running(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # someone else's process, or a question this system cannot answer: keep the file
    return True


_NPY_HEADER_BYTES = 1 << 16  # the most an .npy header may take (NumPy writes well under 1 KiB)
_CHUNK = 1 << 20  # inflated into the array a mebibyte at a time: no second copy of a large value


def read_array_member(archive, name, dtype, shape, where):
    """The array in member ``name`` of the open ``zipfile.ZipFile`` ``archive``, which must hold ``dtype``
    ``shape``.

    The member's declared size and its ``.npy`` header are compared with ``dtype`` and ``shape``
    before anything is inflated, and no more than ``dtype.itemsize * prod(shape)`` bytes (plus the
    header) are ever inflated, whatever the file claims. Raises ``FileFormatError`` (naming
    ``where``) for anything else; never unpickles.
    """
    dtype, shape = np.dtype(dtype), tuple(int(n) for n in shape)
    size = dtype.itemsize
    for n in shape:
        size *= n
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise FileFormatError(f"{where}: the value {name} is missing.") from None
    if info.file_size > size + _NPY_HEADER_BYTES:
        raise FileFormatError(
            f"{where}: {name} claims {info.file_size} bytes, more than a {dtype.name} array of shape "
            f"{list(shape)} takes ({size})."
        )
    with archive.open(info) as member:
        stored_shape, fortran, stored_dtype = _read_header(member, name, where)
        if stored_dtype != dtype or tuple(stored_shape) != shape:
            raise FileFormatError(
                f"{where}: {name} holds {stored_dtype} {list(stored_shape)}, not the {dtype.name} {list(shape)} "
                "expected."
            )
        # A Fortran-ordered array's bytes are, in C order, those of its transpose.
        array = np.empty(shape[::-1] if fortran else shape, dtype)
        raw = array.reshape(-1).view(np.uint8)
        filled = 0
        while filled < size:
            chunk = member.read(min(_CHUNK, size - filled))
            if not chunk:
                raise FileFormatError(f"{where}: {name} ends after {filled} of its {size} bytes.")
            raw[filled : filled + len(chunk)] = np.frombuffer(chunk, np.uint8)
            filled += len(chunk)
    return array.T if fortran else array


_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def _read_header(member, name, where):
    version = np.lib.format.read_magic(member)
    if version not in _HEADER_READERS:
        raise FileFormatError(f"{where}: {name} is an .npy file of version {version}, not 1.0 or 2.0.")
    return _HEADER_READERS[version](member, max_header_size=_NPY_HEADER_BYTES)


def read_npy_header(archive, name, where):
    """``(dtype, shape)`` that the ``.npy`` member ``name`` of ``archive`` declares: only its header is
    inflated. For a loader that checks them against what it fills before ``read_array_member``."""
    try:
        with archive.open(archive.getinfo(name)) as member:
            shape, _fortran, dtype = _read_header(member, name, where)
    except KeyError:
        raise FileFormatError(f"{where}: the value {name} is missing.") from None
    return dtype, tuple(shape)


class NpzArrays:
    """The arrays of a NumPy ``.npz`` archive that an index declares, read as data: the one reader of the
    checkpoint's values and a SavedModel's variables.

    ``declared`` maps each key to ``(member, dtype, shape)``, in the index's order. The file's bytes
    are read once (a later write beside it cannot change what is read); each member's size and ``.npy``
    header are compared with its declaration when the archive opens (nothing is inflated); ``read(key)``
    inflates one value, never past the bytes of its dtype and shape. Never unpickles. ``what`` names
    the file in errors ("the checkpoint's values").
    """

    def __init__(self, path, declared, what):
        self.path = os.fspath(path)
        self.what = what
        self._declared = {key: (member, np.dtype(dtype), tuple(int(n) for n in shape)) for key, (member, dtype, shape) in
                          declared.items()}  # fmt: skip
        try:
            with open(self.path, "rb") as f:
                self._archive = zipfile.ZipFile(io.BytesIO(f.read()))
            for member, dtype, shape in self._declared.values():  # sizes and headers now; values when asked
                size = self._archive.getinfo(member).file_size  # KeyError: a value the index names is missing
                if size > int(np.prod(shape, dtype=np.float64)) * dtype.itemsize + _NPY_HEADER_BYTES:
                    raise FileFormatError(f"{self.path}: {member} is larger than its index says.")
                stored = read_npy_header(self._archive, member, self.path)
                if stored != (dtype, shape):
                    raise FileFormatError(
                        f"{self.path}: {member} holds {stored[0]} {list(stored[1])}, not the {dtype.name} "
                        f"{list(shape)} its index describes."
                    )
        except FileNotFoundError:
            raise FileFormatError(f"The data file {self.path} ({what}) is missing (its index is there).") from None
        except FileFormatError:
            raise
        except ARCHIVE_ERRORS as exc:
            raise FileFormatError(f"{self.path} cannot be read as {what}: {exc}") from None

    def __contains__(self, key):
        return key in self._declared

    def __iter__(self):
        return iter(self._declared)

    def __len__(self):
        return len(self._declared)

    def keys(self):
        return self._declared.keys()

    def declared(self, key):
        """``(dtype, shape)`` the index declares for ``key``: nothing is read."""
        _member, dtype, shape = self._declared[key]
        return dtype, shape

    def read(self, key):
        """The value of ``key``, checked against its declared dtype and shape (``FileFormatError`` otherwise)."""
        member, dtype, shape = self._declared[key]
        where = f"{self.path} ({key})"
        try:
            return read_array_member(self._archive, member, dtype, shape, where)
        except FileFormatError:
            raise
        except ARCHIVE_ERRORS as exc:
            raise FileFormatError(f"{where} cannot be read as {self.what}: {exc}") from None
