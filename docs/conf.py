"""Sphinx configuration for the tapeviz docs (built by ``./dev.sh docs``).

Why Sphinx + myst-nb (and not MkDocs): a Python library's users expect
Sphinx's autodoc for the API reference, myst-nb renders the lesson notebooks
with their stored outputs (no re-execution: ``nb_execution_mode = "off"``),
and ``-W`` turns every warning into an error in CI.

Three folders are generated at build time (and ignored by git):

* ``lessons/``: copies of ``../notebooks/NN_*.ipynb`` (Sphinx only reads
  files under its source folder);
* ``api/``: one page per public module, with an autodoc entry for every
  public name, so the reference covers the whole public surface by
  construction (see ``api_modules`` below);
* ``_generated/``: the pictures and kernel-free players of the landing,
  visualizer and player pages, drawn from small examples by this build
  (``make_pictures``), so they always show what the current code draws.

Why the docs' Python snippets are checked by ``tests/docs/test_docs_snippets.py``
and not by Sphinx's doctest builder: the pages stay plain Markdown code
blocks (readable on GitHub, copyable without ``>>>``), each page runs in a
fresh interpreter, as a reader's would, and the check runs with the rest of
the test suite without a second Sphinx build.
"""

import inspect
import json
import shutil
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import diagrams  # noqa: E402 (docs/diagrams.py, found through the path above)

project = "tapeviz"
author = "the tapeviz authors"
copyright = "2026, the tapeviz authors"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = "tapeviz"
html_static_path = ["_static"]
html_css_files = ["tapeviz.css"]
html_js_files = ["stacked-tables.js"]  # phones: wide tables stack into rows of named cells
html_extra_path = ["_generated"]  # the kernel-free players, at the site's root (pages embed them)

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
# Defaults as written in the source (``listeners=_listeners``), never an object's repr.
autodoc_preserve_defaults = True
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
        lesson = json.loads(notebook.read_text(encoding="utf-8"))
        if open_players_as_saved(lesson):
            _write(target / notebook.name, json.dumps(lesson, indent=1, ensure_ascii=False) + "\n")
        else:
            shutil.copy2(notebook, target / notebook.name)


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# A player's kernel-free copy (its text/html) is a page in an <iframe srcdoc>, so its markup is escaped.
PREDICT_BOX = "class=&quot;tv-predict&quot;&gt;"
PREDICT_BOX_TICKED = "class=&quot;tv-predict&quot; checked&gt;"


def open_players_as_saved(lesson):
    """Tick the predict box of each kernel-free copy whose widget was saved in predict mode.

    The docs show the copy, JupyterLab the widget: both must open as the lesson says
    ("the same player in predict mode"). Copies exported before ``html_player`` took
    ``predict`` open with the box unticked; newer ones already match (nothing to do).
    True when a copy changed."""
    models = lesson.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    changed = False
    for cell in lesson["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data or "text/html" not in data:
                continue
            if not _saved_in_predict_mode(models, data[WIDGET_VIEW].get("model_id")):
                continue
            page = data["text/html"]
            page = "".join(page) if isinstance(page, list) else page
            if PREDICT_BOX in page:
                data["text/html"] = page.replace(PREDICT_BOX, PREDICT_BOX_TICKED)
                changed = True
    return changed


def _saved_in_predict_mode(models, model_id):
    """Whether the widget ``model_id`` (a player's box) holds a ticked "predict" checkbox."""
    seen, todo = set(), [model_id]
    while todo:
        current = todo.pop()
        model = models.get(current)
        if current in seen or model is None:
            continue
        seen.add(current)
        state = model.get("state", {})
        if model.get("model_name") == "CheckboxModel" and state.get("description") == "predict":
            return bool(state.get("value"))
        todo += [child.removeprefix("IPY_MODEL_") for child in state.get("children", [])]
    return False


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
    ("tapeviz.image", "tapeviz.image", "``tf.image``: resizing, flips and dtype conversion of images."),
    ("tapeviz.saved_model", "tapeviz.saved_model", "``tf.saved_model``: save and load a Module's variables."),
    (
        "tapeviz.summary",
        "tapeviz.summary",
        "``tf.summary``: scalars, histograms, text, images and traced graphs as TensorBoard event files.",
    ),
    ("tapeviz.summary.experimental", "tapeviz.summary.experimental", "``tf.summary.experimental``: the default step."),
    (
        "tapeviz.types.experimental",
        "tapeviz.types.experimental",
        "``tf.types.experimental``: ``TraceType``, how an argument keys ``tf.function``'s traces.",
    ),
    ("tapeviz.config", "tapeviz.config", "``tf.config`` and ``tf.device``."),
    (
        "tapeviz.distribute",
        "tapeviz.distribute",
        "``tf.distribute``: strategies whose replicas run one after another in this process (no speedup).",
    ),
    ("tapeviz.dtypes", "tapeviz.dtypes", "``tf.dtypes``: the dtypes and the casts."),
    ("tapeviz.bitwise", "tapeviz.bitwise", "``tf.bitwise``: bit operations on integer tensors."),
    ("tapeviz.strings", "tapeviz.strings", "``tf.strings``: ops on ``tf.string`` tensors (bytes)."),
    ("tapeviz.io", "tapeviz.io", "``tf.io``: ``decode_raw``."),
    ("tapeviz.errors", "tapeviz.errors", "``tf.errors``."),
    (
        "tapeviz.debugging",
        "tapeviz.debugging",
        "``tf.debugging``: checks of values, shapes and dtypes; NaN/Inf checks.",
    ),
    ("tapeviz.nest", "tapeviz.nest", "``tf.nest``: flatten and pack nested structures."),
    ("tapeviz.data", "tapeviz.data", "``tf.data``: a small Dataset pipeline."),
    ("tapeviz.keras", "tapeviz.keras", "``tf.keras``: models."),
    ("tapeviz.keras.models", "tapeviz.keras.models", "``tf.keras.models``: build, save and load models."),
    ("tapeviz.keras.layers", "tapeviz.keras.layers", "Layers."),
    ("tapeviz.keras.losses", "tapeviz.keras.losses", "Losses."),
    ("tapeviz.keras.metrics", "tapeviz.keras.metrics", "Metrics."),
    ("tapeviz.keras.optimizers", "tapeviz.keras.optimizers", "Optimizers (also ``tf.optimizers``)."),
    ("tapeviz.keras.optimizers.schedules", "tapeviz.keras.optimizers.schedules", "Learning-rate schedules."),
    ("tapeviz.keras.initializers", "tapeviz.keras.initializers", "Initializers."),
    ("tapeviz.keras.activations", "tapeviz.keras.activations", "Activations."),
    ("tapeviz.keras.callbacks", "tapeviz.keras.callbacks", "Callbacks."),
    (
        "tapeviz.keras.datasets",
        "tapeviz.keras.datasets",
        "Keras 3's data sets, read from the files Keras caches (never downloaded), and scikit-learn's digits.",
    ),
    *(
        (f"tapeviz.keras.datasets.{name}", f"tapeviz.keras.datasets.{name}", f"``tf.keras.datasets.{name}``.")
        for name in (
            "mnist",
            "fashion_mnist",
            "cifar10",
            "cifar100",
            "imdb",
            "reuters",
            "boston_housing",
            "california_housing",
        )
    ),
    ("tapeviz.keras.saving", "tapeviz.keras.saving", "``tf.keras.saving``: the ``.keras`` file format."),
    ("tapeviz.keras.utils", "tapeviz.keras.utils", "``tf.keras.utils``."),
    ("tapeviz.keras.config", "tapeviz.keras.config", "``keras.config``: floatx, epsilon, image layout, caps on fit."),
    ("tapeviz.keras.backend", "tapeviz.keras.backend", "``keras.backend``: dtype names and promotion, uids."),
    (
        "tapeviz.keras.mixed_precision",
        "tapeviz.keras.mixed_precision",
        "``keras.mixed_precision``: float16 computations with float32 weights, and loss scaling.",
    ),
    ("tapeviz.events", "tapeviz.events (the hook bus)", "Listen to what tapes record and sweep: see :doc:`../hooks`."),
    ("tapeviz.viz", "tapeviz.viz (the visualizer)", "Graphs, players, explanations, memory views."),
    ("tapeviz.backend", "tapeviz.backend", "The array backend (NumPy, or CuPy on a GPU)."),
    ("tapeviz.lessons", "tapeviz.lessons", "Helpers for the lesson notebooks."),
]

# Data (not classes or functions) has no docstring of its own: Python would show its type's
# (``int``'s for AUTOTUNE). A ``#:`` comment above the assignment in the module that defines
# it documents it; these say what the others are. The build fails on data that has neither.
DATA_DOCS = {
    "tapeviz.keras.preprocessing": (
        "``tf.keras.preprocessing.image.array_to_img`` and ``img_to_array`` "
        "(the same functions as in :doc:`tapeviz_keras_utils`)."
    ),
    "tapeviz.lessons.EXERCISES": "Every exercise of the lesson notebooks, by its id (``'01.square'``).",
    "tapeviz.newaxis": "``tf.newaxis``: ``x[..., tf.newaxis]`` adds an axis of size 1 (it is None, as NumPy's).",
    "tapeviz.events.ALL_EVENTS": (
        "Every kind of event, one frozen dataclass each, in the order a tape meets them: what a listener's "
        "``on_<kind>`` methods may name (see :doc:`../hooks`)."
    ),
    "tapeviz.distribute.experimental": (
        "``tf.distribute.experimental``: ``ValueContext`` and ``CentralStorageStrategy`` (the multi-worker, TPU "
        "and parameter-server "
        "strategies are out of scope: one process)."
    ),
    "tapeviz.data.AUTOTUNE": (
        "``tf.data.AUTOTUNE``: pass as ``num_parallel_calls`` or ``buffer_size`` to let the pipeline choose "
        "(here: run sequentially, prefetch nothing); the value is -1, as in TensorFlow."
    ),
}


PAGES = {module_name: module_name.replace(".", "_") for module_name, _, _ in api_modules}

# Classes a public function returns, documented though their module's __all__ leaves them out
# (``tf.show`` returns a Figure: a reader looks up its ``.svg()`` and ``.save()``).
RETURNED_CLASSES = {"tapeviz.viz": ["Figure"]}


def _is_namespace(obj):
    return type(obj).__name__ == "_Namespace"  # keras.models: a group of names, documented as a page


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:  # no __all__: what the module defines (not what it imports, like contextmanager)
        names = [
            n
            for n in dir(module)
            if not n.startswith("_")
            and (
                _is_namespace(module)
                or getattr(getattr(module, n), "__module__", module.__name__).startswith("tapeviz")
            )
        ]
    if getattr(module, "__name__", None) == "tapeviz":  # loaded on first use by the module's __getattr__
        names = list(names) + [n for n in module._VIZ_NAMES if n != "viz"]
    names = list(names) + RETURNED_CLASSES.get(getattr(module, "__name__", None), [])
    keep = []
    for name in names:
        obj = getattr(module, name, None)
        if obj is None and name not in vars(module):
            continue
        if isinstance(obj, types.ModuleType):
            continue
        keep.append(name)
    return keep


def shows_inherited(module_name, cls):
    """Whether a class's entry lists the methods it inherits: on Keras pages (fit, save... are
    Model's, a layer's call Layer's), and where a base is private (``Tensor.numpy`` is defined
    on ``_HoldsArray``, which has no entry of its own)."""
    private_base = any(k.__name__.startswith("_") and k.__module__.startswith("tapeviz") for k in cls.__mro__[1:])
    return module_name.startswith("tapeviz.keras") or private_base


def directive(obj):
    if inspect.isclass(obj):
        return "autoclass"
    if callable(obj):
        return "autofunction"
    return "autodata"


def _resolve(dotted):
    """A module by name, also when it is an attribute (``tapeviz.errors`` is ``tapeviz.core.errors``,
    ``tapeviz.keras.models`` a group of names that hides the module of the same name)."""
    import importlib

    parent, _, name = dotted.rpartition(".")
    if parent:
        owner = _resolve(parent)
        if name in vars(owner) and not isinstance(vars(owner)[name], types.ModuleType):
            return vars(owner)[name]
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError:
        return getattr(_resolve(parent), name)


def _defining_module(module, name):
    """The module whose source assigns ``name`` (where a ``#:`` comment would be)."""
    real = getattr(module, "__name__", None)
    return real if isinstance(module, types.ModuleType) else None


def data_doc(module_name, module, name):
    """What a data entry says: its ``#:`` comment, else DATA_DOCS, else (a dtype) a line made here."""
    from sphinx.pycode import ModuleAnalyzer

    full = f"{module_name}.{name}"
    obj = getattr(module, name)
    real = _defining_module(module, name)
    if real:
        try:
            comment = ModuleAnalyzer.for_module(real).find_attr_docs().get(("", name))
        except Exception:  # no source (a built-in module)
            comment = None
        if comment:
            return [line for line in comment if line.strip()]
    if full in DATA_DOCS:
        return [DATA_DOCS[full]]
    if type(obj).__name__ == "DType":
        return [f"The ``{obj.name}`` dtype (a :py:class:`~tapeviz.DType`), as ``tf.{name}``."]
    raise ValueError(f"{full} is data with no documentation: give it a '#:' comment or a DATA_DOCS entry")


def _also(module_name, name, first):
    return f"* ``{module_name}.{name}``: the same object as :py:obj:`{first}`."


def write_api():

    target = HERE / "api"
    target.mkdir(exist_ok=True)
    for old in target.glob("*.rst"):
        old.unlink()
    documented = {}  # id(obj) -> the name that documents it (on the first page that lists it)
    pages = []
    for module_name, title, intro in api_modules:
        module = _resolve(module_name)
        lines = [title, "=" * len(title), "", f".. module:: {module_name}", "", intro, ""]
        names = public_names(module)
        lines += [f"Public names: {len(names)}.", ""]
        same = []  # names documented on an earlier page: a line each, after the entries
        for name in names:
            obj = getattr(module, name)
            kind = directive(obj)
            if f"{module_name}.{name}" in PAGES:  # a group of names with its own page
                same.append(f"* ``{module_name}.{name}``: see :doc:`{PAGES[f'{module_name}.{name}']}`.")
                continue
            key = id(obj) if (callable(obj) or inspect.isclass(obj)) else None
            if key is not None and key in documented:
                # One entry per object: a second full entry would be a second anchor for the
                # same source lines, and viewcode's "[docs]" link can only go back to one.
                same.append(_also(module_name, name, documented[key]))
                continue
            if key is not None:
                documented[key] = f"{module_name}.{name}"
            lines.append(f".. {kind}:: {module_name}.{name}")
            if kind == "autoclass":
                lines.append("   :members:")
                if shows_inherited(module_name, obj):
                    lines.append("   :inherited-members:")
            if kind == "autodata":
                lines += ["   :no-value:", ""]
                lines += [f"   {line}" for line in data_doc(module_name, module, name)]
            lines.append("")
        if same:
            lines += ["Also here", "---------", "", *same, ""]
        page = module_name.replace(".", "_")
        (target / f"{page}.rst").write_text("\n".join(lines) + "\n")
        pages.append(page)
    index = [
        "API reference",
        "=============",
        "",
        "Every public name of every public module, from its docstring, with its methods. An "
        "object is documented once, on the first page below that lists it; the other pages that "
        "list it say where (``tf.sin`` is documented at the top level, ``tf.math.sin`` points there).",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    index += [f"   {page}" for page in pages]
    (target / "index.rst").write_text("\n".join(index) + "\n")


# -- pictures and players, drawn by this build ------------------------------------------------
def make_pictures():
    """The pictures and kernel-free players the pages show, from the examples they print."""
    target = HERE / "_generated"
    target.mkdir(exist_ok=True)
    import tapeviz as tf
    from tapeviz import viz

    x = tf.Variable(3.0, name="x")
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            y = x * x + tf.sin(x)
        tape.gradient(y, x)
    _write(target / "first_tape.svg", viz.show(recorded).svg())
    _write(target / "first_player.html", viz.player(recorded).to_html(title="tapeviz: the reverse sweep"))
    _write(target / "first_player_lr.html", viz.player(recorded, rankdir="LR").to_html(title="tapeviz"))

    x = tf.Variable(3.0, name="x")
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        y = x**2
    _write(target / "tangent_player.html", viz.player(acc).to_html(title="tapeviz: forward mode"))
    diagrams.write_all(target, _write)


def _write(path, text):
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def clear_builtin_docstrings(app, what, name, obj, options, lines):
    """A data entry never shows its type's docstring (``tuple``'s, ``int``'s): its text is the
    ``#:`` comment or DATA_DOCS line that ``write_api`` wrote into the page."""
    if what == "data":
        del lines[:]


def escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for absolute values; reST would read a substitution. Escape the bars
    (outside ``literals``), so the source stays readable in the terminal and renders in HTML."""
    for index, line in enumerate(lines):
        parts = line.split("``")
        parts[0::2] = [part.replace("|", "\\|") for part in parts[0::2]]
        lines[index] = "``".join(parts)


# -- viewcode's "[docs]" links --------------------------------------------------------------
# sphinx.ext.viewcode links each highlighted source line back to its entry as
# ``<last page that used the name>#<first documented module>.<name>``: one module
# prefix for everything defined in a source module. tapeviz's public names are
# re-exported (``tapeviz.keras.layers.Dense`` lives in ``tapeviz.keras.layers.core``,
# ``Variable`` is documented at the top level and inherited by ``keras.Variable``),
# so that guess names anchors no page has. Each entry's real anchor is recorded
# here as the pages are read, and the source pages' links are rewritten to it.
def record_entry_anchors(app, doctree):
    from sphinx import addnodes
    from sphinx.ext.viewcode import _get_full_modname

    anchors = app.env.__dict__.setdefault("tapeviz_entry_anchors", {})
    for signode in doctree.findall(addnodes.desc_signature):
        module, fullname, ids = signode.get("module"), signode.get("fullname"), signode.get("ids")
        if not (module and fullname and ids):
            continue
        real = _get_full_modname(module, fullname)
        if real:
            anchors.setdefault((real, fullname), (app.env.docname, ids[0]))


def forget_entry_anchors(app, env, docname):
    anchors = env.__dict__.get("tapeviz_entry_anchors", {})
    for key in [key for key, (doc, _) in anchors.items() if doc == docname]:
        del anchors[key]


def fix_source_backlinks(app, pagename, templatename, context, doctree):
    import re

    if not pagename.startswith("_modules/") or "body" not in context:
        return
    module = pagename[len("_modules/") :].replace("/", ".")
    entry = getattr(app.env, "_viewcode_modules", {}).get(module)
    if not entry:
        return
    prefix = entry[3] + "."
    anchors = app.env.__dict__.get("tapeviz_entry_anchors", {})

    def relink(match):
        anchor = match.group(2)
        name = anchor[len(prefix) :] if anchor.startswith(prefix) else anchor
        found = anchors.get((module, name))
        if found is None:
            return match.group(0)
        docname, anchor_id = found
        return f'{match.group(1)}{app.builder.get_relative_uri(pagename, docname)}#{anchor_id}"'

    context["body"] = re.sub(r'(<a class="viewcode-back" href=")[^"#]*#([^"]*)"', relink, context["body"])


# -- the sidebar's page tree, without copying every API entry ---------------------------------
# furo draws the whole site's page tree into every page: toctree(titles_only=True, maxdepth=-1).
# Sphinx makes it by deep-copying every page's whole table of contents (the API pages list
# thousands of entries) and then keeping only the page titles and sub-toctrees, once for each
# of the ~200 pages written: three quarters of the build's time. The same call on tables of
# contents already cut that way gives the same HTML, in a few seconds.
_TITLES_ONLY_TOCS = {}


def cut_tocs_to_titles(app, env):
    """Each page's table of contents as titles_only keeps it: its top-level titles, with only the
    toctrees below them (the rest of a title's list is what Sphinx would drop)."""
    from docutils import nodes
    from sphinx import addnodes

    _TITLES_ONLY_TOCS.clear()
    for docname, toc in env.tocs.items():
        if not all(isinstance(top, nodes.list_item) for top in toc.children):
            continue  # an ``only`` node at the top: left to Sphinx
        toc = toc.deepcopy()
        for top in toc.children:
            if len(top) > 1:
                subtrees = list(top.findall(addnodes.toctree))
                if subtrees:
                    top[1][:] = subtrees
                else:
                    top.pop(1)
        _TITLES_ONLY_TOCS[docname] = toc


def titles_only_from_cut_tocs(app, pagename, templatename, context, doctree):
    toctree = context.get("toctree")
    if toctree is None:
        return

    def cut_toctree(**kwargs):
        if not kwargs.get("titles_only"):
            return toctree(**kwargs)
        env = app.env
        whole = env.tocs
        env.tocs = {**whole, **_TITLES_ONLY_TOCS}
        try:
            return toctree(**kwargs)
        finally:
            env.tocs = whole

    context["toctree"] = cut_toctree


def setup(app):
    app.connect("autodoc-process-docstring", clear_builtin_docstrings)
    app.connect("autodoc-process-docstring", escape_bars)
    app.connect("doctree-read", record_entry_anchors)
    app.connect("env-purge-doc", forget_entry_anchors)
    app.connect("html-page-context", fix_source_backlinks)
    app.connect("env-updated", cut_tocs_to_titles)
    app.connect("html-page-context", titles_only_from_cut_tocs, priority=400)  # before furo's (500)
    # Here and not at import: Sphinx calls setup before it reads a page, and a test can import
    # this file for ``api_modules`` and ``public_names`` without writing the generated folders.
    copy_lessons()
    write_api()
    make_pictures()
