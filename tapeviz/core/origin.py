"""Where the user's code made an op: the innermost frame outside tapeviz.

Like PyTorch's ``detect_anomaly``, a diagnosis names the user's line, not a line
of the library. ``capture()`` walks up from the caller past tapeviz's own
frames and keeps only the code object and the line number (never the frame:
that would keep the user's locals alive). ``describe()`` turns that into
``"train.py:12"`` or, for code typed into a notebook cell, ``"In [3], line 2"``.
"""

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_inside = {}  # code object -> is it tapeviz's own code (asked once per code object)


def _is_internal(code):
    inside = _inside.get(code)
    if inside is None:
        filename = code.co_filename
        inside = _inside[code] = filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen ")
    return inside


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
