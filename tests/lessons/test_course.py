"""The lessons as an nbgrader course (``python -m tapeviz.lessons nbgrader COURSE_DIR``), graded by the real nbgrader.

The slow test runs nbgrader's own commands on its own sqlite gradebook: ``generate_assignment`` (the
solutions leave, ``answer = ...`` comes back), then ``autograde`` on two students' submissions of
lesson 2, then ``generate_feedback``: the right answers get every point; a wrong answer, a typed
number where code was asked and an untouched ``...`` get 0, each with the lesson's own verdict in the
feedback the student receives.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tapeviz import lessons
from tapeviz.lessons import course, library
from tapeviz.lessons.catalogue import EXERCISES

ROOT = Path(__file__).resolve().parents[2]
LESSON = "02_watching"


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader")


def test_every_checked_exercise_becomes_a_solution_cell_and_a_points_cell(tmp_path):
    written = course.write(tmp_path / "course", points=2)
    assert [p.parent.name for p in written] == [p.stem for p in library.lessons()]
    graded, ids = [], []
    for path in written:
        cells = _cells(path)
        for index, cell in enumerate(cells):
            meta = _nbgrader(cell)
            if not meta or not meta["solution"]:
                continue
            source = "".join(cell["source"])
            exercise = course.exercise_of(cell)
            graded.append(exercise)
            assert meta["grade"] is False and meta["locked"] is False, meta
            # the solution sits between nbgrader's markers; the student's check stays after it
            begin, end = source.index(course.BEGIN), source.index(course.END)
            assert begin < end < source.index(f'lessons.check("{exercise}", answer)')
            body = source[begin + len(course.BEGIN) : end]
            assert body.strip() and "answer =" in body, source
            assert "answer = ..." not in body
            tests = cells[index + 1]
            points = _nbgrader(tests)
            assert points["grade"] is True and points["solution"] is False and points["locked"] is True
            assert points["points"] == 2
            assert f'lessons.check("{exercise}", answer)' in "".join(tests["source"])
            ids += [meta["grade_id"], points["grade_id"]]
    assert sorted(graded) == sorted(EXERCISES), "every exercise of the catalogue is graded, once"
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids)
    config = (tmp_path / "course" / "nbgrader_config.py").read_text()
    assert course.STUB in config


def test_a_course_with_lessons_is_not_replaced_without_force(tmp_path):
    written = course.write(tmp_path)
    written[0].write_text("the teacher's edit")
    with pytest.raises(FileExistsError, match="--force"):
        course.write(tmp_path)
    assert written[0].read_text() == "the teacher's edit"
    course.write(tmp_path, force=True)
    assert written[0].read_text() != "the teacher's edit"


def test_the_command_refuses_a_second_course_in_the_same_folder(tmp_path, capsys):
    from tapeviz.lessons import command

    assert command.main(["nbgrader", str(tmp_path), "--points", "3"]) == 0
    assert "12 source assignments" in capsys.readouterr().out
    assert command.main(["nbgrader", str(tmp_path)]) == 1
    assert "--force" in capsys.readouterr().err


def test_an_exercise_cell_without_one_placeholder_is_refused():
    cell = {"cell_type": "code", "source": 'answer = 3\nlessons.check("01.cube", answer)', "metadata": {}}
    with pytest.raises(ValueError, match="one `answer = ...` line"):
        course.graded_cells(cell, "01.cube", 1)


# -- the real nbgrader ---------------------------------------------------------------------------
def _run(args, cwd, env):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _fill(release, answers):
    """A student's submission: the released notebook with each ``answer = ...`` stub replaced."""
    cells = _cells(release)
    for cell in cells:
        exercise = course.exercise_of(cell)
        if exercise in answers:
            source = "".join(cell["source"])
            assert course.STUB in source, source
            cell["source"] = source.replace(course.STUB, answers[exercise])
    notebook = json.loads(release.read_text(encoding="utf-8"))
    notebook["cells"] = cells
    return json.dumps(notebook)


def _solution(exercise):
    return "\n".join(line for line in EXERCISES[exercise].solution.split("\n") if not line.startswith("lessons.check"))


def _text(page):
    """Feedback HTML as the student reads it: no tags, no escapes, no ANSI colours."""
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


WRONG = {
    "02.which_watched": 'answer = ["w", "b", "count"]',  # a wrong answer (count is not trainable)
    "02.selective": "answer = [None, 12.0]",  # a typed number where the exercise asks for code
    # 02.unwatched_read: left as `answer = ...`
}


@pytest.mark.slow  # nbgrader runs lesson 2 twice (two students)
def test_nbgrader_autogrades_the_lessons_with_its_own_gradebook(tmp_path):
    pytest.importorskip("nbgrader", reason="nbgrader is not installed (it comes with the [test] extra)")
    from nbgrader.api import Gradebook

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])  # nbgrader runs `alembic`
    home = tmp_path / "course"
    _run([sys.executable, "-m", "tapeviz.lessons", "nbgrader", str(home)], tmp_path, env)
    nbgrader = [sys.executable, "-m", "nbgrader"]
    _run([*nbgrader, "generate_assignment", LESSON], home, env)
    release = home / "release" / LESSON / f"{LESSON}.ipynb"
    released = "".join("".join(c["source"]) for c in _cells(release))
    assert course.BEGIN not in released and course.END not in released
    assert not [name for name in EXERCISES if name.startswith("02.") and _solution(name) in released], (
        "solution left in"
    )

    submissions = {
        "right": _fill(release, {name: _solution(name) for name in EXERCISES if name.startswith("02.")}),
        "wrong": _fill(release, WRONG),
    }
    for student, notebook in submissions.items():
        folder = home / "submitted" / student / LESSON
        folder.mkdir(parents=True)
        (folder / f"{LESSON}.ipynb").write_text(notebook, encoding="utf-8")
    _run([*nbgrader, "autograde", LESSON, "--create"], home, env)
    _run([*nbgrader, "generate_feedback", LESSON], home, env)

    with Gradebook(f"sqlite:///{home / 'gradebook.db'}") as gradebook:
        scores = {
            student: {
                grade.name: (grade.score, grade.max_score)
                for grade in gradebook.find_submission_notebook(f"{LESSON}", LESSON, student).grades
            }
            for student in submissions
        }
    ids = {course.grade_id(name) + "-points": name for name in EXERCISES if name.startswith("02.")}
    assert set(scores["right"]) == set(ids), scores
    assert all(score == maximum == 1 for score, maximum in scores["right"].values()), scores["right"]
    assert all(score == 0 and maximum == 1 for score, maximum in scores["wrong"].values()), scores["wrong"]

    feedback = _text((home / "feedback" / "wrong" / LESSON / f"{LESSON}.html").read_text(encoding="utf-8"))
    said = {
        "02.which_watched": lessons.check("02.which_watched", ["w", "b", "count"]).message,
        "02.selective": lessons.check("02.selective", [None, 12.0]).message,
        "02.unwatched_read": lessons.check("02.unwatched_read", ...).message,
    }
    assert "this exercise asks for code" in said["02.selective"]
    for exercise, message in said.items():
        assert message.split(" Stuck?")[0] in feedback, f"{exercise}: the lesson's verdict is not in the feedback"
    assert f"Hint: {EXERCISES['02.which_watched'].hint}" in feedback
    right = _text((home / "feedback" / "right" / LESSON / f"{LESSON}.html").read_text(encoding="utf-8"))
    assert "Not yet" not in right and "AssertionError" not in right
    shutil.rmtree(home / "autograded")  # the kernels' outputs are large; nothing else reads them
