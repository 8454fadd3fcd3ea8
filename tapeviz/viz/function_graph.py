"""The picture of a traced function: a ConcreteFunction's graph as DOT.

Built on the graph's plain data only (placeholders, captures, nodes, outputs);
``show(f)`` draws a ``tf.function``'s latest trace, ``show(concrete)`` that one.
"""

from tapeviz.core.files import write_bytes
from tapeviz.viz import format as fmt
from tapeviz.viz import names as naming
from tapeviz.viz import render

_PLACEHOLDER = 'shape=ellipse, style=filled, fillcolor="#dbeafe"'
_CONSTANT = 'shape=box, style="rounded,filled", fillcolor="#f3f4f6", fontsize=10'
_VARIABLE = 'shape=cylinder, style=filled, fillcolor="#fef3c7"'
_OP = 'shape=box, style=filled, fillcolor="#ffffff"'
_PYTHON = 'shape=box, style="filled,dashed", fillcolor="#fee2e2"'
_CUSTOM = 'shape=box3d, style=filled, fillcolor="#ede9fe"'
_OUTPUT = 'shape=doublecircle, style=filled, fillcolor="#dcfce7", fontsize=10'


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


def _spec_text(spec):
    dtype, shape = spec
    if shape is None:
        return f"{fmt.short_dtype(dtype)} (any shape)"
    return f"{fmt.short_dtype(dtype)}{fmt.shape_text([n if n is not None else -1 for n in shape])}"


def _op_label(node):
    if node.op == "HostCall":
        function = node.attrs["function"]
        name = node.attrs["name"] or getattr(function, "__qualname__", "python")
        return f"{name}\n(runs Python every call)", _PYTHON
    if node.op == "CustomGradient":
        return f"{node.attrs['function']}\n(custom gradient)", _CUSTOM
    return node.op, _OP


def to_dot(concrete, title=None):
    """Deterministic DOT source for ``concrete``'s graph."""
    graph = concrete.graph
    lines = ["digraph function {", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=11];']
    label = title if title is not None else f"{concrete.name}({concrete.signature_text})"
    lines.append(f"  label={fmt.dot_string(label)}; labelloc=t;")
    shapes = dict(zip(graph.inputs, [shape for _, shape in concrete.flat_input_specs]))
    for value_id, kind in zip(graph.inputs, graph.input_kinds):
        name = graph.names.get(value_id, f"input {value_id}")
        shape = shapes.get(value_id)
        text = name if shape is None else f"{name}\n{fmt.shape_text([-1 if n is None else n for n in shape])}"
        style = _VARIABLE if kind == "variable" else _PLACEHOLDER
        lines.append(f"  v{value_id} [label={fmt.dot_string(text)}, {style}];")
    for value_id, array in sorted(graph.constants.items()):
        text = fmt.preview(array) if getattr(array, "size", 0) <= 4 else f"const {fmt.shape_text(array.shape)}"
        lines.append(f"  v{value_id} [label={fmt.dot_string(text)}, {_CONSTANT}];")
    for value_id, variable in sorted(graph.variables.items(), key=lambda item: item[0]):
        if value_id not in graph.inputs:
            name = naming.variable_name({"name": variable.name})  # x, not x:0, as the tape's pictures
            lines.append(f"  v{value_id} [label={fmt.dot_string(name)}, {_VARIABLE}];")
    producer = {}
    for index, node in enumerate(graph.nodes):
        text, style = _op_label(node)
        lines.append(f"  n{index} [label={fmt.dot_string(text)}, {style}];")
        for value_id in node.outputs:
            producer[value_id] = index
    for index, node in enumerate(graph.nodes):
        for value_id in node.inputs:
            source = f"n{producer[value_id]}" if value_id in producer else f"v{value_id}"
            lines.append(f"  {source} -> n{index};")
    leaves = [v for v in _flatten(graph.outputs) if v is not None]
    for position, value_id in enumerate(leaves):
        spec = graph.specs.get(value_id)
        text = f"out {position}" + ("" if spec is None else f"\n{_spec_text(spec)}")
        lines.append(f"  out{position} [label={fmt.dot_string(text)}, {_OUTPUT}];")
        source = f"n{producer[value_id]}" if value_id in producer else f"v{value_id}"
        lines.append(f"  {source} -> out{position};")
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
        text, _ = _op_label(node)
        rows.append(f"  {text.splitlines()[0]}({', '.join(map(str, node.inputs))}) -> {node.outputs}")
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
