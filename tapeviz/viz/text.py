"""A text view of a trace: a table of recorded entries that works everywhere.

Used when the ``dot`` program is missing, as ``text/plain`` in Jupyter, and
by anyone who prefers reading a tape to looking at it.
"""

from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz.trace import trace_of

CELL = 40  # characters of user text (names, scopes) per cell; longer text is cut with an ellipsis


def _tensor_text(trace, tid):
    info = trace["tensors"][tid]
    name = fmt.clip(naming.variable_name(info), CELL) if info["name"] else tid  # a variable: x, not x:0
    return f"{name}{fmt.shape_text(info['shape']) if info['shape'] else ''}"


def rows(trace):
    """(index, op, inputs, outputs, scope, order, tapes, value) rows, as strings."""
    data = trace.data if hasattr(trace, "data") else trace
    out = []
    for op in data["ops"]:
        first = op["outputs"][0] if op["outputs"] else None
        value = data["tensors"][first]["preview"] if first else ""
        out.append(
            (
                op["id"],
                fmt.clip(op["name"], CELL),
                ", ".join(_tensor_text(data, t) for t in op["inputs"]),
                ", ".join(op["outputs"]),
                fmt.clip(op["scope"], CELL) if op["scope"] else "-",
                str(op["depth"]),
                ",".join(op["tapes"]) or "none",
                fmt.clip(value or "", 36),
            )
        )
    return out


HEADER = ("op", "primitive", "inputs", "outputs", "scope", "order", "tapes", "value")


def table(trace, limit=200):
    """A plain-text table of the ops of a tape or trace (the first ``limit`` rows)."""
    if hasattr(trace, "recorded_ops"):  # a GradientTape
        trace = trace_of(trace)
    data = trace.data if hasattr(trace, "data") else trace
    body = rows(data)
    shown = body[:limit]
    widths = [max([len(h)] + [len(r[i]) for r in shown]) for i, h in enumerate(HEADER)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADER, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in shown]
    if len(body) > limit:
        lines.append(f"... {len(body) - limit} more ops")
    tapes = ", ".join(
        f"{t['id']}: {'persistent' if t['persistent'] else 'non-persistent'}"
        + (f", released ({t['released']})" if t["released"] else "")
        + f", {t['sweeps']} sweeps"
        for t in data["tapes"]
    )
    head = f"{len(body)} recorded ops" + (f"  [{tapes}]" if tapes else "")
    for sweep in data["sweeps"]:
        results = ", ".join("None" if r is None else r for r in (sweep["results"] or []))
        head += f"\n{sweep['id']} on {sweep['tape']}: d({', '.join(sweep['targets'])})/d({', '.join(sweep['sources'])}) = {results}"
    return head + "\n" + "\n".join(lines)


def html_table(trace, limit=200):
    """The same table as escaped HTML."""
    data = trace.data if hasattr(trace, "data") else trace
    body = rows(data)
    cells = "".join(f"<th>{fmt.html_text(h)}</th>" for h in HEADER)
    out = ['<table class="tapeviz-table" style="font-family:monospace;font-size:12px">', f"<tr>{cells}</tr>"]
    for r in body[:limit]:
        out.append("<tr>" + "".join(f"<td>{fmt.html_text(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    if len(body) > limit:
        out.append(f"<p>... {len(body) - limit} more ops</p>")
    return "\n".join(out)
