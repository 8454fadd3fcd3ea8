"""Run a student's function under observation: which tapes it made and what they did.

The checker of a "write it" exercise calls the student's function on fresh
inputs inside :func:`observe`, which listens to the core's hook bus
(``tapeviz.core.events``) and keeps a small account: the tapes entered (and
whether persistent, whether they watch accessed variables), what each one
watched, its gradient calls (sweeps) and whether it was released, the ops
the tapes recorded, and the variables assigned.
"""

from dataclasses import dataclass, field

from tapeviz.core import events


@dataclass
class TapeAccount:
    persistent: bool
    watch_accessed_variables: bool
    watched: list = field(default_factory=list)  # the sources it was told to watch (not automatic ones)
    sweeps: int = 0
    output_gradients: list = field(default_factory=list)  # per sweep: whether weights were given
    released: bool = False


@dataclass
class Run:
    """What one call of the student's function did."""

    result: object = None
    tapes: dict = field(default_factory=dict)  # tape serial -> TapeAccount, in order entered
    recorded_ops: list = field(default_factory=list)  # names of ops some tape recorded
    assigned: int = 0  # variable assignments (an optimizer's updates)

    @property
    def sweeps(self):
        return sum(t.sweeps for t in self.tapes.values())

    def recorded(self, name):
        return name in self.recorded_ops


class _Listener:
    def __init__(self, run):
        self.run = run

    def on_tape_entered(self, event):
        self.run.tapes.setdefault(event.tape, TapeAccount(event.persistent, event.watch_accessed_variables))

    def on_watched(self, event):
        account = self.run.tapes.get(event.tape)
        if account is not None and not event.automatic:
            account.watched.append(event.source)

    def on_op_executed(self, event):
        if event.tapes:
            self.run.recorded_ops.append(event.entry.primitive.name)

    def on_sweep_started(self, event):
        account = self.run.tapes.get(event.tape)
        if account is not None:
            account.sweeps += 1
            account.output_gradients.append(any(g is not None for g in event.output_gradients))

    def on_tape_released(self, event):
        account = self.run.tapes.get(event.tape)
        if account is not None:
            account.released = True

    def on_variable_assigned(self, event):
        self.run.assigned += 1


def observe(function, *args, **kwargs):
    """Call ``function(*args, **kwargs)`` and return a :class:`Run` of what it did.

    A tape the function made and dropped is released when the call returns
    (its last reference goes), so it counts as released here.
    """
    import gc

    run = Run()
    listener = _Listener(run)
    with events.listening(listener):
        run.result = function(*args, **kwargs)
        gc.collect()  # a tape caught in a reference cycle is released now, not some time later
    return run
