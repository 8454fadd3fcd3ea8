"""The diagnosis engine: what went wrong with one gradient, as a list of ``Finding``s.

``analyse`` reads an ``OpGraph`` (every op the session recorder kept, taped
or not, with live values) and the backward steps ``backward_values.replay``
recomputes from the tape's entries, and answers with findings in the order
a reader should fix them:

1. the path from each source to the target (``connection``): unwatched,
   replaced variable, integer dtype, an op without a gradient, stop_gradient,
   a value that left the tape, ops run outside the tape, nothing connecting;
2. the forward values: the first NaN/Inf, already in the input data or first
   made by an op (a masked ``tf.where`` branch named as such);
3. the backward steps: a rule that turned finite values into NaN/Inf,
   a ReLU dead for the whole batch, a gradient that shrinks (vanishing) or
   grows (exploding) by more than ``FACTOR`` along the path;
4. with ``check=True``, each custom gradient against finite differences.

Each finding names the op as the pictures draw it (``Sqrt``), the tensor by
the picture's label, the user's line that made the op (``core.origin``), and
the step of the sweep where the player shows it.
"""

import numpy as np

from tapeviz.core import state
from tapeviz.core.tensor import constant
from tapeviz.viz import backward_values as backward
from tapeviz.viz import format as fmt

#: How much a gradient may shrink or grow along the path before it is ``vanishing`` / ``exploding``.
FACTOR = 1e4

#: The causes a finding can name, each with what it means.
CAUSES = {
    "nonfinite_input": "the NaN/Inf was already in a source or in the input data before any op ran",
    "nonfinite_forward": "an op made the first NaN/Inf of the forward pass (log(0), exp overflow, 0/0)",
    "nonfinite_backward": "the forward pass is finite, but this op's gradient rule made NaN/Inf (sqrt at 0)",
    "where_untaken_branch": "NaN/Inf in the branch tf.where did not select: 0 * inf = NaN on the way back",
    "unwatched": "the source is a constant (or a non-trainable variable) the tape never watched",
    "replaced_variable": "`w = w - lr * g` made the source a new tensor: the variable it replaced is watched",
    "left_the_tape": "a value went through NumPy (.numpy(), np.*, float(), model.predict) and came back a constant",
    "integer_path": "an integer source or target: gradients flow only through floating-point values",
    "no_gradient_op": "an op without a gradient (argmax, round, a cast to an integer type) breaks the path",
    "stop_gradient": "tf.stop_gradient on the path passes the value on but no gradient back",
    "outside_tape": "an op of the path ran before or after the tape's `with` block",
    "stop_recording": "an op of the path ran inside `tape.stop_recording()`",
    "not_connected": "nothing recorded links the source to the target",
    "vanishing": f"the gradient shrinks by more than {FACTOR:.0e} along the path, or underflows to 0",
    "exploding": f"the gradient grows by more than {FACTOR:.0e} along the path",
    "dead_relu": "a ReLU whose input is <= 0 for every element of the batch: it passes no gradient back",
    "custom_gradient_mismatch": "a custom gradient disagrees with finite differences (diagnose(..., check=True))",
}

FLOAT = backward.FLOAT_DTYPES
ACTIVATIONS = ("Sigmoid", "Tanh", "Exp", "Softplus", "Elu", "Selu", "Erf", "Softmax", "LogSoftmax", "Softsign")


class Finding:
    """One thing wrong with a gradient.

    ``cause``: a code of ``CAUSES``; ``op``: the op's type as the pictures draw it
    (``"Sqrt"``), or None; ``name``: the tensor's label in the pictures;
    ``where``: the user's line that made the op (``"train.py:12"``, ``"In [3], line 2"``),
    or ""; ``step``: the step of the tape's last sweep that shows it (for the player), or
    None; ``message``: what happened and the fix, in one sentence. ``node`` and ``tensor``
    are the trace ids the picture rings; ``fix`` is the fix alone; ``detail`` a finer code
    (what ``explain`` calls it).
    """

    __slots__ = ("cause", "op", "name", "where", "step", "message", "fix", "node", "tensor", "detail")

    def __init__(self, cause, message, fix="", op=None, name=None, where="", node=None, tensor=None, detail=None):
        self.cause, self.message, self.fix = cause, message, fix
        self.op, self.name, self.where = op, name, where
        self.node, self.tensor, self.step = node, tensor, None
        self.detail = detail or cause

    def sentence(self):
        """The message with its fix and the user's line: what a caption or a print shows."""
        text = self.message
        if self.fix:
            text = f"{text.rstrip('.')}. Fix: {self.fix}"
        return f"{text} ({self.where})" if self.where else text

    def __str__(self):
        return self.sentence()

    def __repr__(self):
        where = f" at {self.where}" if self.where else ""
        return f"<Finding {self.cause}: {self.op or '-'} {self.name or ''}{where}>"


def where_of(op):
    """The user's line that made ``op`` (a trace op dict), or ""."""
    return op.get("where", "") if op else ""


def finding_about(graph, cause, message, fix, op=None, tensor=None, detail=None, output_by_default=True):
    """A Finding about ``op`` (a trace op dict: its type and line) and ``tensor`` (a trace id: the picture's
    label; ``output_by_default``: the op's first output when no tensor is given)."""
    if tensor is None and output_by_default and op is not None and op["outputs"]:
        tensor = op["outputs"][0]
    return Finding(
        cause,
        message,
        fix,
        op=op["name"] if op else None,
        name=graph.name(tensor) if tensor else None,
        where=where_of(op),
        node=op["id"] if op else None,
        tensor=tensor,
        detail=detail,
    )


def analyse(graph, tape_id, target, target_tid, sources, check=False, connection=None):
    """The findings about ``target`` (object and trace id) and ``sources`` ([(object, trace id)]).

    ``connection(source, source_tid)`` judges one source's path (``connectivity.judge``
    bound to this graph) and returns a Finding or None.
    """
    findings = []
    if connection is not None:
        for source, tid in sources:
            found = connection(source, tid)
            if found is not None and not any(f.cause == found.cause and f.node == found.node for f in findings):
                findings.append(found)
    if target_tid is None:
        return findings
    ancestors, ops = graph.ancestors(target_tid)
    ops.sort(key=graph.order)
    steps = backward.replay(graph, tape_id, target_tid) or []
    bad_backward = any(not backward.finite(step.grads) for step in steps)
    findings += nonfinite_forward(graph, ancestors, ops, bad_backward or not steps)
    if not any(f.cause.startswith("nonfinite") or f.cause == "where_untaken_branch" for f in findings):
        nonfinite = nonfinite_backward(graph, steps)
        findings += nonfinite or (magnitude(graph, steps) if not bad_backward else [])
    if check:
        findings += custom_gradient_checks(graph, steps)
    return findings


# -- forward values ------------------------------------------------------------------------


def _nonfinite(graph, tid):
    return bool(graph.data["tensors"][tid]["nonfinite"])


def _kind_of_bad(graph, tid):
    """``NaN``, ``Inf`` or ``NaN and Inf``: what the tensor holds."""
    value = graph.value(tid)
    if value is None:
        return "NaN/Inf"
    with np.errstate(all="ignore"):
        nan, inf = bool(np.any(np.isnan(value))), bool(np.any(np.isinf(value)))
    return "NaN and Inf" if nan and inf else "NaN" if nan else "Inf"


FORWARD_WHY = {
    "Log": (
        "log(0) is -inf and the log of a negative number is NaN",
        "clip the input first: "
        "tf.math.log(tf.maximum(p, 1e-7)), or compute the loss from logits "
        "(tf.nn.softmax_cross_entropy_with_logits, tf.nn.sigmoid_cross_entropy_with_logits)",
    ),
    "Exp": (
        "exp overflows to inf above about 88 in float32 (softmax by hand does this)",
        "subtract the maximum first: tf.exp(z - tf.reduce_max(z, axis=-1, keepdims=True)), or use tf.nn.softmax",
    ),
    "RealDiv": (
        "a division by zero: 0/0 is NaN and x/0 is inf (a constant column has standard deviation 0)",
        "divide by (std + 1e-7), or use tf.math.divide_no_nan",
    ),
    "Sqrt": ("the square root of a negative number is NaN", "clip the input: tf.sqrt(tf.maximum(x, 0.0))"),
    "Pow": ("a power of 0 or of a negative number gave NaN/Inf", "keep the base positive (tf.maximum(x, 1e-7))"),
}
FORWARD_WHY["Div"] = FORWARD_WHY["RealDiv"]
FORWARD_WHY["Log1p"] = FORWARD_WHY["Log"]
FORWARD_WHY["Rsqrt"] = FORWARD_WHY["Sqrt"]


def nonfinite_forward(graph, ancestors, ops, masked_matters=True):
    """Where the target's first NaN/Inf came from: a leaf that held it, or the op that made it."""
    found = []
    ids = {op["id"] for op in ops}
    tensors = graph.data["tensors"]
    for tid in sorted(ancestors, key=lambda t: int(t[1:])):
        if graph.producer.get(tid) is None and _nonfinite(graph, tid):
            user = graph.first_consumer(tid, ids)
            what = "variable" if tensors[tid]["kind"] == "variable" else "input"
            found.append(
                finding_about(
                    graph,
                    "nonfinite_input",
                    f"The {what} {graph.name(tid)} already holds {_kind_of_bad(graph, tid)} before any op ran "
                    f"({fmt.clip(tensors[tid]['preview'] or '', 60)}): it came in with the data, "
                    f"and {user['name'] if user else 'every op'} only passed it on",
                    "clean the data first: find the rows with np.isnan / tf.math.is_finite and drop or fill them",
                    user,
                    tid,
                )
            )
    for op in ops:
        if op["depth"] != 0 or not any(_nonfinite(graph, t) for t in op["outputs"]):
            continue
        if any(_nonfinite(graph, t) for t in op["inputs"]):
            continue  # it only passed on a NaN/Inf made before
        bad = next(t for t in op["outputs"] if _nonfinite(graph, t))
        select = _masking_select(graph, bad, ids)
        if select is not None:
            if masked_matters:
                found.append(
                    finding_about(
                        graph,
                        "where_untaken_branch",
                        f"{graph.op(op)} makes {_kind_of_bad(graph, bad)} in the branch tf.where did not select: "
                        "the forward result is fine, but the backward pass multiplies that branch's zero "
                        "gradient by its infinite local derivative, and 0 * inf = NaN",
                        "make the input safe before the op, e.g. safe = tf.where(p > 0, p, 1.0), then "
                        "tf.where(p > 0, p * tf.math.log(safe), 0.0)",
                        op,
                        bad,
                    )
                )
            continue
        why, fix = FORWARD_WHY.get(
            op["name"], ("it made NaN/Inf from finite inputs", "check this op's inputs for values outside its domain")
        )
        found.append(
            finding_about(
                graph,
                "nonfinite_forward",
                f"{graph.op(op)} made the first {_kind_of_bad(graph, bad)} of the forward pass: {why}",
                fix,
                op,
                bad,
            )
        )
    return found


def _masking_select(graph, tid, among):
    """The tf.where (SelectV2) whose finite output hides ``tid``'s NaN/Inf downstream, or None."""
    queue, seen = [tid], {tid}
    while queue:
        current = queue.pop()
        for user in graph.consumers.get(current, []):
            if user["id"] not in among:
                continue
            if user["name"] in ("SelectV2", "Select") and not any(_nonfinite(graph, t) for t in user["outputs"]):
                return user
            for out in user["outputs"]:
                if out not in seen and _nonfinite(graph, out):
                    seen.add(out)
                    queue.append(out)
    return None


# -- backward steps ------------------------------------------------------------------------

BACKWARD_WHY = {
    "Sqrt": (
        "its rule divides by 2 * sqrt(x), so at x = 0 the gradient is inf (tf.norm of a zero vector does this)",
        "keep the input away from 0: tf.sqrt(s + 1e-12), or tf.norm of (x + 1e-12)",
    ),
    "Rsqrt": ("its rule has x ** -1.5, infinite at x = 0", "add a small epsilon: tf.math.rsqrt(x + 1e-12)"),
    "Log": ("its rule divides by x", "keep the input away from 0: tf.math.log(tf.maximum(x, 1e-7))"),
    "RealDiv": ("its rule divides by the divisor squared", "keep the divisor away from 0 (add 1e-7)"),
    "Pow": ("its rule has x ** (p - 1), infinite at x = 0 for p < 1", "add a small epsilon to the base"),
    "Acos": ("its rule divides by sqrt(1 - x**2), infinite at x = +-1", "clip x to [-1 + 1e-6, 1 - 1e-6]"),
    "Asin": ("its rule divides by sqrt(1 - x**2), infinite at x = +-1", "clip x to [-1 + 1e-6, 1 - 1e-6]"),
}


def nonfinite_backward(graph, steps):
    """The first step whose rule turned finite upstream gradients and finite values into NaN/Inf."""
    for step in steps:
        op = step.op
        if backward.finite(step.grads) or not backward.finite(step.upstream):
            continue
        if any(_nonfinite(graph, t) for t in op["inputs"] + op["outputs"]):
            continue
        why, fix = BACKWARD_WHY.get(
            op["name"],
            (
                "its gradient rule made NaN/Inf from finite values",
                "check the op's inputs against the points where its derivative is infinite",
            ),
        )
        if op["name"] == "CustomGradient":
            why, fix = (
                "your grad_fn returned NaN/Inf",
                "check the grad_fn of @tf.custom_gradient " + (f"{op.get('function')}" if op.get("function") else ""),
            )
        return [
            finding_about(
                graph,
                "nonfinite_backward",
                f"The forward pass is finite, but the gradient of {graph.op(op)} is "
                f"{_kind_of_bad_arrays(step.grads)}: {why}",
                fix,
                op,
            )
        ]
    return []


def _kind_of_bad_arrays(arrays):
    with np.errstate(all="ignore"):
        nan = any(a is not None and np.any(np.isnan(a)) for a in arrays)
        inf = any(a is not None and np.any(np.isinf(a)) for a in arrays)
    return "NaN and Inf" if nan and inf else "NaN" if nan else "Inf"


def _all_zero(arrays):
    present = [a for a in arrays if a is not None]
    return bool(present) and all(not np.any(a) for a in present)


class _Path:
    """What the walk knows of the gradient arriving at a tensor: the largest and smallest norms met on the way
    from the target (and at which step), and the step that sent it (to walk back for the blame)."""

    __slots__ = ("peak", "peak_step", "trough", "trough_step", "sender")

    def __init__(self, peak, peak_step, trough, trough_step, sender):
        self.peak, self.peak_step, self.trough, self.trough_step, self.sender = (
            peak,
            peak_step,
            trough,
            trough_step,
            sender,
        )


def magnitude(graph, steps):
    """``dead_relu``, ``vanishing`` and ``exploding`` findings from the norms of the arriving gradients.

    The norm is measured where a gradient arrives at an op of the network; a
    variable's read is left out (the gradient arriving there is the weight's
    own, large when the activations are, whatever the gradient did on the way).
    """
    found = []
    paths = {}  # tensor id -> _Path of the gradient arriving there
    norms = [None if step.op["name"] == "ReadVariableOp" else backward.norm(step.upstream) for step in steps]
    senders = {}  # step index -> the step index that sent its upstream (the largest contribution)
    crossed = {}  # "vanishing"/"exploding" -> (the step where the change first passed FACTOR, the step it began)
    for index, step in enumerate(steps):
        op, here = step.op, norms[index]
        arriving = [paths[t] for t in op["outputs"] if t in paths]
        if arriving:
            peak_path = max(arriving, key=lambda p: p.peak)
            trough_path = min(arriving, key=lambda p: p.trough)
            senders[index] = peak_path.sender
            peak, peak_step = peak_path.peak, peak_path.peak_step
            trough, trough_step = trough_path.trough, trough_path.trough_step
        else:
            peak, trough, peak_step, trough_step = 0.0, np.inf, index, index
        if here is not None:
            if here > peak:
                peak, peak_step = here, index
            if 0 < here < trough:
                trough, trough_step = here, index
            if "vanishing" not in crossed and 0 < here < peak / FACTOR:
                crossed["vanishing"] = (index, peak_step)
            if "exploding" not in crossed and here > trough * FACTOR:
                crossed["exploding"] = (index, trough_step)
            if here > 0 and op["name"] == "Relu" and _all_zero(step.grads):
                found += _dead_relu(graph, op)
            elif "vanishing" not in crossed and here > 0 and op["name"] in ACTIVATIONS and _all_zero(step.grads):
                crossed["vanishing"] = (index, None)  # underflow: the norm went to 0 at once
                found.append(
                    finding_about(
                        graph,
                        "vanishing",
                        f"The gradient underflows to 0 at {graph.op(op)}: its inputs saturate it, so its "
                        "derivative is 0 in floating point",
                        "keep activations out of saturation (normalise inputs, smaller initial weights, ReLU)",
                        op,
                    )
                )
        for tid, grad in zip(op["inputs"], step.grads):
            if grad is None:
                continue
            known = paths.get(tid)
            if known is None or peak > known.peak:
                paths[tid] = _Path(peak, peak_step, trough, trough_step, index)
            elif trough < known.trough:
                known.trough, known.trough_step = trough, trough_step
    for kind in ("vanishing", "exploding"):
        index, start = crossed.get(kind, (None, None))
        trend = _trend(graph, steps, norms, senders, index, start, kind) if start is not None else None
        if trend is not None:
            found.append(trend)
    return found


def _dead_relu(graph, op):
    """A ``dead_relu`` finding when every input of the ReLU ``op`` is <= 0."""
    value = graph.value(op["inputs"][0])
    if value is None or not np.all(value <= 0):
        return []
    return [
        finding_about(
            graph,
            "dead_relu",
            f"Every input of {graph.op(op)} is <= 0 for the whole batch ({graph.name(op['inputs'][0])}), so it "
            "passes no gradient back and the weights before it stop learning",
            "use a smaller learning rate, He initialisation, a positive bias to start with, or LeakyReLU",
            op,
        )
    ]


def _chain(senders, end, start, limit):
    """Step indices from ``end`` back to ``start`` along the steps that sent each one its gradient."""
    chain = [end]
    while chain[-1] != start and chain[-1] in senders and len(chain) <= limit:
        chain.append(senders[chain[-1]])
    return chain


def _trend(graph, steps, norms, senders, index, start, kind):
    """A vanishing/exploding finding: the change from step ``start`` to the end of the path, blamed on
    the op type whose steps on the way changed the gradient most (repeated: a layer or a loop's step),
    at its step nearest to ``index``, where the change first passed ``FACTOR``."""
    measured = [i for i in range(index, len(steps)) if norms[i] and index in _chain(senders, i, index, len(steps))]
    extreme = min if kind == "vanishing" else max
    end = extreme(measured, key=lambda i: norms[i]) if measured else index
    chain = _chain(senders, end, start, len(steps))
    effect = {}  # op type -> (log10 of its steps' product of norm ratios, its steps)
    for k in range(1, len(chain)):  # each step on the way: the norm it received, and what it passed on
        position, nearer = chain[k], chain[k - 1]
        received, passed = norms[position], norms[nearer]
        if not received or not passed:
            continue
        name = steps[position].op["name"]
        log_ratio, positions = effect.get(name, (0.0, []))
        effect[name] = (log_ratio + np.log10(passed / received), positions + [position])
    # Repeated ops (a layer, a loop's step) that shrink (or grow) the gradient: one op scaling it
    # once (a regulariser's 1e-6 factor) is a choice, not a vanishing gradient.
    repeated = {k: v for k, v in effect.items() if len(v[1]) >= 2 and (v[0] < 0 if kind == "vanishing" else v[0] > 0)}
    if not repeated:
        return None
    pick = min if kind == "vanishing" else max
    name = pick(repeated, key=lambda k: repeated[k][0])
    log_ratio, positions = repeated[name]
    before = [p for p in positions if p <= index]
    blamed = steps[max(before) if before else min(positions)].op
    overall = norms[end] / norms[start] if norms[start] else 0.0
    each = 10 ** (log_ratio / len(positions))
    if kind == "vanishing":
        fix = (
            "use ReLU-family activations, Glorot/He initialisation, batch normalisation or residual "
            "connections, or fewer layers"
        )
        where = f"at this one it first falls below 1/{FACTOR:.0e} of its largest size"
    else:
        fix = (
            "clip the gradients (tf.clip_by_global_norm), start the recurrent weights smaller "
            "(orthogonal, gain < 1), or use a gated cell (LSTM, GRU)"
        )
        where = f"at this one it first grows past {FACTOR:.0e} times its smallest size"
    verb = "shrinks" if kind == "vanishing" else "grows"
    return finding_about(
        graph,
        kind,
        f"The gradient {verb} by {overall:.1e} along the path ({len(chain)} backward steps): each of the "
        f"{len(positions)} {name} ops on the way multiplies its norm by about {each:.2g}, and {where}",
        fix,
        blamed,
    )


# -- custom gradients against finite differences ----------------------------------------------


def custom_gradient_checks(graph, steps, eps=1e-3, rtol=0.05):
    """A ``custom_gradient_mismatch`` for each CustomGradient whose grad_fn disagrees with its function."""
    found = []
    for step in steps:
        op = step.op
        entry = graph.entries.get(op["id"])
        forward = getattr(entry, "attrs", {}).get("forward") if entry is not None else None
        if op["name"] != "CustomGradient" or forward is None:
            continue
        bad = _check_custom(entry, forward, step, eps, rtol)
        if bad is not None:
            analytic, numeric = bad
            found.append(
                finding_about(
                    graph,
                    "custom_gradient_mismatch",
                    f"The grad_fn of {op.get('function') or 'this custom gradient'} gives {analytic:.4g} along a "
                    f"random direction where finite differences of the function give {numeric:.4g}",
                    "make grad_fn return upstream times the derivative of each output w.r.t. each input "
                    "(check its sign and its factors)",
                    op,
                )
            )
    return found


def _check_custom(entry, forward, step, eps, rtol):
    """(analytic, numeric) directional derivatives when they disagree, else None."""
    n_args = entry.attrs.get("n_args", len(entry.inputs))
    xs = [np.asarray(t.numpy(), dtype=np.float64) for t in entry.inputs[:n_args]]
    rng = np.random.default_rng(0)
    directions = [rng.standard_normal(x.shape) if x.dtype.kind == "f" else np.zeros(x.shape) for x in xs]
    upstream = [np.zeros(tuple(out.shape)) if u is None else u for u, out in zip(step.upstream, entry.outputs)]
    analytic = sum(
        float(np.sum(np.asarray(g, dtype=np.float64) * d))
        for g, d in zip(step.grads[:n_args], directions)
        if g is not None
    )

    def objective(sign):
        dtype = entry.inputs[0].dtype
        args = [constant((x + sign * eps * d).astype(dtype.as_numpy_dtype)) for x, d in zip(xs, directions)]
        with np.errstate(all="ignore"), state.no_tapes():
            result, _grad_fn = forward(*args)
        outs = result if isinstance(result, (tuple, list)) else (result,)
        return sum(float(np.sum(np.asarray(o.numpy(), dtype=np.float64) * u)) for o, u in zip(outs, upstream))

    try:
        numeric = (objective(1.0) - objective(-1.0)) / (2 * eps)
    except Exception:  # the function cannot be called again on its own: nothing to compare
        return None
    scale = max(abs(analytic), abs(numeric), 1e-6)
    return None if abs(analytic - numeric) <= rtol * scale else (analytic, numeric)
