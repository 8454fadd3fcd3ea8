"""Where the user's code made an op: the innermost frame outside tapeviz.

Like PyTorch's ``detect_anomaly``, a diagnosis names the user's line, not a line
of the library. ``capture()`` walks up from the caller past tapeviz's own
frames and keeps only the code object and the line number (never the frame:
that would keep the user's locals alive). ``describe()`` turns that into
``"train.py:12"`` or, for code typed into a notebook cell, ``"In [3], line 2"``.

The core notes each recorded op's origin (``TapeEntry.origin``) only when
someone listens (``tapeviz.viz`` imported: the session recorder) or asked for
it (``enable()`` / ``disable()``, or ``with origin.noted():``, as
``tf.debugging.enable_check_numerics`` does). ``note(entry)`` keeps the code
object and the instruction offset on the entry, in about a hundred
nanoseconds (the line number is worked out from the offset only when asked:
reading ``f_lineno`` scans the code's line table); ``of(entry)`` makes an
``Origin`` of them when a diagnosis reads it.
"""

import os
import sys
from contextlib import contextmanager

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# file name -> is it tapeviz's own code (asked once per file). Keyed by the name, whose hash a
# string keeps, not by the code object, whose hash is computed from its contents at every lookup.
_inside = {}


def _is_internal(code):
    filename = code.co_filename
    inside = _inside.get(filename)
    if inside is None:
        inside = _inside[filename] = filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen ")
    return inside


# Truthy while someone asked for origins (``enable``): the hot path checks it beside the listeners.
REQUESTS = []


def enable():
    """Note the origin of every recorded op from now on, listener or not (pair with ``disable``)."""
    REQUESTS.append(True)


def disable():
    """Undo one ``enable`` (origins are still noted while a listener, such as the session recorder, listens)."""
    if REQUESTS:
        REQUESTS.pop()


def is_enabled():
    """Whether origins were asked for (``enable``), whatever listens."""
    return bool(REQUESTS)


@contextmanager
def noted():
    """Note the origin of every op recorded in the block (``enable`` ... ``disable``)."""
    enable()
    try:
        yield
    finally:
        disable()


class Origin:
    """A user's line: ``filename`` (as Python compiled it), ``lineno`` and ``function``."""

    __slots__ = ("filename", "lineno", "function")

    def __init__(self, filename, lineno, function):
        self.filename = filename
        self.lineno = lineno
        self.function = function

    def __str__(self):
        return describe(self)

    def __repr__(self):
        return f"Origin({describe(self)!r})"

    def __eq__(self, other):
        return isinstance(other, Origin) and (self.filename, self.lineno) == (other.filename, other.lineno)

    def __hash__(self):
        return hash((self.filename, self.lineno))


def capture(skip=1):
    """The innermost frame outside tapeviz above the caller, as an ``Origin`` (None if there is none).

    ``skip``: frames to pass over before looking (1: the caller of ``capture``).
    """
    frame = sys._getframe(skip)
    while frame is not None and _is_internal(frame.f_code):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    return Origin(code.co_filename, frame.f_lineno, code.co_name)


# How deep note() found the user's frame last time, by primitive: a primitive is mostly called
# through one API function (tf.matmul, the ``*`` operator), so its depth repeats (a hint only).
_depth_hints = {}


def note(entry, sure=1, _getframe=sys._getframe, _inside=_inside, _hints=_depth_hints):
    """The hot path's ``capture``: note on ``entry`` (a recorded op) the innermost frame outside tapeviz,
    as ``entry.origin`` (the code object, or None) and ``entry.origin_at`` (the instruction offset).

    Called by the core where it records an op; ``of(entry)`` makes an ``Origin`` of it later. Two
    slots rather than a tuple: a tuple per op is one more object for the garbage collector to track.
    ``sure``: how many frames above here are the library's for certain (``record_op`` is
    called by ``record``, called by ``execute``: 3). Reading ``f_back`` makes a frame
    object of each frame it passes (Python 3.11+), so the depth found last is tried
    first: one frame (the user's) when the frames below it are surely the library's,
    else two (and the library's just inside it), rather than all of them.
    """
    depth = _hints.get(entry.primitive, sure + 1)
    try:
        frame = _getframe(depth)
    except ValueError:  # a shallower stack than last time
        frame = None
    if frame is not None:
        code = frame.f_code
        inside = _inside.get(code.co_filename)
        if inside is None:
            inside = _is_internal(code)
        if not inside:
            if depth <= sure + 1:
                entry.origin, entry.origin_at = code, frame.f_lasti
                return
            inner = _getframe(depth - 1).f_code
            inner_inside = _inside.get(inner.co_filename)
            if inner_inside is None:
                inner_inside = _is_internal(inner)
            if inner_inside:
                entry.origin, entry.origin_at = code, frame.f_lasti
                return
    frame, depth = _getframe(1), 1
    while frame is not None:
        code = frame.f_code
        inside = _inside.get(code.co_filename)
        if inside is None:
            inside = _is_internal(code)
        if not inside:
            if depth > 1:
                _hints[entry.primitive] = depth
            entry.origin, entry.origin_at = code, frame.f_lasti
            return
        frame = frame.f_back
        depth += 1
    entry.origin = entry.origin_at = None


def of(entry):
    """The ``Origin`` ``note`` left on a recorded entry (or its sketch), or None."""
    code = getattr(entry, "origin", None)
    if code is None:
        return None
    return Origin(code.co_filename, line_at(code, entry.origin_at), code.co_name)


def line_at(code, offset):
    """The source line of the instruction at byte ``offset`` of ``code`` (what ``frame.f_lineno`` says)."""
    line = code.co_firstlineno
    for start, end, number in code.co_lines():
        if start <= offset < end:
            return number if number is not None else line
        if number is not None:
            line = number
    return line


def _cell_number(filename):
    """The execution count of the notebook cell IPython compiled to ``filename``, or None."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    compiler = getattr(shell, "compile", None)
    numbers = getattr(compiler, "_filename_map", None)  # IPython >= 8: cell file -> execution count
    if isinstance(numbers, dict):
        return numbers.get(filename)
    return None


def describe(origin):
    """``"file.py:LINE"`` for a file, ``"In [N], line L"`` for a notebook cell, ``""`` for None."""
    if origin is None:
        return ""
    filename = origin.filename
    cell = _cell_number(filename)
    if cell is not None:
        return f"In [{cell}], line {origin.lineno}"
    if filename.startswith("<ipython-input-"):  # older IPython: <ipython-input-N-hash>
        return f"In [{filename.split('-')[2]}], line {origin.lineno}"
    return f"{os.path.basename(filename)}:{origin.lineno}"
