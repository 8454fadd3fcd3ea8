"""The diagrams of the Concepts, Architecture and tf.function pages, drawn at build time.

Each is drawn by tapeviz itself: the tape and its sweep by ``tf.show`` on a real
recording, the traced graph by ``tf.show`` on a real ``tf.function``, and the two
maps (the hooks, the floors) as DOT text laid out by the same ``dot`` the
pictures use (``viz.render``). The floors' arrows are the imports the source has
today, read with ``ast``, so the picture cannot drift from the code.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The floors of docs/architecture.md, bottom up: (label, the packages and top-level modules on it).
# A package of tapeviz/ not named here is drawn on the top floor, where a newcomer will see it.
FLOORS = [
    ("0  backend", ["backend"]),
    ("1  core", ["core"]),
    ("2  TF namespaces", ["math", "nn", "linalg", "random", "image", "data", "events", "experimental", "...ops"]),
    ("3  keras", ["keras"]),
    ("4  on Keras", ["optimizers", "module", "saved_model", "checkpoint", "train", "datasets"]),
    ("5  visualizer", ["viz", "lessons"]),
    ("6  the face", ["tapeviz"]),
]
_INK, _GREY, _FILL = "#1f2937", "#9ca3af", "#eef2ff"


def write_all(target, write):
    """Write every diagram into ``target`` with ``write(path, text)`` (an atomic writer)."""
    import tapeviz as tf
    from tapeviz import viz

    forward, swept = _tape_and_sweep(tf, viz)
    write(target / "concepts_tape.svg", forward)
    write(target / "concepts_sweep.svg", swept)
    write(target / "concepts_hooks.svg", viz.render.svg(hooks_dot()))
    write(target / "architecture_floors.svg", viz.render.svg(floors_dot(_package_imports())))
    write(target / "function_graph.svg", _traced_graph(tf, viz))


def _tape_and_sweep(tf, viz):
    """What a tape records for ``loss = (w * x - 1) ** 2``, and the same tape after its reverse sweep."""
    w = tf.Variable(0.5, name="w")
    x = tf.constant(3.0, name="x")
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            loss = (w * x - 1.0) ** 2
    forward = viz.show(recorded).svg()
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            loss = (w * x - 1.0) ** 2
        tape.gradient(loss, w)
    return forward, viz.show(recorded).svg()


def _traced_graph(tf, viz):
    @tf.function
    def step(x, w):
        return tf.reduce_sum(tf.nn.relu(x * w + 1.0))

    step(tf.constant([1.0, -2.0]), tf.constant(0.5))
    return viz.show(step).svg()


def hooks_dot():
    """The core emits events; listeners (the session recorder, ``viz.trace()``, your own hook) hear them."""
    return f"""digraph hooks {{
  rankdir=LR; bgcolor="transparent"; nodesep=0.25; ranksep=0.35;
  node [fontname="Helvetica", fontsize=11, shape=box, style="rounded,filled", fillcolor="white", color="{_INK}"];
  edge [fontname="Helvetica", fontsize=10, color="{_INK}"];
  subgraph cluster_core {{ label="tapeviz.core (knows no listener)"; fontname="Helvetica"; fontsize=11;
    style="rounded"; color="{_GREY}";
    op [label="an op runs\\n(ops.execute)"]; tape [label="active tapes\\nrecord an entry"];
    sweep [label="tape.gradient\\nreverse sweep"]; bus [label="events.emit", fillcolor="{_FILL}"];
    op -> tape; tape -> bus [label="TapeEntered, Watched,\\nOpExecuted"]; sweep -> bus [label="SweepStarted,\\nBackwardSteps"];
  }}
  recorder [label="session recorder\\n(import tapeviz.viz)"]; trace [label="viz.trace()\\none block"];
  hook [label="your hook\\nevents.subscribe(f)", style="rounded,dashed"];
  pictures [label="tf.show, player,\\nexplain, diagnose", fillcolor="{_FILL}"];
  bus -> recorder; bus -> trace; bus -> hook; recorder -> pictures; trace -> pictures;
}}
"""


def floors_dot(imports):
    """The floors as stacked boxes, and an arrow for each floor that imports one below it."""
    floor_of = {name: index for index, (_, names) in enumerate(FLOORS) for name in names}
    top = len(FLOORS) - 1
    lines = [
        "digraph floors {",
        '  rankdir=BT; bgcolor="transparent"; nodesep=0.3; ranksep=0.25;',
        f'  node [fontname="Helvetica", fontsize=11, shape=box, style="filled", fillcolor="white", color="{_INK}"];',
        f'  edge [color="{_GREY}", arrowsize=0.6];',
    ]
    for index, (label, names) in enumerate(FLOORS):
        fill = _FILL if index in (1, 5) else "white"
        shown = "\\n".join(", ".join(names[at : at + 4]) for at in range(0, len(names), 4))
        shown = shown.replace("...ops", "the *_ops modules") if index else "backend (NumPy / CuPy)"
        lines.append(f'  f{index} [label="{label}\\n{shown}", fillcolor="{fill}", width=3.6, margin="0.2,0.06"];')
    seen = set()
    for importer, imported in sorted(imports):
        low, high = floor_of.get(imported, top), floor_of.get(importer, top)
        if high > low and (high, low) not in seen:
            seen.add((high, low))
            lines.append(f"  f{high} -> f{low} [constraint=false];")
    for index in range(top):  # the floors stand in order, whatever the arrows say
        lines.append(f"  f{index} -> f{index + 1} [style=invis];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _package_imports():
    """(importer, imported) pairs between tapeviz's top-level packages and modules, read from the source.
    Top-level modules on floor 2 (math.py, shape_ops.py, ...) that FLOORS does not name are "...ops"."""
    package = ROOT / "tapeviz"
    named = {name for _, names in FLOORS for name in names}

    def unit(dotted):
        parts = dotted.split(".")
        if len(parts) == 1:
            return "tapeviz"
        name = parts[1]
        return name if name in named else ("...ops" if (package / f"{name}.py").exists() else name)

    pairs = set()
    for path in package.rglob("*.py"):
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{alias.name}" for alias in node.names]
            for target in targets:
                if target.startswith("tapeviz") and unit(target) != unit(dotted):
                    pairs.add((unit(dotted), unit(target)))
    return pairs
