"""The lessons as an nbgrader course: one source assignment per lesson, every checked exercise graded.

``python -m tapeviz.lessons nbgrader COURSE_DIR`` writes ``COURSE_DIR/source/<lesson>/<lesson>.ipynb``
for each lesson, and a ``nbgrader_config.py`` when the course has none. In each notebook:

* the exercise cell (``answer = ...`` then ``lessons.check("NAME", answer)``) becomes an *autograded
  answer* cell: the lesson's solution (from :mod:`tapeviz.lessons.catalogue`) stands between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, and ``nbgrader generate_assignment`` puts
  ``answer = ...`` back in its place for the students (``ClearSolutions.code_stub``);
* a locked *autograded tests* cell with the points follows it: it asserts the same check the student
  sees, so the points go exactly where ``lessons.check`` says "Correct", and a wrong answer's verdict
  (what went wrong, and the hint) is the assertion's message, in the feedback nbgrader generates.

The other cells stay as they are (not locked: students try things in them). The notebooks are read as
JSON and written atomically; nothing is executed here.
"""

import json
import re
from pathlib import Path

from tapeviz.core.files import write_bytes
from tapeviz.lessons import library
from tapeviz.lessons.catalogue import EXERCISES

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = "answer = ...  # YOUR ANSWER HERE"

_CHECK = re.compile(r'^lessons\.check\("([^"]+)", answer\)\s*$')
_PLACEHOLDER = re.compile(r"^answer = \.\.\.\s*(?:#\s*(?P<comment>.*))?$")

CONFIG = f"""\
# nbgrader settings for the tapeviz lessons (written by `python -m tapeviz.lessons nbgrader`).
c = get_config()  # noqa: F821 (nbgrader defines it)
c.CourseDirectory.course_id = "tapeviz"
# What a student sees where the solution was: the lesson's own placeholder.
c.ClearSolutions.code_stub = {{"python": {STUB!r}}}
# A lesson runs in seconds; a loaded server needs more than nbgrader's 30 s for the digits lesson's training.
c.Execute.timeout = 300
"""


def grade_id(exercise):
    """nbgrader's cell ids are letters, digits, - and _: ``"01.cube"`` -> ``"ex01-cube"``."""
    return "ex" + re.sub(r"[^A-Za-z0-9_-]", "-", exercise)


def _lines(cell):
    source = cell.get("source", "")
    return ("".join(source) if isinstance(source, list) else source).split("\n")


def _code_cell(source, metadata):
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": [], "source": source}


def exercise_of(cell):
    """The exercise a code cell checks (``lessons.check("NAME", answer)`` as its last line), else None."""
    if cell.get("cell_type") != "code":
        return None
    lines = [line for line in _lines(cell) if line.strip()]
    match = _CHECK.match(lines[-1]) if lines else None
    return match.group(1) if match else None


def graded_cells(cell, exercise, points):
    """The exercise cell with its solution between the markers, and the tests cell that gives the points."""
    lines = _lines(cell)
    placeholders = [i for i, line in enumerate(lines) if _PLACEHOLDER.match(line)]
    if len(placeholders) != 1:
        raise ValueError(
            f"exercise {exercise}: its cell should hold one `answer = ...` line (the student's), found "
            f"{len(placeholders)}:\n{''.join(cell.get('source', ''))}"
        )
    solution = EXERCISES[exercise].solution.split("\n")
    if solution and _CHECK.match(solution[-1]):
        solution = solution[:-1]  # the check stays in the cell, after the solution
    at = placeholders[0]
    comment = _PLACEHOLDER.match(lines[at]).group("comment")
    middle = ([f"# {comment}"] if comment else []) + [BEGIN, *solution, END]
    answer = lines[:at] + middle + lines[at + 1 :]
    ident = grade_id(exercise)
    answer_cell = _code_cell(
        "\n".join(answer),
        {"nbgrader": {"grade": False, "grade_id": ident, "locked": False, "schema_version": 3, "solution": True}},
    )
    tests = "\n".join(
        [
            f"# {points} point{'s' if points != 1 else ''} when lessons.check accepts the answer above (autograded)",
            f'verdict = lessons.check("{exercise}", answer)',
            "assert verdict, str(verdict)",
        ]
    )
    tests_cell = _code_cell(
        tests,
        {
            "nbgrader": {
                "grade": True,
                "grade_id": f"{ident}-points",
                "locked": True,
                "points": points,
                "schema_version": 3,
                "solution": False,
            }
        },
    )
    if "id" in cell:  # nbformat 4.5 cell ids: keep the lesson's, and give the new cell its own
        answer_cell["id"] = cell["id"]
        tests_cell["id"] = f"{cell['id']}-points"
    return [answer_cell, tests_cell]


def assignment(path, points=1):
    """The nbgrader source notebook of one lesson (a dict in nbformat 4), and the exercises it grades."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    cells, graded = [], []
    for cell in notebook["cells"]:
        exercise = exercise_of(cell)
        if exercise is None:
            cells.append(cell)
            continue
        if exercise not in EXERCISES:
            raise ValueError(f"{Path(path).name}: the exercise {exercise!r} is not in tapeviz.lessons.catalogue")
        cells += graded_cells(cell, exercise, points)
        graded.append(exercise)
    notebook["cells"] = cells
    return notebook, graded


def write(course, points=1, force=False):
    """Write the course into the folder ``course``; returns the notebooks written.

    Refuses to replace a lesson already in ``source/`` (a teacher may have edited it) unless ``force``.
    """
    course = Path(course)
    sources = library.lessons()
    targets = [course / "source" / path.stem / path.name for path in sources]
    existing = [t for t in targets if t.exists()]
    if existing and not force:
        raise FileExistsError(
            f"{len(existing)} lessons are already in {course / 'source'} (e.g. {existing[0]}); nothing was written. "
            "Pass --force to replace them with this tapeviz's lessons."
        )
    for path, target in zip(sources, targets):
        notebook, _graded = assignment(path, points)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(target, (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    config = course / "nbgrader_config.py"
    if not config.exists():
        write_bytes(config, CONFIG.encode("utf-8"))
    return targets
