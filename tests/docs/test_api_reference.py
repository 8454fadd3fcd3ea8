"""The API reference's fields: every public function, class and method it lists says what it takes,
what it gives back and what it raises, in the Google style the docs render (napoleon).

The objects are walked as ``docs/conf.py`` lists them (``api_modules``, ``public_names``): each
function and class of each page once, with its methods (for Keras pages the inherited ones too,
as ``:inherited-members:`` shows them). For each:

* ``Args:`` naming every parameter, when it takes any (a class: its own constructor's; an
  inherited constructor is documented on the base class);
* ``Returns:`` (or ``Yields:``) when its code returns a value;
* ``Raises:`` when its own code raises (``NotImplementedError`` aside).

Whether it returns or raises is read from its source (``ast``), so a docstring cannot claim less
than the code does. Names not there yet are listed in ``api_reference_missing_fields.txt``
(``STILL_MISSING_FIELDS``): the list may only shrink, and a name that gets its fields must leave it.
The most used names also carry an example (``>>>``), run by ``tests/docs/test_docs_snippets.py``.
That each documented raise happens is checked by ``tests/docs/test_api_raises.py``.
"""

import ast
import importlib.util
import inspect
import re
import textwrap
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
MISSING_FILE = ROOT / "tests" / "docs" / "api_reference_missing_fields.txt"

# The names a TensorFlow user reaches for first: each has full fields and an example that runs.
MOST_USED = [
    "tapeviz.GradientTape",
    "tapeviz.GradientTape.gradient",
    "tapeviz.GradientTape.jacobian",
    "tapeviz.GradientTape.batch_jacobian",
    "tapeviz.GradientTape.watch",
    "tapeviz.GradientTape.stop_recording",
    "tapeviz.GradientTape.reset",
    "tapeviz.GradientTape.watched_variables",
    "tapeviz.Variable",
    "tapeviz.Variable.assign",
    "tapeviz.Variable.assign_add",
    "tapeviz.Variable.assign_sub",
    "tapeviz.Tensor.numpy",
    "tapeviz.constant",
    "tapeviz.convert_to_tensor",
    "tapeviz.function",
    "tapeviz.custom_gradient",
    "tapeviz.stop_gradient",
    "tapeviz.cast",
    "tapeviz.zeros",
    "tapeviz.ones",
    "tapeviz.fill",
    "tapeviz.range",
    "tapeviz.linspace",
    "tapeviz.reshape",
    "tapeviz.transpose",
    "tapeviz.concat",
    "tapeviz.stack",
    "tapeviz.expand_dims",
    "tapeviz.squeeze",
    "tapeviz.gather",
    "tapeviz.where",
    "tapeviz.shape",
    "tapeviz.matmul",
    "tapeviz.add",
    "tapeviz.multiply",
    "tapeviz.subtract",
    "tapeviz.divide",
    "tapeviz.square",
    "tapeviz.sqrt",
    "tapeviz.exp",
    "tapeviz.sin",
    "tapeviz.reduce_sum",
    "tapeviz.reduce_mean",
    "tapeviz.reduce_max",
    "tapeviz.argmax",
    "tapeviz.one_hot",
    "tapeviz.clip_by_value",
    "tapeviz.log",
    "tapeviz.tanh",
    "tapeviz.sigmoid",
    "tapeviz.abs",
    "tapeviz.maximum",
    "tapeviz.pow",
    "tapeviz.nn.relu",
    "tapeviz.softmax",
    "tapeviz.nn.sigmoid_cross_entropy_with_logits",
    "tapeviz.nn.softmax_cross_entropy_with_logits",
    "tapeviz.random.normal",
    "tapeviz.random.uniform",
    "tapeviz.random.set_seed",
    "tapeviz.autodiff.ForwardAccumulator",
    "tapeviz.autodiff.ForwardAccumulator.jvp",
    "tapeviz.data.Dataset.from_tensor_slices",
    "tapeviz.data.Dataset.batch",
    "tapeviz.data.Dataset.shuffle",
    "tapeviz.data.Dataset.map",
    "tapeviz.data.Dataset.take",
    "tapeviz.data.Dataset.range",
    "tapeviz.events.subscribe",
    "tapeviz.show",
    "tapeviz.explain",
    "tapeviz.find_nonfinite",
    "tapeviz.gradcheck",
    "tapeviz.viz.Figure",
    "tapeviz.viz.player",
    "tapeviz.viz.diagnose",
    "tapeviz.saved_model.save",
    "tapeviz.saved_model.load",
    "tapeviz.keras.Model",
    "tapeviz.keras.Model.compile",
    "tapeviz.keras.Model.fit",
    "tapeviz.keras.Model.evaluate",
    "tapeviz.keras.Model.predict",
    "tapeviz.keras.Model.save",
    "tapeviz.keras.load_model",
    "tapeviz.keras.Sequential",
    "tapeviz.keras.Layer",
    "tapeviz.keras.Input",
    "tapeviz.Module",
    "tapeviz.keras.layers.Dense",
    "tapeviz.keras.layers.Conv2D",
    "tapeviz.keras.layers.Dropout",
    "tapeviz.keras.losses.MeanSquaredError",
    "tapeviz.keras.losses.SparseCategoricalCrossentropy",
    "tapeviz.keras.metrics.Mean",
    "tapeviz.keras.optimizers.SGD",
    "tapeviz.keras.optimizers.Adam",
    "tapeviz.keras.optimizers.Optimizer.apply_gradients",
]


def docs_conf():
    """``docs/conf.py`` as a module (importing it writes nothing: the build does that in ``setup``)."""
    spec = importlib.util.spec_from_file_location("tapeviz_docs_conf", ROOT / "docs" / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_objects():
    """(dotted name, object, owning class or None) for each function, class and method the API
    reference lists, each object once, under the first name that documents it."""
    conf = docs_conf()
    seen, found = set(), []
    for module_name, _, _ in conf.api_modules:
        module = conf._resolve(module_name)
        for name in conf.public_names(module):
            obj = getattr(module, name)
            if f"{module_name}.{name}" in conf.PAGES or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            found.append((f"{module_name}.{name}", obj, None))
            if not inspect.isclass(obj):
                continue
            classes = obj.__mro__ if conf.shows_inherited(module_name, obj) else (obj,)
            named = set()
            for klass in classes:
                if not klass.__module__.startswith("tapeviz"):
                    continue
                for member_name, raw in vars(klass).items():
                    if member_name.startswith("_") or member_name in named or isinstance(raw, property):
                        continue
                    named.add(member_name)
                    function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
                    if inspect.isfunction(function) and id(function) not in seen:
                        seen.add(id(function))
                        found.append((f"{module_name}.{name}.{member_name}", getattr(obj, member_name), obj))
    return found


SECTION = re.compile(r"^(Args|Arguments|Keyword Args|Returns|Yields|Raises|Examples?):\s*$")
SAME = {"Arguments": "Args", "Keyword Args": "Args", "Yields": "Returns", "Examples": "Example"}


def sections(doc):
    """A Google-style docstring's sections: {"Args": [lines], "Returns": [...], ...}."""
    found, current = {}, None
    for line in (doc or "").splitlines():
        match = SECTION.match(line)
        if match:
            current = SAME.get(match.group(1), match.group(1))
            found.setdefault(current, [])
        elif current and (line.startswith(" ") or not line.strip()):
            found[current].append(line)
        else:
            current = None
    return found


def raised_names(doc):
    """The exception names a docstring's ``Raises:`` section lists (``ValueError``, ...)."""
    lines = sections(doc).get("Raises", [])
    return [
        m.group(1).rsplit(".", 1)[-1] for m in (re.match(r"^    ([A-Za-z_][\w.]*)\s*:", line) for line in lines) if m
    ]


def _parameters(obj, owner):
    target = obj
    if inspect.isclass(obj):
        if not _documents_its_constructor(obj):
            return []
        target = obj.__init__
    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return []
    if (inspect.isclass(obj) or owner is not None) and parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    return parameters


def _documents_its_constructor(cls):
    """Whether a class's entry must say what its constructor takes: it defines one, or inherits it
    from a private base (``_Pooling``) that has no entry. A public base's entry documents its own."""
    owner = next((k for k in cls.__mro__ if "__init__" in vars(k)), object)
    return owner is cls or (owner is not object and owner.__name__.startswith("_"))


def _function_node(obj):
    if inspect.isclass(obj) and not _documents_its_constructor(obj):
        return None
    target = obj.__init__ if inspect.isclass(obj) else obj
    target = inspect.unwrap(getattr(target, "__func__", target))
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(target)))
    except (OSError, TypeError, SyntaxError):
        return None
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _own_nodes(function):
    """The nodes of a function's body, not those of functions or classes defined inside it."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def returns_a_value(obj):
    if inspect.isclass(obj):
        return False
    node = _function_node(obj)
    if node is None:
        return True
    for n in _own_nodes(node):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(n, ast.Return) and n.value is not None:
            if not (isinstance(n.value, ast.Constant) and n.value.value is None):
                return True
    return False


def raises_itself(obj):
    node = _function_node(obj)
    if node is None:
        return False
    for n in _own_nodes(node):
        if isinstance(n, ast.Raise) and n.exc is not None:
            raised = n.exc.func if isinstance(n.exc, ast.Call) else n.exc
            if not (isinstance(raised, ast.Name) and raised.id == "NotImplementedError"):
                return True
    return False


def missing_fields(obj, owner):
    """What the entry lacks: [] when it has every field its code calls for."""
    doc = inspect.getdoc(obj) or ""
    if not doc.strip():
        return ["a docstring"]
    found = sections(doc)
    lacking = []
    parameters = _parameters(obj, owner)
    if parameters and "Args" not in found:
        lacking.append("Args")
    elif parameters:
        text = "\n".join(found["Args"])
        unnamed = [p.name for p in parameters if not re.search(rf"^ +(\**\w+, )*\**{re.escape(p.name)}\b", text, re.M)]
        if unnamed:
            lacking.append(f"Args for {', '.join(unnamed)}")
    if returns_a_value(obj) and "Returns" not in found:
        lacking.append("Returns")
    if raises_itself(obj) and "Raises" not in found:
        lacking.append("Raises")
    return lacking


def still_missing():
    return {line.strip() for line in MISSING_FILE.read_text().splitlines() if line.strip() and not line.startswith("#")}


#: Names still without their full fields: may only shrink (``api_reference_missing_fields.txt``).
STILL_MISSING_FIELDS = still_missing()
OBJECTS = reference_objects()


def test_the_walk_sees_what_the_reference_lists():
    names = {name for name, _, _ in OBJECTS}
    for wanted in ("tapeviz.GradientTape.gradient", "tapeviz.keras.Model.fit", "tapeviz.data.Dataset.batch"):
        assert wanted in names
    assert len(OBJECTS) > 1000, len(OBJECTS)


def test_every_listed_name_has_args_returns_and_raises():
    problems = []
    for name, obj, owner in OBJECTS:
        lacking = missing_fields(obj, owner)
        if lacking and name not in STILL_MISSING_FIELDS:
            problems.append(f"{name}: no {'; no '.join(lacking)}")
    assert not problems, f"{len(problems)} entries lack fields:\n" + "\n".join(problems)


def test_the_list_of_names_still_missing_fields_only_shrinks():
    complete = [name for name, obj, owner in OBJECTS if name in STILL_MISSING_FIELDS and not missing_fields(obj, owner)]
    listed = {name for name, _, _ in OBJECTS}
    gone = sorted(STILL_MISSING_FIELDS - listed)
    assert not complete, f"these have their fields now: remove them from {MISSING_FILE.name}: {complete}"
    assert not gone, f"no longer in the reference: remove them from {MISSING_FILE.name}: {gone}"


def test_the_most_used_names_have_full_fields_and_an_example():
    by_name = {name: (obj, owner) for name, obj, owner in OBJECTS}
    problems = []
    for name in MOST_USED:
        if name not in by_name:
            problems.append(f"{name}: not in the reference")
            continue
        obj, owner = by_name[name]
        lacking = missing_fields(obj, owner)
        example = sections(inspect.getdoc(obj)).get("Example", [])
        if not any(">>>" in line for line in example):
            lacking.append("Example with >>>")
        if lacking:
            problems.append(f"{name}: no {'; no '.join(lacking)}")
    assert not problems, "\n".join(problems)


def test_no_returns_text_reads_as_a_type():
    """napoleon reads ``text: more`` on a Returns section's first line as ``type: description``
    and renders a "Return type" of the words before the colon: say it without one."""
    bad = []
    for name, obj, _ in OBJECTS:
        lines = [line for line in sections(inspect.getdoc(obj)).get("Returns", []) if line.strip()]
        if lines and re.search(r"(?<!:):(?!:)", re.sub(r":\w+:`.*?`|``.*?``|`.*?`", "", lines[0])):
            bad.append(f"{name}: {lines[0].strip()}")
    assert not bad, "\n".join(bad)


def test_every_docstring_renders_without_a_warning():
    """What napoleon makes of each docstring parses as reStructuredText with no warning (the docs
    build treats one as an error): a check in seconds, where the build takes minutes. Sphinx's own
    roles and directives, and ``:param x_:`` fields (the Python domain reads those), are not
    docutils' to judge."""
    pytest = importlib.import_module("pytest")
    pytest.importorskip("sphinx", reason="Sphinx is not installed: pip install -e '.[docs]'")
    import io

    import docutils.core
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import GoogleDocstring

    config = Config(napoleon_use_param=True, napoleon_use_rtype=True)
    sphinx_only = ("Unknown interpreted text role", "No role entry", "Unknown directive type", "Unknown target name")
    problems = []
    properties = [  # a property's docstring is on its class's page too
        (f"{name}.{member}", raw, obj, "attribute")
        for name, obj, _ in OBJECTS
        if inspect.isclass(obj)
        for member, raw in vars(obj).items()
        if isinstance(raw, property) and not member.startswith("_")
    ]
    entries = [(name, obj, owner, None) for name, obj, owner in OBJECTS] + properties
    for name, obj, owner, kind in entries:
        doc = inspect.getdoc(obj)
        if not doc:
            continue
        what = kind or ("class" if inspect.isclass(obj) else ("method" if owner else "function"))
        text = str(GoogleDocstring(doc, config, what=what, name=name, obj=obj)).replace("|", "\\|")
        stream = io.StringIO()
        settings = {"report_level": 2, "halt_level": 5, "warning_stream": stream}
        docutils.core.publish_doctree(text, settings_overrides=settings)
        found = [line for line in stream.getvalue().splitlines() if "(WARNING" in line or "(ERROR" in line]
        problems += [f"{name}: {line}" for line in found if not any(known in line for known in sphinx_only)]
    assert not problems, "\n".join(problems)


def test_the_field_check_reads_the_code_not_the_docstring():
    def documented(x):
        """Half.

        Args:
            x: a number.
        """
        if x < 0:
            raise ValueError("negative")
        return x / 2

    assert missing_fields(documented, None) == ["Returns", "Raises"]

    def silent(x, y):
        """Nothing.

        Args:
            x: one.
        """

    assert missing_fields(silent, None) == ["Args for y"]
