"""``tf.train.Checkpoint``: save and restore the variables of a tree of objects, by their attribute paths."""

import os

from tapeviz.checkpoint import files, graph
from tapeviz.checkpoint.restore import CheckpointLoadStatus, InitializationOnlyStatus, key_tree
from tapeviz.core import pending_restores
from tapeviz.core.tensor import Variable

__all__ = ["Checkpoint"]

_OWN = "_ckpt_"  # the prefix of the checkpoint's own attributes, never saved


class ListWrapper(list):
    """A list held by a Checkpoint (TF's ListWrapper): adding to it tells the checkpoint, for deferred restores."""

    def __init__(self, items, owner):
        super().__init__(items)
        self._owner = owner

    def _changed(self):
        pending_restores.notify(self._owner)

    def append(self, item):
        super().append(item)
        self._changed()

    def extend(self, items):
        super().extend(items)
        self._changed()

    def insert(self, index, item):
        super().insert(index, item)
        self._changed()

    def __setitem__(self, index, item):
        super().__setitem__(index, item)
        self._changed()

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"


class Checkpoint(graph.Root):
    """Groups trackable objects (``tf.Module``s, Keras models, layers and optimizers, Variables) to save together.

    ``Checkpoint(step=step, optimizer=opt, net=net)`` names its children by
    keyword; each is saved under its attribute path (``net/l1/kernel``).
    ``save`` numbers checkpoints with ``save_counter``; ``write`` and
    ``read`` take exact paths; ``restore`` fills existing variables at once
    and later-created ones when they are created.
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, _OWN + "root", root)
        object.__setattr__(self, _OWN + "save_counter", None)
        for name, value in kwargs.items():
            if not graph.is_trackable(value):
                raise ValueError(
                    f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                    f"`Trackable`), got {value!r}. If you believe this object should be trackable (i.e. it is "
                    "part of the TensorFlow Python API and manages state), please open an issue."
                )
            setattr(self, name, value)
        if root is not None and not graph.is_trackable(root):
            raise ValueError(
                f"`Checkpoint` was expecting root to be a trackable object (an object derived from `Trackable`), "
                f"got {root!r}."
            )

    def __setattr__(self, name, value):
        if type(value) is list:  # TF's ListWrapper: an append can fill a variable restored earlier
            value = ListWrapper(value, self)
        object.__setattr__(self, name, value)
        pending_restores.notify(self)

    def _checkpoint_children(self):
        pairs = [(k, v) for k, v in vars(self).items() if not k.startswith(_OWN)]
        root = vars(self)[_OWN + "root"]
        if root is not None:
            pairs = graph.children(root) + pairs
        counter = vars(self)[_OWN + "save_counter"]
        if counter is not None:
            pairs.append(("save_counter", counter))
        return pairs

    @property
    def save_counter(self):
        """How many times ``save`` has run: an int64 Variable, created on first use and saved with the rest."""
        if vars(self)[_OWN + "save_counter"] is None:
            counter = Variable(0, dtype="int64", name="save_counter", trainable=False)
            object.__setattr__(self, _OWN + "save_counter", counter)
            pending_restores.notify(self)  # a restore run before the counter existed fills it
        return vars(self)[_OWN + "save_counter"]

    # -- writing -----------------------------------------------------------------------------
    def write(self, file_prefix, options=None):
        """Write the checkpoint at exactly ``file_prefix`` (no number, no state file). Returns the prefix."""
        aliases = {}
        values = {key: variable.numpy() for key, variable in graph.variables_by_key(self, aliases).items()}
        return files.write_checkpoint(file_prefix, values, aliases)

    def save(self, file_prefix, options=None):
        """Add one to ``save_counter``, write at ``file_prefix-<save_counter>``, and make it the folder's latest."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}")
        folder = os.path.dirname(path)
        files.write_state(folder or ".", path, [path])
        return path

    # -- reading -----------------------------------------------------------------------------
    def read(self, save_path, options=None):
        """Restore from exactly ``save_path`` (as ``write`` made it); returns a load status."""
        save_path = os.fspath(save_path)
        variables = files.read_index(save_path)
        values = files.read_values(save_path, variables)
        aliases = files.read_aliases(save_path)
        status = CheckpointLoadStatus(self, values, save_path, aliases)
        if "save_counter/" + graph.VALUE_SUFFIX in values:
            self.save_counter  # noqa: B018  (TF creates the counter when restoring one)
        status.restore(self, key_tree(list(values) + list(aliases)))
        return status

    def restore(self, save_path, options=None):
        """Restore from ``save_path``; ``None`` (no checkpoint yet) restores nothing. Returns a load status.

        Variables that exist get their values now; those named in the
        checkpoint but created later (a layer built on its first call, an
        optimizer's slots) get theirs when they are created.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        return self.read(save_path, options)

    def sync(self):
        """Writes are synchronous: nothing to wait for."""

    def __repr__(self):
        return f"<tapeviz.train.Checkpoint object at 0x{id(self):x}>"
