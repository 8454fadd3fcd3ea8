"""Is a decoded Graph (and a stored trace's signature) well formed? Checked before anything runs.

A graph read from a file names its ops from tapeviz's registry (graph_codec
makes sure of that); this module checks the rest of its shape, so that a
damaged or hostile file is refused while loading rather than failing, or
doing something odd, on some later call: every value is made before it is
read and only once, every op gets the number of inputs, outputs and
attributes its kernel takes, variable ops read variables, and the
signature's tensors match the graph's placeholders.
"""

import inspect

from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.tracing import Slot

_MAX_VALUES = 10_000_000
_VARIABLE_OPS = {"ReadVariableOp": (1, 1), "AssignVariableOp": (2, 0), "AssignAddVariableOp": (2, 0)}
_VARIABLE_OPS["AssignSubVariableOp"] = (2, 0)


class GraphError(ValueError):
    """A stored graph or signature that is not well formed."""


def check_graph(graph):
    """Raise GraphError unless ``graph`` is well formed."""
    if not 0 <= graph.n_values <= _MAX_VALUES:
        raise GraphError(f"it declares {graph.n_values} values")
    if len(graph.input_kinds) != len(graph.inputs) or not set(graph.input_kinds) <= {"tensor", "variable"}:
        raise GraphError("its placeholders' kinds do not match its placeholders")
    made = set()
    for value in list(graph.inputs) + list(graph.constants) + list(graph.variables):
        _make(value, made, graph)
    variables = set(graph.variables) | {v for v, k in zip(graph.inputs, graph.input_kinds) if k == "variable"}
    for position, node in enumerate(graph.nodes):
        where = f"op {position} ({node.op})"
        for value in node.inputs:
            if value not in made:
                raise GraphError(f"{where} reads value {value} before it is made")
        _check_node(node, where, variables)
        for value in node.outputs:
            _make(value, made, graph, where)
    for value in _leaves(graph.outputs):
        if value is not None and value not in made:
            raise GraphError(f"its outputs name value {value!r}, which no op makes")
    for value, (_, shape) in graph.specs.items():
        if shape is not None and not _is_shape(shape, open_sizes=True):
            raise GraphError(f"value {value} has the shape {shape!r}")


def _make(value, made, graph, where="the graph"):
    if not isinstance(value, int) or not 0 <= value < graph.n_values or value in made:
        raise GraphError(f"{where} makes value {value!r}, which is out of range or made twice")
    made.add(value)


def _check_node(node, where, variables):
    n_in, n_out = len(node.inputs), len(node.outputs)
    if node.op in _VARIABLE_OPS:
        if (n_in, n_out) != _VARIABLE_OPS[node.op] or node.inputs[0] not in variables:
            raise GraphError(f"{where} must read one variable (and a value to assign) and make {n_out} values")
    elif node.op == "HostCall":
        _check_host_call(node, where)
    elif node.op == "CustomGradient":
        _check_custom_gradient(node, where, variables)
    elif node.op == "If":
        _check_if(node, where)
    elif node.op == "While":
        _check_while(node, where)
    else:
        primitive = PRIMITIVES[node.op]
        if primitive.n_outputs is not None and n_out != primitive.n_outputs:
            raise GraphError(f"{where} makes {n_out} values; the op makes {primitive.n_outputs}")
        if not all(isinstance(key, str) for key in node.attrs):
            raise GraphError(f"{where} has an attribute that is not named by text")
        try:
            signature = inspect.signature(primitive.kernel)
        except (TypeError, ValueError):  # a kernel Python cannot describe: its own call checks the inputs
            return
        try:
            signature.bind(*node.inputs, **node.attrs)
        except TypeError as exc:
            raise GraphError(f"{where} does not fit its op: {exc}") from None


def _check_host_call(node, where):
    arguments, result = node.attrs["arguments"], node.attrs["result"]
    if not (isinstance(arguments, (list, tuple)) and len(arguments) == 2 and isinstance(arguments[0], list)):
        raise GraphError(f"{where}'s arguments must be (positional list, keyword dict)")
    if not isinstance(arguments[1], dict) or not all(isinstance(k, str) for k in arguments[1]):
        raise GraphError(f"{where}'s keyword arguments must be named by text")
    if sorted(s.index for s in _slots(arguments)) != list(range(len(node.inputs))):
        raise GraphError(f"{where} reads {len(node.inputs)} tensors, which its arguments do not place once each")
    if len(_slots(result)) != len(node.outputs):
        raise GraphError(f"{where} makes {len(node.outputs)} values, which its result does not place")


def _check_custom_gradient(node, where, variables):
    attrs = node.attrs
    n_args, n_variables = attrs["n_args"], attrs["n_variables"]
    forward, gradient = attrs["forward"], attrs["gradient"]
    if n_args < 0 or n_variables < 0 or len(node.inputs) != n_args + n_variables:
        raise GraphError(
            f"{where} reads {len(node.inputs)} values, not its {n_args} arguments and {n_variables} variables"
        )
    if not set(node.inputs[n_args:]) <= variables:
        raise GraphError(f"{where} lists a value that is not a variable among its variables")
    check_graph(forward)
    if gradient is not None:  # None: saved without custom gradients
        check_graph(gradient)
    outputs = forward.outputs
    if not (isinstance(outputs, tuple) and len(outputs) == 2 and all(isinstance(o, list) for o in outputs)):
        raise GraphError(f"{where}'s forward graph must give (outputs, saved values)")
    if len(forward.inputs) != n_args or len(outputs[0]) != len(node.outputs):
        raise GraphError(f"{where}'s forward graph does not take its arguments or make its outputs")
    if gradient is not None and len(gradient.inputs) != len(outputs[0]) + len(outputs[1]):
        raise GraphError(f"{where}'s gradient graph does not take one upstream per output and the saved values")


def _flat_outputs(graph):
    return len(list(_leaves(graph.outputs)))


def _check_tensor_inputs(graph, where, count):
    if len(graph.inputs) != count or any(kind != "tensor" for kind in graph.input_kinds):
        raise GraphError(f"{where}'s sub-graph does not take the {count} tensors its node passes")


def _check_if(node, where):
    then, otherwise, n_then = node.attrs["then"], node.attrs["else"], node.attrs["n_then"]
    captured = len(node.inputs) - 1
    if captured < 0 or not 0 <= n_then <= captured:
        raise GraphError(f"{where} reads {len(node.inputs)} values, which do not hold its predicate and captures")
    for graph, count in ((then, n_then), (otherwise, captured - n_then)):
        check_graph(graph)
        _check_tensor_inputs(graph, where, count)
        if _flat_outputs(graph) != len(node.outputs) or None in _leaves(graph.outputs):
            raise GraphError(f"{where}'s branches must each make its {len(node.outputs)} values")


def _check_while(node, where):
    attrs = node.attrs
    n_vars, n_cond = attrs["n_vars"], attrs["n_cond"]
    if n_vars != len(node.outputs) or n_vars + n_cond > len(node.inputs):
        raise GraphError(f"{where} reads {len(node.inputs)} values and makes {len(node.outputs)}: not its loop's")
    check_graph(attrs["cond"])
    check_graph(attrs["body"])
    _check_tensor_inputs(attrs["cond"], where, n_vars + n_cond)
    _check_tensor_inputs(attrs["body"], where, len(node.inputs) - n_cond)
    if (
        _flat_outputs(attrs["cond"]) != 1
        or _flat_outputs(attrs["body"]) != n_vars
        or None in _leaves(attrs["body"].outputs)
    ):
        raise GraphError(f"{where}'s condition must make one value and its body its {n_vars} loop values")


def check_signature(key, names):
    """The tensor descriptions of a stored trace's signature; GraphError unless it describes its parameters."""
    if not isinstance(key, tuple) or [part[0] if isinstance(part, tuple) else None for part in key] != names:
        raise GraphError("its signature does not name its parameters in order")
    leaves = []
    for part in key:
        if len(part) != 2:
            raise GraphError("its signature pairs a parameter with more than one description")
        _check_description(part[1], leaves)
    return leaves


def check_traced_shapes(leaves, n_inputs, traced_shapes):
    """GraphError unless the signature's tensors, the graph's placeholders and the traced shapes agree."""
    if len(leaves) != n_inputs:
        raise GraphError(f"its signature has {len(leaves)} tensors for {n_inputs} placeholders")
    if not isinstance(traced_shapes, tuple) or len(traced_shapes) != n_inputs:
        raise GraphError("its traced shapes do not match its placeholders")
    for shape, leaf in zip(traced_shapes, leaves):
        wanted = leaf[2]
        if not (isinstance(shape, tuple) and _is_shape(shape)):
            raise GraphError(f"it was traced with the shape {shape!r}")
        if wanted is not None and (len(wanted) != len(shape) or any(w not in (None, s) for w, s in zip(wanted, shape))):
            raise GraphError(f"its traced shape {shape} does not fit its signature's {wanted}")


def _check_description(desc, leaves):
    from tapeviz.core import dtypes

    if not isinstance(desc, tuple) or not desc or not isinstance(desc[0], str):
        raise GraphError(f"its signature holds {desc!r:.60}")
    kind = desc[0]
    if kind in ("T", "V"):
        if len(desc) != 3 or not (desc[2] is None or (isinstance(desc[2], tuple) and _is_shape(desc[2], True))):
            raise GraphError(f"its signature holds the tensor description {desc!r:.60}")
        try:
            dtypes.as_dtype(desc[1])
        except (TypeError, ValueError):
            raise GraphError(f"its signature names the dtype {desc[1]!r:.40}") from None
        leaves.append(desc)
    elif kind in ("L", "O"):
        if len(desc) != 3:
            raise GraphError(f"its signature holds {desc!r:.60}")
    elif kind in ("list", "tuple", "dict"):
        if len(desc) != 2 or not isinstance(desc[1], tuple):
            raise GraphError(f"its signature holds {desc!r:.60}")
        for part in desc[1]:
            if kind == "dict":
                if not (isinstance(part, tuple) and len(part) == 2):
                    raise GraphError("its signature holds a dict entry that is not (key, description)")
                part = part[1]
            _check_description(part, leaves)
    else:
        raise GraphError(f"its signature holds the unknown kind {kind!r:.40}")


def _is_shape(shape, open_sizes=False):
    return all(
        (n is None and open_sizes) or (isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**62) for n in shape
    )


def _slots(template):
    return [leaf for leaf in _leaves(template) if isinstance(leaf, Slot)]


def _leaves(structure):
    if isinstance(structure, dict):
        return [leaf for value in structure.values() for leaf in _leaves(value)]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _leaves(item)]
    return [structure]
