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

import numpy as np

from tapeviz.core import events
from tapeviz.core.tensor import tensor_id
from tapeviz.viz import format as fmt
from tapeviz.viz import recorder

COLOURS = ["#2563eb", "#dc2626", "#059669", "#7c3aed", "#d97706"]


def _nbytes(tensor):
    if hasattr(tensor, "assign"):
        return 0  # a variable's storage is the variable's, not the tape's
    return int(np.prod(tensor.shape, dtype=np.int64)) * np.dtype(tensor.dtype.as_numpy_dtype).itemsize


def _entry_tensors(entry):
    return [t for t in tuple(entry.inputs) + tuple(entry.outputs) if not hasattr(t, "assign")]


def timeline(tape):
    """[(step, bytes, what happened)] for one tape, from the session records."""
    records, _complete = recorder.records_of(tape)
    me = tape.serial
    persistent = tape.persistent
    held = {}  # tensor id -> bytes, for the tensors the entries keep
    users = {}  # tensor id -> number of unswept entries using it
    entries = []
    points = [(0, 0, "start")]
    for _seq, event in records:
        if isinstance(event, events.OpExecuted) and me in event.tapes:
            entries.append(event.entry)
            for t in _entry_tensors(event.entry):
                key = tensor_id(t)
                held.setdefault(key, _nbytes(t))
                users[key] = users.get(key, 0) + 1
            points.append((len(points), sum(held.values()), f"record {event.entry.primitive.name}"))
        elif isinstance(event, events.BackwardStep) and event.tape == me:
            for t in _entry_tensors(event.entry):
                key = tensor_id(t)
                if key in users:
                    users[key] -= 1
            needed = sum(b for k, b in held.items() if users.get(k, 0) > 0)
            points.append((len(points), needed if not persistent else sum(held.values()),
                           f"sweep {event.entry.primitive.name}"))
        elif isinstance(event, events.SweepFinished) and event.tape == me:
            users = {k: sum(1 for e in entries for t in _entry_tensors(e) if tensor_id(t) == k) for k in held}
            points.append((len(points), sum(held.values()) if persistent else 0,
                           "after gradient()" if persistent else "released"))
        elif isinstance(event, events.TapeReleased) and event.tape == me:
            held, users, entries = {}, {}, []
            points.append((len(points), 0, f"released ({event.reason})"))
    return points


class MemoryView:
    """Timelines of several tapes; shows itself as an SVG chart."""

    def __init__(self, tapes, labels=None):
        self.series = []
        for i, tape in enumerate(tapes):
            label = (labels[i] if labels else
                     f"tape {i} ({'persistent' if tape.persistent else 'non-persistent'})")
            self.series.append((label, timeline(tape)))

    def peak(self, index=0):
        return max(b for _, b, _ in self.series[index][1])

    def svg(self, width=560, height=240):
        left, right, top, bottom = 70, 20, 20, 60
        steps = max((len(points) for _, points in self.series), default=1)
        top_bytes = max((b for _, points in self.series for _, b, _ in points), default=1) or 1
        sx = (width - left - right) / max(1, steps - 1)
        sy = (height - top - bottom) / top_bytes
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'font-family="Helvetica,Arial,sans-serif" font-size="11">',
               f'<rect width="{width}" height="{height}" fill="white"/>',
               f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#374151"/>',
               f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#374151"/>',
               f'<text x="{left - 6}" y="{top + 4}" text-anchor="end">{fmt.html_text(fmt.nbytes_text(top_bytes))}</text>',
               f'<text x="{left - 6}" y="{height - bottom + 4}" text-anchor="end">0</text>',
               f'<text x="{(left + width - right) / 2:.0f}" y="{height - bottom + 18}" text-anchor="middle">'
               'events: ops recorded, then sweep steps</text>']
        for i, (label, points) in enumerate(self.series):
            colour = COLOURS[i % len(COLOURS)]
            coords = " ".join(f"{left + s * sx:.1f},{height - bottom - b * sy:.1f}" for s, b, _ in points)
            out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"/>')
            out.append(f'<line x1="{left + 170 * i}" y1="{height - 14}" x2="{left + 170 * i + 18}" y2="{height - 14}" '
                       f'stroke="{colour}" stroke-width="3"/>')
            out.append(f'<text x="{left + 170 * i + 22}" y="{height - 10}">{fmt.html_text(fmt.clip(label, 26))}</text>')
        out.append("</svg>")
        return "".join(out)

    def _repr_mimebundle_(self, include=None, exclude=None):
        text = "\n".join(f"{label}: peak {fmt.nbytes_text(max(b for _, b, _ in points))}, "
                         f"end {fmt.nbytes_text(points[-1][1])}" for label, points in self.series)
        return {"text/plain": text, "image/svg+xml": self.svg()}


def memory_view(*tapes, labels=None):
    """Compare the bytes held by ``tapes`` (e.g. a persistent and a non-persistent one)."""
    return MemoryView(tapes, labels)
