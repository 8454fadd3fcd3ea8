"""Why is my gradient None (or zero, or NaN)? Answers in words, and a picture: views of ``diagnose``.

``explain(tape, target, source)`` and ``find_nonfinite(tape)`` read the same
examination ``tf.viz.diagnose`` makes (tapeviz/viz/diagnosis.py), so they
cannot disagree with it, nor with the picture, nor with the player's captions.
They answer in any order: before ``gradient()``, after it, on a used
non-persistent tape (the session recorder keeps its records).

``explain`` names one cause with the code it has always used:

1. ``integer_source`` / ``integer_target``: gradients flow only through floats;
2. ``non_trainable``: a ``trainable=False`` variable is not watched;
3. ``variable_replaced``: ``x = x + 1`` made ``x`` a tensor, no longer the variable;
4. ``not_watched``: a constant the tape never watched (also when an op used it
   together with watched weights: a saliency map's input);
5. ``tape_used``: the path is on the tape, but a non-persistent tape already
   answered another ``gradient()`` call and cannot answer this one;
6. along the path from source to target, the first op that breaks it:
   ``outside_context`` (ran before/after the ``with`` block),
   ``stop_recording``, ``stop_gradient``, ``non_differentiable`` (argmax,
   round, a cast to an integer type);
7. ``numpy_roundtrip``: the target depends on a constant made from a value
   computed from the source (``.numpy()``, a NumPy function, ``model.predict``);
8. ``not_connected``: nothing links them; ``zero``: connected, but the
   gradient is zero (the diagnosis says where: a dead ReLU, a vanishing
   gradient); ``connected``: the gradient exists (with the diagnosis' first
   finding when it is NaN, vanishing or exploding).

``gradcheck`` lives here too: all three answer "where did my gradient go
wrong" and highlight the op in the picture.
"""

import inspect

import numpy as np

from tapeviz import backend
from tapeviz.core import finite_differences as testing
from tapeviz.core.primitives.math import reduce_sum
from tapeviz.core.tape import GradientTape
from tapeviz.core.tensor import constant
from tapeviz.viz import diagnosis
from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz.display import Figure
from tapeviz.viz.trace import trace as _trace

# The diagnosis' causes that break the path, by explain's own codes (``Finding.detail``).
PATH_CAUSES = (
    "unwatched",
    "replaced_variable",
    "left_the_tape",
    "integer_path",
    "no_gradient_op",
    "stop_gradient",
    "outside_tape",
    "stop_recording",
    "not_connected",
)
NONFINITE_CAUSES = ("nonfinite_input", "nonfinite_forward", "nonfinite_backward", "where_untaken_branch")
TAPE_USED_FIX = (
    "Create the tape with tf.GradientTape(persistent=True) to call gradient() more than once, "
    "or record again with a new tape."
)
ZERO_FIX = (
    "A zero gradient is a real answer here; check the highlighted op's inputs (a dead ReLU, a "
    "constant branch of tf.where, a sign or floor)."
)


class Explanation:
    """A verdict: ``cause`` (a code), ``message`` (plain words), ``fix``, the
    ``path`` (trace ids) and the id where it ``broken_at``; shows a picture.

    ``finding``: the diagnosis' finding it reports (None when all is well),
    ``findings`` all of them. ``names``: {trace id: the student's name}, looked
    up when ``explain`` ran; the message and the picture both use them, so the
    text names what the picture shows.
    """

    def __init__(self, cause, message, trace, path=(), broken_at=None, names=None, fix="", finding=None, findings=()):
        self.cause = cause
        self.message = message
        self.fix = fix
        self.trace = trace
        self.path = list(path)
        self.broken_at = broken_at
        self.names = dict(names or {})
        self.finding = finding
        self.findings = list(findings)

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
        The source x is a constant the tape never watched, so nothing computed from it was recorded.
        Fix: Call tape.watch(x) inside the `with tf.GradientTape() as tape:` block, before using x (or make x a tf.Variable).
    """
    seen = diagnosis.examine(tape, target, [source])
    graph, tgt, tape_id = seen.graph, seen.tgt, seen.tape_id
    src = seen.pairs[0][1]
    broken = next((f for f in seen.findings if f.cause in PATH_CAUSES), None)
    others = [f for f in seen.findings if f.cause not in PATH_CAUSES]
    path = seen.path()
    if broken is not None:
        cause, message, fix, finding = broken.detail, _sentence(broken.message, False), _sentence(broken.fix), broken
        mark = broken.node or broken.tensor
        if broken.cause == "left_the_tape":
            mark = broken.tensor  # the constant that came back: the picture draws the break on it
        if not path:
            path = [t for t in (src, tgt) if t is not None]
    elif _answered_other(graph, tape_id, tgt, src, tape):
        cause, finding, mark = "tape_used", None, None
        done = [s for s in graph.data["sweeps"] if s["tape"] == tape_id]
        earlier = f" (its first call gave {done[0]['results']})" if done else ""
        message = (
            "The path from source to target is on the tape, but this non-persistent tape was already used to "
            f"compute another gradient{earlier} and released what it recorded: this gradient() call raises "
            "RuntimeError."
        )
        fix = TAPE_USED_FIX
    else:
        cause, message, mark = _connected(graph, tape_id, src, tgt, path)
        finding = others[0] if others else None
        fix = ZERO_FIX if cause == "zero" else ""
        if finding is not None:  # the diagnosis says where it goes wrong: that is what the picture rings
            message = f"{message} {_sentence(finding.message, False)}"
            fix, mark = _sentence(finding.fix), finding.node or finding.tensor
    if not seen.complete:
        message += (
            " (Only the tape's recorded ops were available: import tapeviz.viz before running the "
            "cell, so untaped ops and sweeps are recorded too, for a fuller answer.)"
        )
    return Explanation(cause, message, seen.picture(), path, mark, seen.names, fix, finding, seen.findings)


def _sentence(text, capital=True):
    """``text`` as a sentence: a full stop, and a capital first letter (``capital``; a message starts
    with its own, or with a name such as ``tf.stop_gradient`` that keeps its case)."""
    if not text:
        return ""
    if capital:
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _answered_other(graph, tape_id, tgt, src, tape):
    """True when a non-persistent tape was used and never answered (target, source): asking raises."""
    if tape.persistent or not tape.released:
        return False
    for sweep in graph.data["sweeps"]:
        if sweep["tape"] == tape_id and tgt in sweep["targets"] and src in sweep["sources"]:
            return False
    return any(sweep["tape"] == tape_id for sweep in graph.data["sweeps"])


def _connected(graph, tape_id, src, tgt, path):
    """(cause, message, the op to ring): ``zero`` or ``connected``, from the tape's sweeps when there are any."""
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
                        op["id"],
                    )
            return ("zero", "The gradient is zero: every path from source to target carries zeros.", None)
        return ("connected", f"The source is connected to the target on the tape; the gradient is {result}.", None)
    return ("connected", "The source is connected to the target on the tape: tape.gradient will not be None.", None)


def _all_zero(preview):
    parts = preview.replace("[", "").replace("]", "").replace(",", " ").split()
    return bool(parts) and all(part == "0" for part in parts) or preview.startswith("mean 0, min 0, max 0")


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


class NonFinite(_Verdict):
    """Where a value went NaN/Inf first: ``op`` (the trace's op id), ``phase`` ("forward"/"backward"),
    ``message``; ``finding``: the diagnosis' finding it shows (None when all is finite)."""

    def __init__(self, op, phase, message, trace, names=None, finding=None):
        self.op, self.phase, self.message, self.trace = op, phase, message, trace
        self.names = names
        self.finding = finding

    def _blamed(self):
        return self.op

    def __bool__(self):
        return self.finding is not None

    def __repr__(self):
        return f"<NonFinite {self.phase} {self.op}: {self.message}>"


def find_nonfinite(tape, target=None, sources=None):
    """The first op whose forward value, or backward gradient, became NaN or Inf.

    ``target`` (by default the target of the tape's last ``gradient()`` call, else its
    last op's output) and ``sources`` narrow the question as ``diagnose`` does.

    Args:
        tape: a GradientTape (or a ``tapeviz.viz.trace()``) that recorded the computation.
        target: the tensor whose gradient to examine.
        sources: the tensors or variables the gradient is taken with respect to.

    Returns:
        A ``NonFinite``, true when something went NaN or Inf, with ``op`` (the
        op's id in the trace), ``phase`` (``"forward"`` or ``"backward"``) and a
        ``message`` that says why and what to do; it draws the tape with that op
        marked. False (``op`` None) when every value and gradient is finite.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.Variable(0.0)
        >>> with tf.GradientTape() as tape:
        ...     y = tf.sqrt(x) * 2.0
        >>> found = tf.find_nonfinite(tape, y, x)
        >>> bool(found), found.phase
        (True, 'backward')
        >>> found.message.startswith("Backward: The forward pass is finite, but the gradient of Sqrt")
        True
    """
    seen = diagnosis.examine(tape, target, sources)
    finding = next((f for f in seen.findings if f.cause in NONFINITE_CAUSES), None)
    if finding is None:
        return NonFinite(None, None, "No NaN or Inf in any recorded value or gradient.", seen.picture(), seen.names)
    phase = "backward" if finding.cause == "nonfinite_backward" else "forward"
    op = seen.graph.data["ops"][int(finding.node[2:])] if finding.node else None
    scope = f" (in scope {op['scope']})" if op and op["scope"] else ""
    message = f"{phase.capitalize()}: {finding.sentence()}{scope}"
    return NonFinite(finding.node, phase, message, seen.picture(), seen.names, finding)


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

    Args:
        fn: a function of tensors, built from tapeviz ops.
        *args: its arguments (numbers, lists or arrays).
        eps: the finite-difference step.
        rtol: the relative tolerance of the comparison.
        atol: the absolute tolerance.
        seed: the seed of the projection weights.

    Returns:
        A ``GradcheckResult``, true when they agree; ``errors`` (the largest
        difference per argument), ``analytic`` and ``numeric`` (the gradients),
        ``suspect`` (the op to blame, or None) and a ``message``; it draws the
        checked tape with the suspect marked.

    Example:
        >>> import tapeviz as tf
        >>> result = tf.gradcheck(lambda x: tf.sin(x) * x, [0.5, 1.0])
        >>> bool(result), result.suspect
        (True, None)
        >>> result.message.startswith("Gradients agree with finite differences")
        True
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
        _start, steps, _finish = recorded.objects["sweeps"][sweep["id"]]  # the live step behind each drawn one
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
