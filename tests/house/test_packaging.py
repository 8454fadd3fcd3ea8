"""Packaging checks: import hygiene, import time, scripts, pyproject extras."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]

# Heavy / optional modules that a plain `import tapeviz` must not pull in.
# (The visualizer and lessons import them lazily, when actually used.)
FORBIDDEN_EXACT = {"ipywidgets", "graphviz", "IPython", "matplotlib", "PIL", "ipykernel", "sklearn", "cupy", "h5py"}
FORBIDDEN_PREFIXES = ("jupyter",)  # jupyter_core, jupyter_client, jupyterlab, ...


def _run_python(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stderr}"
    return proc.stdout


def test_import_does_not_load_heavy_modules():
    out = _run_python(
        "import json, sys; import tapeviz; print(json.dumps({'file': tapeviz.__file__, 'mods': sorted(sys.modules)}))"
    )
    data = json.loads(out.strip().splitlines()[-1])
    assert Path(data["file"]).resolve().is_relative_to(ROOT / "tapeviz"), (
        f"imported tapeviz from {data['file']}, not from this checkout"
    )
    tops = {m.split(".")[0] for m in data["mods"]}
    bad = sorted(t for t in tops if t in FORBIDDEN_EXACT or t.startswith(FORBIDDEN_PREFIXES))
    assert not bad, (
        f"`import tapeviz` imported {bad}; import visualizer/notebook "
        "dependencies lazily (inside the functions that use them)"
    )


def test_keras_and_what_sits_on_it_load_on_first_use():
    """As TF's tf.keras: `import tapeviz` leaves Keras, the saving and the summary stacks unloaded; the
    first `tf.keras` (or `tf.optimizers`, `tf.train`...) loads them, and they are the modules themselves."""
    out = _run_python(
        "import json, sys; import tapeviz as tf\n"
        "before = sorted(m for m in sys.modules if m.startswith(('tapeviz.keras', 'tapeviz.saved_model', "
        "'tapeviz.checkpoint', 'tapeviz.summary', 'tapeviz.train', 'tapeviz.optimizers')))\n"
        "listed = {n for n in ('keras', 'optimizers', 'losses', 'metrics', 'initializers', 'saved_model', 'train', "
        "'summary') if n in dir(tf) and n in tf.__all__}\n"
        "dense = tf.keras.layers.Dense(2)\n"
        "same = [tf.optimizers.Adam is tf.keras.optimizers.Adam, tf.losses is sys.modules['tapeviz.keras.losses'],"
        " tf.train.Checkpoint.__module__, tf.summary.__name__, tf.saved_model.__name__]\n"
        "print(json.dumps({'before': before, 'listed': sorted(listed), 'same': same}))"
    )
    data = json.loads(out.strip().splitlines()[-1])
    assert data["before"] == [], f"`import tapeviz` loaded {data['before'][:5]}: Keras and its stack load on first use"
    assert len(data["listed"]) == 8, data["listed"]
    assert data["same"] == [True, True, "tapeviz.checkpoint.checkpoint", "tapeviz.summary", "tapeviz.saved_model"]


@pytest.mark.parametrize("script", ["dev.sh", ".ci/run"])
def test_shell_scripts_parse_and_are_executable(script):
    path = ROOT / script
    assert path.is_file(), f"{script} missing"
    assert os.access(path, os.X_OK), f"{script} is not executable (chmod +x)"
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, f"bash -n {script} failed:\n{proc.stderr}"


def test_dev_sh_rejects_unknown_command():
    proc = subprocess.run(
        ["bash", str(ROOT / "dev.sh"), "no-such-command"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "./dev.sh test" in proc.stderr and "./dev.sh lessons" in proc.stderr


def _req_names(reqs):
    """'ipywidgets>=8' -> 'ipywidgets'; 'tapeviz[viz]' -> 'tapeviz[viz]'."""
    names = set()
    for r in reqs:
        m = re.match(r"\s*([A-Za-z0-9_.\-]+(?:\[[^\]]*\])?)", r)
        assert m, r
        names.add(m.group(1).lower())
    return names


def test_pyproject_metadata_and_extras():
    with open(ROOT / "pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    project = pyproject["project"]
    assert project["name"] == "tapeviz"
    assert project["requires-python"] == ">=3.10"
    assert project["dependencies"] == ["numpy>=2.0"], (
        "the core must depend on numpy only; put anything else in an extra"
    )

    extras = {k: _req_names(v) for k, v in project["optional-dependencies"].items()}
    expected = {
        "viz": {"graphviz-pure", "ipywidgets", "pillow"},
        "lessons": {"tapeviz[viz]", "jupyterlab", "scikit-learn"},
        "test": {
            "tapeviz[lessons]",
            "pytest",
            "hypothesis",
            "nbval",
            "pytest-xdist",
            "build",
            "nbgrader",
            "jupyterhub",
        },
        "docs": {"sphinx", "myst-nb", "furo"},
        "gpu": {"cupy-cuda12x"},
    }
    for extra, names in expected.items():
        assert extra in extras, f"missing extra [{extra}]"
        assert names <= extras[extra], f"extra [{extra}] lacks {sorted(names - extras[extra])}"
    assert "ipywidgets>=8" in project["optional-dependencies"]["viz"]
    assert "jupyterlab>=4" in project["optional-dependencies"]["lessons"]

    assert project["scripts"] == {"tapeviz-lessons": "tapeviz.lessons.command:main"}

    ini = pyproject["tool"]["pytest"]["ini_options"]
    assert ini["testpaths"] == ["tests"]
    registered = {m.split(":")[0].strip() for m in ini["markers"]}
    assert {"slow", "browser", "quick"} <= registered
