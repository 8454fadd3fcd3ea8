"""The Python names a student gave to tapes and tensors (``tape1``, ``y``, ``dy_dx``).

Pictures and the player label things with these names where they can be
found, and otherwise with ``#3`` (tensors) and ``tape 0`` (tapes): a ``#``
cannot be a Python name, so an unnamed tensor is never read as a tape or a
variable the student called ``t3``. The lookup is one pass over one namespace
at display time: IPython's user namespace when running in a kernel, else the
first caller outside tapeviz (its locals over its globals). A name whose
latest binding in the student's code is a ``for`` loop's target (``for
variable, gradient in zip(...)``) is a loop's leftover, not the student's
name for that value, and is not used. Only objects *identical* to a traced tensor or tape count, and when
several names point at one object the choice is deterministic (public names
first, then the shortest, then alphabetical), so two displays of the same
tape give the same labels.

``tape_serials`` maps a trace's tape ids back to the tapes' serial numbers
(the trace builder keeps them beside the data), so a tape object can be
matched to its ``T`` id.
"""

import ast
import inspect
import linecache
import re
import sys
import textwrap

from tapeviz.core.tape import tape_with_serial
from tapeviz.viz.card_parts import ratio
from tapeviz.viz.format import short_name


def namespace(depth=1):
    """The names visible to the user: IPython's user namespace, else the first frame outside tapeviz."""
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = getattr(ipython, "get_ipython", lambda: None)()
        user_ns = getattr(shell, "user_ns", None)
        if isinstance(user_ns, dict):
            cells = user_ns.get("In")
            return _without(user_ns, loop_leftovers(cells if isinstance(cells, list) else []))
    frame = sys._getframe(depth)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "tapeviz":
        frame = frame.f_back
    if frame is None:
        return {}
    merged = dict(frame.f_globals)
    merged.update(frame.f_locals)
    return _without(merged, loop_leftovers([_source_of(frame)]))


def _without(names, dropped):
    return {k: v for k, v in names.items() if k not in dropped} if dropped else names


def _source_of(frame):
    """The source of the code running in ``frame`` (a function's body, or a whole script), or ''."""
    code = frame.f_code
    if code.co_name == "<module>":  # a script: all of it (getsource would give its first statement only)
        return "".join(linecache.getlines(code.co_filename, frame.f_globals))
    try:
        return inspect.getsource(code)
    except (OSError, TypeError):
        return ""


_BINDINGS = {}  # source text -> [(line, column, name, is_loop_target)], parsed once per cell


def _bindings(source):
    if source not in _BINDINGS:
        found = []
        try:
            tree = ast.parse(textwrap.dedent(source))
        except (SyntaxError, ValueError):
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.comprehension, ast.Lambda)):
                continue
            loop = isinstance(node, (ast.For, ast.AsyncFor))
            if loop:
                targets = [node.target]
            elif isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets = [node.target]
            elif isinstance(node, ast.withitem):
                targets = [node.optional_vars] if node.optional_vars is not None else []
            else:
                continue
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        found.append((leaf.lineno, leaf.col_offset, leaf.id, loop))
        if len(_BINDINGS) > 4096:
            _BINDINGS.clear()
        _BINDINGS[source] = sorted(found)
    return _BINDINGS[source]


def loop_leftovers(sources):
    """Names whose latest binding in ``sources`` (run in this order) is a ``for`` loop's target."""
    latest = {}
    for source in sources:
        if isinstance(source, str) and source:
            for _line, _column, name, loop in _bindings(source):
                latest[name] = loop
    return {name for name, loop in latest.items() if loop}


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
    return {key: short_name(name) for key, name in found.items()}  # (Python allows names of any length)


def unnamed(tid):
    """What an unnamed tensor is called in pictures: ``t4`` -> ``#4`` (no Python name, no tape, looks so)."""
    return "#" + tid[1:] if tid[:1] == "t" and tid[1:].isdigit() else tid


def shown(tid, data, found):
    """A tensor's label: its Python name, ``dy/dy`` for a sweep's seed, else ``#4``."""
    if tid in found:
        return found[tid]
    seed_of = data["tensors"].get(tid, {}).get("seed_of")
    if seed_of is not None:
        target = found.get(seed_of) or unnamed(seed_of)
        return ratio(target, target)
    return unnamed(tid)


UNNAMED_VARIABLE = "Variable"  # TF's name for every variable made without name= (``Variable:0``)


def variable_name(info):
    """A variable's label: the one :func:`relabel` chose, else its name without TensorFlow's output index
    (``x``, not ``x:0``), or ``Variable``."""
    return info.get("label") or re.sub(r":\d+$", "", info.get("name") or UNNAMED_VARIABLE)


def variable_label(tid, info, found):
    """What pictures and captions call variable ``tid``: the name it was given (``x``, ``model/dense/kernel``:
    what TF shows), or, for one made without a name (TF calls them all ``Variable``), the Python name the
    student bound it to, where one is found."""
    name = variable_name(info)
    if name.rsplit("/", 1)[-1] == UNNAMED_VARIABLE and found.get(tid):
        return found[tid]
    return name


def label(tid, data, found):
    """What a picture writes on tensor ``tid``: a variable's name, else :func:`shown` (``y``, ``#4``, ``dy/dy``)."""
    info = data["tensors"].get(tid, {})
    return variable_label(tid, info, found) if info.get("kind") == "variable" else shown(tid, data, found)


def op_label(op, data, found):
    """An op in words, as a picture shows it: its name (a custom gradient's function) and what it made,
    ``Mul \u2192 y``, the way the player's cards head a step; the picture writes no op ids."""
    made = f" \u2192 {label(op['outputs'][0], data, found)}" if op.get("outputs") else ""
    return f"{op.get('function') or op['name']}{made}"


def relabel(data, found):
    """A copy of trace ``data`` whose tensors and tapes are labelled with ``found`` names.

    Only what pictures print changes (a tensor's shown id, a tape's label); the
    ids that nodes, edges and frames use stay the trace's own.
    """
    tensors = {}
    for tid, info in data["tensors"].items():
        if info["kind"] == "variable":  # its name, or the student's for an unnamed one
            tensors[tid] = dict(info, label=variable_label(tid, info, found))
        else:  # dot.py prints info["id"]; the dict key stays the trace id
            tensors[tid] = dict(info, id=shown(tid, data, found))
    tapes = [dict(t, label=found[t["id"]]) if t["id"] in found else t for t in data["tapes"]]
    return dict(data, tensors=tensors, tapes=tapes)
