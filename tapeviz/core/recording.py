"""What the active tapes do when an op runs: decide who records it, and record it.

A tape records an op when one of the op's inputs is watched by it (a watched
source, or the output of an op it recorded). One entry is shared by every tape
that records it, so nested tapes see the same object.
"""

import itertools
import operator

from tapeviz.core import events, origin, state
from tapeviz.core.primitive import Primitive

# One count orders everything recorded in the process: entries, backward steps, and what
# listeners number (the session recorder's sequence), so all of them sort together.
_next_index = itertools.count().__next__
next_order = _next_index


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
    """

    __slots__ = (
        "primitive", "inputs", "outputs", "attrs", "scope", "depth", "index", "tapes", "origin", "origin_at"
    )  # fmt: skip

    def __init__(self, primitive, inputs, outputs, attrs, scope, depth, tapes=()):
        # (GradientTape.record_op builds its entries with these same stores, inlined.)
        self.primitive = primitive
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.scope = scope
        self.depth = depth
        self.index = _next_index()
        self.tapes = tapes
        self.origin = self.origin_at = None

    @property
    def name(self):
        return self.primitive.name

    def __repr__(self):
        ins = ", ".join(f"#{t._id}" for t in self.inputs)
        outs = ", ".join(f"#{t._id}" for t in self.outputs)
        return f"<TapeEntry {self.primitive.name}({ins}) -> {outs} depth={self.depth}>"


NO_ATTRS = {}  # shared by every entry without attributes; never mutated
_local = state.local  # bound once: record runs for every op while a tape is active
_listeners = state.listeners
_SERIAL = operator.attrgetter("serial")
_sweep_op_listeners = state.sweep_op_listeners
_step_listeners = state.step_listeners
_op_executed = events.op_executed
_origin_requests = origin.REQUESTS  # truthy while someone asked for origins (origin.enable)
_note_origin = origin.note


def record(primitive, inputs, outputs, attrs):
    """Record an executed op on every active tape that watches one of its inputs."""
    local = _local.__dict__  # this thread's state: one thread-local lookup, then dict reads (state.py)
    tracers = local["tracers"]
    if tracers:  # tf.function is tracing: every tracer keeps the op
        for tracer in tracers:
            tracer.capture(primitive, inputs, outputs, attrs)
    tapes = local["tapes"]
    if len(tapes) == 1 and primitive.differentiable is not None:  # the commonest case: one tape, in one call
        tape = tapes[0]
        entry = tape.record_op(primitive, inputs, outputs, attrs, local)
        if entry is not None:
            if _step_listeners:  # those that read tapes find it there
                events.emit(_op_executed(entry, entry.tapes), _step_listeners)
            return entry
        if not _listeners:
            return None
        # unwatched inputs: not recorded; the listeners may still want it, below
    depth = local["depth"]
    if not tapes and depth and not _sweep_op_listeners:
        return None  # a sweep's arithmetic that no tape records and no listener wants: the commonest early out
    differentiable = primitive.differentiable
    if differentiable is None or not tapes:
        recorders = ()
    elif len(tapes) == 1:  # no list to build
        needs = tapes[0].needs_of(inputs)
        recorders = tapes if needs is not None else ()
    else:
        recorders, needs = [], []
        for tape in tapes:
            tape_needs = tape.needs_of(inputs)
            if tape_needs is not None:
                recorders.append(tape)
                needs.append(tape_needs)
    # A recorded op goes to those that do not read tapes; ops a sweep runs (depth > 0) that no tape
    # records, to the listeners that want them.
    listeners = _step_listeners if recorders else _sweep_op_listeners if depth else _listeners
    if not recorders and not listeners:
        return None
    if not recorders:
        serials = ()
    elif len(recorders) == 1:
        serials = recorders[0].serials
    else:
        serials = tuple(map(_SERIAL, recorders))
    scopes = local["scopes"]
    entry = TapeEntry(primitive, inputs, outputs, attrs, "/".join(scopes) if scopes else "", depth, serials)
    if _listeners or _origin_requests:
        _note_origin(entry, 2)  # the user's line, for a diagnosis
    if recorders:  # gradients flow only through float outputs of differentiable ops
        if len(recorders) == 1:
            recorders[0].append(entry, differentiable, needs if type(needs) is tuple else needs[0])
        else:
            for tape, tape_needs in zip(recorders, needs):
                tape.append(entry, differentiable, tape_needs)
    if listeners:
        events.emit(_op_executed(entry, serials), listeners)
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

    def watches_any(self, tensors):
        return False  # so `record` never records on it

    def needs_of(self, tensors):
        return None  # likewise

    def record_op(self, primitive, inputs, outputs, attrs, local):
        return None  # likewise


def note_access(variable):
    """A trainable variable was used: tapes that auto-watch watch it, and a
    ``custom_gradient`` function running now notes it (nested ones included)."""
    if not variable._trainable:
        return
    for tape in state.local.tapes:
        if type(tape) is AccessedVariables:
            tape.variables.setdefault(variable._id, variable)
        elif tape._watch_accessed_variables:
            watch(tape, variable, automatic=True)


def record_read(variable, tensor):
    """A variable was read: tapes that auto-watch watch it, and record the read."""
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
