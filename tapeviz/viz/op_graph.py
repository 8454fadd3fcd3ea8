"""The op graph of a trace, for the diagnosis: every op (recorded by a tape or not), with live values.

``records(tape)`` gathers what the session recorder kept of a tape (its ops,
sweeps, and the recent ops no tape recorded, such as a preprocessing step
before the ``with`` block); ``OpGraph`` indexes the built trace both ways
(producer and consumers of each tensor) for the searches the diagnosis runs.
"""

import numpy as np

from tapeviz.core import events
from tapeviz.core.tensor import tensor_id
from tapeviz.viz import names as naming
from tapeviz.viz import recorder


class OpGraph:
    """The full op graph of a trace (every op, recorded or not), with live values."""

    def __init__(self, data, objects, found=None):
        self.data = data
        self.objects = objects["tensors"]
        self.entries = objects.get("entries", {})  # op id -> the entry (live, or a sketch without values)
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
        """(the tensors ``tid`` was computed from, itself included; the ops that computed them)."""
        seen, stack, ops, done = {tid}, [tid], [], set()
        while stack:
            op = self.producer.get(stack.pop())
            if op is None or op["id"] in done:
                continue
            done.add(op["id"])
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
        """The live value of ``tid`` as a NumPy array, or None (a sketch, a summary)."""
        try:
            return np.asarray(self.objects[tid].numpy())
        except Exception:
            return None

    def order(self, op):
        """The position of ``op`` in execution order (op ids count up as the ops ran)."""
        return int(op["id"][2:])

    def first_consumer(self, tid, among=None):
        """The first op (in execution order) that used ``tid``, among the op ids ``among`` if given."""
        users = [op for op in self.consumers.get(tid, []) if among is None or op["id"] in among]
        return min(users, key=self.order) if users else None


def records(tape, wanted=()):
    """(records, complete): the session's records of ``tape`` with the recent untaped ops that fed it, else
    the tape's own records.

    Of the ops no tape recorded (the recorder's ring), only those whose outputs
    reach the tape's ops or one of ``wanted`` (the target, the sources) are
    kept: the preprocessing before the ``with`` block, a ``w = w - lr * g``,
    what ran inside ``stop_recording()``; not the rest of the session.
    """
    found = recorder.SESSION.records_for(tape, with_untaped=True)
    if not found or not any(isinstance(event, events.OpExecuted) for _seq, event in found):
        return recorder.static_records(tape), False
    needed = {tensor_id(t) for t in wanted if t is not None}
    untaped = []
    for position, (_seq, event) in enumerate(found):
        if type(event) is events.OpExecuted and event.entry is not None:
            if event.tapes:
                needed.update(map(tensor_id, event.entry.inputs))
            else:
                untaped.append(position)
    dropped = set()
    for position in reversed(untaped):  # last to first: an op is kept when what it made is needed
        entry = found[position][1].entry
        if needed.intersection(map(tensor_id, entry.outputs)):
            needed.update(map(tensor_id, entry.inputs))
        else:
            dropped.add(position)
    return [record for position, record in enumerate(found) if position not in dropped], True


def tape_id(records, number):
    """The trace id (``T0``...) the trace builder gives the tape with serial ``number`` in ``records``."""
    # Tapes are named by order of first appearance in the records; replay that.
    order = []
    for _seq, event in records:
        for n in recorder.tapes_of(event):
            if n not in order:
                order.append(n)
    return f"T{order.index(number)}" if number in order else None
