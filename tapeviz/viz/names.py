"""The Python names a student gave to tapes and tensors (``tape1``, ``y``, ``dy_dx``).

Pictures and the player label things with these names where they can be
found, and with trace ids (``t3``, ``T0``) otherwise. The lookup is one pass
over one namespace at display time: IPython's user namespace when running in
a kernel, else the first caller outside tapeviz (its locals over its
globals). Only objects *identical* to a traced tensor or tape count, and when
several names point at one object the choice is deterministic (public names
first, then the shortest, then alphabetical), so two displays of the same
tape give the same labels.

``tape_serials`` maps a trace's tape ids back to the tapes' serial numbers
(the trace builder keeps them beside the data), so a tape object can be
matched to its ``T`` id.
"""

import sys

from tapeviz.core.tape import tape_with_serial


def namespace(depth=1):
    """The names visible to the user: IPython's user namespace, else the first frame outside tapeviz."""
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = getattr(ipython, "get_ipython", lambda: None)()
        user_ns = getattr(shell, "user_ns", None)
        if isinstance(user_ns, dict):
            return user_ns
    frame = sys._getframe(depth)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "tapeviz":
        frame = frame.f_back
    if frame is None:
        return {}
    merged = dict(frame.f_globals)
    merged.update(frame.f_locals)
    return merged


def _better(name, current):
    """True when ``name`` is a better label than ``current``: public, short, then alphabetical."""
    key = (name.startswith("_"), len(name), name)
    return current is None or key < (current.startswith("_"), len(current), current)


def by_identity(objects, names=None):
    """{key: python name} for each ``objects[key]`` found (by identity) in ``names``."""
    if names is None:
        names = namespace(2)
    wanted = {id(obj): key for key, obj in objects.items() if obj is not None}
    found = {}
    for name, value in list(names.items()):
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            continue  # IPython's _, _1, _i... are history, not names the student wrote
        key = wanted.get(id(value))
        if key is not None and objects[key] is value and _better(name, found.get(key)):
            found[key] = name
    return found


def tape_serials(trace):
    """{tape id ("T0"...): serial number} for a trace built from records (empty for one loaded from JSON)."""
    objects = getattr(trace, "objects", None)
    return dict(objects.get("tapes", {})) if objects else {}


def lookup(trace, names=None, include_tapes=True):
    """{trace id: python name} for the tensors (``t3``) and tapes (``T0``) of ``trace``."""
    if names is None:
        names = namespace(2)
    objects = getattr(trace, "objects", None)
    found = {}
    if objects:
        found.update(by_identity(dict(objects["tensors"]), names))
    if include_tapes:
        tapes = {tid: tape_with_serial(number) for tid, number in tape_serials(trace).items()}
        found.update(by_identity(tapes, names))
    return found


def relabel(data, found):
    """A copy of trace ``data`` whose tensors and tapes are labelled with ``found`` names.

    Only what pictures print changes (a tensor's shown id, a tape's label); the
    ids that nodes, edges and frames use stay the trace's own.
    """
    if not found:
        return data
    tensors = dict(data["tensors"])
    for tid, name in found.items():
        info = tensors.get(tid)
        if info is not None and info["kind"] != "variable":
            tensors[tid] = dict(info, id=name)  # dot.py prints info["id"]; the dict key stays the trace id
    tapes = [dict(t, label=found[t["id"]]) if t["id"] in found else t for t in data["tapes"]]
    return dict(data, tensors=tensors, tapes=tapes)
