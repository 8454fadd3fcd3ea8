"""Per-thread recording state, shared by tensors, ops and tapes.

Kept in one small module so the hot path (every op) reads it with two
attribute lookups and no imports.
"""

import threading
from contextlib import contextmanager

from tapeviz.core import events


class _ThreadState(threading.local):
    def __init__(self):
        self.tapes = []  # tapes recording in this thread, outermost first
        self.scopes = []  # the name_scope stack
        self.depth = 0  # derivative order of the ops now running (0 = forward)


local = _ThreadState()


@contextmanager
def no_tapes():
    """Run a block that no tape of this thread records (as TF's compiled predict)."""
    saved = local.tapes
    local.tapes = []
    try:
        yield
    finally:
        local.tapes = saved
listeners = events._listeners


# Set by core.tape at import: records a variable read on the active tapes.
def on_variable_read(variable, tensor):  # pragma: no cover - replaced at import
    raise AssertionError("tapeviz.core.tape was not imported")


def emit_assign(variable):
    events.emit(events.VariableAssigned(variable))
