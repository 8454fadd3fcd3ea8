"""Why is my gradient None (or zero, or NaN)? Answers in words, and a picture.

``explain(tape, target, source)`` walks the records of the tape (the session
recorder keeps them, also after a non-persistent tape released its entries,
together with recent ops that no tape recorded) and names the first cause
that applies, in this order:

1. ``integer_source`` / ``integer_target``: gradients flow only through floats;
2. ``non_trainable``: a ``trainable=False`` variable is not watched;
3. ``variable_replaced``: ``x = x + 1`` made ``x`` a tensor, no longer the variable;
4. ``not_watched``: a constant the tape never watched;
5. ``tape_used``: the path is on the tape, but a non-persistent tape was used;
6. along the path from source to target, the first op that breaks it:
   ``outside_context`` (ran before/after the ``with`` block),
   ``stop_recording``, ``stop_gradient``, ``non_differentiable`` (argmax,
   round, a cast to an integer type);
7. ``numpy_roundtrip``: the target depends on a constant equal to a value
   computed from the source (``.numpy()``, ``model.predict``);
8. ``not_connected``: nothing links them; ``zero``: connected, but a rule
   produced zeros; ``connected``: the gradient exists.

``find_nonfinite`` and ``gradcheck`` live here too: all three answer "where
did my gradient go wrong" and highlight the op in the picture.
"""

import inspect

import numpy as np

from tapeviz import backend
from tapeviz.core import events
from tapeviz.core import finite_differences as testing
from tapeviz.core.primitives.math import reduce_sum
from tapeviz.core.tape import GradientTape
from tapeviz.core.tensor import constant
from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz import recorder
from tapeviz.viz.display import Figure
from tapeviz.viz.trace import Trace, build, trace_of
from tapeviz.viz.trace import trace as _trace

FIXES = {
    "integer_source": "Use a float tensor, e.g. tf.constant(3.0) or tf.cast(x, tf.float32), before the tape.",
    "integer_target": "Differentiate a float result; cast to float before the integer step, not after.",
    "non_trainable": "Create it with trainable=True, or call tape.watch(variable) inside the tape.",
    "variable_replaced": "Update variables in place: x.assign_add(1.0) (or x.assign(...)), not x = x + 1.",
    "not_watched": "Call tape.watch(x) inside the `with tf.GradientTape() as tape:` block, before using x "
    "(or make x a tf.Variable).",
    "tape_used": "Create the tape with tf.GradientTape(persistent=True) to call gradient() more than once, "
    "or record again with a new tape.",
    "outside_context": "Compute everything between source and target inside the tape's `with` block.",
    "stop_recording": "Move that computation out of `with tape.stop_recording():`.",
    "stop_gradient": "Remove tf.stop_gradient on this path if the gradient should flow through it.",
    "non_differentiable": "Use a differentiable stand-in (a soft version such as softmax instead of argmax, "
    "or keep values float instead of casting to an integer type).",
    "numpy_roundtrip": "Stay in tapeviz ops: use the tensor itself (model(x), tf.math functions), "
    "not .numpy(), NumPy functions or model.predict, between source and target.",
    "not_connected": "Check that the target is really computed from this source (the same Python object).",
    "zero": "A zero gradient is a real answer here; check the highlighted op's inputs (a dead ReLU, a "
    "constant branch of tf.where, a sign or floor).",
    "connected": "",
}


class Explanation:
    """A verdict: ``cause`` (a code), ``message`` (plain words), ``fix``, the
    ``path`` (trace ids) and the id where it ``broken_at``; shows a picture.

    ``names``: {trace id: the student's name}, looked up when ``explain`` ran; the message and the picture
    both use them, so the text names what the picture shows (``Mul \u2192 y``, ``#4``, variable ``x``).
    """

    def __init__(self, cause, message, trace, path=(), broken_at=None, names=None):
        self.cause = cause
        self.message = message
        self.fix = FIXES.get(cause, "")
        self.trace = trace
        self.path = list(path)
        self.broken_at = broken_at
        self.names = dict(names or {})

    def __str__(self):
        return self.message + (f"\nFix: {self.fix}" if self.fix else "")

    def __repr__(self):
        return f"<Explanation {self.cause}: {self.message}>"

    def marks(self):
        """What the picture highlights: the break alone when there is one.

        The picture already holds only the ops between source and target, so
        drawing the whole path in red as well would drown the one place that
        matters; the path is marked only when nothing on it is to blame.
        """
        if self.broken_at:
            return {self.broken_at: "break"}
        return {p: "path" for p in self.path}

    def figure(self):
        return Figure(self.trace, names=self.names, marks=self.marks(), untaped="all", fold=False)

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.figure()._repr_mimebundle_(include, exclude)
        head = f'<p class="tapeviz-explain"><b>{fmt.html_text(self.cause)}</b>: {fmt.html_text(self.message)}</p>' + (
            f"<p><i>Fix:</i> {fmt.html_text(self.fix)}</p>" if self.fix else ""
        )
        if "text/html" in bundle:
            bundle["text/html"] = head + bundle["text/html"]
        if "text/plain" in bundle:
            bundle["text/plain"] = str(self)
        return bundle


class _Graph:
    """The full op graph of a trace (every op, recorded or not), with live values."""

    def __init__(self, data, objects, found=None):
        self.data = data
        self.objects = objects["tensors"]
        self.found = found or {}  # trace id -> the student's name for it
        self.producer = {}
        self.consumers = {}
        for op in data["ops"]:
            for t in op["outputs"]:
                self.producer.setdefault(t, op)
            for t in op["inputs"]:
                self.consumers.setdefault(t, []).append(op)
        self.position = {}
        for index, event in enumerate(data["events"]):
            if event["kind"] == events.OpExecuted.kind:
                self.position[event["op"]] = index

    def name(self, tid):
        """A tensor as the picture labels it (``y``, ``#4``, a variable's name without ``:0``)."""
        return naming.label(tid, self.data, self.found)

    def op(self, op):
        """An op as the picture and the player's cards show it: ``Mul \u2192 y``."""
        return naming.op_label(op, self.data, self.found)

    def find(self, obj):
        for tid, candidate in self.objects.items():
            if candidate is obj:
                return tid
        return None

    def path(self, start, goal):
        """Ops and tensors on a forward path from ``start`` to ``goal`` (BFS), or None."""
        parent = {start: None}
        queue = [start]
        for tid in queue:
            if tid == goal:
                break
            for op in self.consumers.get(tid, []):
                for out in op["outputs"]:
                    if out not in parent:
                        parent[out] = (op, tid)
                        queue.append(out)
        if goal not in parent:
            return None
        steps, node = [], goal
        while parent[node] is not None:
            op, prev = parent[node]
            steps.append((prev, op, node))
            node = prev
        return steps[::-1]

    def ancestors(self, tid):
        seen, stack, ops = {tid}, [tid], []
        while stack:
            op = self.producer.get(stack.pop())
            if op is None or op in ops:
                continue
            ops.append(op)
            for t in op["inputs"]:
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return seen, ops

    def descendants(self, tid):
        seen, queue = {tid}, [tid]
        for t in queue:
            for op in self.consumers.get(t, []):
                for out in op["outputs"]:
                    if out not in seen:
                        seen.add(out)
                        queue.append(out)
        return seen

    def value(self, tid):
        try:
            return np.asarray(self.objects[tid].numpy())
        except Exception:
            return None


def _records(tape):
    records = recorder.SESSION.records_for(tape, with_untaped=True)
    if records and any(isinstance(event, events.OpExecuted) for _seq, event in records):
        return records, True
    return recorder.static_records(tape), False


def _reads_into(graph, kept):
    """The variable reads feeding the ``kept`` ops: drawn too, so the picture shows each variable by its name
    (``digits/hidden/bias``) where its value enters, not an unnamed ``#585``."""
    reads = set()
    for op in graph.data["ops"]:
        if op["id"] in kept:
            for tid in op["inputs"]:
                producer = graph.producer.get(tid)
                if producer is not None and producer["name"] == "ReadVariableOp":
                    reads.add(producer["id"])
    return reads


def _subtrace(data, keep_ops):
    ops = [op for op in data["ops"] if op["id"] in keep_ops]
    return Trace(data=dict(data, ops=ops))


def explain(tape, target, source):
    """Why ``tape.gradient(target, source)`` is None or zero: an :class:`Explanation`.

    Args:
        tape: the GradientTape that recorded ``target``.
        target: the tensor you differentiated.
        source: the tensor or variable whose gradient surprised you.

    Returns:
        An :class:`Explanation` with ``cause`` (a short code such as
        ``"not_watched"``), ``message`` and ``fix`` in plain words; printed,
        the message and the fix; shown in Jupyter, a picture of the path
        from the source to the target with the break marked.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.constant(3.0)  # a constant: not watched
        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        >>> print(tape.gradient(y, x))
        None
        >>> print(tf.viz.explain(tape, y, x))
        The source is a constant tensor the tape never watched, so nothing computed from it was recorded.
        Fix: Call tape.watch(x) inside the `with tf.GradientTape() as tape:` block, before using x (or make x a tf.Variable).
    """
    records, complete = _records(tape)
    data, objects = build(records, include_untaped=True)
    found = naming.by_identity(dict(objects["tensors"]), naming.namespace(2))  # the student's names, now
    graph = _Graph(data, objects, found)
    tape_id = _tape_id(records, tape.serial)
    src, tgt = graph.find(source), graph.find(target)
    verdict = _judge(tape, tape_id, graph, source, target, src, tgt, complete)
    cause, message, path, broken = verdict
    keep = set()
    if tgt is not None:
        keep.update(op["id"] for op in graph.ancestors(tgt)[1])
    for item in path:
        if item.startswith("op"):
            keep.add(item)
    if src is not None:
        keep.update(op["id"] for op in graph.consumers.get(src, []))
    keep.update(_reads_into(graph, keep))
    if not complete:
        message += (
            " (Only the tape's recorded ops were available: import tapeviz.viz before running the "
            "cell, so untaped ops and sweeps are recorded too, for a fuller answer.)"
        )
    return Explanation(cause, message, _subtrace(data, keep), path, broken, found)


def _tape_id(records, number):
    # Tapes are named by order of first appearance in the records; replay that.
    order = []
    for _seq, event in records:
        for n in recorder.tapes_of(event):
            if n not in order:
                order.append(n)
    return f"T{order.index(number)}" if number in order else None


def _name(graph, tid):
    """A tensor in a sentence, as the picture shows it: ``variable x``, ``#4 (2,)``."""
    info = graph.data["tensors"].get(tid)
    if info is None:
        return "?"
    label = graph.name(tid)
    return f"variable {label}" if info["kind"] == "variable" else f"{label} {fmt.shape_text(info['shape'])}"


def _judge(tape, tape_id, graph, source, target, src, tgt, complete):
    tensors = graph.data["tensors"]
    is_variable = hasattr(source, "assign")
    dtype = source.dtype
    if not dtype.is_floating:
        return (
            "integer_source",
            f"The source has dtype {dtype.name}: gradients only flow to floating-point "
            f"tensors, so tape.gradient returns None for it.",
            [src] if src else [],
            src,
        )
    if not target.dtype.is_floating:
        return (
            "integer_target",
            f"The target has dtype {target.dtype.name}: an integer result has no gradient.",
            [tgt] if tgt else [],
            tgt,
        )
    watched = bool(src and tape_id in tensors[src]["watched_by"])
    if is_variable and not source.trainable and not watched:
        return (
            "non_trainable",
            f"{'The ' + _name(graph, src) if src else 'The variable'} is non-trainable "
            "(trainable=False): the tape does not watch it automatically.",
            [src] if src else [],
            src,
        )
    if not is_variable and src is not None and not watched:
        producer = graph.producer.get(src)
        if producer is not None:
            ancestors, _ops = graph.ancestors(src)
            variables = [t for t in ancestors if tensors[t]["kind"] == "variable"]
            if variables:
                return (
                    "variable_replaced",
                    f"The source{_called(graph, src)} is a tensor made by {producer['name']} "
                    f"from {_name(graph, variables[0])}: an assignment like `x = x + 1` replaced the variable "
                    "by a new tensor, which the tape does not watch.",
                    [variables[0], producer["id"], src],
                    src,
                )
    if tgt is not None and src is not None:
        on_tape = _taped_path(graph, src, tgt, tape_id)
        if on_tape is not None:
            info = next((t for t in graph.data["tapes"] if t["id"] == tape_id), None)
            verdict = _connected(graph, tape_id, src, tgt, on_tape)
            if verdict[0] == "zero":
                return verdict
            if info and not info["persistent"] and info["released"] == "gradient":
                done = [s for s in graph.data["sweeps"] if s["tape"] == tape_id]
                earlier = f" (its first call gave {done[0]['results']})" if done else ""
                return (
                    "tape_used",
                    "The path from source to target is on the tape, but this non-persistent tape "
                    f"was already used to compute a gradient{earlier} and released what it recorded: a "
                    "second gradient() call raises RuntimeError.",
                    on_tape,
                    None,
                )
            return verdict
    if not is_variable and not watched and (src is None or graph.producer.get(src) is None):
        return (
            "not_watched",
            "The source is a constant tensor the tape never watched, so nothing computed from it was recorded.",
            [src] if src else [],
            src,
        )
    if tgt is None or src is None:
        missing = "target" if tgt is None else "source"
        return (
            "not_connected",
            f"The {missing} never appeared in any op seen while recording: it was not "
            "computed by tapeviz ops on this tape (is it the same Python object?).",
            [],
            None,
        )
    full = graph.path(src, tgt)
    if full is not None:
        return _first_break(graph, tape_id, full)
    return _disconnected(graph, src, tgt)


def _called(graph, tid):
    """``, y,``: what the picture calls a tensor the sentence names by its role (nothing when that is the name)."""
    name = graph.name(tid)
    return "" if name in ("source", "target") else f", {name},"


def _taped_path(graph, src, tgt, tape_id):
    parent = {src: None}
    queue = [src]
    for tid in queue:
        for op in graph.consumers.get(tid, []):
            if tape_id not in op["tapes"] or not op["differentiable"]:
                continue
            for out in op["outputs"]:
                if out not in parent and graph.data["tensors"][out]["dtype"].startswith(
                    ("float", "half", "double", "bfloat")
                ):
                    parent[out] = (op, tid)
                    queue.append(out)
    if tgt not in parent:
        return None
    path, node = [tgt], tgt
    while parent[node] is not None:
        op, prev = parent[node]
        path[:0] = [prev, op["id"]]
        node = prev
    return path


def _connected(graph, tape_id, src, tgt, path):
    for sweep in reversed(graph.data["sweeps"]):
        if sweep["tape"] != tape_id or src not in sweep["sources"] or tgt not in sweep["targets"]:
            continue
        result = (sweep["results"] or [None] * len(sweep["sources"]))[sweep["sources"].index(src)]
        if result is not None and _all_zero(result):
            for step in sweep["steps"]:
                op = graph.data["ops"][int(step["op"][2:])]
                if (
                    op["id"] in path
                    and all(g is None or _all_zero(g) for g in step["grads"])
                    and any(u is not None and not _all_zero(u) for u in step["upstream"])
                ):
                    return (
                        "zero",
                        f"The gradient is zero because the rule of {graph.op(op)} ({op['formula']}) "
                        "turned a non-zero upstream gradient into zeros.",
                        path,
                        op["id"],
                    )
            return ("zero", "The gradient is zero: every path from source to target carries zeros.", path, None)
        return (
            "connected",
            f"The source is connected to the target on the tape; the gradient is {result}.",
            path,
            None,
        )
    return (
        "connected",
        "The source is connected to the target on the tape: tape.gradient will not be None.",
        path,
        None,
    )


def _all_zero(preview):
    return (
        preview.replace("[", "").replace("]", "").replace(",", " ").split()
        and all(part == "0" for part in preview.replace("[", "").replace("]", "").replace(",", " ").split())
        or preview.startswith("mean 0, min 0, max 0")
    )


def _recording_at(graph, tape_id, op):
    """'before', 'paused', 'after' or 'recording': the tape's state when ``op`` ran."""
    position = graph.position.get(op["id"], -1)
    state, seen_enter = "before", False
    for index, event in enumerate(graph.data["events"]):
        if index >= position:
            break
        if event.get("tape") != tape_id:
            continue
        if event["kind"] == events.TapeEntered.kind:
            state, seen_enter = "recording", True
        elif event["kind"] == events.TapeExited.kind:
            state = "stopped"
    if state == "stopped":
        later = any(
            e["kind"] == events.TapeEntered.kind and e.get("tape") == tape_id for e in graph.data["events"][position:]
        )
        return "paused" if later else "after"
    return state if seen_enter or state == "before" else "before"


def _first_break(graph, tape_id, steps):
    path = [steps[0][0]]
    for _prev, op, out in steps:
        path += [op["id"], out]
    tensors = graph.data["tensors"]
    # A variable's read is drawn as the variable itself: blame the op the
    # student wrote (the `x * x` that read it), unless a read is all there is.
    written = [step for step in steps if step[1]["name"] != "ReadVariableOp"] or steps
    for prev, op, out in written:
        prev = _variable_of(graph, prev)
        if op["name"] == "StopGradient":
            return (
                "stop_gradient",
                f"tf.stop_gradient ({graph.op(op)}) blocks the path: it passes the value on but no gradient back.",
                path,
                op["id"],
            )
        if op["differentiable"] is False or op["differentiable"] is None:
            return (
                "non_differentiable",
                f"{graph.op(op)} is not differentiable, so no gradient passes through it.",
                path,
                op["id"],
            )
        if not tensors[out]["dtype"].startswith(("float", "half", "double", "bfloat")):
            return (
                "non_differentiable",
                f"{graph.op(op)} produces {tensors[out]['dtype']} values: a cast to an integer type has no gradient.",
                path,
                op["id"],
            )
        if tape_id not in op["tapes"]:
            when = _recording_at(graph, tape_id, op)
            if when == "paused":
                return (
                    "stop_recording",
                    f"{graph.op(op)} ran inside `tape.stop_recording()`, so the tape did not record it.",
                    path,
                    op["id"],
                )
            if when in ("before", "after"):
                where = (
                    "before the tape's `with` block started"
                    if when == "before"
                    else "after the tape's `with` block ended"
                )
                return (
                    "outside_context",
                    f"{graph.op(op)} ran {where}, so the tape did not record it.",
                    path,
                    op["id"],
                )
            return (
                "not_watched",
                f"{graph.op(op)} ran while the tape was recording, but none of its "
                f"inputs was watched: {_name(graph, prev)} was never watched by the tape.",
                path,
                prev,
            )
    return ("connected", "The source is connected to the target.", path, None)


def _variable_of(graph, tid):
    """The variable a read's output stands for (``tid`` itself when it is no read)."""
    producer = graph.producer.get(tid)
    if producer is not None and producer["name"] == "ReadVariableOp" and producer["inputs"]:
        return producer["inputs"][0]
    return tid


def _ops_between(graph, src, tid):
    """The ids of the ops on a path from ``src`` to ``tid`` (kept in the picture, so ``tid`` is drawn)."""
    return [op["id"] for _prev, op, _out in graph.path(src, tid) or []]


def _disconnected(graph, src, tgt):
    tensors = graph.data["tensors"]
    ancestors, ops = graph.ancestors(tgt)
    leaves = [t for t in ancestors if graph.producer.get(t) is None and tensors[t]["kind"] == "leaf" and t != src]
    downstream = graph.descendants(src)
    for leaf in sorted(leaves, key=lambda t: int(t[1:])):
        value = graph.value(leaf)
        if value is None or value.size == 0:
            continue
        for tid in sorted(downstream, key=lambda t: int(t[1:])):
            other = graph.value(tid)
            if (
                other is not None
                and other.shape == value.shape
                and value.dtype.kind in "fc"
                and np.allclose(other.astype(np.float64), value.astype(np.float64), rtol=1e-6, atol=0)
            ):
                return (
                    "numpy_roundtrip",
                    f"The target depends on {graph.name(leaf)}, a new constant whose value equals {graph.name(tid)} "
                    "(computed from the source): the value went through NumPy (.numpy(), a NumPy function "
                    "or model.predict) and came back without its history.",
                    [src, *_ops_between(graph, src, tid), tid, leaf, tgt],  # the value's own ops drawn too
                    leaf,
                )
    names = ", ".join(_name(graph, t) for t in sorted(leaves, key=lambda t: int(t[1:]))[:4])
    return (
        "not_connected",
        "Nothing recorded links the source to the target"
        + (
            f"; the target was computed from constants {names}: if one of them came from .numpy() or "
            "model.predict, that is where the path breaks."
            if names
            else "."
        ),
        [src, tgt],
        None,
    )


# -- first non-finite value -------------------------------------------------------------------


class _Verdict:
    """A message about one op of a trace, shown as the message over the graph with that op marked."""

    message = ""
    trace = None
    names = None  # {trace id: label} the message used; None: the picture looks the names up itself

    def _blamed(self):
        """The op id to mark in the picture, or None."""
        raise NotImplementedError

    def __str__(self):
        return self.message

    def figure(self):
        blamed = self._blamed()
        return Figure(self.trace, names=self.names, marks={blamed: "break"} if blamed else None)

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.figure()._repr_mimebundle_(include, exclude)
        if "text/html" in bundle:
            bundle["text/html"] = f"<p><b>{fmt.html_text(self.message)}</b></p>" + bundle["text/html"]
        if "text/plain" in bundle:
            bundle["text/plain"] = self.message
        return bundle


class Finding(_Verdict):
    """Where a value went NaN/Inf first: ``op`` (id), ``phase`` ("forward"/"backward"), ``message``."""

    def __init__(self, op, phase, message, trace, names=None):
        self.op, self.phase, self.message, self.trace = op, phase, message, trace
        self.names = names

    def _blamed(self):
        return self.op

    def __bool__(self):
        return self.op is not None

    def __repr__(self):
        return f"<Finding {self.phase} {self.op}: {self.message}>"


def find_nonfinite(tape):
    """The first op whose forward value, or backward gradient, became NaN or Inf."""
    trace = trace_of(tape)
    data = trace.data
    found = naming.lookup(trace, naming.namespace(2))  # the student's names, now: the message's and the picture's
    tensors = data["tensors"]
    consumers = {}
    for op in data["ops"]:
        for t in op["inputs"]:
            consumers.setdefault(t, []).append(op)
    for op in data["ops"]:
        bad = [t for t in op["outputs"] if tensors[t]["nonfinite"]]
        if bad and not any(tensors[t]["nonfinite"] for t in op["inputs"]) and op["depth"] == 0:
            scope = f" (scope {op['scope']})" if op["scope"] else ""
            message = (
                f"Forward: {naming.op_label(op, data, found)}{scope} produced "
                f"a non-finite value: {tensors[bad[0]]['preview']}."
            )
            if any(c["name"] == "SelectV2" for c in consumers.get(bad[0], [])):
                message += (
                    " tf.where selects around it, but the backward pass still multiplies the masked-out "
                    "branch's gradient by zero: 0 * inf = nan. Make the input safe first: "
                    "safe = tf.where(ok, x, 1.0); tf.where(ok, tf.math.log(safe), 0.0)."
                )
            return Finding(op["id"], "forward", message, trace, found)
    for sweep in data["sweeps"]:
        for step in sweep["steps"]:
            for g in step["grads"]:
                if g is not None and ("nan" in g or "inf" in g or "non-finite" in g):
                    op = data["ops"][int(step["op"][2:])]
                    return Finding(
                        op["id"],
                        "backward",
                        f"Backward: the rule of {naming.op_label(op, data, found)} "
                        f"({op['formula']}) produced a non-finite gradient: {g}.",
                        trace,
                        found,
                    )
    return Finding(None, None, "No NaN or Inf in any recorded value or gradient.", trace, found)


# -- gradcheck -------------------------------------------------------------------------------


class GradcheckResult(_Verdict):
    """``ok``, per-argument ``errors``, ``analytic``/``numeric`` arrays, and the ``suspect`` op."""

    def __init__(self, ok, errors, analytic, numeric, suspect, message, trace, labels=None):
        self.ok, self.errors, self.analytic, self.numeric = ok, errors, analytic, numeric
        self.suspect, self.message, self.trace = suspect, message, trace
        self.labels = labels or {}  # trace id -> what the picture calls the checker's own tensors

    def _blamed(self):
        return self.suspect

    def figure(self):
        # the tape is the checker's: its tensors are named for what they are, not the student's namespace
        blamed = self._blamed()
        return Figure(self.trace, names=self.labels, marks={blamed: "break"} if blamed else None)

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return f"<GradcheckResult ok={self.ok} suspect={self.suspect}: {self.message}>"


def gradcheck(fn, *args, eps=1e-6, rtol=1e-4, atol=1e-6, seed=0):
    """Compare the tape's gradients of ``fn(*args)`` with central finite differences.

    Arguments become float64 constants; a non-scalar output is projected with
    fixed random weights. When they disagree, each recorded op's rule is
    checked on its own (its kernel against finite differences, along the
    sweep's own upstream gradient); an op without a kernel (a
    ``custom_gradient``) is the suspect when every kernel op checks out.
    """
    arrays = [np.array(a, dtype=np.float64) for a in args]
    weights = testing.projection_weights(fn, arrays, seed=seed)
    with _trace() as recorded:
        inputs = [constant(a) for a in arrays]
        projection = constant(weights)
        with GradientTape() as tape:
            tape.watch(inputs)
            loss = reduce_sum(fn(*inputs) * projection)
        grads = tape.gradient(loss, inputs)
    labels = _checker_labels(recorded, fn, inputs, projection, loss)
    analytic = [np.zeros_like(x) if g is None else np.asarray(g, dtype=np.float64) for g, x in zip(grads, arrays)]
    numeric = testing.numeric_gradients(fn, arrays, weights, eps=eps)
    errors = [float(np.max(np.abs(a - n))) if a.size else 0.0 for a, n in zip(analytic, numeric)]
    ok = all(np.allclose(a, n, rtol=rtol, atol=atol) for a, n in zip(analytic, numeric))
    if ok:
        return GradcheckResult(
            True,
            errors,
            analytic,
            numeric,
            None,
            f"Gradients agree with finite differences (max error {max(errors, default=0):.2e}).",
            recorded,
            labels,
        )
    suspect, why = _localise(recorded, labels, eps, rtol, atol)
    message = f"Analytic and numeric gradients disagree (max error {max(errors):.2e}). " + (
        why if suspect else "No single op could be blamed."
    )
    return GradcheckResult(False, errors, analytic, numeric, suspect, message, recorded, labels)


def _checker_labels(recorded, fn, inputs, projection, loss):
    """{trace id: label} for the tensors gradcheck made: ``fn``'s arguments by its parameter names,
    the fixed random weights that project the output to one number, and that number."""
    try:
        parameters = [
            p.name
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):  # a builtin or a callable without a signature
        parameters = []
    wanted = {id(x): parameters[i] if i < len(parameters) else f"argument {i}" for i, x in enumerate(inputs)}
    wanted[id(projection)] = "random weights"
    wanted[id(loss)] = "checked sum"
    labels = {}
    for tid, obj in recorded.objects["tensors"].items():
        if id(obj) in wanted and any(obj is x for x in (*inputs, projection, loss)):
            labels[tid] = wanted[id(obj)]
    return labels


def _localise(recorded, labels, eps, rtol, atol):
    """(the op to blame, why), naming ops and tensors as the checker's picture does (``labels``)."""
    data = recorded.data
    entries = recorded.objects["entries"]
    kernel_less = []
    for sweep in data["sweeps"][:1]:
        steps = [event for _seq, event in recorded.records if isinstance(event, events.BackwardStep)]
        for record, step in zip(steps, sweep["steps"]):
            op = data["ops"][int(step["op"][2:])]
            entry = entries[op["id"]]
            kernel = getattr(entry.primitive, "kernel", None)
            if kernel is None:
                if op["name"] != "ReadVariableOp":
                    kernel_less.append(op)
                continue
            bad = _check_op(kernel, entry, record, eps, rtol, atol)
            if bad is not None:
                return op["id"], (
                    f"The rule of {naming.op_label(op, data, labels)} ({op['formula']}) disagrees with "
                    f"finite differences for input {bad}."
                )
    if kernel_less:
        op = kernel_less[0]
        return op["id"], (
            f"Every built-in op checks out; the suspect is {naming.op_label(op, data, labels)}, whose gradient "
            "is hand-written (custom_gradient): check its grad_fn."
        )
    return None, ""


def _check_op(kernel, entry, record, eps, rtol, atol):
    """The input position whose rule disagrees with the op's kernel, or None."""
    xs = [np.asarray(t.numpy()) for t in entry.inputs]
    upstream = [np.asarray(u.numpy(), dtype=np.float64) for u in record.upstream]
    rng = np.random.default_rng(1)

    def objective(values):
        out = kernel(*[backend.asarray(v) for v in values], **entry.attrs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return sum(float(np.sum(np.asarray(backend.to_numpy(o), dtype=np.float64) * u)) for o, u in zip(outs, upstream))

    for position, grad in enumerate(record.grads):
        if grad is None or xs[position].dtype.kind != "f":
            continue
        direction = rng.standard_normal(xs[position].shape)
        shifted = []
        for step in (eps, -eps):
            values = list(xs)
            values[position] = xs[position] + step * direction
            shifted.append(objective(values))
        numeric = (shifted[0] - shifted[1]) / (2 * eps)
        analytic = float(np.sum(np.asarray(grad.numpy(), dtype=np.float64) * direction))
        if not np.isclose(analytic, numeric, rtol=rtol * 10, atol=atol * 10):
            return position
    return None
