"""Where Keras's ``load_data()`` leaves its downloads, and the error when a file is not there.

Keras downloads each data set once into ``$KERAS_HOME/datasets`` (by default
``~/.keras/datasets``) and reads it from there afterwards. tapeviz reads the
same files and never downloads: without the file, it says which file, from
which URL, into which folder, at once (no network call that could hang).
"""

import os

__all__ = ["ORIGIN", "datasets_folder", "find"]

#: Where Keras downloads most of its data sets from (the file name is appended).
ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def datasets_folder():
    """``$KERAS_HOME/datasets``, else ``~/.keras/datasets``: the folder Keras's ``get_file`` caches into."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(home, "datasets")


def find(call, names, url, path=None, hint=""):
    """The first of ``names`` (relative to the cache folder) that exists, or ``path`` when given.

    ``path`` is an existing file, or a name inside the cache folder (as Keras's
    ``path=`` argument). Without any of them: ``FileNotFoundError`` naming the
    file, its URL and the folder to put it in; ``call`` (``"mnist.load_data"``) is what the user called.
    """
    folder = datasets_folder()
    if path is not None:
        path = os.fspath(path)
        names = [path] if os.path.isabs(path) or os.path.exists(path) else [os.path.join(folder, path)]
    candidates = [name if os.path.isabs(name) or os.path.exists(name) else os.path.join(folder, name) for name in names]
    for candidate in candidates:
        if os.path.exists(candidate):
            return candidate
    wanted = os.path.basename(url) if path is None else os.path.basename(candidates[0])
    also = "" if len(candidates) == 1 else f" (also looked for: {', '.join(candidates[1:])})"
    raise FileNotFoundError(
        f"keras.datasets.{call}() downloads {wanted} from {url}, and tapeviz never downloads. "
        f"Put the file at {candidates[0]}{also}: Keras leaves it there after one load_data() with TensorFlow, "
        f"or download it yourself into {folder} (set KERAS_HOME to use another folder).{hint}"
    )
