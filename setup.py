"""The one build step pyproject.toml cannot say: the lesson notebooks ship inside the package.

The lessons are written, built and tested in ``notebooks/`` (``notebooks/build.py``, nbval), and stay
there. A built wheel carries a copy of ``notebooks/*.ipynb`` as ``tapeviz/lessons/notebooks/``, which
``python -m tapeviz.lessons DIR`` copies out for a student. One source, no second copy in the
repository to keep in step. An editable install (and a checkout on PYTHONPATH) reads ``notebooks/`` in
place (``tapeviz.lessons.library.shipped``). The sdist includes the notebooks (MANIFEST.in), so a wheel
built from it has them too.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

LESSONS = Path(__file__).resolve().parent / "notebooks"
TARGET = Path("tapeviz", "lessons", "notebooks")


def lesson_notebooks():
    found = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))
    if not found:
        raise SystemExit(f"no lesson notebooks in {LESSONS}: the wheel would ship without its lessons")
    return found


class BuildPyWithLessons(build_py):
    """build_py, then the lesson notebooks copied into the built package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads notebooks/ where it is
        for source in lesson_notebooks():
            target = Path(self.build_lib, TARGET, source.name)
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target))

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(Path(self.build_lib, TARGET, source.name)) for source in lesson_notebooks()]


setup(cmdclass={"build_py": BuildPyWithLessons})
