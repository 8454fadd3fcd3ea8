"""How many bytes a tape holds for the backward pass, over time, as an SVG plot.

For each tape: the bytes of the distinct tensors its entries keep (inputs and
outputs: the "saved tensors"), growing as ops are recorded; then, during a
sweep, the bytes still needed by the entries not yet swept, falling step by
step; and what is left after the sweep: nothing for a non-persistent tape
(it releases), everything for a persistent one (until it is deleted or
reset). That is the seeds' performance point: persistent tapes keep memory.

Note: tapeviz's core drops a non-persistent tape's entries when ``gradient``
returns, not during the sweep; the falling line shows what the sweep no
longer needs (what TensorFlow frees as it goes). Drawn as plain SVG: no
matplotlib.
"""

import math

import numpy as np

from tapeviz.core import events
from tapeviz.core.tensor import Tensor, Variable, tensor_id, to_array
from tapeviz.viz import format as fmt
from tapeviz.viz import recorder

COLOURS = ["#2563eb", "#dc2626", "#059669", "#7c3aed", "#d97706"]


def _nbytes(tensor):
    """Bytes of a tensor's array, live or sketched (variables: 0, their storage is theirs, not the tape's)."""
    if isinstance(tensor, Variable):
        return 0
    if isinstance(tensor, Tensor):
        return int(to_array(tensor).nbytes)
    known = getattr(tensor, "nbytes", None)  # a recorder's summary
    if known is not None:
        return known
    return math.prod(tensor.shape) * np.dtype(tensor.dtype.as_numpy_dtype).itemsize


def _entry_tensors(entry):
    return [t for t in entry.inputs + entry.outputs if not isinstance(t, Variable)]


def timeline(tape):
    """[(step, bytes, what happened)] for one tape, from the session records.

    Linear in the number of events: running totals, never a re-count per step.
    """
    records, _complete = recorder.records_of(tape)
    me = tape.serial
    persistent = tape.persistent
    held = {}  # tensor id -> bytes, for the tensors the entries keep
    recorded = {}  # tensor id -> number of recorded entries using it
    users = {}  # tensor id -> number of entries using it not swept yet (in the current sweep)
    total = needed = 0  # bytes of ``held``; of those still needed by the current sweep
    points = [(0, 0, "start")]
    for _seq, event in records:
        kind = type(event)
        if kind is events.OpExecuted and me in event.tapes:
            for t in _entry_tensors(event.entry):
                key = tensor_id(t)
                if key not in held:
                    held[key] = size = _nbytes(t)
                    total += size
                    needed += size
                recorded[key] = recorded.get(key, 0) + 1
                users[key] = users.get(key, 0) + 1
            points.append((len(points), total, f"record {event.entry.primitive.name}"))
        elif kind is events.BackwardStep and event.tape == me:
            for t in _entry_tensors(event.entry):
                key = tensor_id(t)
                left = users.get(key)
                if left:
                    users[key] = left - 1
                    if left == 1:
                        needed -= held[key]
            points.append((len(points), total if persistent else needed, f"sweep {event.entry.primitive.name}"))
        elif kind is events.SweepFinished and event.tape == me:
            users, needed = dict(recorded), total
            points.append((len(points), total if persistent else 0, "after gradient()" if persistent else "released"))
        elif kind is events.TapeReleased and event.tape == me:
            held, recorded, users, total, needed = {}, {}, {}, 0, 0
            points.append((len(points), 0, f"released ({event.reason})"))
    return points


class MemoryView:
    """Timelines of several tapes; shows itself as an SVG chart."""

    def __init__(self, tapes, labels=None):
        self.series = []
        for i, tape in enumerate(tapes):
            label = labels[i] if labels else f"tape {i} ({'persistent' if tape.persistent else 'non-persistent'})"
            self.series.append((label, timeline(tape)))

    def peak(self, index=0):
        return max(b for _, b, _ in self.series[index][1])

    def gradient_call(self, index=0):
        """The event number at which ``gradient()`` started sweeping this tape (None if it never did)."""
        for step, _bytes, what in self.series[index][1]:
            if what.startswith("sweep") or what in ("after gradient()", "released"):
                return step
        return None

    def svg(self, width=600, height=270):
        """The chart: one line per tape, the ``gradient()`` calls marked.

        Lines of tapes that hold the same bytes would hide each other, so each
        line has its own dash pattern and width (the first is widest, drawn
        first), and every line's last value is written at its end.
        """
        left, right, top, bottom = 78, 96, 30, 66
        steps = max((len(points) for _, points in self.series), default=1)
        top_bytes = max((b for _, points in self.series for _, b, _ in points), default=1) or 1
        plot_w, plot_h = width - left - right, height - top - bottom
        sx = plot_w / max(1, steps - 1)
        sy = plot_h / top_bytes
        base = height - bottom

        def x(step):
            return left + step * sx

        def y(nbytes):
            return base - nbytes * sy

        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica,Arial,sans-serif" font-size="11">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{left}" y="{top - 12}" font-weight="bold">bytes the tape holds for the backward pass</text>',
            f'<line x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}" stroke="#374151"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#374151"/>',
            f'<text x="{left - 6}" y="{y(top_bytes) + 4:.1f}" text-anchor="end">'
            f"{fmt.html_text(fmt.nbytes_text(top_bytes))}</text>",
            f'<text x="{left - 6}" y="{base + 4}" text-anchor="end">0</text>',
            f'<text x="{left + plot_w / 2:.0f}" y="{base + 16}" text-anchor="middle" fill="#374151">'
            "events, in order: ops recorded, then the steps of the sweep</text>",
        ]
        marked = set()
        for i in range(len(self.series)):
            call = self.gradient_call(i)
            if call is None or call in marked:
                continue
            marked.add(call)
            cx = x(call - 0.5)
            out.append(
                f'<line x1="{cx:.1f}" y1="{top}" x2="{cx:.1f}" y2="{base}" stroke="#6b7280" stroke-dasharray="4,3"/>'
            )
            out.append(f'<text x="{cx + 4:.1f}" y="{base - 8}" fill="#374151">gradient() called</text>')
        dashes = ["", "7,4", "2,3", "10,3,2,3", "1,5"]
        widths = [6, 2.5, 2.5, 2.5, 2.5]
        opacity = [0.45, 1, 1, 1, 1]
        ends = []
        for i, (label, points) in enumerate(self.series):
            colour = COLOURS[i % len(COLOURS)]
            style = f'stroke="{colour}" stroke-width="{widths[i % 5]}" stroke-opacity="{opacity[i % 5]}"' + (
                f' stroke-dasharray="{dashes[i % 5]}"' if dashes[i % 5] else ""
            )
            coords = " ".join(f"{x(s):.1f},{y(b):.1f}" for s, b, _ in points)
            out.append(f'<polyline points="{coords}" fill="none" {style}/>')
            last_step, last_bytes, _ = points[-1]
            ends.append([y(last_bytes) + 4, x(last_step) + 6, colour, fmt.nbytes_text(last_bytes)])
            lx = left + 200 * i
            out.append(f'<line x1="{lx}" y1="{height - 16}" x2="{lx + 26}" y2="{height - 16}" {style}/>')
            out.append(f'<text x="{lx + 32}" y="{height - 12}">{fmt.html_text(fmt.clip(label, 28))}</text>')
        ends.sort()
        for k in range(1, len(ends)):  # end labels of equal values must not overprint
            ends[k][0] = max(ends[k][0], ends[k - 1][0] + 13)
        for ty, tx, colour, text in ends:
            out.append(f'<text x="{tx:.1f}" y="{ty:.1f}" fill="{colour}">{fmt.html_text(text)}</text>')
        out.append("</svg>")
        return "".join(out)

    def _repr_mimebundle_(self, include=None, exclude=None):
        text = "\n".join(
            f"{label}: peak {fmt.nbytes_text(max(b for _, b, _ in points))}, end {fmt.nbytes_text(points[-1][1])}"
            for label, points in self.series
        )
        # inline SVG in HTML, as the tape drawings: an image/svg+xml output is not drawn untrusted
        return {"text/plain": text, "text/html": f'<div class="tapeviz-memory">{self.svg()}</div>'}


def memory_view(*tapes, labels=None):
    """Compare the bytes held by ``tapes`` (e.g. a persistent and a non-persistent one)."""
    return MemoryView(tapes, labels)
