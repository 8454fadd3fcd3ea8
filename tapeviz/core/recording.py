"""What the active tapes do when an op runs: decide who records it, and record it.

A tape records an op when one of the op's inputs is watched by it (a watched
source, or the output of an op it recorded). One entry is shared by every tape
that records it, so nested tapes see the same object.
"""

import itertools

from tapeviz.core import events, origin, state
from tapeviz.core.primitive import Primitive

# One count orders everything recorded in the process: entries, backward steps, and what
# listeners number (the session recorder's sequence), so all of them sort together.
_next_index = itertools.count().__next__
next_order = _next_index
_new = object.__new__


class TapeEntry:
    """One recorded op: the primitive, its inputs and outputs, and where it ran.

    ``inputs`` and ``outputs`` are the values the backward pass needs (the
    "saved tensors"). ``depth`` is the derivative order: 0 for forward ops,
    n for ops that an n-th order backward step ran. ``index`` increases with
    every op executed in the process, so entries sort in execution order.
    ``tapes``: the serial numbers of the tapes that recorded it (nested tapes
    share one entry), so a reader of one tape knows the others without them.
    ``origin`` and ``origin_at``: the code object and instruction offset of the
    user's line that ran it, as ``core.origin.note`` noted them (only while
    someone listens or asked, ``origin.enable()``; else None); ``origin.of(entry)``
    makes an ``Origin`` of them.

    Built by :func:`new_entry` only (the one constructor, called by the tape
    that records the op, or by ``record`` for an op no tape records that
    listeners hear).
    """

    __slots__ = (
        "primitive", "inputs", "outputs", "attrs", "scope", "depth", "index", "tapes", "origin", "origin_at"
    )  # fmt: skip

    @property
    def name(self):
        return self.primitive.name

    def __repr__(self):
        ins = ", ".join(f"#{t._id}" for t in self.inputs)
        outs = ", ".join(f"#{t._id}" for t in self.outputs)
        return f"<TapeEntry {self.primitive.name}({ins}) -> {outs} depth={self.depth}>"


def new_entry(primitive, inputs, outputs, attrs, local, tapes):
    """The one constructor of a :class:`TapeEntry`: an op ``primitive(*inputs) -> outputs`` recorded by the
    tapes numbered ``tapes`` (empty: none), in the scope and derivative order of ``local`` (this thread's
    state dict, state.py), numbered next, with the user's line noted while someone wants it.

    Its slots are stored one by one (a class call with ``__init__`` costs more than a scalar op's
    arithmetic: this runs once per recorded op).
    """
    entry = _new(TapeEntry)
    entry.primitive = primitive
    entry.inputs = inputs
    entry.outputs = outputs
    entry.attrs = attrs
    scopes = local["scopes"]
    entry.scope = "/".join(scopes) if scopes else ""
    entry.depth = local["depth"]
    entry.index = _next_index()
    entry.tapes = tapes
    if _listeners or _origin_requests:
        # The user's line, for a diagnosis. The frames surely the library's: this, and record (an op
        # no tape records) or a tape's record_op, called by record whenever anyone listens, and the
        # op or what read a variable; without listeners, an op may call record_op itself.
        _note_origin(entry, 4 if tapes and _listeners else 3)
    else:
        entry.origin = entry.origin_at = None
    return entry


NO_ATTRS = {}  # shared by every entry without attributes; never mutated
_local = state.local  # bound once: record runs for every op while a tape is active
_listeners = state.listeners
_sweep_op_listeners = state.sweep_op_listeners
_step_listeners = state.step_listeners
_op_executed = events.op_executed
_origin_requests = origin.REQUESTS  # truthy while someone asked for origins (origin.enable)
_note_origin = origin.note


def record(primitive, inputs, outputs, attrs):
    """Record an executed op on every active tape that watches one of its inputs; tell the listeners.

    Each tape records it (``GradientTape.record_op``); nested tapes share the
    entry the first of them built. An op no tape records is built here only
    for the listeners that want it.
    """
    local = _local.__dict__  # this thread's state: one thread-local lookup, then dict reads (state.py)
    tracers = local["tracers"]
    if tracers:  # tf.function is tracing: every tracer keeps the op
        for tracer in tracers:
            tracer.capture(primitive, inputs, outputs, attrs)
    tapes = local["tapes"]
    entry = None
    if primitive.differentiable is not None and tapes:
        if len(tapes) == 1:  # the commonest case: one tape, in one call
            entry = tapes[0].record_op(primitive, inputs, outputs, attrs, local)
        else:
            serials = []
            for tape in tapes:
                recorded = tape.record_op(primitive, inputs, outputs, attrs, local, entry)
                if recorded is not None:
                    entry = recorded
                    serials.append(tape.serial)
            if len(serials) > 1:
                entry.tapes = tuple(serials)
    if entry is not None:
        if _step_listeners:  # those that read tapes find it there
            events.emit(_op_executed(entry, entry.tapes), _step_listeners)
        return entry
    # No tape records it: an op a sweep runs (depth > 0) goes to the listeners that want those, others to all.
    listeners = _sweep_op_listeners if local["depth"] else _listeners
    if not listeners:
        return None
    entry = new_entry(primitive, inputs, outputs, attrs, local, ())
    events.emit(_op_executed(entry, ()), listeners)
    return entry


def watch(tape, source, automatic=False):
    """Make ``tape`` watch a Tensor or Variable."""
    if not tape.add_watched(source):
        return
    if state.listeners:
        events.emit(events.Watched(tape.serial, source, automatic))


class AccessedVariables:
    """Stands in the tape stack while a ``custom_gradient`` function runs.

    It records nothing (no tape sees the function's inside, as in TF) and
    announces nothing; it only notes the trainable variables that are read.
    """

    def __init__(self):
        self.variables = {}  # id -> Variable, in order of first read

    def record_op(self, primitive, inputs, outputs, attrs, local, entry=None):
        return None  # so `record` never records on it

    def record_read(self, variable, tensor, local):
        """A variable's read while this is the only "tape" (the read's fast path, from ``Variable.read_value``): noted, not recorded."""
        if variable._trainable:
            self.variables.setdefault(variable._id, variable)


def note_access(variable):
    """A trainable variable was used: tapes that auto-watch watch it, and a
    ``custom_gradient`` function running now notes it (nested ones included)."""
    if not variable._trainable:
        return
    for tape in _local.tapes:
        if type(tape) is AccessedVariables:
            tape.variables.setdefault(variable._id, variable)
        elif tape._watch_accessed_variables and not tape.watches(variable):
            watch(tape, variable, automatic=True)


def record_read(variable, tensor):
    """A variable was read: tapes that auto-watch watch it (a trainable one), and record the read.

    The general path. A read's one named fast path is ``record_read`` of ``GradientTape``, which
    ``Variable.read_value`` calls instead when one tape records and nobody listens or traces (a
    training step): it watches and records in one call, the same entry as ``record`` builds here,
    without the general path's checks.
    """
    if variable._trainable:
        note_access(variable)
    record(READ_VARIABLE, (variable,), (tensor,), NO_ATTRS)


def announce_optimizer_step(optimizer, variables, gradients, learning_rate, step):
    """An optimizer is about to apply ``gradients`` to ``variables`` (listeners hear of it first)."""
    if _listeners:
        events.emit(events.OptimizerStep(optimizer, tuple(variables), tuple(gradients), float(learning_rate), step))


def announce_assign(variable):
    """A variable's value was replaced (no tape records it; listeners hear of it)."""
    if _listeners:
        events.emit(events.VariableAssigned(variable))


# Reading a variable is an op of its own, so the tape shows where a variable
# entered the computation (its gradient is the identity).
READ_VARIABLE = Primitive("ReadVariableOp", kernel=None)
