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
        self.tracers = []  # tf.function traces recording the ops now running (core.tracing)
        self.listening = []  # the listeners this thread is inside now, innermost last (core.events)
        self.holding = 0  # how many events.held locks this thread holds now: its events wait until none
        self.deferred = []  # the events it emitted meanwhile, with their listeners, in order (core.events)


# Hot paths (every op) read ``local.__dict__`` once and index it: this thread's dict in
# one thread-local lookup, where each ``local.attr`` would be a lookup of its own.
local = _ThreadState()
events._local = local  # emit sets tracing aside while listeners run, and guards them
# The bus's own lists (events.subscribe): their truthiness is the hot path's check. All listeners;
# those of them that want untaped sweep ops; those that hear each taped op and backward step; those
# that read tapes and take steps in batches instead.
listeners, sweep_op_listeners, step_listeners, tape_readers = events.SUBSCRIBERS


@contextmanager
def no_tapes():
    """Run a block that no tape of this thread records (as TF's compiled predict)."""
    saved = local.tapes
    local.tapes = []
    try:
        yield
    finally:
        local.tapes = saved


@contextmanager
def no_tracers():
    """Run a block that no tf.function trace records (the inside of a recorded step)."""
    saved = local.tracers
    local.tracers = []
    try:
        yield
    finally:
        local.tracers = saved
