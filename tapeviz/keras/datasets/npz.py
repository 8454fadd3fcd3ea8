"""Keras's ``.npz`` data files, read within bounds: each member's header is checked before anything is inflated.

A number member must be of a number dtype and hold at most ``max_items``
values; exactly its declared bytes are read (a small, crafted file cannot
make a load allocate gigabytes). An object member (IMDB's and Reuters's
ragged sequences) is a pickle: its declared size must be at most
``max_bytes``, and it is read by :mod:`~tapeviz.keras.datasets.safe_pickle`.
"""

import zipfile

import numpy as np

from tapeviz.core.files import FileFormatError
from tapeviz.keras.datasets.safe_pickle import load_pickle

__all__ = ["read_npz"]


def _header(stream, where):
    try:
        major, _ = np.lib.format.read_magic(stream)
        if major == 1:
            return np.lib.format.read_array_header_1_0(stream)
        if major in (2, 3):  # 3.0 differs from 2.0 only in the header's text encoding
            return np.lib.format.read_array_header_2_0(stream)
    except ValueError as exc:
        raise FileFormatError(f"{where} is not a .npy array ({exc}); download the file again") from exc
    raise FileFormatError(f"{where}: unsupported .npy format version {major}")


def _member(archive, key, max_items, max_bytes, where):
    try:
        info = archive.getinfo(f"{key}.npy")
    except KeyError:
        raise FileFormatError(f"{where} has no {key}; download the file again") from None
    with archive.open(info) as stream:
        shape, fortran, dtype = _header(stream, f"{where}: {key}")
        items = int(np.prod(shape, dtype=np.int64))
        if dtype.kind == "O" and max_bytes:
            if info.file_size > max_bytes:
                raise FileFormatError(f"{where}: {key} declares {info.file_size} bytes, more than {max_bytes}")
            array = load_pickle(stream, encoding="latin1")  # NumPy's own encoding for pickles in .npy
            if not isinstance(array, np.ndarray) or array.shape != tuple(shape):
                raise FileFormatError(f"{where}: {key} is not the array its header declares")
            return array
        if dtype.kind not in "biuf" or items > max_items:
            raise FileFormatError(
                f"{where}: {key} is {dtype} of shape {shape}; a data set array holds numbers, at most {max_items}"
            )
        raw = stream.read(items * dtype.itemsize)  # exactly the declared bytes, never more
        if len(raw) != items * dtype.itemsize:
            raise FileFormatError(f"{where}: {key} is shorter than its header says; download the file again")
        return np.frombuffer(bytearray(raw), dtype=dtype).reshape(
            shape, order="F" if fortran else "C"
        )  # writable, as np.load's


def read_npz(path, keys, max_items, max_bytes=0):
    """The arrays ``keys`` of the ``.npz`` at ``path``, in that order, each checked as the module says
    (``max_bytes=0``: numbers only, no object member)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return [_member(archive, key, max_items, max_bytes, path) for key in keys]
    except zipfile.BadZipFile as exc:
        raise FileFormatError(f"{path} is not an .npz file ({exc}); download it again") from exc
