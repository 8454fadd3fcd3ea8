"""``check`` and ``solution``: the verdict on an answer, and a solution when asked.

The verdict shows itself in a notebook. Its hint appears only once an answer
was wrong: before that the student has only the question to think with.
"""

import html

from tapeviz.lessons import provenance
from tapeviz.lessons.answers import Refused, describe, plain, refuse_text, same
from tapeviz.lessons.catalogue import EXERCISES


class Feedback:
    """The verdict on one answer: true when right; shows itself in a notebook.

    Args:
        exercise: the exercise's id.
        status: ``"correct"``, ``"wrong"`` or ``"unanswered"``.
        message: what to tell the student.
        hint: a hint.
    """

    def __init__(self, exercise, status, message, hint=""):
        self.exercise = exercise
        self.status = status  # "correct", "wrong" or "unanswered"
        self.message = message
        self.hint = hint if status == "wrong" else ""  # hidden until an answer was wrong

    def __bool__(self):
        return self.status == "correct"

    def __str__(self):
        mark = {"correct": "\u2713 Correct", "wrong": "\u2717 Not yet", "unanswered": "\u270e Your turn"}
        text = f"{mark[self.status]} ({self.exercise}): {self.message}"
        if self.hint:
            text += f"\nHint: {self.hint}"
        return text

    __repr__ = __str__

    def _repr_html_(self):
        colour = {
            "correct": ("#065f46", "#d1fae5"),
            "wrong": ("#991b1b", "#fee2e2"),
            "unanswered": ("#1e3a8a", "#dbeafe"),
        }[self.status]
        lines = html.escape(str(self)).replace("\n", "<br>")
        return (
            f'<div class="tapeviz-check tapeviz-check-{self.status}" style="color:{colour[0]};'
            f'background:{colour[1]};padding:6px 10px;border-radius:4px">{lines}</div>'
        )


class Solution:
    """One exercise's solution, shown as code (Markdown, so it shows in any notebook).

    Args:
        exercise: the exercise's id.
        code: the solution's code.
    """

    def __init__(self, exercise, code):
        self.exercise = exercise
        self.code = code

    def __str__(self):
        return self.code

    def __repr__(self):
        return f"A solution to {self.exercise} (paste it into the exercise's cell):\n\n{self.code}"

    def _repr_markdown_(self):
        return (
            f"A solution to **{self.exercise}** (paste it into the exercise's cell and run it):\n\n"
            f"```python\n{self.code}\n```"
        )


def _spec(exercise):
    known = EXERCISES
    if exercise not in known:
        raise KeyError(f"No exercise called {exercise!r}. The exercises are: {', '.join(sorted(known))}.")
    return known[exercise]


def _compare(spec, answer):
    """(ok, message) for an exercise with an ``expected`` value."""
    want = plain(spec.expected)
    if not isinstance(spec.expected, (str, bool)):
        refuse_text(answer)
    got = plain(answer)
    if spec.from_tape and not provenance.computed_by_a_tape(answer):
        raise Refused(
            f"got {describe(got)}, which no gradient call returned: this exercise asks you to compute it with a "
            "tape. Answer with what tape.gradient(...) gave (the tensor itself, not a number you typed or .numpy())."
        )
    if same(got, want, spec.tolerance):
        return True, "that is right."
    for value, message in spec.mistakes:
        if same(got, plain(value), spec.tolerance):
            return False, f"got {describe(got)}: {message}"
    return False, f"got {describe(got)}: {spec.otherwise or 'that is not it yet.'}"


def check(exercise, answer):
    """Check ``answer`` to the exercise named ``exercise`` (e.g. ``"01.cube"``).

    Returns a :class:`Feedback` (true when right) that shows itself in a
    notebook: why a wrong answer is wrong, and then a hint. Pass ``...`` while
    you have no answer yet.

    Args:
        exercise: its id (``"01.cube"``).
        answer: your answer.

    Returns:
        A ``Feedback``.
    """
    spec = _spec(exercise)
    if answer is Ellipsis:
        return Feedback(exercise, "unanswered", f"{spec.question} Replace the `...` with your answer and run the cell.")
    try:
        ok, message = spec.judge(answer) if spec.judge is not None else _compare(spec, answer)
    except Refused as refused:
        ok, message = False, str(refused)
    except Exception as problem:  # a wrong kind of answer is feedback, not a crash
        ok, message = False, f"checking your answer raised {type(problem).__name__}: {problem}"
    if ok:
        return Feedback(exercise, "correct", message)
    stuck = f' Stuck? lessons.solution("{exercise}") shows a solution.'
    return Feedback(exercise, "wrong", message + stuck, spec.hint)


def solution(exercise):
    """A solution to the exercise named ``exercise``: try it yourself first.

    Args:
        exercise: its id.

    Returns:
        A ``Solution`` (shown as code).
    """
    return Solution(exercise, _spec(exercise).solution)


def exercises():
    """The names and questions of every exercise, in lesson order.

    Returns:
        A dict from each exercise id to its question.
    """
    return {name: spec.question for name, spec in sorted(EXERCISES.items())}
