"""Keeping the core's events for the visualizer, bounded in bytes.

The events themselves are the records (:mod:`tapeviz.core.events`): kept as
they are, each with a sequence number, and read by the trace builder. Two
ways to keep them:

* ``trace()`` (see :mod:`tapeviz.viz.trace`) subscribes a :class:`Log` for
  a ``with`` block and keeps every event of its thread: every tape, every op
  (also those no tape recorded), every sweep.
* The **session recorder** is subscribed when ``tapeviz.viz`` is imported
  (``watch_all()`` / ``stop_watching()`` turn it on and off). It keeps, per
  live tape, the events that concern that tape, so a tape at the end of a
  cell draws its sweeps; ops no tape recorded go to a short ring, because
  ``explain`` needs them.

What it keeps is bounded in bytes, not in counts of ops:

* tensors a live tape holds anyway (its recorded entries) cost nothing more;
* when a tape releases its entries (a non-persistent tape after
  ``gradient``), its events keep only small tensors (at most
  ``SMALL_BYTES``); larger ones become :class:`ValueSummary` stand-ins
  (shape, dtype; no array), so the memory goes as TF frees it;
* gradients seen during a sweep and ops no tape recorded are summarised as
  they arrive when they are larger than ``SMALL_BYTES`` (their mean/min/max
  are computed once, up to ``SUMMARY_LIMIT_BYTES``);
* the ring of untaped ops holds at most ``budget`` bytes of small tensors.

A tape recorded before ``tapeviz.viz`` was imported is still drawn, from the
tape's own ``history`` (its entries, or their sketches once released).
"""

import dataclasses
import itertools
import threading
import weakref
from collections import deque

import numpy as np

from tapeviz.core import events
from tapeviz.core.history import EntrySketch, TensorSketch
from tapeviz.core.tape import tape_with_serial
from tapeviz.core.tensor import Tensor, any_larger, is_tensor, tensor_id, to_array
from tapeviz.viz import format as fmt

SMALL_BYTES = 1024  # tensors up to this size are kept whole
SUMMARY_LIMIT_BYTES = 8 << 20  # larger tensors are not even summarised: shape and dtype only
DEFAULT_BUDGET = 16 << 20  # bytes of small tensors the untaped ring may keep

_next_seq = itertools.count().__next__


class ValueSummary(TensorSketch):
    """A large tensor the recorder did not keep: shape, dtype, and a preview when computed."""

    __slots__ = ("preview", "nbytes", "nonfinite")

    def __init__(self, tensor, with_values):
        value = tensor.numpy()
        super().__init__(tensor_id(tensor), tuple(value.shape), tensor.dtype)
        self.nbytes = int(value.nbytes)
        self.preview = fmt.preview(value) if with_values else None
        self.nonfinite = bool(value.dtype.kind == "f" and not np.all(np.isfinite(value))) if with_values else None


def nbytes(tensor):
    """Bytes of a live tensor's array (0 for sketches and None)."""
    return int(to_array(tensor).nbytes) if is_tensor(tensor) else 0


def _held_bytes(tensor):
    """Bytes the recorder keeps alive by holding ``tensor`` (variables are the user's)."""
    return to_array(tensor).nbytes if type(tensor) is Tensor else 0


def _is_large(tensor):
    """A tensor the recorder keeps only as a summary (variables are the user's: always kept)."""
    return type(tensor) is Tensor and to_array(tensor).nbytes > SMALL_BYTES


def compact(event, summaries, with_values=False):
    """``event`` itself when it holds no large tensor, else a copy holding summaries of them.

    ``summaries`` is shared by the events of one compaction, so a tensor (and
    an entry) seen twice gets one stand-in.
    """
    if isinstance(event, events.OpExecuted):
        entry = _light_entry(event.entry, summaries)
        return event if entry is event.entry else dataclasses.replace(event, entry=entry)
    if isinstance(event, events.BackwardStep):
        entry = _light_entry(event.entry, summaries)
        if entry is event.entry and not any(map(_is_large, event.upstream + event.grads)):
            return event
        return dataclasses.replace(
            event,
            entry=entry,
            upstream=_light_all(event.upstream, summaries, with_values),
            grads=_light_all(event.grads, summaries, with_values),
        )
    if isinstance(event, events.SweepStarted):
        if not any(map(_is_large, event.targets + event.sources + event.output_gradients)):
            return event
        return dataclasses.replace(
            event,
            targets=_light_all(event.targets, summaries, with_values),
            sources=_light_all(event.sources, summaries, with_values),
            output_gradients=_light_all(event.output_gradients, summaries, with_values),
        )
    if isinstance(event, events.SweepFinished):
        if not any(map(_is_large, event.results)):
            return event
        return dataclasses.replace(event, results=_light_all(event.results, summaries, with_values))
    return event


def _light(tensor, summaries, with_values):
    """``tensor`` itself unless it is large; else its (shared) summary."""
    if not _is_large(tensor):
        return tensor
    key = tensor_id(tensor)
    found = summaries.get(key)
    if found is None:
        found = summaries[key] = ValueSummary(tensor, with_values and nbytes(tensor) <= SUMMARY_LIMIT_BYTES)
    return found


def _light_all(tensors, summaries, with_values):
    return tuple([_light(t, summaries, with_values) for t in tensors])


def _light_entry(entry, summaries):
    if entry is None or not any(map(_is_large, entry.inputs + entry.outputs)):
        return entry
    key = ("entry", entry.index)
    if key not in summaries:
        summaries[key] = EntrySketch.of(entry, lambda t: _light(t, summaries, False))
    return summaries[key]


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


class _TapeLog:
    """The events that concern one tape, and their sequence numbers.

    Two flat lists rather than a list of pairs: one pair per op would be
    one more object for the garbage collector to walk for as long as the
    tape lives.
    """

    __slots__ = ("seqs", "events", "related", "holds_large")

    def __init__(self):
        self.seqs = []
        self.events = []
        self.related = set()  # serials of tapes that shared an op with this one
        self.holds_large = False  # a large tensor was seen: compact the log when the tape releases

    @property
    def records(self):
        return list(zip(self.seqs, self.events))


class SessionRecorder:
    """Keeps per-tape events for every live tape; see the module docstring.

    Called once per op while listening, so the common events take short paths.
    """

    def __init__(self, budget=DEFAULT_BUDGET, untaped_limit=2000):
        self.budget = budget
        self.logs = {}  # tape serial -> _TapeLog, dropped when the tape dies
        self.untaped = deque(maxlen=untaped_limit)  # (seq, event, bytes): ops no tape recorded, assigns, enter/exit
        self.untaped_bytes = 0

    def _log(self, serial):
        log = self.logs.get(serial)
        if log is None:
            log = self.logs[serial] = _TapeLog()
            tape = tape_with_serial(serial)
            if tape is not None:  # the log goes with the tape
                weakref.finalize(tape, self.logs.pop, serial, None)
        return log

    def __call__(self, event):
        kind = type(event)
        if kind is _OP_EXECUTED:  # the commonest event (every op), handled here in full
            tapes = event.tapes
            if tapes:
                seq = _next_seq()
                entry = event.entry
                large = any_larger(entry.inputs + entry.outputs, SMALL_BYTES)
                for serial in tapes:
                    log = self.logs.get(serial) or self._log(serial)
                    log.seqs.append(seq)
                    log.events.append(event)
                    if large:
                        log.holds_large = True
                    if len(tapes) > 1:
                        log.related.update(tapes)
            elif event.entry.depth == 0:  # ops a sweep ran outside every tape belong to no picture
                self._keep_untaped(_next_seq(), event)
            return
        if kind is _BACKWARD_STEP:  # the next commonest (every step of a sweep), also in full
            entry = event.entry
            if any_larger(entry.inputs + entry.outputs + event.upstream + event.grads, SMALL_BYTES):
                event = compact(event, {}, with_values=True)  # gradients are held by no tape
            log = self.logs.get(event.tape) or self._log(event.tape)
            log.seqs.append(_next_seq())
            log.events.append(event)
            return
        seq = _next_seq()
        if kind in _SWEEP_EVENTS:
            event = compact(event, {}, with_values=True)
        elif kind is events.TapeEntered or kind is events.TapeExited or kind is events.VariableAssigned:
            self._keep_untaped(seq, event)  # explain() needs when tapes (stopped) recording
        serial = getattr(event, "tape", None)
        if serial is not None:
            log = self.logs.get(serial) or self._log(serial)
            log.seqs.append(seq)
            log.events.append(event)
            if kind is events.TapeReleased and event.reason != "deleted":
                self._compact(serial)

    def _keep_untaped(self, seq, event):
        size = 0
        if isinstance(event, events.OpExecuted) and event.entry is not None:
            event = compact(event, {})
            size = sum(map(_held_bytes, event.entry.inputs + event.entry.outputs))
        if len(self.untaped) == self.untaped.maxlen:
            self.untaped_bytes -= self.untaped[0][2]
        self.untaped.append((seq, event, size))
        self.untaped_bytes += size
        while self.untaped_bytes > self.budget and self.untaped:
            self.untaped_bytes -= self.untaped.popleft()[2]

    def _compact(self, serial):
        """After a release, keep small tensors only: the tape no longer holds the large ones."""
        log = self.logs.get(serial)
        if log is None or not log.holds_large:
            return
        summaries = {}
        log.events = [compact(event, summaries) for event in log.events]
        log.holds_large = False

    def records_for(self, tape, with_untaped=False):
        """The ``(seq, event)`` of ``tape`` and of every tape that shared an op with it, in order.

        Returns None when the recorder never saw the tape. Where two logs hold
        the same event, the less compacted one wins.
        """
        log = self.logs.get(tape.serial)
        if log is None:
            return None
        merged = {}
        for serial in sorted(log.related | {tape.serial}):
            other = self.logs.get(serial)
            if other is None:
                continue
            for seq, event in zip(other.seqs, other.events):
                kept = merged.get(seq)
                if kept is None or _is_lighter(kept, event):
                    merged[seq] = event
        if with_untaped:
            for seq, event, _size in self.untaped:
                merged.setdefault(seq, event)
        return [(seq, merged[seq]) for seq in sorted(merged)]


def _is_lighter(kept, event):
    return isinstance(getattr(kept, "entry", None), EntrySketch) and not isinstance(
        getattr(event, "entry", None), EntrySketch
    )


_SWEEP_EVENTS = (events.SweepStarted, events.BackwardStep, events.SweepFinished)
_OP_EXECUTED, _BACKWARD_STEP = events.OpExecuted, events.BackwardStep
SESSION = SessionRecorder()
_session_on = False


def watch_all():
    """Keep per-tape events from now on (on by default once ``tapeviz.viz`` is imported)."""
    global _session_on
    if not _session_on:
        events.subscribe(SESSION, untaped_sweep_ops=False)  # it would drop them
        _session_on = True


def stop_watching():
    """Stop the session recorder (tapes then draw from their own ``history``)."""
    global _session_on
    events.unsubscribe(SESSION)
    _session_on = False


def set_budget(nbytes):
    """Bytes of small tensors the session recorder may keep for ops no tape recorded."""
    if nbytes < 0:
        raise ValueError(f"The budget is a number of bytes >= 0, got {nbytes!r}.")
    SESSION.budget = int(nbytes)


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

    ``complete`` is False when only the tape's own history was available (no
    sweeps, no ops outside the tape).
    """
    records = SESSION.records_for(tape)
    if records and not any(isinstance(e, events.OpExecuted) for _s, e in records) and tape.history:
        # The recorder joined after the ops: the tape's history, then what the recorder saw (its sweeps).
        return [r for r in static_records(tape) if not isinstance(r[1], events.TapeReleased)] + records, False
    if records:
        return records, True
    return static_records(tape), False
