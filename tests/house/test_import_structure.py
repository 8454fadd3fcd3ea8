"""The house's floors: what may import what (docs/architecture.md), checked on the source.

An import graph is read from every module's ``import`` statements (ast, no
code run): module-level imports are what runs when a module loads, so a
cycle among them is a module that can break depending on what was imported
first. Imports inside functions are read too: one that works around a
circle is still a circle, so no two modules import each other either way;
and keras never reaches into the package face.
"""

import ast
import functools
import pathlib
import subprocess
import sys

import pytest

import tapeviz

ROOT = pathlib.Path(tapeviz.__file__).parent


def _modules_of(package_dir):
    """Dotted module name -> source file, for every module of the package in ``package_dir``."""
    modules = {}
    for path in package_dir.rglob("*.py"):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


MODULES = _modules_of(ROOT)


@functools.cache
def _parsed(path):
    return ast.parse(path.read_text(encoding="utf-8"))


def _tree(module):
    return _parsed(MODULES[module])


def _imports(module, everywhere, modules=MODULES):
    """(imported module, line) pairs: top-level statements only, or every statement when ``everywhere``."""
    tree = _parsed(modules[module])
    nodes = ast.walk(tree) if everywhere else _top_level(tree)
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.startswith("tapeviz")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("tapeviz"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((sub if sub in modules else node.module, node.lineno))
    return found


def _top_level(tree):
    """Module-level statements, including those under a module-level if/try (they run at import too)."""
    for node in tree.body:
        if isinstance(node, (ast.If, ast.Try)):
            yield from ast.walk(node)
        else:
            yield node


def _unit(module):
    """The package a module belongs to: tapeviz.core, tapeviz.keras, tapeviz.viz...; the face is 'tapeviz'."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_modules():
    assert {"tapeviz", "tapeviz.keras.layers.core", "tapeviz.viz.card", "tapeviz.core.tape"} <= set(MODULES)
    assert ("tapeviz.core.tape", 1) not in _imports("tapeviz.viz.card", True)  # a line number, not a guess
    assert any(m == "tapeviz.core.primitives.array" for m, _ in _imports("tapeviz.keras.layers.core", False))


def _package_graph(everywhere):
    graph = {}
    for module in MODULES:
        for imported, _line in _imports(module, everywhere=everywhere):
            if imported in MODULES and _unit(imported) != _unit(module):
                graph.setdefault(_unit(module), set()).add(_unit(imported))
    return graph


def test_no_import_cycle_between_packages_at_load_time():
    cycles = _cycles(_package_graph(everywhere=False))
    assert not cycles, f"packages that import each other when they load: {cycles}"


def test_no_import_cycle_between_packages_even_through_imports_inside_functions():
    # An import inside a function that works around a cycle is still a cycle (face and
    # keras, tf.Module and keras saving had them).
    cycles = _cycles(_package_graph(everywhere=True))
    assert not cycles, f"packages that import each other: {cycles}"


# The floors of docs/architecture.md: at load time a module imports only its own
# floor or those below. A package not listed (a new one) counts as the top floor.
FLOORS = {
    "tapeviz.backend": 0,
    "tapeviz.core": 1,
    **dict.fromkeys(
        [
            "tapeviz.math",
            "tapeviz.nn",
            "tapeviz.linalg",
            "tapeviz.random",
            "tapeviz.image",
            "tapeviz.config",
            "tapeviz.dtypes",
            "tapeviz.gradient_ops",
            "tapeviz.sequence_ops",
            "tapeviz.shape_ops",
            "tapeviz.histogram_ops",
            "tapeviz.init_ops",
            "tapeviz.host_ops",
            "tapeviz.space_batch_ops",
            "tapeviz.partition_ops",
            "tapeviz.bitwise",
            "tapeviz.volume_ops",
            "tapeviz.map_ops",
            "tapeviz.tensor_array",
        ],
        2,
    ),
    **dict.fromkeys(["tapeviz.autodiff", "tapeviz.data", "tapeviz.array_ops", "tapeviz.ragged", "tapeviz.sparse"], 2),
    "tapeviz.experimental": 2,
    "tapeviz.distribute": 2,
    "tapeviz.types": 2,
    "tapeviz.debugging": 2,
    "tapeviz.keras": 3,
    **dict.fromkeys(
        ["tapeviz.optimizers", "tapeviz.module", "tapeviz.saved_model", "tapeviz.datasets", "tapeviz.summary"],
        4,
    ),
    "tapeviz.viz": 5,
    "tapeviz": 6,
}
TOP = max(FLOORS.values())


def test_each_package_imports_only_its_floor_and_those_below_at_load_time():
    upward = [
        f"{module}:{line} imports {imported}"
        for module in MODULES
        for imported, line in _imports(module, everywhere=False)
        if imported in MODULES and FLOORS.get(_unit(imported), TOP) > FLOORS.get(_unit(module), TOP)
    ]
    assert not upward, upward


def test_the_core_never_imports_the_visualizer_or_keras():
    offenders = [
        f"{module}:{line} imports {imported}"
        for module in MODULES
        if module.startswith("tapeviz.core")
        for imported, line in _imports(module, everywhere=True)
        if imported == "tapeviz" or imported.startswith(("tapeviz.viz", "tapeviz.keras"))
    ]
    assert not offenders


def test_no_keras_module_imports_the_package_face():
    # ``from tapeviz import backend`` names a module; ``import tapeviz as tf`` or
    # ``from tapeviz import reshape`` reads the face, which itself imports keras.
    offenders = []
    for module in MODULES:
        if not module.startswith("tapeviz.keras"):
            continue
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.Import) and any(a.name == "tapeviz" for a in node.names):
                offenders.append(f"{module}:{node.lineno} import tapeviz")
            if isinstance(node, ast.ImportFrom) and node.module == "tapeviz" and node.level == 0:
                names = [a.name for a in node.names if f"tapeviz.{a.name}" not in MODULES]
                offenders += [f"{module}:{node.lineno} from tapeviz import {n}" for n in names]
    assert not offenders, offenders


def test_the_two_cards_do_not_import_each_other():
    graph = {
        m: {i for i, _ in _imports(m, everywhere=True) if i.startswith("tapeviz.viz")}
        for m in MODULES
        if m.startswith("tapeviz.viz")
    }
    for cycle in _cycles(graph):
        assert not {"tapeviz.viz.card", "tapeviz.viz.tangent_card"} <= set(cycle), cycle
    assert "tapeviz.viz.card" not in {i for i, _ in _imports("tapeviz.viz.tangent_card", everywhere=True)}


@pytest.mark.parametrize("module", ["tapeviz.keras.layers.core", "tapeviz.keras.losses", "tapeviz.viz.tangent_card"])
def test_a_module_imports_first_in_a_fresh_interpreter(module):
    # What the graph says, run once: importing the module first, before the face finished, works.
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


INTERNALS = {"_core", "core", "backend", "array_ops", "module", "_draw", "_VIZ_NAMES"}


def test_dir_of_the_package_shows_the_tf_face_only():
    names = set(dir(tapeviz))
    assert not names & INTERNALS
    assert not [n for n in names if n.startswith("_")]
    # TF's namespaces and classes stay, as ``tf.config``, ``tf.math``...
    assert {"config", "math", "nn", "linalg", "random", "keras", "data", "image", "autodiff", "nest", "errors"} <= names
    assert {"GradientTape", "Variable", "constant", "reduce_sum", "Module", "viz", "show"} <= names
    assert set(tapeviz.__all__) <= names and not set(tapeviz.__all__) & INTERNALS


def test_the_layers_below_stay_reachable_by_name():
    # Not advertised, still importable: lesson 11 reads tf.backend.name(), docs/hooks.md tapeviz.core.tape.
    assert tapeviz.backend.name() in {"numpy", "cupy", "strict"}
    assert tapeviz.core.tape.GradientTape is tapeviz.GradientTape


def test_the_visualizer_advertises_one_entry_point_per_purpose():
    import tapeviz.viz as viz

    assert viz.__all__ == [
        "show",
        "player",
        "trace",
        "record_update",
        "diagnose",
        "explain",
        "find_nonfinite",
        "gradcheck",
        "gradient_norms",
        "memory",
        "heatmap",
        "watch_all",
        "stop_watching",
        "GraphvizUnavailable",
    ]
    # The older doors stay open (lesson 01 uses recording_player, table and trace_of).
    for older in ("Figure", "to_dot", "table", "recording_player", "trace_of", "Trace", "Player", "Heatmap"):
        assert callable(getattr(viz, older)) and older not in viz.__all__


def _import_graph(everywhere, modules=MODULES):
    """Module -> the modules it imports (a module importing itself is no circle)."""
    graph = {}
    for module in modules:
        for imported, _line in _imports(module, everywhere, modules):
            if imported in modules and imported != module:
                graph.setdefault(module, set()).add(imported)
    return graph


def test_no_import_cycle_between_modules_at_load_time():
    # Inside the core too: tensor.py imports no primitive (the families bind its operators),
    # and a rule reaches a family that loads after its own through tapeviz.core.families.
    cycles = _cycles(_import_graph(everywhere=False))
    assert not cycles, f"modules that import each other when they load: {cycles}"


def test_no_import_cycle_between_modules_even_inside_functions():
    # An import inside a function that works around a circle is still a circle. Keras's folders too form
    # a tree (naming in utils/, a Variable's initializer by name handed over by keras.initializers).
    cycles = _cycles(_import_graph(everywhere=True))
    assert not cycles, f"modules that import each other: {cycles}"


def test_the_module_graph_sees_a_circle_when_there_is_one():
    # The checks above would also pass on a graph that missed edges: one edge back makes a circle they see.
    graph = _import_graph(everywhere=True)
    assert "tapeviz.keras.layers.base" in graph["tapeviz.keras.layers.core"]
    graph["tapeviz.keras.layers.base"].add("tapeviz.keras.layers.core")
    assert _cycles(graph) == [["tapeviz.keras.layers.base", "tapeviz.keras.layers.core"]]


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "e": {"a"}}) == []
    assert sorted(_cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}})) == [["a", "b"], ["c", "d"]]


def test_the_module_graph_sees_a_circle_hidden_in_a_function(tmp_path):
    # A small package (named "tapeviz..." as the reader wants): `first` imports `second` (and
    # itself: no circle) when it loads, `second` imports `first` inside a function.
    package = tmp_path / "tapeviz_probe"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "first.py").write_text("from tapeviz_probe import second\nfrom tapeviz_probe import first\n")
    (package / "second.py").write_text("def later():\n    from tapeviz_probe.first import thing\n")
    (package / "sub" / "third.py").write_text("import tapeviz_probe.first\n")
    modules = _modules_of(package)
    assert set(modules) == {
        "tapeviz_probe",
        "tapeviz_probe.sub",
        "tapeviz_probe.first",
        "tapeviz_probe.second",
        "tapeviz_probe.sub.third",
    }
    assert _cycles(_import_graph(everywhere=False, modules=modules)) == []
    assert _cycles(_import_graph(everywhere=True, modules=modules)) == [["tapeviz_probe.first", "tapeviz_probe.second"]]
