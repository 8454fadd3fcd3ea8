"""Where the running code stands in a ``tf.distribute`` strategy: the core's side of it.

A strategy (``tapeviz/distribute/``, a floor above) tells this module when
its ``scope()`` is entered and which replica ``strategy.run`` is running;
the core reads it here, without importing the strategies:

- ``tf.Variable(...)`` inside a scope asks ``variable_class()`` which class to
  make (a ``MirroredVariable`` under ``MirroredStrategy``);
- a ``tf.random.Generator`` remembers the strategy it was made under and, in
  one of its replicas, draws from a key hashed with the replica id, as TF;
- a mirrored variable reads and writes the component of ``replica_id()``.

The state is per thread, as TF's: each replica of ``strategy.run`` runs in a
thread of its own (one at a time), which ``enter_replica`` sets up.
"""

import threading
from contextlib import contextmanager

from tapeviz.core import state

__all__ = [
    "Context",
    "current",
    "entered_scope",
    "enter_replica",
    "local_updates",
    "updating_locally",
    "variable_class",
    "snapshot",
    "restore",
]


class Context:
    """Where code runs: under ``strategy`` (None: no strategy), in replica ``replica_id`` (None: cross-replica).

    Args:
        strategy: the strategy whose scope or replica this is, or None.
        replica_id: the replica's index in its sync group, or None outside ``strategy.run``.
        variable_class: what ``tf.Variable(...)`` makes here (None: a plain Variable).
    """

    __slots__ = ("strategy", "replica_id", "variable_class")

    def __init__(self, strategy=None, replica_id=None, variable_class=None):
        self.strategy = strategy
        self.replica_id = replica_id
        self.variable_class = variable_class


_OUTSIDE = Context()


class _Local(threading.local):
    def __init__(self):
        self.stack = []  # Contexts, innermost last
        self.local_updates = 0  # >0: a mirrored variable's writes go to this replica's component only


_local = _Local()


def current():
    """The innermost context of this thread (a Context whose strategy is None outside every scope).

    Returns:
        A Context.
    """
    stack = _local.stack
    return stack[-1] if stack else _OUTSIDE


def variable_class():
    """The class ``tf.Variable(...)`` makes here, or None for a plain Variable (read on each creation).

    Returns:
        A Variable subclass, or None.
    """
    stack = _local.stack
    return stack[-1].variable_class if stack else None


@contextmanager
def entered_scope(strategy, variable_class=None):
    """``strategy.scope()``: cross-replica context of ``strategy`` for the block.

    Args:
        strategy: the strategy.
        variable_class: what ``tf.Variable(...)`` makes in the block (None: plain Variables).

    Yields:
        None.
    """
    _local.stack.append(Context(strategy, None, variable_class))
    try:
        yield
    finally:
        _local.stack.pop()


@contextmanager
def enter_replica(strategy, replica_id, variable_class=None):
    """Replica ``replica_id`` of ``strategy`` for the block (``strategy.run`` runs ``fn`` in it).

    Args:
        strategy: the strategy.
        replica_id: the replica's index.
        variable_class: what ``tf.Variable(...)`` makes in the block (None: plain Variables).

    Yields:
        None.
    """
    _local.stack.append(Context(strategy, replica_id, variable_class))
    try:
        yield
    finally:
        _local.stack.pop()


@contextmanager
def local_updates():
    """Writes to a mirrored variable in the block go to the running replica's component only.

    As TF's ``Generator`` moves its state with a kernel on each replica's own
    copy, not with a synchronized update. Outside a replica it changes nothing.

    Yields:
        None.
    """
    _local.local_updates += 1
    try:
        yield
    finally:
        _local.local_updates -= 1


def updating_locally():
    """True inside ``local_updates()``.

    Returns:
        A bool.
    """
    return _local.local_updates > 0


def snapshot():
    """This thread's contexts and recording state (tapes, name scopes, traces), for a replica's thread.

    Returns:
        An opaque value (``restore`` takes it in the other thread).
    """
    local = state.local
    return list(_local.stack), list(local.tapes), list(local.scopes), list(local.tracers), local.depth


def restore(saved):
    """Take what ``snapshot()`` returned in another thread (a replica's thread starting): its tapes record
    the replica's ops, its name scopes name them, as in the thread that called ``strategy.run``.

    Args:
        saved: what ``snapshot()`` returned.
    """
    stack, tapes, scopes, tracers, depth = saved
    _local.stack = list(stack)
    local = state.local
    local.tapes, local.scopes, local.tracers, local.depth = list(tapes), list(scopes), list(tracers), depth
