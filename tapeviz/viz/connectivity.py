"""Is there a path for the gradient from a source to the target? One ``Finding`` when there is not.

``judge`` looks, in this order, at the source's dtype and the target's
(``integer_path``), whether the tape watched the source (``unwatched``: a
constant or a non-trainable variable; ``replaced_variable``: ``w = w - lr*g``
made it a tensor), the path of recorded ops from the source to the target
(none missing: connected, no finding), the first break on a path through
ops the tape did not record (``stop_gradient``, ``no_gradient_op``,
``outside_tape``, ``stop_recording``), and, with no path at all, a value
that went through NumPy (``left_the_tape``) or nothing at all
(``not_connected``). ``Finding.detail`` keeps the finer code ``explain``
has always used (``not_watched``, ``non_trainable``, ``numpy_roundtrip``...).
"""

import numpy as np

from tapeviz.core import events
from tapeviz.viz import format as fmt
from tapeviz.viz.findings import FLOAT, finding_about

# What replaced a variable by a tensor, by the op that did it: (the assignment, the fix).
REPLACEMENTS = {
    "Sub": (
        "an assignment like `w = w - lr * g`",
        "update the variable in place: w.assign_sub(lr * g), not w = w - lr * g",
    ),
    "AddV2": ("an assignment like `x = x + 1`", "update the variable in place: x.assign_add(1.0), not x = x + 1"),
}
REPLACEMENTS["Add"] = REPLACEMENTS["AddV2"]


def judge(graph, tape_id, source, target, src, tgt):
    """The Finding that says why no gradient flows from ``source`` to ``target``, or None when one does."""
    tensors = graph.data["tensors"]
    is_variable = hasattr(source, "assign")
    if not source.dtype.is_floating:
        return _about(
            graph,
            "integer_path",
            f"{_role(graph, src, 'source')} has dtype {source.dtype.name}: gradients only flow to "
            "floating-point tensors, so tape.gradient returns None for it",
            "use a float tensor, e.g. tf.constant(3.0) or tf.cast(x, tf.float32), before the tape",
            tensor=src,
            detail="integer_source",
        )
    if not target.dtype.is_floating:
        return _about(
            graph,
            "integer_path",
            f"{_role(graph, tgt, 'target')} has dtype {target.dtype.name}: an integer result has no gradient",
            "differentiate a float result; cast to float before the integer step, not after",
            op=graph.producer.get(tgt),
            tensor=tgt,
            detail="integer_target",
        )
    watched = bool(src and tape_id in tensors[src]["watched_by"])
    taped_producer = src is not None and tape_id in (graph.producer.get(src) or {}).get("tapes", ())
    if not watched and not taped_producer:
        found = _unwatched(graph, tape_id, source, src, is_variable)
        if found is not None:
            return found
    if src is None or tgt is None:
        missing = "target" if tgt is None else "source"
        return _about(
            graph,
            "not_connected",
            f"The {missing} never appeared in any op seen while recording: it was not computed by tapeviz ops "
            "on this tape",
            "check that you differentiate the very tensor you computed (the same Python object)",
        )
    if taped_path(graph, src, tgt, tape_id) is not None:
        return None
    full = graph.path(src, tgt)
    if full is not None:
        return _first_break(graph, tape_id, full)
    return _disconnected(graph, src, tgt)


def _unwatched(graph, tape_id, source, src, is_variable):
    """``unwatched`` / ``replaced_variable`` for a source the tape never watched, or None."""
    tensors = graph.data["tensors"]
    first_use = graph.first_consumer(src) if src is not None else None
    if is_variable and not source.trainable:
        return _about(
            graph,
            "unwatched",
            f"The variable {_label(graph, src)} is non-trainable (trainable=False): the tape does not watch it "
            "automatically, so it keeps no gradient for it",
            "create it with trainable=True, or call tape.watch(variable) inside the tape",
            op=first_use,
            tensor=src,
            detail="non_trainable",
        )
    producer = graph.producer.get(src) if src is not None else None
    if not is_variable and producer is not None:
        ancestors, _ops = graph.ancestors(src)
        variables = [t for t in ancestors if tensors[t]["kind"] == "variable"]
        if variables:
            assignment, fix = REPLACEMENTS.get(
                producer["name"],
                ("an assignment", "update the variable in place with .assign(...), not by a new tensor"),
            )
            return _about(
                graph,
                "replaced_variable",
                f"{_role(graph, src, 'source')} is a tensor that {producer['name']} made from the variable "
                f"{graph.name(variables[0])}: {assignment} replaced the variable by a new tensor, which the tape "
                "does not watch",
                fix,
                op=producer,
                tensor=src,
                detail="variable_replaced",
            )
    if not is_variable:
        used = first_use is not None and tape_id in first_use["tapes"]
        return _about(
            graph,
            "unwatched",
            f"{_role(graph, src, 'source')} is a constant the tape never watched"
            + (
                f": {first_use['name']} used it and was recorded because of its other inputs, but the tape "
                "keeps no gradient for the constant itself"
                if used
                else ", so nothing computed from it was recorded"
            ),
            _watch_fix(graph, src),
            op=first_use,
            tensor=src,
            detail="not_watched",
        )
    return None


def _watch_fix(graph, tid):
    """The fix for an unwatched constant, with its name when it has one (``tape.watch(image)``)."""
    name = _label(graph, tid)
    name = name if name.isidentifier() and name not in ("source", "target") else "x"
    return (
        f"call tape.watch({name}) inside the `with tf.GradientTape() as tape:` block, before using {name} "
        f"(or make {name} a tf.Variable)"
    )


def _about(graph, cause, message, fix, op=None, tensor=None, detail=None):
    """A Finding about ``op`` and ``tensor`` (only the tensor named: a broken path names its own)."""
    return finding_about(graph, cause, message, fix, op=op, tensor=tensor, detail=detail, output_by_default=False)


def _role(graph, tid, role):
    """``The source x``: a tensor by its role and the picture's label (``The source`` when that is its name)."""
    label = _label(graph, tid)
    return f"The {role}" if label in (role, "?") else f"The {role} {label}"


def _label(graph, tid):
    """A tensor in a sentence as the picture labels it (``x``, ``#4``), or "?"."""
    return graph.name(tid) if tid is not None else "?"


def taped_path(graph, src, tgt, tape_id):
    """The trace ids (tensor, op, tensor, ...) of a path of ops ``tape_id`` recorded, or None."""
    parent = {src: None}
    queue = [src]
    tensors = graph.data["tensors"]
    for tid in queue:
        for op in graph.consumers.get(tid, []):
            if tape_id not in op["tapes"] or not op["differentiable"]:
                continue
            for out in op["outputs"]:
                if out not in parent and tensors[out]["dtype"].startswith(FLOAT):
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


def recording_at(graph, tape_id, op):
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
    tensors = graph.data["tensors"]
    # A variable's read is drawn as the variable itself: blame the op the
    # student wrote (the `x * x` that read it), unless a read is all there is.
    written = [step for step in steps if step[1]["name"] != "ReadVariableOp"] or steps
    for prev, op, out in written:
        prev = variable_of(graph, prev)
        if op["name"] == "StopGradient":
            return _about(
                graph,
                "stop_gradient",
                f"tf.stop_gradient ({graph.op(op)}) blocks the path: it passes the value on but no gradient back",
                "remove tf.stop_gradient on this path if the gradient should flow through it",
                op=op,
            )
        if not op["differentiable"]:
            return _about(
                graph,
                "no_gradient_op",
                f"{graph.op(op)} is not differentiable, so no gradient passes through it",
                "use a differentiable stand-in (softmax instead of argmax, a soft rounding), or keep the values float",
                op=op,
                detail="non_differentiable",
            )
        if not tensors[out]["dtype"].startswith(FLOAT):
            return _about(
                graph,
                "no_gradient_op",
                f"{graph.op(op)} produces {tensors[out]['dtype']} values: a cast to an integer type has no gradient",
                "keep the values float (cast to an integer only where no gradient is needed)",
                op=op,
                detail="non_differentiable",
            )
        if tape_id not in op["tapes"]:
            when = recording_at(graph, tape_id, op)
            if when == "paused":
                return _about(
                    graph,
                    "stop_recording",
                    f"{graph.op(op)} ran inside `tape.stop_recording()`, so the tape did not record it",
                    "move that computation out of `with tape.stop_recording():`",
                    op=op,
                )
            if when in ("before", "after"):
                return _about(
                    graph,
                    "outside_tape",
                    f"{graph.op(op)} ran {'before' if when == 'before' else 'after'} the tape's `with` block, so "
                    "the tape did not record it",
                    "compute everything between source and target inside the tape's `with` block",
                    op=op,
                    detail="outside_context",
                )
            return _about(
                graph,
                "unwatched",
                f"{graph.op(op)} ran while the tape was recording, but none of its inputs was watched: "
                f"{_label(graph, prev)} was never watched by the tape",
                "call tape.watch(x) inside the `with tf.GradientTape() as tape:` block, before using x "
                "(or make x a tf.Variable)",
                op=op,
                tensor=prev,
                detail="not_watched",
            )
    return None


def variable_of(graph, tid):
    """The variable a read's output stands for (``tid`` itself when it is no read)."""
    producer = graph.producer.get(tid)
    if producer is not None and producer["name"] == "ReadVariableOp" and producer["inputs"]:
        return producer["inputs"][0]
    return tid


def _disconnected(graph, src, tgt):
    """``left_the_tape`` when the target depends on a constant made from a value computed from the
    source (equal to it, or made after it where that value went no further), else ``not_connected``."""
    tensors = graph.data["tensors"]
    ancestors, ops = graph.ancestors(tgt)
    ancestor_ops = {op["id"] for op in ops}
    leaves = sorted(
        (t for t in ancestors if graph.producer.get(t) is None and tensors[t]["kind"] == "leaf" and t != src),
        key=lambda t: int(t[1:]),
    )
    downstream = sorted(graph.descendants(src) - {src}, key=lambda t: int(t[1:]))
    dead_ends = [t for t in downstream if not any(op["id"] in ancestor_ops for op in graph.consumers.get(t, []))]
    for leaf in leaves:
        value = graph.value(leaf)
        if value is None or value.size == 0 or value.dtype.kind not in "fc":
            continue
        user = graph.first_consumer(leaf, ancestor_ops)
        for tid in downstream:
            other = graph.value(tid)
            if (
                other is not None
                and other.shape == value.shape
                and np.allclose(other.astype(np.float64), value.astype(np.float64), rtol=1e-6, atol=0)
            ):
                return _left(graph, leaf, tid, user, equal=True)
        made_after = [t for t in dead_ends if user is not None and _made_before(graph, t, user)]
        if made_after and tensors[leaf]["shape"] == tensors[made_after[-1]]["shape"]:
            return _left(graph, leaf, made_after[-1], user, equal=False)
    roots = sorted((t for t in ancestors if graph.producer.get(t) is None and t != src), key=lambda t: int(t[1:]))
    names = ", ".join(graph.name(t) for t in roots[:4])
    return _about(
        graph,
        "not_connected",
        "Nothing recorded links the source to the target"
        + (f": the target was computed from {names}, not from the source" if names else ""),
        "check that the target is really computed from this source (the same Python object)",
    )


def _made_before(graph, tid, user):
    producer = graph.producer.get(tid)
    return producer is not None and graph.order(producer) < graph.order(user)


def _left(graph, leaf, tid, user, equal):
    """``left_the_tape``: ``leaf`` (a constant the target uses) came from ``tid`` (computed from the source)."""
    shown = fmt.clip(graph.data["tensors"][leaf]["preview"] or "", 60)
    how = "whose values equal" if equal else "made after"
    return _about(
        graph,
        "left_the_tape",
        f"The target uses {graph.name(leaf)} = {shown}, a new constant {how} {graph.name(tid)} (computed from the "
        "source): the value went through NumPy (.numpy(), an np function, float() or model.predict) and came back "
        "without its history",
        f"use {graph.name(tid)} itself, with tf ops instead of NumPy ones (tf.maximum, tf.tanh, model(x) "
        "instead of np.maximum, np.tanh, model.predict), so the tape records the step",
        op=user,
        tensor=leaf,
        detail="numpy_roundtrip",
    )
