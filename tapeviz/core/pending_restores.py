"""Values waiting for an object to grow the attribute they belong to (a checkpoint's deferred restoration).

``tf.train.Checkpoint.restore`` may name variables that do not exist yet: a
Keras layer builds its kernel on first call, an optimizer makes its slots on
first update. The checkpoint leaves a callback here, keyed by the object that
will hold them; ``Module``, ``Layer``, ``Checkpoint`` and the optimizers call
``notify(self)`` when they gain attributes or state, and the callback
restores what now exists. It lives in core so those classes need not import
the checkpoint package.
"""

import weakref

__all__ = ["wait_for", "notify", "forget"]

_PENDING = {}  # id(obj) -> (weakref to obj, callback(obj))


def wait_for(obj, callback):
    """Call ``callback(obj)`` the next time ``obj`` reports a change; replaces any earlier wait on ``obj``."""
    key = id(obj)
    _PENDING[key] = (weakref.ref(obj, lambda _ref, pending=_PENDING: pending.pop(key, None)), callback)


def forget(obj):
    _PENDING.pop(id(obj), None)


def notify(obj):
    """``obj`` gained attributes or state: run what waits for it (which may wait again for the rest)."""
    if not _PENDING:
        return
    entry = _PENDING.get(id(obj))
    if entry is None or entry[0]() is not obj:
        return
    del _PENDING[id(obj)]
    entry[1](obj)
