"""A traced function's graph as plain data, and replaying it.

Every value is a small integer: placeholders (the call's tensors), captures
(constants, variables) and node outputs. A node names its op (a primitive of
the registry, or one of the few special ops below) and lists the values it
reads and makes. Replaying runs each node through the normal execute path,
so tapes record the ops and gradients flow as in eager code.
"""

from tapeviz.core import nest
from tapeviz.core.ops import execute
from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.recording import NO_ATTRS
from tapeviz.core.tensor import Tensor

# Ops that are not primitives: name -> run(node, inputs) -> list of outputs.
# A closed table, filled by tapeviz modules only (graph_codec looks names up here).
SPECIAL_OPS = {}
# Special ops whose effect is not their output: pruning keeps them.
STATEFUL_OPS = {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "CheckNumerics"}


class Node:
    """One op of the graph: ``op`` (a name), ``inputs``/``outputs`` (value ids), ``attrs``."""

    __slots__ = ("op", "inputs", "outputs", "attrs")

    def __init__(self, op, inputs, outputs, attrs):
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.attrs = attrs

    def __repr__(self):
        return f"<Node {self.op}({', '.join(map(str, self.inputs))}) -> {', '.join(map(str, self.outputs))}>"


class Graph:
    """Placeholders, captures, nodes and outputs of one traced function."""

    def __init__(self):
        self.inputs = []  # value ids of the placeholders, in flat call order
        self.input_kinds = []  # "tensor" or "variable" per placeholder
        self.constants = {}  # value id -> backend array captured by value
        self.variables = {}  # value id -> Variable captured by reference
        self.nodes = []
        self.outputs = None  # the result's structure, value ids (or None) as leaves
        self.names = {}  # value id -> display name ("x", "AddV2:0")
        self.specs = {}  # output value id -> (dtype name, shape) as traced
        self.n_values = 0
        self._constant_tensors = {}

    def new_value(self, name=None):
        value_id = self.n_values
        self.n_values += 1
        if name is not None:
            self.names[value_id] = name
        return value_id

    def as_graph_def(self):
        """Its nodes as TF's ``GraphDef`` lists them (``.node``: name, op, inputs), a plain-Python stand-in.

        Returns:
            A ``core.graph_def.GraphDef``.
        """
        from tapeviz.core.graph_def import graph_def

        return graph_def(self)

    def is_stateful(self):
        """True when running it changes state (assigns, stateful host calls)."""
        return any(_stateful(node) for node in self.nodes)

    def prune(self):
        """Drop nodes that neither reach an output nor change state (variable initialisers)."""
        needed = {v for v in nest.flatten(self.outputs) if v is not None}
        kept = []
        for node in reversed(self.nodes):
            if _stateful(node) or needed.intersection(node.outputs):
                needed.update(node.inputs)
                kept.append(node)
        self.nodes = kept[::-1]
        self.constants = {k: v for k, v in self.constants.items() if k in needed}
        self.variables = {k: v for k, v in self.variables.items() if k in needed or k in self.inputs}

    def run(self, inputs):
        """Replay on ``inputs`` (one tensor or variable per placeholder); returns the outputs' structure."""
        env = dict(zip(self.inputs, inputs))
        for value_id, array in self.constants.items():
            tensor = self._constant_tensors.get(value_id)
            if tensor is None:  # made once: tensors are immutable, so every replay may share it
                tensor = self._constant_tensors[value_id] = Tensor(array)
            env[value_id] = tensor
        env.update(self.variables)
        for node in self.nodes:
            produced = run_node(node, [env[i] for i in node.inputs])
            env.update(zip(node.outputs, produced))
        return nest.map_structure(lambda v: None if v is None else env[v], self.outputs)

    def run_flat(self, inputs):
        """``run`` for a graph replayed many times (a loop's body): its outputs as a flat list, no nesting."""
        env = dict(zip(self.inputs, inputs))
        cached = self._constant_tensors
        if len(cached) != len(self.constants):
            for value_id, array in self.constants.items():
                if value_id not in cached:
                    cached[value_id] = Tensor(array)
        env.update(cached)
        env.update(self.variables)
        for node in self.nodes:
            env.update(zip(node.outputs, run_node(node, [env[i] for i in node.inputs])))
        return [env[v] for v in nest.flatten(self.outputs)]


def _stateful(node):
    if node.op in STATEFUL_OPS:
        return True
    if node.op == "HostCall":
        return node.attrs["stateful"]
    if node.op == "CustomGradient":
        return node.attrs["forward"].is_stateful()
    if node.op in ("If", "While"):  # control flow (core.control_flow): stateful when a branch or body is
        return any(isinstance(g, Graph) and g.is_stateful() for g in node.attrs.values())
    return False


def run_node(node, inputs):
    special = SPECIAL_OPS.get(node.op)
    if special is not None:
        return special(node, inputs)
    result = execute(PRIMITIVES[node.op], tuple(inputs), node.attrs or NO_ATTRS)
    return result if isinstance(result, list) else [result]


def _read(node, inputs):
    return [inputs[0].read_value()]


def _assign(method):
    def run(node, inputs):
        getattr(inputs[0], method)(inputs[1], read_value=False)
        return []

    return run


SPECIAL_OPS.update(
    {
        "ReadVariableOp": _read,
        "AssignVariableOp": _assign("assign"),
        "AssignAddVariableOp": _assign("assign_add"),
        "AssignSubVariableOp": _assign("assign_sub"),
    }
)
