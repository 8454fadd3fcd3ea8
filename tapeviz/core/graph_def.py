"""A traced graph as TF's ``GraphDef`` lists it: one named node per op, reading its inputs by name.

``ConcreteFunction.graph.as_graph_def()`` gives this light, plain-Python
stand-in for TF's protocol buffer (what TF's guide counts: ``len(g.node)``;
what ``tf.summary.trace_export`` turns into TensorBoard's proto). Names
follow TF's: a placeholder is its argument's name, an op's node is named
after its op (``Mul``, ``Mul_1``...), a constant ``Const``, each output an
``Identity``; an input is ``name`` for a node's first output, ``name:k`` for
the others.
"""

from tapeviz.core import nest


class NodeDef:
    """One node: ``name``, ``op``, ``input`` (the names it reads) and ``attr`` (dtype and shape, when known)."""

    __slots__ = ("name", "op", "input", "attr")

    def __init__(self, name, op, input=(), attr=None):  # noqa: A002 - TF's field name
        self.name = name
        self.op = op
        self.input = list(input)
        self.attr = dict(attr or {})

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    """The nodes of one graph, in the order they run (``node``: a list of NodeDef)."""

    __slots__ = ("node",)

    def __init__(self, node=()):
        self.node = list(node)

    def __repr__(self):
        return f"<GraphDef of {len(self.node)} nodes: {', '.join(n.name for n in self.node[:8])}{'...' * (len(self.node) > 8)}>"


def graph_def(graph):
    """The GraphDef of a tapeviz Graph (core.graph): placeholders, captures, ops, then the outputs' Identity nodes.

    Args:
        graph: a traced ``Graph``.

    Returns:
        A GraphDef.
    """
    taken, names, nodes = {}, {}, []

    def unique(base):
        count = taken.get(base, 0)
        taken[base] = count + 1
        return base if not count else f"{base}_{count}"

    for position, value_id in enumerate(graph.inputs):
        name = unique(graph.names.get(value_id, f"args_{position}").split(":")[0])
        names[value_id] = name
        kind = graph.input_kinds[position] if position < len(graph.input_kinds) else "tensor"
        nodes.append(NodeDef(name, "Placeholder", attr={"dtype": "resource" if kind == "variable" else None}))
    for value_id, array in graph.constants.items():
        names[value_id] = name = unique("Const")
        nodes.append(NodeDef(name, "Const", attr={"dtype": array.dtype.name, "shape": tuple(array.shape)}))
    for value_id, variable in graph.variables.items():
        if value_id in names:
            continue
        names[value_id] = name = unique(variable.name.split(":")[0].replace("/", "_") or "Variable")
        nodes.append(NodeDef(name, "Placeholder", attr={"dtype": "resource"}))
    for node in graph.nodes:
        name = unique(node.op)
        for position, value_id in enumerate(node.outputs):
            names[value_id] = name if position == 0 else f"{name}:{position}"
        nodes.append(NodeDef(name, node.op, [names.get(v, f"unknown_{v}") for v in node.inputs]))
    for value_id in nest.flatten(graph.outputs):
        if value_id is not None:
            dtype, shape = graph.specs.get(value_id, (None, None))
            nodes.append(NodeDef(unique("Identity"), "Identity", [names[value_id]], {"dtype": dtype, "shape": shape}))
    return GraphDef(nodes)
