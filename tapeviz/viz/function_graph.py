"""The picture of a traced function: a ConcreteFunction's graph as DOT.

Built on the graph's plain data only (placeholders, captures, nodes, outputs);
``show(f)`` draws a ``tf.function``'s latest trace, ``show(concrete)`` that one.
"""

from tapeviz.core.files import write_bytes
from tapeviz.viz import dot, render
from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz import view as views

# One visual language with the tape's pictures (viz/dot.py): inputs are tensors (ellipses), variables green
# boxes, ops rounded boxes in the forward colour, Python that runs every call dashed red, outputs ringed twice.
_INK = "#1f2937"
_INPUT = [("shape", "ellipse"), ("style", "filled"), ("fillcolor", "white"), ("color", _INK)]
_CONSTANT = [("shape", "ellipse"), ("style", "filled,dashed"), ("fillcolor", "white"), ("color", dot.GREY)]
_VARIABLE = [("shape", "box"), ("style", "filled"), ("fillcolor", "#dcfce7"), ("color", dot.GREEN), ("penwidth", "2")]
_OP = [("shape", "box"), ("style", "rounded,filled"), ("fillcolor", views.depth_colour(0)), ("color", _INK)]
_PYTHON = [("shape", "box"), ("style", "rounded,filled,dashed"), ("fillcolor", "#fee2e2"), ("color", dot.RED)]
_OUTPUT = [("shape", "ellipse"), ("style", "filled"), ("fillcolor", "white"), ("color", _INK), ("peripheries", "2")]


def concrete_of(obj):
    """The ConcreteFunction to draw for a ConcreteFunction or a traced tf.function."""
    if hasattr(obj, "pretty_printed_signature"):
        return obj
    traced = obj.concrete_functions
    if not traced:
        raise ValueError(
            f"tf.function '{obj.__name__}' has not traced yet: call it once, or draw "
            f"f.get_concrete_function(tf.TensorSpec(...)) instead."
        )
    return traced[-1]


def _kind_text(dtype, shape):
    """``f32 (-1,)`` as the tape's pictures write a tensor's kind; ``any shape`` where the trace left it open."""
    if shape is None:
        return f"{fmt.short_dtype(dtype)} (any shape)"
    return f"{fmt.short_dtype(dtype)} {fmt.shape_text([n if n is not None else -1 for n in shape])}"


def _op_label(node):
    """The op's title and notes, and its style."""
    if node.op == "HostCall":
        function = node.attrs["function"]
        name = node.attrs["name"] or getattr(function, "__qualname__", "python")
        return (name, "runs Python every call"), _PYTHON
    if node.op == "CustomGradient":
        return (node.attrs["function"], "custom gradient"), _OP
    if node.op in _BRANCHES:
        return (_CONTROL_TITLES[node.op], _CONTROL_NOTES[node.op]), _OP
    return (node.op,), _OP


# tf.cond / tf.while_loop nodes (core.control_flow): a box per branch or body, holding its ops.
_BRANCHES = {"If": (("then", "if true"), ("else", "if false")), "While": (("cond", "condition"), ("body", "body"))}
_CONTROL_TITLES = {"If": "If (tf.cond)", "While": "While (tf.while_loop)"}
_CONTROL_NOTES = {"If": "runs one branch per call", "While": "loops while its condition holds"}


def _branch_boxes(node, node_id):
    """DOT clusters, one per sub-graph of a control-flow node, each listing its ops (nested ones too)."""
    lines = []
    for key, title in _BRANCHES[node.op]:
        graph = node.attrs[key]
        box = f"{node_id}_{key}"
        lines.append(
            f'  subgraph cluster_{box} {{ graph [id="cluster_{box}" label={fmt.dot_string(title)} style="rounded,dashed" '
            f'color="{dot.GREY}"]'
        )
        inner = [f"{box}_{index}" for index in range(len(graph.nodes))]
        if not inner:  # an empty branch passes its inputs through
            lines.append(_node(f"{box}_pass", _CONSTANT, "passes values through"))
            inner = [f"{box}_pass"]
        for index, sub in enumerate(graph.nodes):
            texts, style = _op_label(sub)
            lines.append(_node(inner[index], style, *texts))
        for index in range(1, len(graph.nodes)):
            lines.append(f"  {inner[index - 1]} -> {inner[index]} [style=invis]")
        lines.append("  }")
        lines.append(f'  {node_id} -> {inner[0]} [style=dashed color="{dot.GREY}" arrowhead=none]')
        for index, sub in enumerate(graph.nodes):
            if sub.op in _BRANCHES:
                lines += _branch_boxes(sub, inner[index])
    return lines


def _node(node_id, style, title, *notes):
    return f"  {node_id} {dot.attributes([('id', node_id), *style, ('label', dot.html_label(title, *notes))])}"


def to_dot(concrete, title=None):
    """Deterministic DOT source for ``concrete``'s graph."""
    graph = concrete.graph
    lines = dot.header("function")
    specs = dict(zip(graph.inputs, concrete.flat_input_specs))
    if title is None:  # the signature as the nodes write it: squared_norm(v: f32 (-1,))
        inputs = [f"{graph.names.get(v, f'input {v}')}: {_kind_text(*specs[v])}" for v in graph.inputs if v in specs]
        title = f"{concrete.name}({', '.join(inputs)})"
    lines.append(f"  label={fmt.dot_string(fmt.clip(title, dot.TITLE_LIMIT))}")
    for value_id, kind in zip(graph.inputs, graph.input_kinds):
        name = graph.names.get(value_id, f"input {value_id}")
        spec = specs.get(value_id)
        notes = () if spec is None else (_kind_text(*spec),)
        lines.append(_node(f"v{value_id}", _VARIABLE if kind == "variable" else _INPUT, name, *notes))
    for value_id, array in sorted(graph.constants.items()):
        shown = fmt.preview(array) if getattr(array, "size", 0) <= 4 else fmt.shape_text(array.shape)
        lines.append(_node(f"v{value_id}", _CONSTANT, shown, "constant"))
    for value_id, variable in sorted(graph.variables.items(), key=lambda item: item[0]):
        if value_id not in graph.inputs:
            name = naming.variable_name({"name": variable.name})  # x, not x:0, as the tape's pictures
            lines.append(_node(f"v{value_id}", _VARIABLE, name, "variable"))
    producer = {}
    for index, node in enumerate(graph.nodes):
        texts, style = _op_label(node)
        lines.append(_node(f"n{index}", style, *texts))
        if node.op in _BRANCHES:
            lines += _branch_boxes(node, f"n{index}")
        for value_id in node.outputs:
            producer[value_id] = index
    edges = []
    for index, node in enumerate(graph.nodes):
        for value_id in node.inputs:
            edges.append((f"n{producer[value_id]}" if value_id in producer else f"v{value_id}", f"n{index}"))
    leaves = [v for v in _flatten(graph.outputs) if v is not None]
    for position, value_id in enumerate(leaves):
        spec = graph.specs.get(value_id)
        name = "returned" if len(leaves) == 1 else f"returned[{position}]"
        lines.append(_node(f"out{position}", _OUTPUT, name, *(() if spec is None else (_kind_text(*spec),))))
        edges.append((f"n{producer[value_id]}" if value_id in producer else f"v{value_id}", f"out{position}"))
    edge_style = dot.attributes([("color", views.DEPTH_EDGES[0])])
    lines += [f"  {src} -> {dst} {edge_style}" for src, dst in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _flatten(structure):
    from tapeviz.core import nest

    return nest.flatten(structure)


def text_listing(concrete):
    """One line per node: what the picture shows, for a terminal or a missing Graphviz."""
    graph = concrete.graph
    rows = [f"{concrete.name}: {len(graph.inputs)} inputs, {len(graph.nodes)} ops"]
    for node in graph.nodes:
        (text, *_), _ = _op_label(node)
        rows.append(f"  {text}({', '.join(map(str, node.inputs))}) -> {node.outputs}")
    return "\n".join(rows)


class FunctionFigure:
    """A traced function's graph: ``.dot``, ``.svg()``, ``.save(path)``; shows itself in Jupyter."""

    def __init__(self, obj, title=None):
        self.concrete = concrete_of(obj)
        self.dot = to_dot(self.concrete, title)

    def svg(self):
        return render.svg(self.dot)

    def save(self, path):
        """Write ``.dot``/``.gv`` (the source) or ``.svg``, atomically."""
        path = str(path)
        data = self.dot.encode() if path.endswith((".dot", ".gv")) else self.svg().encode()
        write_bytes(path, data)
        return path

    def __repr__(self):
        return text_listing(self.concrete)

    def _repr_mimebundle_(self, include=None, exclude=None):
        plain = text_listing(self.concrete)
        try:
            body = self.svg()
        except render.GraphvizUnavailable as problem:
            body = f"<pre>{fmt.html_text(problem)}\n{fmt.html_text(plain)}</pre>"
        return {"text/plain": plain, "text/html": f'<div class="tapeviz">{body}</div>'}


def is_traced_function(obj):
    return hasattr(obj, "pretty_printed_signature") or hasattr(obj, "concrete_functions")
