"""The lesson notebooks that ship with tapeviz, and copying them into a student's folder.

An installed wheel carries them as ``tapeviz/lessons/notebooks/`` (setup.py copies ``notebooks/*.ipynb``
there at build time); a checkout (an editable install, or tapeviz on PYTHONPATH) reads its own
``notebooks/``. Nothing here runs a notebook.

Copying never overwrites a student's work. A manifest in the folder (``.tapeviz-lessons.json``, data
only: file name -> SHA-256 of the bytes tapeviz wrote) tells a notebook left as written, which a newer
tapeviz may replace, from one the student edited (or ran and saved), which is kept; ``update=True``
writes the new version beside it as ``NAME.new.ipynb``.
"""

import hashlib
import json
import os
from importlib import resources
from pathlib import Path

from tapeviz.core.files import write_bytes

MANIFEST = ".tapeviz-lessons.json"
_PATTERN = "[0-9][0-9]_*.ipynb"


def shipped():
    """The folder holding the lesson notebooks of this tapeviz."""
    inside = resources.files("tapeviz.lessons") / "notebooks"
    if inside.is_dir():
        return Path(str(inside))
    checkout = Path(__file__).resolve().parents[2] / "notebooks"
    if any(checkout.glob(_PATTERN)):
        return checkout
    raise FileNotFoundError(
        "this tapeviz has no lesson notebooks: it was installed without them (from an sdist or wheel built "
        "without notebooks/). Install it from a wheel built by `python -m build`, or from a clone."
    )


def lessons():
    """The lesson notebooks, in order: ``[Path]``."""
    return sorted(shipped().glob(_PATTERN))


def title(path):
    """A lesson's title: the first heading of its first Markdown cell."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = "".join(cell.get("source", ""))
            for line in source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return Path(path).stem


def digest(data):
    return hashlib.sha256(data).hexdigest()


def read_manifest(folder):
    """{name: digest} of what tapeviz wrote here; a missing or unreadable manifest is empty (nothing is trusted)."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    written = data.get("written") if isinstance(data, dict) else None
    if not isinstance(written, dict):
        return {}
    return {k: v for k, v in written.items() if isinstance(k, str) and isinstance(v, str)}


def _write_manifest(folder, written):
    text = json.dumps({"written": dict(sorted(written.items()))}, indent=1) + "\n"
    write_bytes(folder / MANIFEST, text.encode("utf-8"))


def beside(path):
    """Where ``update`` puts the new version of an edited notebook: ``01_x.ipynb`` -> ``01_x.new.ipynb``."""
    return path.with_name(f"{path.stem}.new{path.suffix}")


def state(folder, source, written=None):
    """What copying ``source`` into ``folder`` would find: 'missing', 'current', 'outdated' or 'edited'."""
    folder = Path(folder)
    target = folder / source.name
    if not target.exists():
        return "missing"
    have, new = target.read_bytes(), source.read_bytes()
    if have == new:
        return "current"
    written = read_manifest(folder) if written is None else written
    if written.get(source.name) == digest(have):
        return "outdated"  # as tapeviz wrote it, from an older version: safe to replace
    return "edited"


def copy(folder, update=False):
    """Copy every lesson into ``folder``; returns ``[(name, what was done)]``.

    What was done: 'written' (new), 'updated' (an untouched older copy replaced), 'unchanged',
    'kept' (the student's edited copy left alone), 'kept, new version beside' (with ``update``).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = read_manifest(folder)
    done = []
    for source in lessons():
        data = source.read_bytes()
        found = state(folder, source, written)
        target = folder / source.name
        if found == "edited":
            if update:
                write_bytes(beside(target), data)
                done.append((source.name, f"kept, new version beside as {beside(target).name}"))
            else:
                done.append((source.name, "kept"))
            continue
        if found != "current":
            write_bytes(target, data)
        written[source.name] = digest(data)
        done.append((source.name, {"missing": "written", "outdated": "updated", "current": "unchanged"}[found]))
    _write_manifest(folder, written)
    return done


def default_folder():
    """Where the lessons go when no folder is named: ``tapeviz-lessons`` in the current directory."""
    return Path(os.getcwd()) / "tapeviz-lessons"
