"""A functional model's graph: its operations in Keras's order, and which value feeds which Input.

Which value feeds which Input of a functional model, as Keras 3 decides it.

A dict is matched by name, never by position: for a model built on a dict of
Inputs the names are the dict's keys, otherwise each Input's ``name``. A
missing name is Keras's "Missing data for input" error; extra keys are
ignored, as Keras ignores them. A list given to a model built on a dict is
taken in the dict's sorted key order, which Keras allows only when the dict
was written in that order.
"""

import warnings

from tapeviz.core import nest
from tapeviz.keras import ops
from tapeviz.keras.layers.base import KerasTensor


def functional_rows(inputs, outputs, order):
    """A functional model's operations ordered as Keras orders them (deepest first, then first seen from the outputs)."""

    def operation(node):
        return node.layer[0] if node.layer is not None else node.input_layer

    first_seen, done = {}, set()

    def visit(node):  # Keras numbers operations as its depth-first walk from the outputs meets them
        if id(node) in done:
            return
        first_seen.setdefault(id(operation(node)), len(first_seen))
        for parent in node.parents:
            visit(parent)
        done.add(id(node))

    for out in nest.flatten(outputs):
        visit(out)
    node_depth, op_depth = {}, {}
    for node in reversed(order):
        depth = max(node_depth.setdefault(id(node), 0), op_depth.get(id(operation(node)), 0))
        op_depth[id(operation(node))] = node_depth[id(node)] = depth
        for parent in node.parents:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for symbolic in nest.flatten(inputs):  # an input no output uses still gets a row
        if id(operation(symbolic)) not in op_depth:
            op_depth[id(operation(symbolic))], first_seen[id(operation(symbolic))] = 0, -1
            node_depth[id(symbolic)] = 0
            order = [symbolic, *order]

    calls = {}  # operation -> its nodes in this graph, in call order
    for node in order:
        calls.setdefault(id(operation(node)), []).append(node)
    depths = [node_depth[id(node)] for node in order]
    chain = all(depths.count(d) == 1 for d in depths) and all(len(node.parents) <= 1 for node in order)
    chain = chain and all(len(nodes) == 1 for nodes in calls.values())

    def source(node):
        producer = operation(node)
        return f"{producer.name}[{calls[id(producer)].index(node)}][0]"

    rows, placed = [], set()
    for node in sorted(order, key=lambda n: (-op_depth[id(operation(n))], first_seen[id(operation(n))])):
        op = operation(node)
        if id(op) in placed:
            continue
        placed.add(id(op))
        nodes = calls[id(op)]
        connections = ", ".join(source(p) for n in nodes for p in n.parents)
        rows.append({"layer": op, "shape": tuple(nodes[-1].shape), "connections": connections})
    return rows, not chain


def _flat_inputs(model_inputs):
    """(names in flatten order, True); (None, False) for a nested dict of Inputs (Keras matches no names there)."""
    if isinstance(model_inputs, dict):
        if all(isinstance(x, KerasTensor) for x in model_inputs.values()):
            return sorted(model_inputs), True
        return None, False  # nested dict: no name matching, as Keras
    symbols = nest.flatten(model_inputs)
    return [symbol.name for symbol in symbols], True


def check_names(model_inputs, inputs):
    """For a dict of inputs: the Input names in order, once each is known to be there; else None.

    Keras checks this before the model's call (its error names no layer call), so Model runs it first.
    """
    if not isinstance(inputs, dict):
        return None
    names, named = _flat_inputs(model_inputs)
    if not named:
        return None
    for name in names:
        if name not in inputs:
            raise ValueError(
                f'Missing data for input "{name}". You passed a data dictionary with keys '
                f"{list(inputs.keys())}. Expected the following keys: {names}"
            )
    return names


def values_in_input_order(model_inputs, inputs):
    """The values for ``nest.flatten(model_inputs)``, one per Input, taken from ``inputs``."""
    names = check_names(model_inputs, inputs)
    if names is not None:
        return [inputs[name] for name in names]
    if isinstance(model_inputs, dict) and not isinstance(inputs, dict):
        message = (
            "The structure of `inputs` doesn't match the expected structure.\n"
            f"Expected: {nest.map_structure(lambda x: x.name, model_inputs)}\n"
            f"Received: inputs={nest.map_structure(_describe, inputs)}"
        )
        if list(model_inputs) != sorted(model_inputs):
            raise ValueError(
                f"{message}\nThe model was built on a dict of Inputs: call it with a dict with the same keys."
            )
        warnings.warn(message, UserWarning, stacklevel=2)  # Keras takes the values in the sorted key order
    return nest.flatten(inputs)


def _describe(value):
    return "None" if value is None else f"Tensor(shape={tuple(getattr(value, 'shape', ()))})"


def adjust_rank(value, shape):
    """``value`` fitted to an Input of ``shape`` (batch first) as Keras 3 fits it: one axis short and the
    Input's last size is 1 -> a trailing axis added; one axis more and its last size is 1 -> squeezed.
    Anything else goes through unchanged (the layer that receives it says what is wrong)."""
    if value is None or not hasattr(value, "shape") or not shape:
        return value
    rank, expected = len(value.shape), len(shape)
    if rank == expected - 1 and shape[-1] == 1:
        return ops.expand_dims(value, -1)
    if rank == expected + 1 and value.shape[-1] == 1:
        return ops.squeeze(value, -1)
    return value
