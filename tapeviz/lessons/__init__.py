"""Helpers for the lesson notebooks: set-up, checked exercises, embedded animations.

A lesson starts with::

    import tapeviz as tf
    from tapeviz import lessons
    lessons.setup()

and an exercise ends with ``lessons.check("01.cube", answer)``, which says
in plain words whether the answer is right, and if not, what to look at
(a hint appears after the first wrong answer). A ``...`` answer means "not
answered yet" and is never an error, so a notebook runs from top to bottom
before any exercise is done.

Where an exercise asks for code (a custom gradient, a training step...), the
answer is the student's function itself: the checker runs it on fresh inputs
and watches what it does with tapes (:mod:`tapeviz.lessons.probe`), so a typed
number is not an answer there.

Solutions are not in the notebooks (where a preview or "Run All" would give
them away): ``lessons.solution("01.cube")`` shows one when asked. The lesson
build runs every solution in its lesson and fails unless ``check`` accepts it.

Nothing here is imported by ``import tapeviz``; it loads the visualizer when
``setup()`` is called.

Modules: ``prepare`` (``setup``), ``embedding`` (inline pages and images),
``feedback`` (``check``, ``solution``, the verdict shown), ``answers``
(reading an answer, refusing the wrong kind), ``provenance`` (which tensors
a gradient call returned: "compute it with a tape" refuses a typed number),
``probe`` (running a student's
code under observation), ``judges`` (checks that teach), ``catalogue`` (the
exercises: the ``Exercise`` record, then every question, hint and solution).
"""

from tapeviz.lessons.catalogue import EXERCISES, Exercise
from tapeviz.lessons.embedding import Embedded, embed_html, embed_image
from tapeviz.lessons.feedback import Feedback, Solution, check, exercises, solution
from tapeviz.lessons.prepare import setup

__all__ = [
    "setup",
    "check",
    "solution",
    "exercises",
    "Feedback",
    "Solution",
    "Exercise",
    "EXERCISES",
    "Embedded",
    "embed_html",
    "embed_image",
]
