"""Checkpoints, as ``tf.train`` has them: ``Checkpoint``, ``CheckpointManager`` and the readers.

The format is described in :mod:`tapeviz.checkpoint.files` and docs/saving.md.
"""

from tapeviz.checkpoint import files
from tapeviz.checkpoint.checkpoint import Checkpoint
from tapeviz.checkpoint.manager import CheckpointManager, latest_checkpoint
from tapeviz.checkpoint.restore import CheckpointLoadStatus, InitializationOnlyStatus
from tapeviz.core.dtypes import as_dtype

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "CheckpointLoadStatus",
    "CheckpointReader",
    "InitializationOnlyStatus",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]


class CheckpointReader:
    """What ``tf.train.load_checkpoint`` returns: the saved values by key, read as data."""

    def __init__(self, ckpt_dir_or_file):
        prefix = files.resolve(ckpt_dir_or_file)
        self._values = files.read_values(prefix, files.read_index(prefix))

    def get_variable_to_shape_map(self):
        return {key: list(self._values.declared(key)[1]) for key in self._values}

    def get_variable_to_dtype_map(self):
        return {key: as_dtype(self._values.declared(key)[0].name) for key in self._values}

    def has_tensor(self, name):
        return name in self._values

    def get_tensor(self, name):
        if name not in self._values:
            raise KeyError(f"{name!r} not found in checkpoint; its keys are tf.train.list_variables(path).")
        return self._values.read(name)


def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` for a checkpoint prefix, or a folder's latest checkpoint."""
    return CheckpointReader(ckpt_dir_or_file)


def list_variables(ckpt_dir_or_file):
    """``[(key, shape)]`` of every saved value, sorted by key."""
    prefix = files.resolve(ckpt_dir_or_file)
    return sorted((info["key"], list(info["shape"])) for info in files.read_index(prefix))


def load_variable(ckpt_dir_or_file, name):
    """The saved value ``name`` (a key from ``list_variables``) as a NumPy array."""
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
