"""Laying out DOT text: the system's Graphviz ``dot``, else ``graphviz-pure``.

Two programs read the same DOT and write the same formats (svg, png, json):

* ``dot`` from a system Graphviz (apt, brew, conda, the Windows installer):
  preferred where present, it is what users who installed Graphviz expect;
* ``graphviz-pure``, a self-contained port of Graphviz 16.1 shipped as a wheel
  for Linux, macOS and Windows, which ``pip install tapeviz[viz]`` installs:
  pictures need no system binary and no admin rights. It installs a program
  of that name, never a ``dot``, so it never shadows a system Graphviz.

Both are run as programs, so every failure is ours to phrase: a user sees
what happened and what to do, never a traceback from inside a library. When
neither is there, :class:`GraphvizUnavailable` says how to get one, and the
displays show the tape as a table.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

SYSTEM = "dot"
BUNDLED = "graphviz-pure"

INSTALL_HINT = (
    "Install the visualizer's layout program with `pip install graphviz-pure` "
    "(it comes with `pip install tapeviz[viz]`), or install Graphviz: "
    "`sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS), "
    "`conda install -c conda-forge graphviz`. Meanwhile the tape is shown as a table."
)


class GraphvizUnavailable(RuntimeError):
    """No layout program is installed, or it could not lay out our input."""


def _script_dirs():
    """Where pip puts this Python's programs: a kernel's PATH often lacks its venv's bin."""
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    try:
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))  # pip install --user
    except KeyError:
        pass
    return os.pathsep.join(d for d in dirs if d)


def find_program(name):
    """The path of layout program ``name`` ("dot" or "graphviz-pure"), or None."""
    found = shutil.which(name)
    if found is None and os.path.basename(name) == BUNDLED:
        found = shutil.which(name, path=_script_dirs())
    return found


def layout_programs():
    """{name: path} of the layout programs installed, in order of preference.

    ``TAPEVIZ_DOT`` (a program name or path) puts that program first, or, set to
    "graphviz-pure", makes pictures skip a system Graphviz.
    """
    chosen = os.environ.get("TAPEVIZ_DOT", "").strip()
    names = (chosen,) if chosen else (SYSTEM, BUNDLED)
    found = {name: find_program(name) for name in names}
    return {name: path for name, path in found.items() if path}


def dot_binary():
    """The program pictures are laid out with, or None. A function, so tests can pretend none is there."""
    programs = layout_programs()
    return next(iter(programs.values()), None)


def run_dot(source, fmt="svg", timeout=60, program=None):
    """Lay out and render DOT ``source``; returns bytes (text formats decoded by callers).

    ``program``: None for the preferred one (:func:`dot_binary`; if it fails on
    this graph, the other installed one is tried), or a name ("dot",
    "graphviz-pure") or path to use that one only.
    """
    if program is None:
        first = dot_binary()
        binaries = [first] + [p for p in layout_programs().values() if p != first] if first else []
    else:
        found = find_program(program) or shutil.which(program)
        binaries = [found] if found else []
    if not binaries:
        missing = "No layout program was found" if program is None else f"`{program}` was not found"
        raise GraphvizUnavailable(f"{missing} (Graphviz's `dot` or `graphviz-pure`). " + INSTALL_HINT)
    # The DOT tapeviz writes is sanitised; text from elsewhere may hold lone
    # surrogates, which no program can read: they are passed escaped.
    data = source.encode("utf-8", "backslashreplace")
    failures = []
    for binary in binaries:
        try:
            return _run(binary, data, fmt, timeout)
        except _LayoutFailed as failure:  # a program's own bug on this graph: try the next one
            failures.append(str(failure))
    raise GraphvizUnavailable("; ".join(failures) + "; the tape is shown as a table instead.")


class _LayoutFailed(Exception):
    """A layout program exited with an error on a graph."""


def _run(binary, data, fmt, timeout):
    try:
        done = subprocess.run([binary, f"-T{fmt}"], input=data, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise GraphvizUnavailable(
            f"Laying out the graph took more than {timeout} s. Let it fold (fold=True) or lower max_nodes."
        ) from None
    except OSError as exc:
        raise GraphvizUnavailable(f"The layout program {binary} could not be run ({exc}). " + INSTALL_HINT) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _LayoutFailed(
            f"{os.path.basename(binary)} could not lay out this graph ("
            + (message[0] if message else f"exit status {done.returncode}")
            + ")"
        )
    return done.stdout


# Graphviz wraps nodes with tooltips in <a> links, and page styles (the docs
# theme) underline links: undo that for links inside our pictures only.
_NO_LINK_UNDERLINE = "<style>svg a {text-decoration: none}</style>"


def svg(source, timeout=60, program=None):
    """SVG text of DOT ``source`` (without the XML prologue, ready to inline in HTML)."""
    text = run_dot(source, "svg", timeout, program).decode("utf-8", "replace")
    start = text.find("<svg")
    if start < 0:
        return text
    text = text[start:]
    opened = text.find(">") + 1
    return text[:opened] + _NO_LINK_UNDERLINE + text[opened:]


def png(source, timeout=60, program=None):
    return run_dot(source, "png", timeout, program)
