"""Keeping what the visualizer draws of each tape, bounded in bytes, at almost no cost.

The core's events are the records (:mod:`tapeviz.core.events`), read by the
trace builder as ``(seq, event)`` pairs. Two ways to keep them:

* ``trace()`` (see :mod:`tapeviz.viz.trace`) subscribes a :class:`Log` for
  a ``with`` block and keeps every event of its thread: every tape, every op
  (also those no tape recorded), every sweep.
* The **session recorder** is subscribed when ``tapeviz.viz`` is imported
  (``watch_all()`` / ``stop_watching()`` turn it on and off), as a reader of
  tapes (``events.subscribe(..., reads_tapes=True)``), so a tape at the end
  of a cell draws its sweeps. It hears no event per recorded op: a tape's
  ops are the tape's own entries, read from the tape when something is
  drawn, and kept from ``TapeReleased.entries`` once the tape drops them.
  A sweep's steps come in batches (``BackwardSteps``); of a jacobian, the
  last row only. Ops no tape recorded go to a short ring, because
  ``explain`` needs them.

It pays only for what a picture shows, and only when the picture is drawn:
recording an op costs it nothing; a batch of steps is appended, with the
bytes of the gradients arriving at them (no copy, no reduction of an array,
whatever its size); previews are computed by the trace builder, where the
array lives, when something is drawn. Exact byte counts are taken late, and
only for what outlives its tape's use (see below). What it holds is bounded
in bytes, not in counts:

* tensors a live tape holds anyway (its recorded entries) cost nothing more;
* what only the recorder holds is counted, thread-safely, against one
  ``budget`` (:func:`set_budget`): the gradients of each sweep, the large
  tensors (over ``SMALL_BYTES``) of a tape that released them (a
  non-persistent tape after ``gradient``), and a ring of ops no tape
  recorded (small tensors only);
* past the budget it sheds, down to three quarters of it: first the sweeps
  a newer sweep of the same tape superseded (a player plays the newest),
  then large tensors become :class:`ValueSummary` stand-ins (shape, dtype,
  no array: a copy of the records is made only then), then the oldest sweeps
  and untaped ops go; never the newest sweep;
* the large gradients a sweep returned are the caller's: held by weak
  reference (:class:`Returned`), drawn while the caller keeps them and as
  their summary once deleted, so ``del g`` frees them as with no recorder;
* everything about a tape goes when the tape is garbage collected.

Counting is exact (distinct tensors, once each) but late. A released tape's
entries are weighed roughly when it releases them (their outputs' bytes, in
one C-level pass), and exactly at the next release if the tape lives on. A closed
sweep waits, weighed roughly (its arriving gradients and results, with a
fixed cost per step), until that rough sum could pass the budget, or
something reads the count (``held_bytes``, ``set_budget``); then superseded
sweeps go first, uncounted, and the rest are counted. Most tapes (a
training step's, a lesson's) die before that, and their sweeps are never
counted. A running sweep is counted early only when the rough sum of its
steps passes ``SETTLE_BYTES`` past the budget. So the bound holds when the
count is read, and is exceeded by no more than the rough sums underestimate
between reads, and about ``SETTLE_BYTES`` plus one batch during a sweep.

A tape recorded before ``tapeviz.viz`` was imported is still drawn: its
entries are the tape's (their sketches, if it released them before).
"""

import dataclasses
import functools
import itertools
import operator
import threading
import weakref
from collections import OrderedDict, deque
from itertools import chain

from tapeviz.core import dtypes, events
from tapeviz.core.history import EntrySketch, TensorSketch
from tapeviz.core.recording import next_order
from tapeviz.core.tape import tape_with_serial
from tapeviz.core.tensor import Tensor, any_larger, is_tensor, tensor_id, to_array, total_nbytes

SMALL_BYTES = 1024  # tensors up to this size are kept whole whatever happens
DEFAULT_BUDGET = 16 << 20  # bytes the session recorder may hold that no tape holds
EVENT_BYTES = 320  # what one kept event costs in objects (the event, its tuples), measured
TENSOR_BYTES = 200  # what a kept tensor costs beyond its array (the Tensor, the array header)
SETTLE_BYTES = 64 << 10  # a running sweep may hold this much uncounted before it is settled early

_next_seq = next_order  # the count that numbers entries too: a tape's ops sort among the events


class ValueSummary(TensorSketch):
    """A large tensor the recorder did not keep: shape, dtype and size, read without copying the array."""

    __slots__ = ("preview", "nbytes", "nonfinite")

    def __init__(self, tensor):
        array = to_array(tensor)
        super().__init__(tensor_id(tensor), tuple(array.shape), tensor.dtype)
        self.nbytes = int(array.nbytes)
        self.preview = None  # not computed: the recorder reduces no array (see the module docstring)
        self.nonfinite = None

    @classmethod
    def of_parts(cls, tensor_id, shape, dtype, nbytes):
        """The summary of a tensor no longer alive, from what was read of it."""
        summary = cls.__new__(cls)
        TensorSketch.__init__(summary, tensor_id, tuple(shape), dtype)
        summary.nbytes, summary.preview, summary.nonfinite = int(nbytes), None, None
        return summary


class Returned:
    """A large gradient a sweep returned, held weakly: the caller's tensor while the caller keeps it,
    its :class:`ValueSummary` once the caller let it go (``del g``). The recorder never keeps a
    returned gradient alive: deleting it frees its memory, as with the recorder off."""

    __slots__ = ("ref", "tensor_id", "array", "summary")

    def __init__(self, tensor):
        self.ref = weakref.ref(tensor)
        self.tensor_id = tensor_id(tensor)
        array = to_array(tensor)
        self.array = (array.shape, array.dtype, array.nbytes)  # what a summary tells (read now, built if asked)
        self.summary = None

    def resolve(self):
        """The tensor if it is still alive, else its summary."""
        tensor = self.ref()
        if tensor is not None:
            return tensor
        if self.summary is None:
            shape, dtype, size = self.array
            self.summary = ValueSummary.of_parts(self.tensor_id, shape, dtypes.as_dtype(dtype), size)
        return self.summary


def _resolved(tensors):
    return tuple([t.resolve() if type(t) is Returned else t for t in tensors])


def _returned_weakly(event):
    """``(event, holders)``: a ``SweepFinished`` whose large results are :class:`Returned` holders
    (the event itself when none is large), and the holders by ``id`` of their tensors."""
    holders = {id(t): Returned(t) for t in event.results if _is_large(t)}
    if not holders:
        return event, holders
    results = tuple([holders.get(id(t), t) if t is not None else t for t in event.results])
    return events.SweepFinished(event.tape, results), holders


def _with_holders(steps, holders):
    """``steps`` (``BackwardStep`` events, a list) with the returned gradients among them replaced by
    ``holders``, in place."""
    ids = holders.keys()
    for position, step in enumerate(steps):
        if ids.isdisjoint(map(id, step.upstream)) and ids.isdisjoint(map(id, step.grads)):
            continue
        upstream = tuple([holders.get(id(t), t) for t in step.upstream])
        grads = tuple([holders.get(id(t), t) for t in step.grads])
        steps[position] = _with_gradients(step, upstream, grads)
    return steps


def _with_gradients(step, upstream, grads):
    """``step`` (a ``BackwardStep``) holding ``upstream`` and ``grads`` in place of its own."""
    return _new_backward_step(step.tape, step.entry, step.needs, upstream, grads, step.order)


def nbytes(tensor):
    """Bytes of a live tensor's array (0 for sketches and None)."""
    return int(to_array(tensor).nbytes) if is_tensor(tensor) else 0


def _owned_bytes(tensor):
    """What the recorder pays to hold ``tensor`` (variables are the user's: nothing)."""
    return to_array(tensor).nbytes + TENSOR_BYTES if type(tensor) is Tensor else 0


_OP_EXECUTED, _BACKWARD_STEP = events.OpExecuted, events.BackwardStep
_new_backward_step = events.backward_step
_BACKWARD_STEPS, _TAPE_RELEASED = events.BackwardSteps, events.TapeReleased


def _is_large(tensor):
    """A tensor the recorder may replace by a summary (variables are the user's: always kept)."""
    return type(tensor) is Tensor and to_array(tensor).nbytes > SMALL_BYTES


class Compaction:
    """Replaces the large tensors of events by summaries, one stand-in per tensor and per entry.

    One compaction is shared by the events of one log (or sweep), so a tensor
    (and an entry) seen twice gets one stand-in. Built for speed: a released
    tape is compacted on every training step.
    """

    __slots__ = ("tensors", "entries")

    def __init__(self):
        self.tensors = {}  # tensor id -> ValueSummary
        self.entries = {}  # entry index -> the entry itself (nothing large) or its sketch

    def event(self, event, keep_results=False):
        """``event`` itself when it holds no large tensor, else a copy holding summaries of them.

        ``keep_results``: leave a sweep's results, targets and sources as they
        are (they are the caller's).
        """
        kind = type(event)
        if kind is _OP_EXECUTED:
            entry = self.entry(event.entry)
            return event if entry is event.entry else _OP_EXECUTED(entry, event.tapes)
        if kind is _BACKWARD_STEP:  # its gradients may be Returned holders (the caller's: weighed by no one here)
            entry = self.entry(event.entry)
            gradients = [t for t in event.upstream + event.grads if type(t) is not Returned]
            if entry is event.entry and not any_larger(gradients, SMALL_BYTES):
                return event
            return _new_backward_step(
                event.tape, entry, event.needs, self.all(event.upstream), self.all(event.grads), event.order
            )
        if kind is events.SweepStarted:
            if keep_results:
                if not any(map(_is_large, event.output_gradients)):
                    return event
                return dataclasses.replace(event, output_gradients=self.all(event.output_gradients))
            if not any(map(_is_large, event.targets + event.sources + event.output_gradients)):
                return event
            return dataclasses.replace(
                event,
                targets=self.all(event.targets),
                sources=self.all(event.sources),
                output_gradients=self.all(event.output_gradients),
            )
        if kind is events.SweepFinished:
            if keep_results or not any(map(_is_large, event.results)):
                return event
            return dataclasses.replace(event, results=self.all(event.results))
        if kind is _TAPE_RELEASED and event.entries:  # the log's ``released`` holds their sketches
            return _TAPE_RELEASED(event.tape, event.reason)
        return event

    def tensor(self, tensor):
        """``tensor`` itself unless it is large; else its (shared) summary."""
        if type(tensor) is not Tensor or to_array(tensor).nbytes <= SMALL_BYTES:
            return tensor  # small, None, a variable (the user's) or already a summary
        key = tensor_id(tensor)
        found = self.tensors.get(key)
        if found is None:
            found = self.tensors[key] = ValueSummary(tensor)
        return found

    def all(self, tensors):
        return tuple([self.tensor(t) for t in tensors])

    def entry(self, entry):
        if entry is None or type(entry) is EntrySketch:  # a sketch holds no array: already as small as it gets
            return entry
        found = self.entries.get(entry.index)
        if found is None:
            if any_larger(entry.inputs + entry.outputs, SMALL_BYTES):
                found = EntrySketch.of(entry, self.tensor)
            else:
                found = entry
            self.entries[entry.index] = found
        return found


def compact(event, compaction=None, keep_results=False):
    """``event`` with its large tensors replaced by summaries (see :class:`Compaction`)."""
    return (compaction or Compaction()).event(event, keep_results)


def tapes_of(event):
    """The serial numbers of the tapes an event concerns."""
    if isinstance(event, events.OpExecuted):
        return event.tapes
    tape = getattr(event, "tape", None)
    return () if tape is None else (tape,)


class Log:
    """Every event of one thread while subscribed, as ``(seq, event)`` in order (what ``trace()`` keeps).

    Events from other threads are left out: a trace shows the code of its block.
    """

    def __init__(self):
        self.records = []
        self.thread = threading.get_ident()

    def __call__(self, event):
        if threading.get_ident() == self.thread:
            self.records.append((_next_seq(), event))


class _Sweep:
    """One sweep of one tape: its start, its steps, its finish; and what holding them costs.

    ``steps`` holds the ``BackwardStep`` events of its ``BackwardSteps`` as
    they came, appended a batch at a time.
    ``large``: bytes of the tensors over ``SMALL_BYTES`` that the sweep holds
    and no tape does (its gradients); ``small``: the rest of its cost
    (events, small tensors). The steps before ``counted`` are in those
    figures (with the start, and the finish once ``finish_counted``); later
    ones only in ``rough`` (the bytes of their arriving gradients), until the
    sweep is settled: once it ended, when the rough sums of the sweeps waiting
    (``waiting``, each) could pass the budget, or something reads the count
    (never, if its tape dies first); sooner when a running sweep's ``rough``
    would pass the budget. ``seen``: ids of the tensors counted, so
    a gradient passed on as the next step's upstream counts once (None once
    the sweep is counted to its end).
    """

    __slots__ = (
        "key",
        "tape",
        "start",
        "steps",
        "finish",
        "large",
        "small",
        "rough",
        "counted",
        "waiting",
        "start_counted",
        "finish_counted",
        "seen",
        "demoted",
        "open",
        "alive",
        "returned",
    )

    def __init__(self, key, tape, start):
        self.key, self.tape = key, tape
        self.start = start  # (seq, SweepStarted)
        self.steps = []
        self.finish = None  # (seq, SweepFinished) once it ended
        self.large = self.small = self.rough = self.counted = 0
        self.waiting = 0  # its rough bytes while it waits among the recorder's unsettled sweeps
        self.start_counted = self.finish_counted = False
        self.seen = set()
        self.demoted = False  # its large tensors were replaced by summaries: later ones are too, when settled
        self.open = True  # steps still arrive (from the thread sweeping); only that thread rewrites them
        self.alive = True
        self.returned = False  # some steps hold a returned gradient weakly (see Returned)

    @property
    def first_seq(self):
        return self.start[0]

    @property
    def records(self):
        """``(seq, event)`` of the sweep, in order (the returned gradients the caller still holds, else
        their summaries)."""
        records = [self.start]
        if self.returned:
            records += [
                (step.order, _with_gradients(step, _resolved(step.upstream), _resolved(step.grads)))
                for step in self.steps
            ]
        else:
            records += _step_records(self.steps)
        if self.finish is not None:
            seq, finish = self.finish
            records.append((seq, dataclasses.replace(finish, results=_resolved(finish.results))))
        return records

    def charge(self, steps, tensors, n_events, last=False):
        """Count the tensors of ``steps`` and ``tensors`` not counted yet, and ``n_events`` events (the
        steps and what else was counted); returns the large bytes added.

        ``last``: nothing comes after these (the ids seen need not be kept).
        """
        held = {}  # id -> tensor: ids are unique while the steps hold the tensors
        for step in steps:
            for tensor in step.upstream:
                if type(tensor) is Tensor:  # not None, a variable (the user's), a summary
                    held[id(tensor)] = tensor
            for tensor in step.grads:
                if type(tensor) is Tensor:
                    held[id(tensor)] = tensor
        for tensor in tensors:
            if type(tensor) is Tensor:
                held[id(tensor)] = tensor
        seen = self.seen
        if seen:
            for key in seen.intersection(held):
                del held[key]
        if not last:
            seen.update(held)
        large = small = 0
        for tensor in held.values():
            size = to_array(tensor).nbytes
            if size > SMALL_BYTES:
                large += size + TENSOR_BYTES
            else:
                small += size + TENSOR_BYTES
        self.large += large
        self.small += small + EVENT_BYTES * n_events
        return large


def _step_records(steps):
    """``(seq, BackwardStep)`` for each of ``steps`` (a sweep's ``BackwardStep`` events): seq is its order."""
    return [(step.order, step) for step in steps]


def _rough_bytes(entries):
    """More than the bytes the outputs of ``entries`` (live ones) hold alone: views and variables' arrays
    count too."""
    return total_nbytes([tensor for entry in entries for tensor in entry.outputs], -1, TENSOR_BYTES)


def _released_bytes(entries):
    """Bytes of the large outputs of ``entries`` (what a log holds alone once its tape released them;
    a variable read's output is the variable's array, and a sketch holds none)."""
    # Most tapes hold no large output: seen in one C-level pass (no Python call per op), and done.
    try:
        largest = max(map(_NBYTES, chain.from_iterable(map(_OUTPUTS, entries))), default=0)
    except AttributeError:  # a sketch (the log was compacted): the exact count below
        largest = SMALL_BYTES + 1
    if largest <= SMALL_BYTES:
        return 0
    total = 0
    for entry in entries:
        if entry.primitive.name == _READ:
            continue
        for tensor in entry.outputs:
            if type(tensor) is Tensor:
                size = to_array(tensor).nbytes
                if size > SMALL_BYTES:
                    total += size + TENSOR_BYTES
    return total


_OUTPUTS = operator.attrgetter("outputs")
_NBYTES = operator.attrgetter("_value.nbytes")


def _large_tensors_bytes(tensors):
    """Bytes of the distinct large tensors (no tape's) among ``tensors``."""
    distinct = {id(t): t for t in tensors if _is_large(t)}
    return sum(map(_owned_bytes, distinct.values()))


def _step_tensors(steps):
    """The gradients ``steps`` (``BackwardStep`` events) hold: each step's upstream and grads."""
    return [tensor for step in steps for tensor in step.upstream + step.grads]


class _TapeLog:
    """What the recorder keeps of one tape: its events, the entries it released, its sweeps.

    The ops themselves are the tape's: read from the tape while it holds
    them (``tape.recorded_ops``), and kept here (``released``, one list per
    release) once it drops them, so a used tape still draws its values.
    ``events``/``seqs``: the tape's other events (entered, watched, exited,
    released), two flat lists. Sweeps are kept apart (``sweeps``), so the
    budget can drop the oldest without touching the ops. ``outputs``: bytes
    of the large tensors of the released entries; ``large``: what of that
    is charged to the budget.
    """

    __slots__ = (
        "serial",
        "key",
        "seqs",
        "events",
        "released",
        "weighed",
        "unweighed",
        "outputs",
        "large",
        "sweeps",
        "open_sweep",
        "tape_ref",
    )

    def __init__(self, serial, key):
        self.serial, self.key = serial, key
        self.seqs = []
        self.events = []
        self.released = []  # per release, the entries the tape dropped (or their sketches)
        self.weighed = 0  # the releases before this one are in ``outputs``
        self.unweighed = 0  # the rough bytes of the others
        self.outputs = 0
        self.large = 0
        self.sweeps = deque()  # _Sweep, oldest first
        self.open_sweep = None
        self.tape_ref = None  # keeps the weak reference (and its callback) alive

    def entries(self):
        """Every entry of the tape the recorder can show, in order: those released, then the live ones."""
        tape = self.tape_ref() if self.tape_ref is not None else None
        live = tape.recorded_ops if tape is not None else ()
        if not self.released:
            if not live and tape is not None and tape.released:  # released before the recorder joined
                return list(tape.history)
            return list(live)
        return [entry for part in self.released for entry in part] + list(live)

    def other_records(self):
        """``(seq, event)`` of everything but the ops: the tape's events, then its sweeps'."""
        records = []
        for seq, event in zip(self.seqs, self.events):
            if type(event) is _BACKWARD_STEPS:  # steps of a sweep the recorder did not see start
                records += _step_records(event.steps)
            elif type(event) is events.SweepFinished:  # likewise: its results, perhaps held weakly
                records.append((seq, dataclasses.replace(event, results=_resolved(event.results))))
            else:
                records.append((seq, event))
        for sweep in self.sweeps:
            records += sweep.records
        return records


_READ = "ReadVariableOp"  # its output shares the variable's array: the variable's bytes, not the tape's
_TAPES = operator.attrgetter("tapes")


class SessionRecorder:
    """Keeps, for every live tape, what a picture of it needs; see the module docstring.

    It subscribes as a reader of tapes (``events.subscribe(..., reads_tapes=True)``):
    it hears no event per recorded op (it reads the tape's entries when something
    is drawn, and keeps those a release drops) and gets a sweep's steps in
    batches. Each kind of event has its ``on_<kind>`` handler (the bus finds it
    once). Everything that counts bytes takes ``_lock``, so several threads
    recording at once keep the count exact.

    The budget bounds three kinds of holdings, oldest shed first: sweeps
    (their gradients), logs of released tapes (their entries' large
    tensors), untaped ops. A sweep or a log past the budget is first
    compacted (large tensors become summaries: a copy of its records, done
    only then), then sweeps and untaped ops are dropped, never the newest sweep.
    """

    def __init__(self, budget=DEFAULT_BUDGET, untaped_limit=2000):
        self.budget = budget
        self.logs = {}  # tape serial -> _TapeLog, dropped when the tape dies
        self.untaped = deque(maxlen=untaped_limit)  # (seq, event, bytes): ops no tape recorded, assigns
        self.untaped_bytes = 0  # of the untaped ring
        self.sweep_bytes = 0  # of the sweeps kept
        self.log_bytes = 0  # of released tapes' logs not compacted yet
        self._sweeps = OrderedDict()  # key -> _Sweep of a live tape, oldest first
        self._superseded = OrderedDict()  # key -> _Sweep that is not its tape's newest, oldest first
        self._heavy = OrderedDict()  # key -> _Sweep or _TapeLog holding large tensors alone, oldest first
        self._next_key = itertools.count().__next__
        self._dead = deque()  # logs of tapes that died, discharged under the lock
        self._unsettled = deque()  # closed sweeps not counted yet
        self._unsettled_rough = 0  # their rough bytes, all together
        self._unweighed = deque()  # logs with releases not weighed exactly yet
        self._unweighed_rough = 0  # their rough bytes, all together
        self._lock = events.held(threading.RLock())  # a tape collected meanwhile is heard after it

    def held_bytes(self):
        """Bytes the recorder holds that no tape does (what ``budget`` bounds)."""
        with self._lock:
            self._weigh_all()
            self._settle_all()
            self._fit()  # sheds past the budget
            return self.untaped_bytes + self.sweep_bytes + self.log_bytes

    def _held_roughly(self):
        """What is counted, and what the sweeps not counted yet roughly hold."""
        return self.untaped_bytes + self.sweep_bytes + self.log_bytes + self._unsettled_rough + self._unweighed_rough

    def _log(self, serial):
        log = self.logs.get(serial)
        if log is None:
            log = self.logs[serial] = _TapeLog(serial, self._next_key())
            tape = tape_with_serial(serial)
            if tape is not None:  # the log goes with the tape (a plain weak reference: cheaper than finalize)
                log.tape_ref = weakref.ref(tape, functools.partial(self._forget, serial))
        return log

    def _forget(self, serial, _ref=None):
        # Called by the garbage collector, maybe inside a locked section: only atomic steps here. The
        # arrays go at once (the next step's allocations reuse their memory); the counts, when buried.
        log = self.logs.pop(serial, None)
        if log is not None:
            log.released, log.events = [], []
            for sweep in log.sweeps:
                sweep.steps = []
            if log.sweeps or log.large or log.unweighed:
                self._dead.append(log)

    def _bury(self):
        """Discharge what the logs of tapes that died were charged (under the lock)."""
        while self._dead:
            log = self._dead.popleft()
            for sweep in log.sweeps:
                self._drop_sweep(sweep)
            self.log_bytes -= log.large
            log.large = 0
            self._unweighed_rough -= log.unweighed
            log.unweighed = 0  # (its place in _unweighed is skipped when weighing)
            self._heavy.pop(log.key, None)

    # -- one handler per event type ----------------------------------------------------------
    def on_op_executed(self, event):
        """An op no tape recorded (the recorded ones are read from their tapes): kept in a short ring,
        for ``explain``; ops a sweep ran outside every tape belong to no picture."""
        if not event.tapes and event.entry.depth == 0:
            self._keep_untaped(_next_seq(), compact(event))

    def on_backward_steps(self, event):
        """A batch of a sweep's steps: appended, and their arriving gradients' bytes added up roughly."""
        log = self.logs.get(event.tape) or self._log(event.tape)
        sweep = log.open_sweep
        if sweep is None:  # steps of a sweep the recorder did not see start: kept as they came
            self._keep_in_log(event)
            return
        sweep.steps += event.steps
        # Roughly: each gradient arrives at one step (or is a result), so this adds them all up, a step
        # late, each with its Tensor. Settled early only when what it holds uncounted is worth a pass
        # (big, and past the budget).
        rough = sweep.rough = sweep.rough + event.nbytes + (EVENT_BYTES + TENSOR_BYTES) * len(event.steps)
        if rough > SETTLE_BYTES and rough + self.untaped_bytes + self.sweep_bytes + self.log_bytes > self.budget:
            with self._lock:
                self._count(sweep)
                self._fit(sweep)

    def on_sweep_started(self, event):
        log = self.logs.get(event.tape) or self._log(event.tape)
        with self._lock:
            if self._dead:
                self._bury()
            unsettled = self._unsettled
            while unsettled and not unsettled[0].alive:  # their tapes died (a training loop's): nothing to count
                unsettled.popleft()
            if unsettled and self._held_roughly() > self.budget:  # what the last sweeps left, roughly
                self._fit()
            if log.sweeps:
                previous = log.sweeps[-1]
                if previous.alive:
                    self._superseded[previous.key] = previous
            log.open_sweep = sweep = _Sweep(self._next_key(), event.tape, (_next_seq(), event))
            log.sweeps.append(sweep)
            self._sweeps[sweep.key] = sweep

    def on_sweep_finished(self, event):
        log = self.logs.get(event.tape) or self._log(event.tape)
        sweep = log.open_sweep
        rough = EVENT_BYTES + total_nbytes(event.results, -1, TENSOR_BYTES)
        event, holders = _returned_weakly(event)  # the caller's gradients: never kept alive here
        if sweep is None:
            self._keep_in_log(event)
            return
        if holders:  # (the sweep is still open: only this thread touches its steps)
            sweep.steps = _with_holders(sweep.steps, holders)
            sweep.returned = True
        sweep.finish = (_next_seq(), event)
        log.open_sweep = None
        sweep.open = False
        rough += sweep.rough
        with self._lock:  # counted later, only if its tape outlives the next sweeps and they pass the budget
            sweep.waiting = rough
            self._unsettled_rough += rough
            self._unsettled.append(sweep)

    def on_variable_assigned(self, event):
        self._keep_untaped(_next_seq(), event)  # an assignment: explain() tells what changed a variable

    def on_tape_entered(self, event):
        self._keep_in_log(event)

    on_tape_exited = on_watched = on_tape_entered

    def on_tape_released(self, event):
        """The tape no longer holds its entries: the log keeps them, weighed roughly now and exactly
        later, if the tape outlives the next release or sweep (a training step's tape does not)."""
        log = self._keep_in_log(event)  # its entries are the part ``released`` keeps: one tuple, held twice
        entries = event.entries
        if not entries:
            return
        rough = _rough_bytes(entries)
        with self._lock:
            if self.logs.get(log.serial) is not log:
                return  # the tape died first: nothing to keep
            if self._unweighed:
                self._weigh_all()
            log.released.append(entries)
            log.unweighed += rough
            self._unweighed_rough += rough
            self._unweighed.append(log)
            if self._held_roughly() > self.budget:  # shed now if the budget cannot hold it, roughly
                self._fit()

    def _keep_in_log(self, event):
        """Keep ``event`` among its tape's events; returns the tape's log."""
        log = self.logs.get(event.tape) or self._log(event.tape)
        log.seqs.append(_next_seq())
        log.events.append(event)
        return log

    # -- the budget ---------------------------------------------------------------------------
    def _count(self, sweep):
        """Count the sweep's steps (and start, finish) not counted yet, exactly (under the lock).

        By the thread running the sweep, or once it closed: rewriting its steps (after a
        demotion) races with nothing.
        """
        self._unsettled_rough -= sweep.waiting
        sweep.waiting = 0
        steps = sweep.steps
        if sweep.demoted:
            compaction = Compaction()
            for position in range(sweep.counted, len(steps)):
                steps[position] = compaction.event(steps[position])
        tensors = []
        n_events = len(steps) - sweep.counted
        if not sweep.start_counted:
            tensors += sweep.start[1].output_gradients
            n_events += 1
            sweep.start_counted = True
        if sweep.finish is not None and not sweep.finish_counted:
            tensors += sweep.finish[1].results
            n_events += 1
            sweep.finish_counted = True
        before = sweep.large + sweep.small
        sweep.charge(steps[sweep.counted :], tensors, n_events, last=not sweep.open)
        sweep.counted, sweep.rough = len(steps), 0
        if sweep.demoted:  # what is still large is a result: the sweep's fixed cost
            sweep.small, sweep.large = sweep.small + sweep.large, 0
        if not sweep.open:
            sweep.seen = None  # nothing more to count: free the ids
        if sweep.alive:
            self.sweep_bytes += sweep.large + sweep.small - before
            if sweep.large:
                self._heavy[sweep.key] = sweep

    def _weigh_all(self):
        """Weigh exactly the releases not weighed yet, where their tapes live (under the lock)."""
        unweighed = self._unweighed
        while unweighed:
            log = unweighed.popleft()
            if self.logs.get(log.serial) is not log:
                continue  # its tape died: buried, or about to be
            self._unweighed_rough -= log.unweighed
            log.unweighed = 0
            for part in log.released[log.weighed :]:
                log.outputs += _released_bytes(part)
            log.weighed = len(log.released)
            if log.outputs > log.large:
                self.log_bytes += log.outputs - log.large
                log.large = log.outputs
                self._heavy[log.key] = log

    def _settle_all(self):
        """Count what closed sweeps left to count, where their tapes live (under the lock)."""
        unsettled = self._unsettled
        while unsettled:
            item = unsettled.popleft()
            if item.alive:
                self._count(item)

    def _keep_untaped(self, seq, event):
        size = EVENT_BYTES
        if type(event) is events.OpExecuted and event.entry is not None:
            size += sum(map(_owned_bytes, event.entry.inputs + event.entry.outputs))
        with self._lock:
            if len(self.untaped) == self.untaped.maxlen:
                self.untaped_bytes -= self.untaped[0][2]
            self.untaped.append((seq, event, size))
            self.untaped_bytes += size
            if self._dead or self.untaped_bytes + self.sweep_bytes + self.log_bytes > self.budget:
                self._fit()

    def _fit(self, own=None):
        """Shed what the budget cannot hold (under the lock).

        First the sweeps a newer sweep of the same tape superseded (a player plays the newest;
        one not counted yet goes uncounted: a jacobian's rows are never counted), then large
        tensors become summaries (of released logs, closed sweeps, and ``own``: the open sweep
        of the calling thread), then the oldest sweeps and untaped ops go.
        """
        if self._dead:
            self._bury()
        if self._held_roughly() <= self.budget:
            return
        # Shed down to a low-water mark, so the next events do not each pay for shedding again.
        low_water = self.budget * 3 // 4
        while self._superseded and self._held_roughly() > low_water:
            self._drop_oldest_of(self._superseded.popitem(last=False)[1])
        if self._held_roughly() <= low_water:
            return  # what is left uncounted waits, as it was
        self._weigh_all()
        self._settle_all()
        while self.untaped_bytes + self.sweep_bytes + self.log_bytes > low_water:
            if self._superseded:
                self._drop_oldest_of(self._superseded.popitem(last=False)[1])
                continue
            # The oldest first, by key: counting is late, so the order they were counted in is not their age.
            heavy = next((self._heavy[key] for key in sorted(self._heavy) if _may_demote(self._heavy[key], own)), None)
            if heavy is not None:
                if type(heavy) is _Sweep:
                    self._demote(heavy)
                else:
                    self._compact(heavy)
                continue
            oldest_sweep = next(iter(self._sweeps.values()), None)
            if oldest_sweep is not None and len(self._sweeps) == 1:
                oldest_sweep = None  # the newest sweep is what a player plays: kept
            if self.untaped and (oldest_sweep is None or self.untaped[0][0] < oldest_sweep.first_seq):
                self.untaped_bytes -= self.untaped.popleft()[2]
            elif oldest_sweep is not None:
                self._drop_oldest_of(oldest_sweep)
            else:
                break

    def _drop_oldest_of(self, sweep):
        """Drop ``sweep``, the oldest kept sweep of its tape."""
        log = self.logs.get(sweep.tape)
        if log is not None and log.sweeps:
            if log.sweeps[0] is sweep:
                log.sweeps.popleft()
            elif sweep in log.sweeps:  # rare: a sweep superseded out of order
                log.sweeps.remove(sweep)
        self._drop_sweep(sweep)

    def _demote(self, sweep, compaction=None):  # under the lock, by the sweep's thread or once it closed
        """Replace the large gradients of ``sweep`` by summaries; later ones are summarised on arrival.

        Its results stay (with the targets and sources): they are the caller's, and what a
        picture of the sweep ends on; from now on they count as the sweep's fixed cost.
        """
        compaction = compaction or Compaction()
        counted = sweep.counted
        sweep.steps[:counted] = [compaction.event(step) for step in sweep.steps[:counted]]
        sweep.start = (sweep.start[0], compaction.event(sweep.start[1], True))
        sweep.demoted = True
        kept = list(sweep.start[1].output_gradients) + _step_tensors(sweep.steps[:counted])
        if sweep.finish_counted:
            kept += sweep.finish[1].results
        kept = _large_tensors_bytes(kept)
        self.sweep_bytes -= sweep.large - kept
        sweep.small += kept
        sweep.large = 0
        self._heavy.pop(sweep.key, None)

    def _drop_sweep(self, sweep):
        if sweep.alive:
            sweep.alive = False
            self._unsettled_rough -= sweep.waiting  # (its place in _unsettled is skipped when settling)
            sweep.waiting = 0
            self.sweep_bytes -= sweep.large + sweep.small
            self._sweeps.pop(sweep.key, None)
            self._heavy.pop(sweep.key, None)
            self._superseded.pop(sweep.key, None)

    def _compact(self, log):
        """Keep small tensors only in a released tape's log (and its sweeps): the tape no longer holds
        the large ones. A sweep's results, targets and sources stay: they are the caller's."""
        compaction = Compaction()
        log.released = [[compaction.entry(entry) for entry in part] for part in log.released]
        log.events = [compaction.event(event) for event in log.events]
        self.log_bytes -= log.large
        log.large = log.outputs = 0
        self._heavy.pop(log.key, None)
        for sweep in log.sweeps:
            if sweep.alive and not sweep.demoted and not sweep.open:
                self._demote(sweep, compaction)

    def compact_released(self):
        """Compact every released tape's log now, whatever the budget (frees what only the recorder holds)."""
        with self._lock:
            self._bury()
            self._weigh_all()
            self._settle_all()
            for item in [item for item in self._heavy.values() if type(item) is _TapeLog]:
                self._compact(item)

    # -- reading ------------------------------------------------------------------------------
    def records_for(self, tape, with_untaped=False):
        """The ``(seq, event)`` of ``tape`` and of every tape that shared an op with it, in order.

        Returns None when the recorder never saw the tape. Each op is an
        ``OpExecuted`` naming the tapes that recorded it (``entry.tapes``);
        where two logs hold the same entry, the live one wins over a sketch.
        """
        log = self.logs.get(tape.serial)
        if log is None:
            return None
        own = (tape.serial,)  # the tapes of an entry from a tape's own sketch (its history), which has none
        ops = {entry.index: entry for entry in log.entries()}
        related = set(chain.from_iterable(map(_TAPES, ops.values())))
        related.discard(tape.serial)
        logs = [log] + [self.logs[serial] for serial in sorted(related) if serial in self.logs]
        for other in logs[1:]:
            for entry in other.entries():
                found = ops.get(entry.index)
                if found is None or (isinstance(found, EntrySketch) and not isinstance(entry, EntrySketch)):
                    ops[entry.index] = entry
        merged = {index: _OP_EXECUTED(entry, entry.tapes or own) for index, entry in ops.items()}
        for other in logs:
            for seq, event in other.other_records():
                merged.setdefault(seq, event)
        if with_untaped:
            with self._lock:
                untaped = list(self.untaped)
            for seq, event, _size in untaped:
                merged.setdefault(seq, event)
        return [(seq, merged[seq]) for seq in sorted(merged)]


def _may_demote(item, own):
    """A sweep another thread is still adding to is left alone (its thread settles it)."""
    return type(item) is not _Sweep or not item.open or item is own


SESSION = SessionRecorder()
_session_on = False


def watch_all():
    """Keep per-tape events from now on (on by default once ``tapeviz.viz`` is imported)."""
    global _session_on
    if not _session_on:
        events.subscribe(SESSION, untaped_sweep_ops=False, reads_tapes=True)  # it would drop untaped sweep ops
        _session_on = True


def is_watching():
    """Whether the session recorder is on (``watch_all``) or off (``stop_watching``)."""
    return _session_on


def stop_watching():
    """Stop the session recorder (tapes then draw from their own ``history``)."""
    global _session_on
    events.unsubscribe(SESSION)
    _session_on = False


def set_budget(nbytes):
    """Bytes the session recorder may hold that no tape holds (gradients of sweeps, untaped ops)."""
    if nbytes < 0:
        raise ValueError(f"The budget is a number of bytes >= 0, got {nbytes!r}.")
    with SESSION._lock:
        SESSION.budget = int(nbytes)
        SESSION._weigh_all()
        SESSION._settle_all()
        SESSION._fit()


def static_records(tape):
    """Events synthesised from a tape's own history, for a tape recorded unobserved."""
    records = [(_next_seq(), events.TapeEntered(tape.serial, tape.persistent, tape.watch_accessed_variables))]
    records += [(_next_seq(), events.Watched(tape.serial, v, True)) for v in tape.watched_variables()]
    records += [(_next_seq(), events.OpExecuted(entry, (tape.serial,))) for entry in tape.history]
    if tape.released:
        records.append((_next_seq(), events.TapeReleased(tape.serial, "gradient")))
    return records


def records_of(tape):
    """(records, complete) for a tape: the session's records when there are any.

    ``complete`` is False when the recorder did not see the tape begin: then
    its settings and watches come from the tape itself, and sweeps or ops
    outside the tape before the recorder joined are missing.
    """
    records = SESSION.records_for(tape)
    if not records:
        return static_records(tape), False
    if not any(type(event) is events.TapeEntered for _seq, event in records):
        opening = [record for record in static_records(tape) if type(record[1]) in _OPENING]
        return opening + records, False
    return records, True


_OPENING = (events.TapeEntered, events.Watched)
