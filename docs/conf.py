"""Sphinx configuration for the tapeviz docs (built by ``./dev.sh docs``).

Why Sphinx + myst-nb (and not MkDocs): a Python library's users expect
Sphinx's autodoc for the API reference, myst-nb renders the lesson notebooks
with their stored outputs (no re-execution: ``nb_execution_mode = "off"``),
and ``-W`` turns every warning into an error in CI.

Two folders are generated at build time (and ignored by git):

* ``lessons/``: copies of ``../notebooks/NN_*.ipynb`` (Sphinx only reads
  files under its source folder);
* ``api/``: one page per public module, with an autodoc entry for every
  public name, so the reference covers the whole public surface by
  construction (see ``api_modules`` below).
"""

import inspect
import shutil
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

project = "tapeviz"
author = "the tapeviz authors"
copyright = "2026, the tapeviz authors"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = "tapeviz"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Lessons are shown with the outputs stored in the notebooks.
nb_execution_mode = "off"
# A player's output carries the live widget (for JupyterLab) and a kernel-free
# HTML copy: the docs show the copy, which plays without Python.
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "text/html", 5),
]
nb_ipywidgets_js = {}  # no widget JavaScript from a CDN: the HTML copies need none

autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False

suppress_warnings = ["myst.header"]  # lessons start at "# Lesson N" with sub-headings below


# -- lessons --------------------------------------------------------------------------------
def copy_lessons():
    target = HERE / "lessons"
    target.mkdir(exist_ok=True)
    for old in target.glob("*.ipynb"):
        old.unlink()
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        shutil.copy2(notebook, target / notebook.name)


# -- API reference --------------------------------------------------------------------------
# (module, title, intro). Each module's public names: its __all__ when it has
# one, else every name not starting with "_" that is not a module.
api_modules = [
    (
        "tapeviz",
        "tapeviz (the top level, ``tf``)",
        "What ``import tapeviz as tf`` gives: GradientTape, tensors, variables, and the math, array "
        "and linear-algebra ops TensorFlow has at its top level.",
    ),
    ("tapeviz.autodiff", "tapeviz.autodiff", "``tf.autodiff``: forward mode (ForwardAccumulator)."),
    ("tapeviz.math", "tapeviz.math", "``tf.math``."),
    ("tapeviz.nn", "tapeviz.nn", "``tf.nn``."),
    ("tapeviz.linalg", "tapeviz.linalg", "``tf.linalg``."),
    ("tapeviz.random", "tapeviz.random", "``tf.random``."),
    ("tapeviz.config", "tapeviz.config", "``tf.config`` and ``tf.device``."),
    ("tapeviz.errors", "tapeviz.errors", "``tf.errors``."),
    ("tapeviz.nest", "tapeviz.nest", "``tf.nest``: flatten and pack nested structures."),
    ("tapeviz.data", "tapeviz.data", "``tf.data``: a small Dataset pipeline."),
    ("tapeviz.keras", "tapeviz.keras", "``tf.keras``: models."),
    ("tapeviz.keras.layers", "tapeviz.keras.layers", "Layers."),
    ("tapeviz.keras.losses", "tapeviz.keras.losses", "Losses."),
    ("tapeviz.keras.metrics", "tapeviz.keras.metrics", "Metrics."),
    ("tapeviz.keras.optimizers", "tapeviz.keras.optimizers", "Optimizers (also ``tf.optimizers``)."),
    ("tapeviz.keras.optimizers.schedules", "tapeviz.keras.optimizers.schedules", "Learning-rate schedules."),
    ("tapeviz.keras.initializers", "tapeviz.keras.initializers", "Initializers."),
    ("tapeviz.keras.activations", "tapeviz.keras.activations", "Activations."),
    ("tapeviz.keras.callbacks", "tapeviz.keras.callbacks", "Callbacks."),
    ("tapeviz.keras.datasets", "tapeviz.keras.datasets", "Real data sets shipped by installed packages."),
    ("tapeviz.events", "tapeviz.events (the hook bus)", "Listen to what tapes record and sweep: see :doc:`../hooks`."),
    ("tapeviz.viz", "tapeviz.viz (the visualizer)", "Graphs, players, explanations, memory views."),
    ("tapeviz.backend", "tapeviz.backend", "The array backend (NumPy, or CuPy on a GPU)."),
    ("tapeviz.lessons", "tapeviz.lessons", "Helpers for the lesson notebooks."),
]


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:  # no __all__: what the module defines (not what it imports, like contextmanager)
        names = [
            n
            for n in dir(module)
            if not n.startswith("_")
            and getattr(getattr(module, n), "__module__", module.__name__).startswith("tapeviz")
        ]
    if module.__name__ == "tapeviz":  # loaded on first use by the module's __getattr__
        names = list(names) + [n for n in module._VIZ_NAMES if n != "viz"]
    keep = []
    for name in names:
        obj = getattr(module, name, None)
        if obj is None and name not in vars(module):
            continue
        if isinstance(obj, types.ModuleType):
            continue
        keep.append(name)
    return keep


def directive(obj):
    if inspect.isclass(obj):
        return "autoclass"
    if callable(obj):
        return "autofunction"
    return "autodata"


def _resolve(dotted):
    """A module by name, also when it is an attribute (``tapeviz.errors`` is ``tapeviz.core.errors``)."""
    import importlib

    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError:
        parent, _, name = dotted.rpartition(".")
        return getattr(_resolve(parent), name)


def write_api():

    target = HERE / "api"
    target.mkdir(exist_ok=True)
    for old in target.glob("*.rst"):
        old.unlink()
    documented = {}  # id(obj) -> the page that documents it first (the others refer with :no-index:)
    pages = []
    for module_name, title, intro in api_modules:
        module = _resolve(module_name)
        lines = [title, "=" * len(title), "", f".. module:: {module_name}", "", intro, ""]
        names = public_names(module)
        lines += [f"Public names: {len(names)}.", ""]
        for name in names:
            obj = getattr(module, name)
            kind = directive(obj)
            lines.append(f".. {kind}:: {module_name}.{name}")
            if kind == "autoclass":
                lines.append("   :members:")
            key = id(obj) if (callable(obj) or inspect.isclass(obj)) else None
            if key is not None and key in documented:
                lines.append("   :no-index:")
                lines.append("")
                lines.append(f"   Same object as :py:obj:`{documented[key]}`.")
            elif key is not None:
                documented[key] = f"{module_name}.{name}"
            if kind == "autodata":
                lines.append("   :no-value:")
            lines.append("")
        page = module_name.replace(".", "_")
        (target / f"{page}.rst").write_text("\n".join(l for l in lines if l is not None) + "\n")
        pages.append(page)
    index = [
        "API reference",
        "=============",
        "",
        "Every public name of every public module, from its docstring. Where a name is the same "
        "object as one documented earlier (``tf.sin`` is ``tf.math.sin``), its entry says so.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    index += [f"   {page}" for page in pages]
    (target / "index.rst").write_text("\n".join(index) + "\n")


def escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for absolute values; reST would read a substitution. Escape the bars
    (outside ``literals``), so the source stays readable in the terminal and renders in HTML."""
    for index, line in enumerate(lines):
        parts = line.split("``")
        parts[0::2] = [part.replace("|", "\\|") for part in parts[0::2]]
        lines[index] = "``".join(parts)


def setup(app):
    app.connect("autodoc-process-docstring", escape_bars)


copy_lessons()
write_api()
