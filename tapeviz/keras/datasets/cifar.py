"""CIFAR-10's and CIFAR-100's pickled batches, from Keras's extracted folder or straight from the archive.

Keras 3 downloads ``cifar-10-python.tar.gz`` as
``datasets/cifar-10-batches-py-target_archive`` and extracts it beside,
into ``datasets/cifar-10-batches-py-target/cifar-10-batches-py/`` (Keras 2
extracted it to ``datasets/cifar-10-batches-py/``). Any of these works; an
archive is read member by member with ``tarfile``, never extracted. Each
batch is a pickle, read by :func:`~tapeviz.keras.datasets.safe_pickle.load_pickle`
(plain values and NumPy arrays only).
"""

import io
import os
import tarfile

import numpy as np

from tapeviz.core.files import FileFormatError
from tapeviz.keras.datasets.cache import find
from tapeviz.keras.datasets.safe_pickle import load_pickle

__all__ = ["load_batches"]


def _candidates(archive, folder):
    """Where Keras 3, Keras 2 or a user may have left the data, the archive one downloads first."""
    return [archive, os.path.join(f"{folder}-target", folder), folder, f"{folder}-target_archive"]


def _batch(raw, label_key, where):
    value = load_pickle(io.BytesIO(raw))
    if not isinstance(value, dict):
        raise FileFormatError(f"{where} is not a CIFAR batch (a dict); download the data again")
    value = {key.decode("utf8") if isinstance(key, bytes) else key: item for key, item in value.items()}
    if "data" not in value or label_key not in value:
        raise FileFormatError(f"{where} has no 'data' or {label_key!r}; download the data again")
    data = np.asarray(value["data"])
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise FileFormatError(f"{where}: 'data' is {data.dtype} {data.shape}, not uint8 (n, 3072)")
    labels = np.asarray(value[label_key])
    if labels.shape != (len(data),) or labels.dtype.kind not in "iu":
        raise FileFormatError(f"{where}: {label_key!r} is not one integer label per image")
    return data.reshape(len(data), 3, 32, 32), labels


def load_batches(dataset, archive_url, folder, members, label_key="labels"):
    """The ``(images, labels)`` of each batch in ``members`` (names inside ``folder``), NCHW ``uint8``."""
    found = find(f"{dataset}.load_data", _candidates(os.path.basename(archive_url), folder), archive_url)
    if os.path.isdir(found):
        read = {}
        for member in members:
            where = os.path.join(found, member)
            _check_size(os.path.getsize(where), where)
            with open(where, "rb") as stream:
                read[member] = stream.read()
    else:
        try:
            with tarfile.open(found, "r:*") as archive:
                read = {member: _member(archive, f"{folder}/{member}", found) for member in members}
        except tarfile.TarError as exc:
            raise FileFormatError(f"{found} is not a tar archive ({exc}); download it again") from exc
    return [_batch(read[member], label_key, f"{found}: {member}") for member in members]


_MAX_BYTES = 256 * 2**20  # CIFAR-100's train batch, the largest, is about 155 MB


def _check_size(size, where):
    if size > _MAX_BYTES:
        raise FileFormatError(f"{where} declares {size} bytes; a CIFAR batch is at most {_MAX_BYTES}")


def _member(archive, name, where):
    try:
        info = archive.getmember(name)
        _check_size(info.size, f"{where}: {name}")
        stream = archive.extractfile(info)  # a file object on the member's bytes; nothing is written
    except KeyError:
        stream = None
    if stream is None:
        raise FileFormatError(f"{where} has no file {name}; download it again")
    with stream:
        return stream.read()
