"""Which tensors a tape computed: the answer to a "compute it with a tape" exercise must be one.

A number the student typed, or read off the page, is not a gradient the tape
computed. ``lessons.setup()`` starts a listener that hears only the end of
each gradient call (``SweepFinished``; it reads tapes, so the ops and steps
cost it nothing) and keeps the results by weak reference: a result the
student deleted is forgotten with it.
"""

import weakref

from tapeviz.core import events


class _SweepResults:
    def __init__(self):
        self.by_id = {}  # id -> weak reference (tensors are unhashable, as TF's: == compares elementwise)

    def on_sweep_finished(self, event):
        for result in event.results:
            if result is not None:
                key = id(result)
                self.by_id[key] = weakref.ref(result, lambda _, key=key: self.by_id.pop(key, None))

    def __contains__(self, value):
        kept = self.by_id.get(id(value))
        return kept is not None and kept() is value


_results = None


def start():
    """Keep, from now on, the tensors every gradient call returns (once per process)."""
    global _results
    if _results is None:
        _results = _SweepResults()
        events.subscribe(_results, untaped_sweep_ops=False, reads_tapes=True)


def computed_by_a_tape(value):
    """Whether ``value`` is a tensor a gradient call returned, or a list of tensors (or None) with one such
    among them (a zero asked for with ``unconnected_gradients`` is made after the sweep)."""
    if _results is None:
        return True  # nothing listened: no way to tell, so nothing is refused
    if isinstance(value, (list, tuple)):
        return all(v is None or hasattr(v, "numpy") for v in value) and any(_is_result(v) for v in value)
    return _is_result(value)


def _is_result(value):
    return value is not None and value in _results
