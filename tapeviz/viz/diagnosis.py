"""``tf.viz.diagnose``: everything wrong with one gradient, each finding with its op, its line and its step.

One diagnosis for every view: ``explain`` and ``find_nonfinite`` read the
same examination, the player's captions read ``findings_of`` (the same
findings, named by the player's trace ids and counted in its sweep), so no
two of them can disagree. It works in any order: before ``gradient()``,
after it, on a non-persistent tape that already released its entries (the
session recorder keeps them), without changing the tape.

The causes (``CAUSES``, documented in tapeviz/viz/findings.py):
``nonfinite_input``, ``nonfinite_forward``, ``nonfinite_backward``,
``where_untaken_branch``, ``unwatched``, ``replaced_variable``,
``left_the_tape``, ``integer_path``, ``no_gradient_op``, ``stop_gradient``,
``outside_tape``, ``stop_recording``, ``not_connected``, ``vanishing`` and
``exploding`` (the gradient's norm shrinks or grows by more than ``FACTOR``,
1e4, along the path, or underflows to 0), ``dead_relu``,
``custom_gradient_mismatch`` (with ``check=True``).
"""

from tapeviz.core import nest
from tapeviz.core.tape import tape_with_serial
from tapeviz.core.tensor import tensor_id
from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz import op_graph
from tapeviz.viz.connectivity import judge, taped_path
from tapeviz.viz.display import Figure
from tapeviz.viz.findings import CAUSES, FACTOR, Finding, analyse  # noqa: F401 - CAUSES, FACTOR: documented here
from tapeviz.viz.trace import Trace, build

FOLD_ABOVE = 60  # ops: a bigger picture folds its layers and loops (tf.show's folding)
EXCERPT_ABOVE = 120  # ops: a bigger picture shows the ops around the guilty ones only ...
EXCERPT_HOPS = 6  # ... this many ops away, up or down

# Causes whose culprit is a tensor (the picture rings it beside the op that used it).
TENSOR_CAUSES = ("unwatched", "nonfinite_input", "left_the_tape", "replaced_variable", "integer_path")

__all__ = ["CAUSES", "FACTOR", "Diagnosis", "Finding", "diagnose", "findings_of"]


class Diagnosis:
    """What is wrong with a gradient: ``findings`` (a list of ``Finding``), falsy when nothing is.

    Printed: one line per finding (cause, op, the user's line, the message
    and its fix). In Jupyter: the same text over the picture of the ops
    between the sources and the target, the guilty ops ringed.
    """

    def __init__(self, findings, trace=None, names=None, path=()):
        self.findings = list(findings)
        self.trace = trace
        self.names = dict(names or {})
        self.path = list(path)  # trace ids on the path from the sources to the target (marked when nothing is wrong)

    def __bool__(self):
        return bool(self.findings)

    def __len__(self):
        return len(self.findings)

    def __iter__(self):
        return iter(self.findings)

    def __getitem__(self, index):
        return self.findings[index]

    @property
    def causes(self):
        """The causes found, in order (``[]`` when nothing is wrong)."""
        return [finding.cause for finding in self.findings]

    def marks(self):
        """What the picture rings: each finding's op, and its tensor when the tensor is the culprit
        (a constant never watched, data holding NaN, a value back from NumPy)."""
        marks = {}
        for finding in self.findings:
            for key in (finding.node, finding.tensor if finding.cause in TENSOR_CAUSES or not finding.node else None):
                if key is not None:
                    marks[key] = "break"
        return marks or {p: "path" for p in self.path}

    def figure(self):
        """The picture: the ops between the sources and the target, folded when there are many (a deep
        network, a long loop), the guilty ones ringed."""
        many = self.trace is not None and len(self.trace.data["ops"]) > FOLD_ABOVE
        return Figure(self.trace, names=self.names, marks=self.marks(), untaped="all", fold=many)

    def __str__(self):
        if not self.findings:
            return "Nothing wrong found: the gradient flows, finite, without vanishing or exploding."
        lines = []
        for finding in self.findings:
            head = (
                f"{finding.cause}"
                + (f" at {finding.op}" if finding.op else "")
                + (f" ({finding.where})" if finding.where else "")
            )
            lines.append(f"{head}: {finding.sentence() if not finding.where else _without_where(finding)}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<Diagnosis {', '.join(self.causes) or 'nothing wrong'}>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.figure()._repr_mimebundle_(include, exclude) if self.trace is not None else {}
        items = "".join(
            f"<li><b>{fmt.html_text(f.cause)}</b>"
            + (f" at <code>{fmt.html_text(f.op)}</code>" if f.op else "")
            + (f" <i>({fmt.html_text(f.where)})</i>" if f.where else "")
            + f": {fmt.html_text(_without_where(f))}</li>"
            for f in self.findings
        )
        head = f'<ul class="tapeviz-diagnosis">{items}</ul>' if items else f"<p>{fmt.html_text(str(self))}</p>"
        bundle["text/html"] = head + bundle.get("text/html", "")
        bundle["text/plain"] = str(self)
        return bundle


def _without_where(finding):
    text = finding.message
    return f"{text.rstrip('.')}. Fix: {finding.fix}" if finding.fix else text


def diagnose(tape, target, sources=None, check=False):
    """Everything wrong with ``tape.gradient(target, sources)``: a :class:`Diagnosis`.

    Call it before or after ``gradient()``, on any tape (a non-persistent one
    that was used included): it reads what the session recorder kept
    (``import tapeviz.viz`` turns it on) and recomputes the gradients it needs
    without touching the tape.

    Args:
        tape: the GradientTape that recorded ``target``.
        target: the tensor you differentiate.
        sources: a tensor, a variable, or a (nested) list of them; by default the
            sources of the tape's last ``gradient()`` call for ``target``, else
            what the tape watched.
        check: also compare each ``tf.custom_gradient`` with finite differences.

    Returns:
        A :class:`Diagnosis`, whose ``.findings`` each have ``cause``, ``op``,
        ``name``, ``where`` (the line that made the op), ``step`` (the
        player's step) and ``message``; falsy when nothing is wrong.

    Example:
        >>> import tapeviz as tf
        >>> import tapeviz.viz  # in a script: keep the records (Jupyter does it on import tapeviz)
        >>> x = tf.Variable([0.0, 0.0])
        >>> with tf.GradientTape() as tape:
        ...     y = tf.sqrt(tf.reduce_sum(x * x))  # tf.norm at zero
        >>> found = tf.viz.diagnose(tape, y, x)
        >>> found.causes, found[0].op
        (['nonfinite_backward'], 'Sqrt')
    """
    seen = examine(tape, target, sources, check=check)
    return Diagnosis(seen.findings, seen.picture(), seen.names, seen.path())


class Examination:
    """What ``examine`` read and found: the ``graph``, the tape's trace id, the target's and the
    sources' trace ids, the ``findings``; ``complete`` is False when the recorder did not see the
    tape begin (its records are then the tape's own)."""

    def __init__(self, graph, tape_id, target, tgt, pairs, findings, complete):
        self.graph, self.tape_id, self.target, self.tgt = graph, tape_id, target, tgt
        self.pairs, self.findings, self.complete = pairs, findings, complete
        self.names = graph.found

    def path(self):
        """Trace ids on the tape's paths from the sources to the target."""
        path = []
        for _source, src in self.pairs:
            if src is not None and self.tgt is not None:
                path += taped_path(self.graph, src, self.tgt, self.tape_id) or []
        return path

    def picture(self):
        """The trace the picture draws: the ops between the sources and the target, and the guilty ones."""
        return _picture(self.graph, self.graph.data, self.tgt, self.pairs, self.findings)


def examine(tape, target=None, sources=None, check=False, names=None):
    """Read what the recorder kept of ``tape`` and diagnose ``target`` (by default the target of the
    tape's last sweep, else its last op's output): an :class:`Examination`. ``explain`` and
    ``find_nonfinite`` read the same one ``diagnose`` does."""
    if not hasattr(tape, "serial") or not hasattr(tape, "gradient"):
        raise TypeError(f"diagnose: the first argument is the GradientTape that recorded the target, got {tape!r}.")
    for value, role in [(target, "target")] + [(s, "source") for s in nest.flatten([] if sources is None else sources)]:
        if value is not None and not hasattr(value, "dtype"):
            raise TypeError(
                f"diagnose: the {role} must be a tensor or a variable (the object you pass to tape.gradient), "
                f"got {type(value).__name__}."
            )
    records, complete = op_graph.records(tape, [target, *nest.flatten([] if sources is None else sources)])
    data, objects = build(records, include_untaped=True)
    if names is None:
        names = naming.by_identity(dict(objects["tensors"]), naming.namespace(3))
    graph = op_graph.OpGraph(data, objects, names)
    tape_id = op_graph.tape_id(records, tape.serial)
    tgt = graph.find(target) if target is not None else _default_target(graph, tape_id)
    if target is None and tgt is not None:
        target = graph.objects[tgt]
    pairs = _sources(graph, tape_id, tgt, sources)
    findings = analyse(
        graph,
        tape_id,
        target,
        tgt,
        pairs,
        check=check,
        connection=lambda source, src: judge(graph, tape_id, source, target, src, tgt),
    )
    _number_steps(findings, data, tape_id, tgt)
    return Examination(graph, tape_id, target, tgt, pairs, findings, complete)


def _default_target(graph, tape_id):
    """The target of the tape's last sweep, else the first output of the last op it recorded."""
    for sweep in reversed(graph.data["sweeps"]):
        if sweep["tape"] == tape_id and sweep["targets"]:
            return sweep["targets"][0]
    taped = [op for op in graph.data["ops"] if tape_id in op["tapes"] and op["outputs"]]
    return taped[-1]["outputs"][0] if taped else None


def findings_of(trace, sweep="last"):
    """The findings about a sweep of ``trace`` (its target, its sources), as the player's captions show them.

    The same findings ``diagnose`` gives for that tape, target and sources
    (while the tape lives: it also reads the ops no tape recorded, such as a
    division before the ``with`` block), with ``step`` counted in that sweep and
    ``node`` / ``tensor`` named by ``trace``'s own ids (None for an op the trace
    does not hold). ``trace`` is a ``Trace`` built from records (one loaded
    from JSON holds no values: no findings); ``sweep`` is ``"last"`` or an
    index into ``trace.data["sweeps"]``.
    """
    data, objects = trace.data, trace.objects
    if not objects or not data["sweeps"]:
        return []
    chosen = data["sweeps"][-1] if sweep == "last" else data["sweeps"][sweep]
    if not chosen["targets"]:
        return []
    tensors = objects["tensors"]
    target, sources = tensors[chosen["targets"][0]], [tensors[s] for s in chosen["sources"]]
    tape = tape_with_serial(naming.tape_serials(trace).get(chosen["tape"]))
    if tape is None:  # the tape is gone: what the trace itself holds
        graph = op_graph.OpGraph(data, objects, naming.lookup(trace, naming.namespace(2)))
        tape_id, tgt = chosen["tape"], chosen["targets"][0]
        pairs = list(zip(sources, chosen["sources"]))
        findings = analyse(
            graph, tape_id, target, tgt, pairs,
            connection=lambda source, src: judge(graph, tape_id, source, target, src, tgt),
        )  # fmt: skip
        _number_steps(findings, data, tape_id, tgt, chosen)
        return findings
    seen = examine(tape, target, sources)
    _translate(seen, trace, chosen)
    return seen.findings


def _translate(seen, trace, sweep):
    """Rename the findings' op and tensor ids to ``trace``'s, and count their steps in its ``sweep``."""
    ops = {entry.index: oid for oid, entry in trace.objects["entries"].items()}
    tensors = {tensor_id(obj): tid for tid, obj in trace.objects["tensors"].items()}
    step_of = {}
    for position, step in enumerate(sweep["steps"]):
        step_of.setdefault(step["op"], position)
    for finding in seen.findings:
        entry = seen.graph.entries.get(finding.node)
        finding.node = ops.get(entry.index) if entry is not None else None
        obj = seen.graph.objects.get(finding.tensor)
        finding.tensor = tensors.get(tensor_id(obj)) if obj is not None else None
        finding.step = step_of.get(finding.node)


def _sources(graph, tape_id, tgt, sources):
    """[(source object, trace id)]: the given ones, else the last sweep's for ``tgt``, else the watched ones."""
    if sources is not None:
        flat = nest.flatten(sources)
        return [(s, graph.find(s)) for s in flat]
    for sweep in reversed(graph.data["sweeps"]):
        if sweep["tape"] == tape_id and tgt in sweep["targets"]:
            return [(graph.objects[s], s) for s in sweep["sources"]]
    watched = [
        tid
        for tid, info in graph.data["tensors"].items()
        if tape_id in info["watched_by"] and (tgt is None or tid in graph.ancestors(tgt)[0])
    ]
    return [(graph.objects[t], t) for t in sorted(watched, key=lambda t: int(t[1:]))]


def _number_steps(findings, data, tape_id, tgt, sweep=None):
    """Each finding's ``step``: where the tape's last sweep for ``tgt`` reaches its op (None if it does not)."""
    if sweep is None:
        sweep = next(
            (s for s in reversed(data["sweeps"]) if s["tape"] == tape_id and tgt in s["targets"]),
            None,
        )
    if sweep is None:
        return
    position = {}
    for index, step in enumerate(sweep["steps"]):
        position.setdefault(step["op"], index)
    for finding in findings:
        finding.step = position.get(finding.node)


def _around(graph, centres, among, hops):
    """The ops of ``among`` at most ``hops`` ops away from one of ``centres`` (up or down the graph)."""
    reached, frontier = set(centres), set(centres)
    by_id = {op["id"]: op for op in graph.data["ops"]}
    for _ in range(hops):
        nearby = set()
        for oid in frontier:
            op = by_id[oid]
            for tid in op["inputs"]:
                producer = graph.producer.get(tid)
                if producer is not None:
                    nearby.add(producer["id"])
            for tid in op["outputs"]:
                nearby.update(user["id"] for user in graph.consumers.get(tid, []))
        frontier = (nearby & among) - reached
        reached |= frontier
    return reached


def _picture(graph, data, tgt, pairs, findings):
    """The ops between the sources and the target, the guilty ones and what feeds them included."""
    keep = set()
    if tgt is not None:
        keep.update(op["id"] for op in graph.ancestors(tgt)[1])
    for _source, src in pairs:
        if src is not None:  # where the source's value went, a dead end (a NumPy round trip) included
            reached = graph.descendants(src)
            keep.update(op["id"] for op in data["ops"] if reached.intersection(op["inputs"]))
    guilty = {finding.node for finding in findings if finding.node}
    keep |= guilty
    if len(keep) > EXCERPT_ABOVE and guilty:  # a deep network, a long loop: the ops around the guilty ones
        keep = _around(graph, guilty, keep, EXCERPT_HOPS)
    reads = set()
    for op in data["ops"]:
        if op["id"] in keep:
            for tid in op["inputs"]:
                producer = graph.producer.get(tid)
                if producer is not None and producer["name"] == "ReadVariableOp":
                    reads.add(producer["id"])
    keep |= reads
    return Trace(data=dict(data, ops=[op for op in data["ops"] if op["id"] in keep]))
