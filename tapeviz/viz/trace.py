"""Events -> a plain, serialisable trace: tapes, tensors, ops, sweeps, events.

The trace is the model every view draws (DOT, the player, HTML, GIF, text):
plain dicts, lists and strings, so it can be saved as JSON, compared in
tests, and rendered anywhere. Ids come from positions (``T0`` the first tape
seen, ``t0`` the first tensor, ``op0`` the first op, ``s0`` the first sweep),
never from ``id()``, so the same code gives the same trace every run.

Layout of ``Trace.data``::

    tapes:   [{id, label, persistent, watch_accessed_variables, released, sweeps}]
    tensors: {tid: {id, kind (variable|leaf|computed), name, trainable, shape,
                    dtype, preview, nbytes, nonfinite, producer, watched_by,
                    seed_of (only on a sweep's seed that an outer tape recorded: the target's tid)}}
    ops:     [{id, name, inputs, outputs, scope, depth, tapes, formula, differentiable, where,
              function (the decorated function's name for a custom gradient, else None)}]
    sweeps:  [{id, tape, targets, sources, seeds, results,
               steps: [{op, upstream, grads, accumulated, totals, norm, grad_norms, underflow}]}]
    events:  [{kind, ...}] in the order they happened, one per core event, named by
              the core's event kind (tapeviz.core.events): tape_entered, tape_exited,
              watched, op_executed, variable_assigned, sweep_started, backward_step,
              sweep_finished, tape_released; trace ids in place of the objects
    notes:   [text] what the picture cannot show, and what to do about it

``norm`` is the L2 norm of the gradient arriving at the step's op (all its outputs together),
``grad_norms[i]`` that of the gradient it sends to input ``i``: a float, "inf" or "nan" (not
finite), None where no value was kept (see :func:`norm_of`); ``underflow`` the inputs whose gradient
underflowed to 0 (upstream x local not 0 in float64, 0 in the dtype).
``accumulated[i]`` counts the gradients that arrived at input ``i`` in this
sweep so far (more than one: a fan-out sum); the builder counts them. Values
the recorder did not keep (large tensors of a released tape) preview as
"released".

How to get one: ``with tapeviz.viz.trace() as t: ...`` records everything in
the block; ``trace_of(tape)`` builds one for a single tape from the session
recorder (or, for a tape recorded unobserved, from the tape's ``history``).
"""

import json
import math
from contextlib import contextmanager

import numpy as np

from tapeviz.core import display as core_display
from tapeviz.core import events as ev
from tapeviz.core import origin
from tapeviz.core.rules import formula as _formula
from tapeviz.core.tensor import is_tensor, tensor_id, to_array
from tapeviz.viz import format as fmt
from tapeviz.viz import recorder
from tapeviz.viz.card import underflows

RELEASED = "released"  # the preview of a value the tape (or the recorder) no longer holds
RELEASED_NOTE = (
    "This tape released its values after gradient(): the picture shows what it recorded, without "
    "values. To see values and the reverse sweep, create it with tf.GradientTape(persistent=True), "
    "or import tapeviz.viz before recording."
)
SUMMARISED_NOTE = (
    "Tensors larger than 1 KiB that the tape released are shown by shape and dtype only (the "
    "visualizer keeps what the tape frees only within its byte budget, tapeviz.viz.recorder.set_budget). "
    "To see their values, create the tape with tf.GradientTape(persistent=True)."
)


def _is_variable(obj):
    return hasattr(obj, "assign") and hasattr(obj, "trainable")


def _value(obj):
    """The value of a live tensor as a NumPy array, or None for a sketch or summary."""
    return np.asarray(obj.numpy()) if is_tensor(obj) else None


def _preview(obj):
    if is_tensor(obj):
        return summarise(obj)[0]
    return getattr(obj, "preview", None) or RELEASED


def summarise(tensor):
    """(preview, nbytes, nonfinite) of a live tensor, reduced where its array lives.

    A large float or integer array is reduced by the backend (NumPy, or CuPy
    on the GPU) to its mean, min and max, and only those numbers travel; the
    text is what :func:`tapeviz.viz.format.preview` writes. Small arrays, and
    the rare large one with non-finite values, are read whole.
    """
    array = to_array(tensor)
    nbytes = int(array.nbytes)
    if array.size > fmt.SMALL and array.dtype.kind in "fiu":
        low, high = float(array.min()), float(array.max())
        if np.isfinite(low) and np.isfinite(high):  # min and max are NaN or inf when any element is
            mean = float(array.mean(dtype=np.float64))
            text = f"mean {fmt.number(mean)}, min {fmt.number(low)}, max {fmt.number(high)}"
            return text, nbytes, False
    value = _value(tensor)
    return fmt.preview(value), nbytes, bool(value.dtype.kind in "fc" and not np.all(np.isfinite(value)))


def norm_of(*tensors):
    """The L2 norm of these tensors together (a gradient arriving at an op's outputs), as the trace keeps it:
    a float, ``"inf"`` or ``"nan"`` when not finite (the trace stays strict JSON), None when a value was not
    kept (a summary past the recorder's budget); a missing gradient (None) counts as zeros."""
    arrays = []
    for tensor in tensors:
        if tensor is None:
            continue
        value = _value(tensor)
        if value is None:
            return None
        arrays.append(value)
    return array_norm(*arrays) if arrays else None


SMALL_NORM = 64  # arrays up to this size are measured in Python (math.hypot): cheaper than NumPy's calls


def array_norm(*arrays):
    """The L2 norm of NumPy arrays together: a float, ``"inf"`` or ``"nan"`` (see :func:`norm_of`).

    Scaled, so 1e200 squared does not overflow; called on every backward step a picture draws, so small
    arrays (a scalar loop's) take one ``math.hypot``."""
    parts, nan = [], False
    for value in arrays:
        if value.size == 0:
            continue
        if value.size <= SMALL_NORM and value.dtype.kind in "fiub":
            part = math.hypot(*value.ravel().tolist())
            nan = nan or math.isnan(part) or (math.isinf(part) and bool(np.isnan(value).any()))
        else:
            magnitude = np.abs(value).astype(np.float64, copy=False)  # a complex gradient: its modulus
            peak = float(magnitude.max())
            if math.isnan(peak):
                nan = True
                continue
            if math.isinf(peak) or peak == 0:
                part = peak
            else:
                part = peak * float(np.sqrt(np.sum(np.square(magnitude / peak))))
        parts.append(part)
    if nan:
        return "nan"
    total = math.hypot(*parts)
    return "inf" if math.isinf(total) else total


def norm_value(norm):
    """A trace's kept norm as a float (``"inf"`` -> inf, ``"nan"`` -> nan), or None."""
    return None if norm is None else float(norm)


class _Builder:
    """Walks the events once, naming everything by position; one handler per event type."""

    def __init__(self, include_untaped):
        self.include_untaped = include_untaped
        self.tape_ids = {}  # serial -> "T0"...
        self.tensor_ids = {}  # tensor_id -> tid
        self.objects = {}  # tid -> the live Tensor / Variable, or its sketch
        self.tensors = {}
        self.ops = []
        self.op_ids = {}  # entry.index -> op id (an entry and its sketch share the index)
        self.entries = {}  # op id -> entry
        self.sweeps = []
        self.events = []
        self.tapes = {}
        self.variable_reads = {}  # variable tid -> first read tensor tid
        self.sweep_events = {}  # sweep id -> [SweepStarted, [BackwardStep...], SweepFinished or None]
        self.notes = set()  # what the picture cannot show

    HANDLERS = {}  # event class -> its on_<kind> method, filled below

    def add(self, event):
        handler = self.HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    # -- naming -----------------------------------------------------------------
    def tape(self, number):
        tid = self.tape_ids.get(number)
        if tid is None:
            tid = self.tape_ids[number] = f"T{len(self.tape_ids)}"
            self.tapes[tid] = {
                "id": tid,
                "label": f"tape {tid[1:]}",
                "persistent": False,
                "watch_accessed_variables": True,
                "released": None,
                "sweeps": 0,
            }
        return tid

    def tensor(self, obj):
        key = tensor_id(obj)
        tid = self.tensor_ids.get(key)
        if tid is None:
            tid = self.tensor_ids[key] = f"t{len(self.tensor_ids)}"
            self.objects[tid] = obj
            variable = _is_variable(obj)
            self.tensors[tid] = {
                "id": tid,
                "kind": "variable" if variable else "leaf",
                # a Keras weight: dense/kernel; names are user text, kept short (every page writes them)
                "name": fmt.short_name(getattr(obj, "path", None) or obj.name) if variable else None,
                "trainable": bool(obj.trainable) if variable else None,
                "shape": [int(n) for n in obj.shape],
                "dtype": obj.dtype.name,
                "preview": None,
                "nbytes": 0,
                "nonfinite": False,
                "producer": None,
                "watched_by": [],
            }
        elif is_tensor(obj) and not is_tensor(self.objects[tid]):
            self.objects[tid] = obj  # a live value beats a sketch of it
        return tid

    def op(self, entry, tapes):
        oid = f"op{len(self.ops)}"
        self.op_ids[entry.index] = oid
        self.entries[oid] = entry
        inputs = [self.tensor(t) for t in entry.inputs]
        outputs = []
        for t in entry.outputs:
            tid = self.tensor(t)
            info = self.tensors[tid]
            if info["producer"] is None and info["kind"] != "variable":
                info["producer"], info["kind"] = oid, "computed"
            outputs.append(tid)
        name = entry.primitive.name
        if name == "ReadVariableOp" and inputs and outputs:
            self.variable_reads.setdefault(inputs[0], outputs[0])
        self.ops.append(
            {
                "id": oid,
                "name": name,
                "inputs": inputs,
                "outputs": outputs,
                "scope": fmt.short_name(entry.scope or ""),
                "depth": int(entry.depth),
                "tapes": [self.tape(n) for n in tapes],
                "formula": _formula(name),
                "differentiable": entry.primitive.differentiable,
                "function": fmt.short_name(entry.attrs.get("function")),  # the function behind a custom gradient
                "where": origin.describe(origin.of(entry)),  # "file.py:12", or ""
            }
        )
        return oid

    def op_id(self, entry, tape):
        oid = self.op_ids.get(entry.index)
        return oid if oid is not None else self.op(entry, (tape,))

    def open_sweep(self, number):
        tape = self.tape(number)
        for sweep in reversed(self.sweeps):
            if sweep["tape"] == tape and sweep["open"]:
                return sweep
        return None

    # -- one handler per kind of event: on_<kind>, the core's name for it ------------------------
    def on_op_executed(self, event):
        if event.entry is None or (not event.tapes and not self.include_untaped):
            return
        self.events.append({"kind": ev.OpExecuted.kind, "op": self.op(event.entry, event.tapes)})

    def on_tape_entered(self, event):
        tape = self.tape(event.tape)
        self.tapes[tape].update(
            persistent=bool(event.persistent), watch_accessed_variables=bool(event.watch_accessed_variables)
        )
        self.events.append({"kind": ev.TapeEntered.kind, "tape": tape})

    def on_tape_exited(self, event):
        self.events.append({"kind": ev.TapeExited.kind, "tape": self.tape(event.tape)})

    def on_watched(self, event):
        tape, tid = self.tape(event.tape), self.tensor(event.source)
        if tape not in self.tensors[tid]["watched_by"]:
            self.tensors[tid]["watched_by"].append(tape)
        self.events.append({"kind": ev.Watched.kind, "tape": tape, "tensor": tid, "automatic": bool(event.automatic)})

    def on_variable_assigned(self, event):
        key = tensor_id(event.variable)
        if self.include_untaped and key in self.tensor_ids:
            self.events.append({"kind": ev.VariableAssigned.kind, "tensor": self.tensor_ids[key]})

    def on_sweep_started(self, event):
        tape = self.tape(event.tape)
        self.tapes[tape]["sweeps"] += 1
        targets = [self.tensor(t) for t in event.targets]
        seeds, totals, arrived = [], {}, {}
        sweep = {
            "id": f"s{len(self.sweeps)}",
            "tape": tape,
            "targets": targets,
            "sources": [self.tensor(s) for s in event.sources],
            "seeds": seeds,
            "steps": [],
            "results": None,
            "open": True,
            "_totals": totals,
            "_arrived": arrived,
        }
        for tid, target, seed in zip(targets, event.targets, event.output_gradients):
            value = np.ones(tuple(target.shape), dtype=np.float64) if seed is None else _value(seed)
            seeds.append(fmt.preview(value) if value is not None else _preview(seed))
            arrived[tid] = arrived.get(tid, 0) + 1
            if value is not None:
                value = value.astype(np.float64)
                with np.errstate(all="ignore"):  # inf + -inf = nan: the total shows it, the notebook gets no warning
                    totals[tid] = totals[tid] + value if tid in totals else value
        self.sweeps.append(sweep)
        self.sweep_events[sweep["id"]] = [event, [], None]
        self.events.append({"kind": ev.SweepStarted.kind, "sweep": sweep["id"], "tape": tape})

    def on_backward_step(self, event):
        sweep = self.open_sweep(event.tape)
        if sweep is None:
            return
        oid = self.op_id(event.entry, event.tape)
        op = self.ops[int(oid[2:])]
        totals, arrived = sweep["_totals"], sweep["_arrived"]
        self.mark_seeds(sweep, op, event.upstream)
        changed, grads, accumulated, grad_norms = {}, [], [], []
        for tid, grad, need in zip(op["inputs"], event.grads, event.needs):
            if grad is None or not need:
                grads.append(None)
                accumulated.append(0)
                grad_norms.append(None)
                continue
            # The how-many-th gradient to arrive at this input in this sweep: more than one is a fan-out sum.
            arrived[tid] = arrived.get(tid, 0) + 1
            accumulated.append(arrived[tid])
            grads.append(_preview(grad))
            value = _value(grad)
            grad_norms.append(None if value is None else array_norm(value))
            if value is None:
                totals.pop(tid, None)
                changed[tid] = _preview(grad) if arrived[tid] == 1 else RELEASED
                continue
            value = value.astype(np.float64)
            with np.errstate(all="ignore"):  # inf + -inf = nan: the total shows it, the notebook gets no warning
                totals[tid] = totals[tid] + value if tid in totals else value
            changed[tid] = fmt.preview(totals[tid])
        arriving = norm_of(*event.upstream)
        sweep["steps"].append(
            {
                "op": oid,
                "upstream": [None if u is None else _preview(u) for u in event.upstream],
                "grads": grads,
                "accumulated": accumulated,
                "totals": changed,
                "norm": arriving,
                "grad_norms": grad_norms,
                # inputs whose gradient underflowed to 0: evaluated only where a 0 left a non-zero upstream
                "underflow": underflows(event, grad_norms) if isinstance(arriving, float) and arriving > 0 else [],
            }
        )
        self.sweep_events[sweep["id"]][1].append(event)
        self.events.append({"kind": ev.BackwardStep.kind, "sweep": sweep["id"], "op": oid})

    def mark_seeds(self, sweep, op, upstream):
        """A constant arriving as the upstream of a sweep's target is its seed (an outer tape drew it)."""
        for out, value in zip(op["outputs"], upstream):
            tid = self.tensor_ids.get(tensor_id(value)) if value is not None else None
            if tid is not None and out in sweep["targets"] and self.tensors[tid]["kind"] == "leaf":
                self.tensors[tid]["seed_of"] = out

    def on_sweep_finished(self, event):
        sweep = self.open_sweep(event.tape)
        if sweep is not None:
            sweep["results"] = [None if g is None else _preview(g) for g in event.results]
            sweep["open"] = False
            self.sweep_events[sweep["id"]][2] = event
            self.events.append({"kind": ev.SweepFinished.kind, "sweep": sweep["id"]})

    def on_tape_released(self, event):
        tape = self.tape(event.tape)
        self.tapes[tape]["released"] = event.reason
        self.events.append({"kind": ev.TapeReleased.kind, "tape": tape, "reason": event.reason})

    # -- values, read once at the end -----------------------------------------------------
    def finish(self):
        for tid, info in self.tensors.items():
            obj = self.objects[tid]
            source = self.objects.get(self.variable_reads.get(tid), obj)
            if not is_tensor(source):
                info["preview"] = _preview(source)
                info["nbytes"] = int(getattr(source, "nbytes", 0) or 0)
                info["nonfinite"] = bool(getattr(source, "nonfinite", False))
                self.notes.add(SUMMARISED_NOTE if isinstance(source, recorder.ValueSummary) else RELEASED_NOTE)
                continue
            try:
                info["preview"], info["nbytes"], info["nonfinite"] = summarise(source)
            except Exception:  # a value we cannot read (a device error): say so, don't fail
                info["preview"] = "?"
        for sweep in self.sweeps:
            sweep.pop("_totals", None)
            sweep.pop("_arrived", None)
        return {
            "tapes": [self.tapes[t] for t in sorted(self.tapes, key=lambda s: int(s[1:]))],
            "tensors": self.tensors,
            "ops": self.ops,
            "sweeps": self.sweeps,
            "events": self.events,
            "notes": sorted(self.notes),
        }


# One handler per kind of event, named as the core names it (``on_`` + ``event.kind``), as listeners' are.
_Builder.HANDLERS = {
    cls: getattr(_Builder, "on_" + cls.kind) for cls in ev.ALL_EVENTS if hasattr(_Builder, "on_" + cls.kind)
}


def build(records, include_untaped=True):
    """(plain trace dict, live objects) from ``(seq, event)`` records.

    ``objects`` maps trace ids to what they name: ``tensors`` (tid -> Tensor,
    Variable or sketch), ``entries`` (op id -> entry), ``tapes`` (tape id ->
    the tape's serial number), ``sweeps`` (sweep id -> its events: start,
    the list of steps, finish or None).
    """
    builder = _Builder(include_untaped)
    for _seq, event in records:
        builder.add(event)
    data = builder.finish()
    tapes = {tid: serial for serial, tid in builder.tape_ids.items()}
    sweeps = {sid: tuple(parts) for sid, parts in builder.sweep_events.items()}
    return data, {"tensors": builder.objects, "entries": builder.entries, "tapes": tapes, "sweeps": sweeps}


class Trace:
    """A recorded computation as plain data (``.data``); it draws itself in Jupyter.

    ``tapes``, ``tensors``, ``ops``, ``sweeps``, ``events`` give the parts;
    ``to_json`` / ``Trace.from_json`` round-trip it. A trace made by
    ``trace()`` also keeps its records, for ``explain`` and the memory view.
    """

    def __init__(self, data=None, records=None, include_untaped=True):
        self._data = data
        self._records = records
        self._include_untaped = include_untaped
        self._objects = None
        self._live = False  # True while trace() is still recording into it

    @property
    def data(self):
        if self._data is None or self._live:
            self._data, self._objects = build(self._records, self._include_untaped)
        return self._data

    @property
    def objects(self):
        """Live tensors, entries and tape serials by id (None for a trace loaded from JSON)."""
        if self._objects is None and self._records is not None:
            self._data, self._objects = build(self._records, self._include_untaped)
        return self._objects

    records = property(lambda self: self._records)
    tapes = property(lambda self: self.data["tapes"])
    tensors = property(lambda self: self.data["tensors"])
    ops = property(lambda self: self.data["ops"])
    sweeps = property(lambda self: self.data["sweeps"])
    events = property(lambda self: self.data["events"])

    def op(self, oid):
        return self.ops[int(oid[2:])]

    def to_dict(self):
        return json.loads(self.to_json())

    def to_json(self, indent=None):
        return json.dumps(self.data, indent=indent, sort_keys=True)

    @classmethod
    def from_json(cls, text):
        return cls(data=json.loads(text))

    def __repr__(self):
        d = self.data
        return (
            f"<Trace {len(d['tapes'])} tapes, {len(d['ops'])} ops, "
            f"{len(d['tensors'])} tensors, {len(d['sweeps'])} sweeps>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None):
        # Drawn by the renderer the package installed (viz.display), as tapes are: no import cycle.
        return core_display.mimebundle(self, include=include, exclude=exclude)


@contextmanager
def trace():
    """Record everything in the block: tapes, all ops, sweeps. Yields a :class:`Trace`.

    ::

        with tapeviz.viz.trace() as t:
            with tf.GradientTape() as tape:
                y = x * x
            tape.gradient(y, x)
        t            # draws itself; t.to_json() saves it

    Returns:
        A context manager whose ``as`` target is the :class:`~tapeviz.viz.trace.Trace`,
        filled as the block runs.

    Example:
        >>> import tapeviz as tf
        >>> from tapeviz import viz
        >>> x = tf.Variable(2.0)
        >>> with viz.trace() as recorded:
        ...     with tf.GradientTape() as tape:
        ...         y = x * x
        ...     _ = tape.gradient(y, x)
        >>> len(recorded.data["sweeps"])
        1
    """
    log = recorder.Log()
    result = Trace(records=log.records)
    result._live = True  # rebuilt on access while the block runs
    ev.subscribe(log)
    try:
        yield result
    finally:
        ev.unsubscribe(log)
        result._live = False
        result._data = None


def trace_of(tape):
    """The trace of one tape (and the tapes that shared ops with it, e.g. nested ones)."""
    if isinstance(tape, Trace):
        return tape
    records, _complete = recorder.records_of(tape)
    return Trace(records=records, include_untaped=False)
