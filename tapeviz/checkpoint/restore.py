"""Restoring a checkpoint into live objects, now or when the objects appear (deferred restoration).

``restore_into`` walks the Python objects and the checkpoint's tree of keys
together: each variable found gets its value at once; names the checkpoint
holds but the objects do not have yet wait on the nearest object that
reports new attributes (``tapeviz.core.pending_restores``), and are restored
when that object gains them, as TF does for a layer built after ``restore``.
The status objects answer TF's questions about what matched.
"""

import numpy as np

from tapeviz.checkpoint import graph
from tapeviz.core import pending_restores
from tapeviz.core.tensor import Variable

__all__ = ["CheckpointLoadStatus", "InitializationOnlyStatus", "key_tree"]

_LEAF = ".ATTRIBUTES"  # a tree node's entry holding its variable's key (escaped names never start with one '.')


def key_tree(keys):
    """``{'net': {'l1': {'kernel': {'.ATTRIBUTES': 'net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE'}}}}`` from the keys."""
    tree = {}
    for key in keys:
        node = tree
        for part in key[: -len(graph.VALUE_SUFFIX)].rstrip("/").split("/"):
            node = node.setdefault(part, {})
        node[_LEAF] = key
    return tree


def _tree_keys(node):
    for name, sub in node.items():
        if name == _LEAF:
            yield sub
        else:
            yield from _tree_keys(sub)


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: assertions about how the checkpoint matched the objects."""

    def __init__(self, root, values, save_path, aliases=None):
        self._root = root
        self._aliases = dict(aliases or {})
        self._values = values
        self._save_path = save_path
        self._consumed = set()
        self._matched = {}  # id(variable) -> variable, kept alive so ids stay unique

    # -- restoring ---------------------------------------------------------------------------
    def restore(self, obj, node):
        """Restore ``node``'s values into ``obj`` all or nothing: every value is checked before any is assigned.

        Values whose variables do not exist yet wait on the nearest object
        that reports new attributes, and are restored when it gains them.
        """
        assignments, waits = [], []
        self._plan(obj, node, assignments, waits, set())
        for variable, key, value in assignments:
            variable.assign(value)
            self._consumed.add(self._aliases.get(key, key))
            self._matched[id(variable)] = variable
        for owner, rest in waits:
            pending_restores.wait_for(owner, lambda o, rest=rest: self.restore(o, rest))

    def _checked(self, variable, key):
        """The value of ``key`` for ``variable``: its declared shape and dtype are compared first, so a value
        the variable cannot hold is refused before a byte of it is inflated."""
        key = self._aliases.get(key, key)
        dtype, shape = self._values.declared(key)
        if tuple(shape) != tuple(variable.shape):
            raise ValueError(
                f"Received incompatible tensor with shape {tuple(shape)} when attempting to restore "
                f"variable with shape {tuple(variable.shape)} and name {variable.name}."
            )
        target = np.dtype(variable.dtype.name)
        if dtype != target and not np.can_cast(dtype, target, casting="same_kind"):
            raise ValueError(
                f"Cannot restore {key} ({dtype}) into variable {variable.name} of dtype {target}: "
                "the checkpoint was saved from a variable of another dtype. Nothing was restored."
            )
        return self._values.read(key).astype(target, copy=False)

    def _plan(self, obj, node, assignments, waits, visiting):
        """Collect ``(variable, key, value)`` to assign and ``(owner, subtree)`` to wait for; return what is left."""
        if id(obj) in visiting:
            return None
        visiting.add(id(obj))
        leftover = {}
        matched = set()
        for name, child in graph.children(obj):
            sub = node.get(name)
            if sub is None or name in matched:
                continue
            matched.add(name)
            if isinstance(child, Variable):
                if _LEAF in sub and id(child) not in self._matched:
                    assignments.append((child, sub[_LEAF], self._checked(child, sub[_LEAF])))
            else:
                rest = self._plan(child, sub, assignments, waits, visiting)
                if rest:
                    leftover[name] = rest
        leftover.update({name: sub for name, sub in node.items() if name not in matched and name != _LEAF})
        if leftover and graph.hookable(obj):
            waits.append((obj, leftover))
            return None
        return leftover

    # -- TF's assertions -------------------------------------------------------------------------
    def _unmatched_objects(self):
        present = graph.variables_by_key(self._root)
        return [v for v in present.values() if id(v) not in self._matched]

    def assert_existing_objects_matched(self):
        """Raise ``AssertionError`` if a variable reachable from the root got no value from the checkpoint."""
        unmatched = self._unmatched_objects()
        if unmatched:
            shown = unmatched[:10]
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {len(shown)} of {len(unmatched)} unmatched objects: "
                f"[{', '.join(repr(v) for v in shown)}]"
            )
        return self

    def assert_consumed(self):
        """Also raise if a value in the checkpoint has not (yet) found its variable."""
        self.assert_existing_objects_matched()
        waiting = [key for key in sorted(self._values) if key not in self._consumed]
        if waiting:
            key = waiting[0]
            path = key[: -len(graph.VALUE_SUFFIX)].rstrip("/").replace("/", ".")
            raise AssertionError(
                f'Unresolved object in checkpoint (root).{path}: attributes {{\n  name: "VARIABLE_VALUE"\n'
                f'  checkpoint_key: "{key}"\n}}\n({len(waiting)} value(s) in {self._save_path} were not restored: '
                "the objects they belong to do not exist yet, or the program changed)"
            )
        return self

    def assert_nontrivial_match(self):
        """Raise if nothing but the checkpoint's own save counter matched."""
        if not any(not key.startswith("save_counter/") for key in self._consumed):
            raise AssertionError(
                "Nothing except the root object matched a checkpointed value. Typically this means that the "
                f"checkpoint does not match the Python program. Checkpoint: {self._save_path}"
            )
        return self

    def expect_partial(self):
        """Say that a partial restore is intended (TF then stops warning about unused values)."""
        return self

    def run_restore_ops(self, session=None):
        """Restoring happened already (eager): nothing to run."""

    def initialize_or_restore(self, session=None):
        """Restoring happened already (eager): nothing to run."""


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing is restored; the assertions say so."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def assert_consumed(self):
        raise AssertionError(self._MESSAGE)

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to restore."""

    def initialize_or_restore(self, session=None):
        """Variables are initialized when created (eager): nothing to run."""
