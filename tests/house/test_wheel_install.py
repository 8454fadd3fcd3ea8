"""The built wheel installs and works: `pip install tapeviz-*.whl[viz]` alone draws pictures and ships the lessons.

``python -m build`` makes this checkout's sdist and wheel (the sdist carries the lesson notebooks, the
wheel has them inside the package). A fresh virtual environment (no system site-packages) installs the
wheel with ``[viz]`` from PyPI's packages, and runs with a PATH that has no ``dot``: the first gradient,
the picture, the player's kernel-free HTML and a PNG must come out, laid out by the ``graphviz-pure``
wheel; ``python -m tapeviz.lessons DIR --no-browser`` writes the 12 lessons, byte for byte the ones
nbval runs in notebooks/. Needs pip to reach PyPI (or its cache).
"""

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import shutil, sys
assert shutil.which("dot") is None and shutil.which("graphviz-pure") is None, "PATH should hide both"
import tapeviz as tf
import tapeviz.viz as viz
from tapeviz.viz import export, render

print("layout program:", render.dot_binary())
assert render.dot_binary() and "graphviz-pure" in render.dot_binary()
assert render.dot_binary().startswith(sys.prefix), "graphviz-pure should come from this venv"

x = tf.Variable(3.0, name="x")
with tf.GradientTape() as tape:
    y = x * x + tf.sin(x)
tape.gradient(y, x)
bundle = tape._repr_mimebundle_()
assert "<svg" in bundle["text/html"] and 'id="t0"' in bundle["text/html"], bundle["text/html"][:400]
assert viz.show(tape).save(sys.argv[1] + "/tape.png")
assert open(sys.argv[1] + "/tape.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n"
page = export.animate(tape).to_html()
assert "<svg" in page
# the player's script and styles are package data: the installed wheel must carry them
from importlib import resources
for name in ("player.js", "player.css"):
    assert resources.files("tapeviz.viz").joinpath("static", name).is_file(), f"the wheel lacks static/{name}"
assert "function replay(" in page and "#tapeviz-player .tv-bar" in page
print("ok")
"""


def _copy_project(dst):
    """The files a build reads, copied, so that no build output lands in the checkout."""
    for name in ("pyproject.toml", "README.md", "setup.py", "MANIFEST.in"):
        shutil.copy(ROOT / name, dst / name)
    shutil.copytree(ROOT / "tapeviz", dst / "tapeviz", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (dst / "notebooks").mkdir()
    for notebook in LESSONS:
        shutil.copy(notebook, dst / "notebooks" / notebook.name)


LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _run(cmd, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.slow  # builds the wheel, installs it with [viz] into a fresh venv
def test_built_wheel_draws_without_system_graphviz_and_ships_the_lessons(tmp_path):
    pytest.importorskip("build", reason="python -m build is not installed (it comes with the [test] extra)")
    project = tmp_path / "project"
    project.mkdir()
    _copy_project(project)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(project)], timeout=600)
    wheels, sdists = sorted(dist.glob("tapeviz-*.whl")), sorted(dist.glob("tapeviz-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(dist.iterdir())
    with tarfile.open(sdists[0]) as sdist:
        in_sdist = {Path(name).name for name in sdist.getnames() if "/notebooks/" in name}
    assert {p.name for p in LESSONS} <= in_sdist, "the sdist lacks lesson notebooks"
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        scripts = wheel.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "tapeviz-lessons = tapeviz.lessons.command:main" in scripts, scripts
    assert sorted(n for n in names if n.startswith("tapeviz/lessons/notebooks/")) == [
        f"tapeviz/lessons/notebooks/{p.name}" for p in LESSONS
    ]
    assert not [n for n in names if n.startswith(("notebooks/", "tests/"))], "the wheel installs only tapeviz"
    venv = tmp_path / "venv"
    # Cheap but the same install: the venv gets no pip of its own (ensurepip costs seconds);
    # this pip installs into it (--python), and skips byte-compiling IPython & co. (most of the time).
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    _run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install"),
            *("--quiet", "--disable-pip-version-check", "--no-compile", f"{wheels[0]}[viz]"),
        ],
        timeout=900,
    )
    # Only what [viz] brought: the venv sees none of this interpreter's packages.
    _run([str(python), "-c", "import sys; assert sys.prefix != sys.base_prefix; import PIL, ipywidgets, numpy"])
    # An empty PATH: no system `dot`, and not even the venv's programs (a Jupyter kernel started
    # by its full path has none): graphviz-pure must be found next to the running Python.
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TAPEVIZ_DOT")}
    env["PATH"] = str(empty)
    out = _run([str(python), "-c", SCRIPT, str(tmp_path)], env=env, cwd=tmp_path, timeout=300)
    assert out.strip().endswith("ok"), out

    # The lessons come out of the installed wheel, as nbval runs them in notebooks/ (same bytes, same tapeviz).
    out = _run([str(python), "-m", "tapeviz.lessons", str(tmp_path / "class"), "--no-browser"], env=env, cwd=tmp_path)
    assert "12 written" in out, out
    copied = sorted((tmp_path / "class").glob("*.ipynb"))
    assert [p.name for p in copied] == [p.name for p in LESSONS]
    assert all(c.read_bytes() == p.read_bytes() for c, p in zip(copied, LESSONS))
    out = _run([str(bindir / "tapeviz-lessons"), str(tmp_path / "class"), "--list"], env=env, cwd=tmp_path)
    assert out.count("copied") == 12 and "Lesson 1" in out, out
