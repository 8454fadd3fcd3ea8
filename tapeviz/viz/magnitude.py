"""How big the gradient is as it travels back: per layer and per loop turn, and when that is a problem.

The trace keeps, for every backward step, the L2 norm of the gradient
arriving at the step's op (``step["norm"]``, see :mod:`tapeviz.viz.trace`).
Grouped along the path from the target back to the sources, those numbers
show a gradient vanishing through 20 sigmoid layers (1e-1 to 1e-15) or
exploding through a 60-turn ReLU loop (x1e29), which no NaN check sees.

A *unit* of the path is, in this order of preference:

* one **turn of a loop** (a body of primitives repeated at least three
  times, found as :mod:`tapeviz.viz.fold` folds loops, inside one name scope
  or outside any);
* one **name scope** (a Keras layer: ``sequential/dense_3``), the innermost;
* otherwise one **op** (the loss's own ops: ``Mean``, ``Square``).

The gradient *arriving* at a unit is the one arriving at the first of its
ops that the sweep reaches (a Dense layer's activation: d loss / d output).

``gradient_norms(tape, target)`` gives these numbers in path order (a
:class:`GradientNorms`: a table as text, a chart in Jupyter, ``.plot()``
for the SVG); :func:`verdicts` says whether they vanish or explode.

The verdicts' rule (:data:`DEFAULT_FACTOR` = 1e4):

* the path's norms are those of its layers and loop turns when it has any
  (the loss's own ops are left out: a mean over N elements divides by N,
  which is not a vanishing gradient), else of all its units; the reference
  is the first of them with a finite, non-zero norm;
* **vanishing**: a later norm below reference / factor, or a gradient that
  *underflowed* to 0 (upstream x local derivative is not 0 in float64 but
  came out 0 in the tensor's dtype). A norm that is exactly 0 because a
  local derivative is 0 (a dead ReLU, ``stop_gradient``) is not vanishing;
* **exploding**: a later norm above reference x factor, or one that
  overflowed to inf (a NaN is a non-finite value, not a magnitude).
"""

import dataclasses
import math

from tapeviz.core.tensor import tensor_id
from tapeviz.viz import fold as folding
from tapeviz.viz import format as fmt
from tapeviz.viz.trace import norm_value, trace_of

DEFAULT_FACTOR = 1e4  # a gradient that shrinks or grows by more than this across the path is flagged
READ = "ReadVariableOp"  # a variable's read: bookkeeping, its gradient is the variable's


@dataclasses.dataclass(frozen=True)
class Norm:
    """The gradient arriving at one unit of the path.

    ``name``: the scope (``sequential/dense_3``), the loop turn
    (``turn 12 of 60 × [MatMul → AddV2 → Relu]``) or the op's type;
    ``kind``: "turn", "scope" or "op"; ``norm``: its L2 norm (a float, inf or
    nan; None where the value was not kept); ``step``: the position in the
    sweep's steps where it arrived; ``op``: that step's op id, ``op_name``
    its type (``Sigmoid``); ``ops``: the unit's op ids; ``underflow``: a
    product on one of the unit's steps underflowed to 0.
    """

    name: str
    kind: str
    norm: float | None
    step: int
    op: str
    op_name: str
    ops: tuple
    underflow: bool = False


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A vanishing or exploding gradient: ``cause`` ("vanishing" | "exploding"), the reference unit
    (``start``) and the unit where the norm first passed the ``factor`` (``at``), the extreme ratio along
    the path (``ratio``: 0 for an underflow, inf for an overflow), and one sentence (``message``).
    ``step``, ``op_name`` and ``name`` are ``at``'s, for a player to jump to."""

    cause: str
    start: Norm
    at: Norm
    ratio: float
    factor: float
    underflow: bool
    message: str

    @property
    def step(self):
        return self.at.step

    @property
    def op_name(self):
        return self.at.op_name

    @property
    def name(self):
        return self.at.name


def growth_text(ratio):
    """``x1e27``, ``x3e-12``, ``x1.5``: a norm's growth, as a folded loop's label writes it."""
    if ratio is None or math.isnan(ratio):
        return None
    if math.isinf(ratio):
        return "\u00d7inf"
    if ratio == 0:
        return "\u00d70"
    if 0.1 < ratio < 10:
        return f"\u00d7{ratio:.2g}"
    mantissa, exponent = f"{ratio:.0e}".split("e")
    return f"\u00d7{mantissa}e{int(exponent)}"


def loop_growth(data, sweep, key, members):
    """(text, ratio) for a folded loop's label: ``gradient norm ×1e27 over the loop`` and the norm arriving at
    its first turn over the norm arriving at its last (the sweep reaches the last turn first); (None, None)
    when the sweep did not reach two of its turns or nothing arrived."""
    position = _first_steps(sweep)
    arriving = []
    for turn in folding.turns(key, members):
        steps = [position[op["id"]] for op in turn if op["id"] in position]
        if steps:
            arriving.append(norm_value(sweep["steps"][min(steps)]["norm"]))
    if len(arriving) < 2 or arriving[-1] is None or arriving[0] is None or arriving[-1] == 0:
        return None, None
    first, last = arriving[0], arriving[-1]
    if math.isnan(first) or math.isnan(last):
        return "the gradient became nan in the loop", math.nan
    if first == 0:
        return "gradient norm fell to 0 over the loop", 0.0
    ratio = first / last
    return f"gradient norm {growth_text(ratio)} over the loop", ratio


def alarming(ratio, factor=DEFAULT_FACTOR):
    """True for a growth a reader should notice: beyond ``factor`` either way, to 0, inf or nan."""
    return ratio is not None and (math.isnan(ratio) or not (1 / factor <= ratio <= factor))


def _first_steps(sweep):
    """Op id -> its position in the sweep's steps."""
    position = {}
    for index, step in enumerate(sweep["steps"]):
        position.setdefault(step["op"], index)
    return position


def units(data, sweep):
    """[(name, kind, [op ids])] of the path's units (see the module's docstring), in no particular order."""
    reached = _first_steps(sweep)
    ops = [op for op in data["ops"] if op["id"] in reached and op["name"] != READ]
    found, taken = [], set()
    for key, members in folding.loops(ops).items():
        title = folding.describe(key, members)[0]
        scope = members[0]["scope"]
        turns = folding.turns(key, members)
        for k, turn in enumerate(turns):
            name = f"turn {k + 1} of {title}" + (f" in {scope}" if scope else "")
            found.append((name, "turn", [op["id"] for op in turn]))
            taken.update(op["id"] for op in turn)
    scopes = {}
    for op in ops:
        if op["id"] in taken:
            continue
        if op["scope"]:
            scopes.setdefault(op["scope"], []).append(op["id"])
        else:
            found.append((op["name"], "op", [op["id"]]))
    found += [(scope, "scope", ids) for scope, ids in scopes.items()]
    return found


def norms_of(data, sweep):
    """The :class:`Norm` of each unit of ``sweep``'s path, in path order (from the target back)."""
    position = _first_steps(sweep)
    lost = {index for index, step in enumerate(sweep["steps"]) if step.get("underflow")}
    ops = {op["id"]: op for op in data["ops"]}
    rows = []
    for name, kind, ids in units(data, sweep):
        first = min(position[i] for i in ids)
        step = sweep["steps"][first]
        rows.append(
            Norm(
                name=name,
                kind=kind,
                norm=norm_value(step["norm"]),
                step=first,
                op=step["op"],
                op_name=ops[step["op"]]["name"],
                ops=tuple(ids),
                underflow=any(position[i] in lost for i in ids),
            )
        )
    return sorted(rows, key=lambda row: row.step)


def verdicts(norms, factor=DEFAULT_FACTOR):
    """[:class:`Verdict`]: whether the gradient vanishes or explodes along ``norms`` (a :class:`GradientNorms`
    or a list of :class:`Norm` in path order), by more than ``factor`` (the rule: the module's docstring).
    Empty when neither: at most one verdict of each cause."""
    if factor <= 1:
        raise ValueError(f"factor must be more than 1 (a growth or a shrink by that much is flagged); got {factor}.")
    rows = list(getattr(norms, "rows", norms))
    path = [r for r in rows if r.kind != "op"] or rows
    start = next((r for r in path if r.norm is not None and math.isfinite(r.norm) and r.norm > 0), None)
    if start is None:
        return []
    after = path[path.index(start) + 1 :]
    known = [r for r in after if r.norm is not None and not math.isnan(r.norm)]
    found = []
    small = next((r for r in known if (0 < r.norm < start.norm / factor) or r.underflow), None)
    if small is not None:
        lowest = min((r.norm for r in known if r.norm > 0 or r.underflow), default=small.norm)
        lost = next((r for r in known if r.underflow), None)
        ratio = 0.0 if lost else lowest / start.norm
        message = _message("vanishing", start, small, ratio, factor, lost is not None, lost)
        found.append(Verdict("vanishing", start, small, ratio, factor, lost is not None, message))
    big = next((r for r in known if r.norm > start.norm * factor), None)
    if big is not None:
        ratio = max(r.norm for r in known) / start.norm
        message = _message("exploding", start, big, ratio, factor, False)
        found.append(Verdict("exploding", start, big, ratio, factor, False, message))
    return found


def _message(cause, start, at, ratio, factor, underflow, lost=None):
    begin = f"{fmt.number(start.norm)} arriving at {start.name}"
    allowed = growth_text(factor)[1:]  # 1e4
    if cause == "vanishing":
        if underflow:
            return (
                f"Vanishing gradient: its norm falls from {begin} until it underflows to 0 at {lost.name} "
                f"({lost.op_name}: upstream \u00d7 local became too small for the dtype); every gradient behind "
                "it is 0. Fewer saturating layers (ReLU for sigmoid or tanh), a better initialisation, or float64 "
                "keeps it."
            )
        return (
            f"Vanishing gradient: its norm falls from {begin} to {fmt.number(at.norm)} at {at.name} "
            f"({growth_text(ratio)} across the path, more than the 1/{allowed} this check allows). "
            "What lies before it barely learns: a better initialisation, normalisation, residual connections, "
            "or ReLU for sigmoid or tanh layers keep the gradient alive."
        )
    return (
        f"Exploding gradient: its norm grows from {begin} to {fmt.number(at.norm)} at {at.name} "
        f"({growth_text(ratio)} across the path, more than the \u00d7{allowed} this check allows). "
        "Clipping (tf.clip_by_global_norm), smaller initial weights or a lower learning rate keep it in range."
    )


class GradientNorms:
    """The norm of the gradient arriving at each layer and loop turn, from the target back to the sources.

    ``rows``: the :class:`Norm` of each unit, in path order; iterate it, or
    take ``names`` and ``values`` for a plot of your own. ``verdicts(factor)``
    gives the vanishing/exploding verdicts. Shows a log-scale chart in
    Jupyter (``plot()`` returns it as SVG) and a table as text.
    """

    def __init__(self, rows, target="target", sweep=None):
        self.rows = list(rows)
        self.target = target
        self.sweep = sweep

    @property
    def names(self):
        return [r.name for r in self.rows]

    @property
    def values(self):
        return [r.norm for r in self.rows]

    def verdicts(self, factor=DEFAULT_FACTOR):
        return verdicts(self, factor)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        return self.rows[index]

    def __repr__(self):
        width = max((len(r.name) for r in self.rows), default=4)
        width = min(max(width, 4), 60)
        lines = [f"gradient norms arriving, from {self.target} back to the sources ({len(self.rows)} units):"]
        lines.append(f"  {'step':>5}  {'unit':<{width}}  {'op':<12}  norm")
        for r in self.rows:
            norm = "not kept" if r.norm is None else fmt.number(r.norm) + ("  (underflow)" if r.underflow else "")
            lines.append(f"  {r.step:>5}  {fmt.clip(r.name, width):<{width}}  {fmt.clip(r.op_name, 12):<12}  {norm}")
        for verdict in self.verdicts():
            lines.append(verdict.message)
        return "\n".join(lines)

    def plot(self, factor=DEFAULT_FACTOR):
        """The chart: the norm arriving at each unit on a log scale, with the band ``factor`` allows."""
        return Chart(chart_svg(self, factor), text=repr(self))

    def _repr_html_(self):
        notes = "".join(f"<p>{fmt.html_text(v.message)}</p>" for v in self.verdicts())
        return f"<div>{self.plot().svg}{notes}</div>"


class Chart:
    """An SVG chart; shows itself in Jupyter; ``.svg`` is the text, ``.save(path)`` writes it; printed, it is
    the table of the numbers it draws."""

    def __init__(self, svg, text=""):
        self.svg = svg
        self.text = text

    def __repr__(self):
        return self.text or f"<Chart: {len(self.svg)} characters of SVG>"

    def _repr_svg_(self):
        return self.svg

    def save(self, path):
        from tapeviz.core.files import write_bytes

        write_bytes(path, self.svg.encode("utf-8"))
        return path


def chart_svg(norms, factor=DEFAULT_FACTOR, width=640, height=260):
    """A log-scale line chart of ``norms`` (a :class:`GradientNorms`): one point per unit in path order, the
    reference's band of ``factor`` shaded, 0 drawn on the floor and non-finite values on the ceiling."""
    rows = norms.rows
    left, right, top, bottom = 62, 16, 30, 70
    plot_w, plot_h = width - left - right, height - top - bottom
    finite = [r.norm for r in rows if r.norm is not None and math.isfinite(r.norm) and r.norm > 0]
    low = math.floor(math.log10(min(finite))) if finite else -1
    high = math.ceil(math.log10(max(finite))) if finite else 1
    if high - low < 2:
        low, high = low - 1, high + 1

    def y_of(norm):
        if norm is None:
            return None
        if math.isnan(norm) or math.isinf(norm):
            return top
        if norm <= 0:
            return top + plot_h
        return top + plot_h * (high - math.log10(norm)) / (high - low)

    def x_of(i):
        return left + (plot_w * (i + 0.5) / max(len(rows), 1))

    e = fmt.html_text
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="Helvetica,Arial,sans-serif" class="tv-gradient-norms">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{left}" y="18" font-size="13" font-weight="bold">'
        f"{e(f'gradient norm arriving, from {norms.target} back to the sources')}</text>",
    ]
    band = verdicts(norms, factor)
    reference = next((r for r in rows if r.kind != "op" and r.norm and math.isfinite(r.norm)), None)
    if reference is not None:  # the band the check allows around the reference
        y0 = max(top, y_of(min(reference.norm * factor, 10.0**high)))
        y1 = min(top + plot_h, y_of(max(reference.norm / factor, 10.0**low)))
        parts.append(
            f'<rect x="{left}" y="{y0:.1f}" width="{plot_w}" height="{max(0.0, y1 - y0):.1f}" fill="#ecfdf5">'
            f"<title>within \u00d7{e(fmt.number(factor))} of {e(reference.name)}</title></rect>"
        )
    for power in range(low, high + 1):
        y = y_of(10.0**power)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end">1e{power}</text>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#6b7280"/>')
    points = [(x_of(i), y_of(r.norm)) for i, r in enumerate(rows) if y_of(r.norm) is not None]
    if len(points) > 1:
        path = " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<path d="M{path}" fill="none" stroke="#2563eb" stroke-width="1.5"/>')
    flagged = {v.at.step: v.cause for v in band}
    for i, r in enumerate(rows):
        y = y_of(r.norm)
        if y is None:
            continue
        bad = r.norm is not None and (not math.isfinite(r.norm) or r.norm == 0)
        colour = "#dc2626" if bad or r.step in flagged else "#2563eb"
        value = "not kept" if r.norm is None else fmt.number(r.norm)
        parts.append(
            f'<circle cx="{x_of(i):.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{e(r.name)}: {e(value)} '
            f"(step {r.step}, {e(r.op_name)})</title></circle>"
        )
    every = max(1, math.ceil(len(rows) / 16))  # at most 16 names under the axis
    for i, r in enumerate(rows):
        if i % every == 0:
            x, y = x_of(i), top + plot_h + 10
            parts.append(
                f'<text x="{x:.1f}" y="{y}" font-size="9" text-anchor="end" transform="rotate(-35 {x:.1f} {y})">'
                f"{e(fmt.clip(r.name, 22))}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def gradient_norms(tape, target=None, sweep="last"):
    """The norm of the gradient arriving at each layer (name scope) and loop turn of ``tape``'s sweep, in path
    order from ``target`` back to the sources: a :class:`GradientNorms` (a table as text, a log-scale chart in
    Jupyter, ``.plot()`` for the SVG, ``.verdicts()`` for vanishing/exploding).

    ``target``: the tensor ``tape.gradient`` was called on (its last sweep is used); None takes the tape's last
    sweep. ``sweep``: "last", or a sweep's index or id in the trace. Reads what the session recorder kept
    (``import tapeviz.viz`` before recording).

    Args:
        tape: a GradientTape that recorded the forward pass (or a trace).
        target: the tensor whose gradient to measure (the last ``gradient`` call's by default).
        sweep: which sweep: ``"last"`` or a sweep's id.

    Returns:
        A table of the norm per layer and loop turn; it draws itself in Jupyter.
    """
    trace = trace_of(tape)
    data = trace.data
    chosen = _choose(trace, data, tape, target, sweep)
    name = "the target"
    if target is not None:
        from tapeviz.viz import names as naming

        found = naming.lookup(trace)
        name = found.get(chosen["targets"][0], "the target") if chosen["targets"] else name
    return GradientNorms(norms_of(data, chosen), target=name, sweep=chosen["id"])


def _choose(trace, data, tape, target, sweep):
    sweeps = data["sweeps"]
    if hasattr(tape, "serial"):
        from tapeviz.viz import names as naming

        tape_id = {serial: tid for tid, serial in naming.tape_serials(trace).items()}.get(tape.serial)
        sweeps = [s for s in sweeps if s["tape"] == tape_id] or sweeps
    if not sweeps:
        raise ValueError(
            "This tape has no reverse sweep to measure: call tape.gradient(target, sources) first "
            "(with tapeviz.viz imported, so the sweep is recorded)."
        )
    if target is not None:
        objects = (getattr(trace, "objects", None) or {}).get("tensors", {})
        wanted = {tid for tid, obj in objects.items() if obj is target or _same(obj, target)}
        matching = [s for s in sweeps if wanted & set(s["targets"])]
        if not matching:
            raise ValueError(
                "No recorded sweep started at this target: pass the tensor you called tape.gradient(target, ...) "
                "on, or leave target out to take the tape's last sweep."
            )
        sweeps = matching
    if sweep == "last":
        return sweeps[-1]
    for index, s in enumerate(data["sweeps"]):
        if s["id"] == sweep or index == sweep:
            return s
    raise ValueError(f"No sweep {sweep!r} in this trace; it has {[s['id'] for s in data['sweeps']]}.")


def _same(obj, target):
    try:
        return tensor_id(obj) == tensor_id(target)
    except Exception:  # a sketch or a non-tensor: not the target
        return False
