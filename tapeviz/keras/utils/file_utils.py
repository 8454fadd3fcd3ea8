"""Files written all or nothing (tapeviz.core.files), and ``get_file``: a file from Keras's download cache."""

import hashlib
import os
import urllib.parse

from tapeviz.core.files import write_bytes


def write_text_atomically(path, text):
    """``text`` into ``path`` as UTF-8, all or nothing: never a half-written file."""
    write_bytes(path, text.encode("utf-8"))


def get_file(
    fname=None,
    origin=None,
    untar=False,
    md5_hash=None,
    file_hash=None,
    cache_subdir="datasets",
    hash_algorithm="auto",
    extract=False,
    archive_format="auto",
    cache_dir=None,
    force_download=False,
):
    """The path of a file Keras's ``get_file`` downloaded, from Keras's cache; tapeviz never downloads.

    As Keras 3, the file is ``cache_dir/cache_subdir/fname`` (``cache_dir``: ``$KERAS_HOME``, else
    ``~/.keras``), and a ``file_hash`` (SHA-256 of 64 hex digits, else MD5, with ``hash_algorithm="auto"``)
    must match. Without the file, the error says which file, from which URL, into which folder (no
    network call that could hang).

    Args:
        fname: the file's name in the cache (default: the last part of ``origin``'s path).
        origin: the URL Keras downloads it from (named in the error).
        untar, extract, archive_format: Keras's archive extraction; tapeviz does not extract.
        md5_hash: the file's MD5 (Keras's older argument).
        file_hash: the file's SHA-256 or MD5, checked when given.
        cache_subdir: the folder under ``cache_dir`` (an absolute path is used as is).
        hash_algorithm: ``"auto"``, ``"sha256"`` or ``"md5"``.
        cache_dir: the cache's root (default ``$KERAS_HOME``, else ``~/.keras``).
        force_download: Keras downloads again; tapeviz cannot.

    Returns:
        The file's path (a str).

    Raises:
        ValueError: no ``origin``, an archive to extract or a download to force.
        FileNotFoundError: the file is not in the cache, or its hash differs from ``file_hash``.
    """
    if not origin:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if untar or extract or force_download:
        raise ValueError(
            "tapeviz's keras.utils.get_file reads Keras's cache only: it neither downloads nor extracts "
            "(untar/extract/force_download). Extract the archive yourself and read its files."
        )
    fname = fname or os.path.basename(urllib.parse.urlsplit(origin).path)
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    folder = os.path.join(os.fspath(cache_dir), cache_subdir)
    path = os.path.join(folder, fname)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"keras.utils.get_file downloads {fname} from {origin}, and tapeviz never downloads. Put the file at "
            f"{path}: Keras leaves it there after one get_file() with TensorFlow, or download it yourself into "
            f"{folder} (set KERAS_HOME, or pass cache_dir, to use another folder)."
        )
    expected = file_hash or md5_hash
    if expected:
        algorithm = hash_algorithm
        if algorithm == "auto":
            algorithm = "sha256" if len(expected) == 64 and not md5_hash else "md5"
        with open(path, "rb") as f:
            actual = hashlib.new(algorithm, f.read()).hexdigest()
        if actual != str(expected):
            raise FileNotFoundError(
                f"{path} is there, but its {algorithm} hash differs from {expected}: it seems to be incomplete or "
                f"outdated (Keras would download it again from {origin}; tapeviz never downloads). Replace the file."
            )
    return path
