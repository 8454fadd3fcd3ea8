"""``python -m tapeviz.lessons`` (and ``tapeviz-lessons``): the lessons into a folder, then JupyterLab.

    tapeviz-lessons [DIR]              copy the 12 lessons into DIR (default ./tapeviz-lessons), open JupyterLab there
    tapeviz-lessons DIR --no-browser   only copy; print how to open them
    tapeviz-lessons DIR --update       also write the new version of each notebook you edited, beside it
    tapeviz-lessons DIR --list         list the lessons and what DIR holds of them; copy nothing
    tapeviz-lessons nbgrader COURSE    write an nbgrader course: one source assignment per lesson

A notebook you edited is never overwritten (the command says which it kept).
"""

import argparse
import subprocess
import sys
from pathlib import Path

from tapeviz.lessons import library


def _parser():
    parser = argparse.ArgumentParser(
        prog="tapeviz-lessons",
        description="Copy the tapeviz lesson notebooks into a folder and open them in JupyterLab. "
        "A notebook you edited is never overwritten. (`tapeviz-lessons nbgrader COURSE_DIR` writes an nbgrader "
        "course instead.)",
    )
    parser.add_argument(
        "folder", nargs="?", type=Path, help="where the lessons go (default: ./tapeviz-lessons; made if missing)"
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="for each notebook you edited, write this version's copy beside it as NAME.new.ipynb",
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="only copy the lessons; do not start JupyterLab (print how to)"
    )
    parser.add_argument(
        "--list", action="store_true", help="list the lessons and their state in the folder; copy nothing"
    )
    return parser


def _course_parser():
    parser = argparse.ArgumentParser(
        prog="tapeviz-lessons nbgrader",
        description="Write an nbgrader course: one source assignment per lesson, each checked exercise an "
        "autograded cell with points, its solution between ### BEGIN SOLUTION and ### END SOLUTION.",
    )
    parser.add_argument("course", type=Path, help="the course folder (made if missing; source/ must not hold lessons)")
    parser.add_argument("--points", type=int, default=1, help="points per exercise (default 1)")
    parser.add_argument("--force", action="store_true", help="replace lessons already in the course's source/")
    return parser


def list_lessons(folder):
    written = library.read_manifest(folder) if folder.is_dir() else {}
    for path in library.lessons():
        where = library.state(folder, path, written) if folder.is_dir() else "missing"
        label = {"missing": "not copied", "current": "copied", "outdated": "older copy", "edited": "edited by you"}
        print(f"{path.stem:24} {label[where]:14} {library.title(path)}")


def copy_lessons(folder, update):
    done = library.copy(folder, update=update)
    counts = {}
    for _name, what in done:
        counts[what.split(",")[0]] = counts.get(what.split(",")[0], 0) + 1
    print(f"tapeviz lessons in {folder}: " + ", ".join(f"{n} {what}" for what, n in counts.items()))
    kept = [(name, what) for name, what in done if what.startswith("kept")]
    for name, what in kept:
        print(f"  {name}: {what} (you edited it; it was not overwritten)")
    if kept and not update:
        print("  Run again with --update to get this version of each beside yours, as NAME.new.ipynb.")
    return done


def open_lab(folder):
    """Start JupyterLab in ``folder`` (blocks until it stops); a clear message when it is not installed."""
    if not jupyterlab_installed():
        print(
            "JupyterLab is not installed here: pip install jupyterlab (tapeviz's [lessons] extra brings it), or "
            f"open the notebooks in any Jupyter: the lessons are in {folder}",
            file=sys.stderr,
        )
        return 1
    return subprocess.call([sys.executable, "-m", "jupyterlab", str(folder)])


def jupyterlab_installed():
    import importlib.util

    return importlib.util.find_spec("jupyterlab") is not None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["nbgrader"]:
        from tapeviz.lessons import course

        options = _course_parser().parse_args(argv[1:])
        try:
            written = course.write(options.course, points=options.points, force=options.force)
        except FileExistsError as refused:
            print(refused, file=sys.stderr)
            return 1
        print(f"nbgrader course in {options.course}: {len(written)} source assignments")
        for path in written:
            print(f"  {path.relative_to(options.course)}")
        print(f"Next: cd {options.course} && nbgrader generate_assignment '*' (every lesson; see docs/teaching.md)")
        return 0
    options = _parser().parse_args(argv)
    folder = (options.folder or library.default_folder()).resolve()
    if options.list:
        list_lessons(folder)
        return 0
    copy_lessons(folder, options.update)
    if options.no_browser:
        print(f"Open them with: jupyter lab {folder}")
        return 0
    return open_lab(folder)
