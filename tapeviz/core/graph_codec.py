"""A traced Graph as a plain dict (JSON-ready), and back.

Loading is data only: an op name is looked up in tapeviz's primitive
registry (or its few special ops), a host call in tapeviz's closed table of
host calls, a dtype by name; nothing read from the dict is imported or
evaluated. Variables are not stored here: the dict names them by position,
and whoever loads it (SavedModel) passes the restored variables in. A
``tf.random.Generator`` a host call draws from is stored as its state
variable's position and its algorithm, and loaded as a Generator on that
restored variable: the loaded function reads and moves the restored state.
"""

import base64
import math

import numpy as np

from tapeviz import backend
from tapeviz.core import dtypes
from tapeviz.core.graph import SPECIAL_OPS, Graph, Node
from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.random_generator import METHOD_HOST_CALLS, Generator, generator_on_state
from tapeviz.core.tracing import HOST_CALLS, Slot

FORMAT = "tapeviz.graph/1"
# Control-flow nodes (core.control_flow): their sub-graph attributes, and their count attributes.
_CONTROL_FLOW_GRAPHS = {"If": ("then", "else"), "While": ("cond", "body")}
_CONTROL_FLOW_NUMBERS = {"If": ("n_then",), "While": ("n_vars", "n_cond", "maximum_iterations")}


class GraphNotStorable(ValueError):
    """The graph holds something a file cannot: a Python object, a host call outside tapeviz."""


# -- values (attributes, structures) --------------------------------------------------------
def encode_value(value, where, variables=None):
    """``value`` as JSON-ready data; ``variables`` (a host call's arguments only) collects a Generator's state."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"tuple": [encode_value(v, where, variables) for v in value]}
    if isinstance(value, list):
        return {"list": [encode_value(v, where, variables) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode_value(k, where), encode_value(v, where, variables)] for k, v in value.items()]}
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if isinstance(value, type) and issubclass(value, np.generic):  # a kernel's dtype attribute (Cast, TopKV2)
        return {"numpy_type": dtypes.as_dtype(value).name}
    if isinstance(value, np.dtype):
        return {"numpy_dtype": dtypes.as_dtype(value).name}
    if isinstance(value, slice):
        return {"slice": [encode_value(v, where) for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, Slot):
        return {"slot": value.index}
    if isinstance(value, np.generic):
        return {"scalar": encode_array(np.asarray(value))}
    if isinstance(value, np.ndarray) or type(value).__module__.startswith("cupy"):
        return {"array": encode_array(value)}
    if isinstance(value, Graph):
        raise AssertionError("graphs are encoded by encode_graph")
    if isinstance(value, Generator) and variables is not None:
        return {"generator": {"state": _variable_index(variables, value.state), "algorithm": value.algorithm}}
    raise GraphNotStorable(
        f"{where} holds a {type(value).__name__} ({value!r:.80}), which a stored graph cannot hold. "
        "Only tensors, numbers, strings, dtypes and lists of them can be stored."
    )


def decode_value(data, variables=None):
    """The value ``encode_value`` stored; ``variables`` (a host call's arguments only) hold a Generator's state."""
    if not isinstance(data, dict):
        return data
    (kind, payload), *rest = data.items()
    if rest:
        raise ValueError(f"a stored graph value has several tags: {sorted(data)}")
    if kind == "float":
        return float(payload)
    if kind == "tuple":
        return tuple(decode_value(v, variables) for v in payload)
    if kind == "list":
        return [decode_value(v, variables) for v in payload]
    if kind == "dict":
        return {decode_value(k): decode_value(v, variables) for k, v in payload}
    if kind == "dtype":
        return dtypes.as_dtype(payload)
    if kind == "numpy_type":  # by tapeviz dtype name only: never a type named in the file
        return dtypes.as_dtype(str(payload)).as_numpy_dtype
    if kind == "numpy_dtype":
        return np.dtype(dtypes.as_dtype(str(payload)).as_numpy_dtype)
    if kind == "slice":
        return slice(*[decode_value(v) for v in payload])
    if kind == "ellipsis":
        return Ellipsis
    if kind == "slot":
        return Slot(int(payload))
    if kind == "scalar":
        return decode_array(payload)[()]
    if kind == "array":
        return backend.asarray(decode_array(payload))
    if kind == "generator" and variables is not None:
        return _decode_generator(payload, variables)
    raise ValueError(f"unknown value tag {kind!r} in a stored graph")


def encode_array(array):
    host = np.array(backend.to_numpy(array), order="C")  # keeps rank 0 (ascontiguousarray makes it (1,))
    little = host.astype(host.dtype.newbyteorder("<"), copy=False)
    return {"dtype": host.dtype.name, "shape": list(host.shape), "data": base64.b64encode(little.tobytes()).decode()}


def decode_array(data):
    dtype = np.dtype(dtypes.as_dtype(data["dtype"]).as_numpy_dtype).newbyteorder("<")
    raw = base64.b64decode(data["data"], validate=True)
    shape = tuple(data["shape"])
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
        raise ValueError(f"a stored array has the shape {list(shape)}")
    if len(raw) != dtype.itemsize * math.prod(shape):  # Python integers: a huge shape cannot wrap around
        raise ValueError(f"a stored array's data does not fill its shape {list(shape)}")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


def _decode_generator(payload, variables):
    if not isinstance(payload, dict) or set(payload) != {"state", "algorithm"}:
        raise ValueError(f"a stored generator has the fields {payload!r:.100}")
    index, algorithm = payload["state"], payload["algorithm"]
    if not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(variables)):
        raise ValueError(f"a stored generator's state is variable {index!r:.40}, which is not among those given")
    if isinstance(algorithm, bool) or not isinstance(algorithm, int):
        raise ValueError(f"a stored generator's algorithm is {algorithm!r:.40}")
    return generator_on_state(variables[index], algorithm)


def _first_is_generator(arguments):
    positional = arguments[0] if isinstance(arguments, (list, tuple)) and arguments else None
    return isinstance(positional, list) and bool(positional) and isinstance(positional[0], Generator)


def _variable_index(variables, variable):
    """``variable``'s position in ``variables`` (the captures of the graph being encoded), added if new."""
    for i, known in enumerate(variables):
        if known is variable:
            return i
    variables.append(variable)
    return len(variables) - 1


# -- graphs ---------------------------------------------------------------------------------
def encode_graph(graph, variables):
    """``graph`` as a dict; ``variables`` (a list) collects the variables it captures, by position."""
    positions = {value_id: _variable_index(variables, variable) for value_id, variable in graph.variables.items()}
    return {
        "format": FORMAT,
        "n_values": graph.n_values,
        "inputs": list(graph.inputs),
        "input_kinds": list(graph.input_kinds),
        "names": [[k, v] for k, v in sorted(graph.names.items())],
        "specs": [
            [k, dtype, None if shape is None else list(shape)] for k, (dtype, shape) in sorted(graph.specs.items())
        ],
        "constants": [[k, encode_array(v)] for k, v in graph.constants.items()],
        "variables": [[k, positions[k]] for k in graph.variables],
        "nodes": [_encode_node(node, variables) for node in graph.nodes],
        "outputs": encode_value(graph.outputs, "the outputs"),
    }


def _encode_node(node, variables):
    where = f"op {node.op}"
    attrs = node.attrs
    if node.op == "CustomGradient":
        encoded = {
            "function": attrs["function"],
            "n_args": attrs["n_args"],
            "n_variables": attrs["n_variables"],
            "forward": encode_graph(attrs["forward"], variables),
            "gradient": None if attrs["gradient"] is None else encode_graph(attrs["gradient"], variables),
        }
    elif node.op in _CONTROL_FLOW_GRAPHS:  # tf.cond / tf.while_loop: their sub-graphs, then plain attributes
        encoded = {
            key: encode_graph(value, variables) if key in _CONTROL_FLOW_GRAPHS[node.op] else encode_value(value, where)
            for key, value in attrs.items()
        }
    elif node.op == "HostCall":
        name = attrs["name"]
        if name is None or HOST_CALLS.get(name) is not attrs["function"]:
            raise GraphNotStorable(
                f"the traced function calls {getattr(attrs['function'], '__qualname__', attrs['function'])} on every "
                "run (an optimizer step or a metric, say), which is Python, not data: a stored graph cannot "
                "hold it. Store a function that computes with tensor ops only."
            )
        if attrs["result_variables"]:
            raise GraphNotStorable(f"the host call {name} returns variables, which a stored graph cannot hold.")
        encoded = {
            "name": name,
            "stateful": bool(attrs["stateful"]),
            "arguments": encode_value(attrs["arguments"], where, variables),
            "result": encode_value(attrs["result"], where),
        }
    else:
        encoded = {key: encode_value(value, f"{where}'s attribute {key!r}") for key, value in attrs.items()}
    return {"op": node.op, "inputs": node.inputs, "outputs": node.outputs, "attrs": encoded}


def decode_graph(data, variables):
    """The Graph stored by ``encode_graph``; ``variables`` are the restored variables, by position."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a stored tapeviz graph (expected format {FORMAT!r})")
    graph = Graph()
    graph.n_values = int(data["n_values"])
    graph.inputs = [int(i) for i in data["inputs"]]
    graph.input_kinds = [str(k) for k in data["input_kinds"]]
    graph.names = {int(k): str(v) for k, v in data["names"]}
    graph.specs = {int(k): (str(dtype), None if shape is None else tuple(shape)) for k, dtype, shape in data["specs"]}
    graph.constants = {int(k): backend.asarray(decode_array(v)) for k, v in data["constants"]}
    try:
        graph.variables = {int(k): variables[int(i)] for k, i in data["variables"]}
    except IndexError:
        raise ValueError(f"the stored graph needs more variables than the {len(variables)} given") from None
    graph.nodes = [_decode_node(node, variables) for node in data["nodes"]]
    graph.outputs = decode_value(data["outputs"])
    return graph


def _decode_node(data, variables):
    op = str(data["op"])
    if op not in SPECIAL_OPS and op not in PRIMITIVES:
        raise ValueError(f"a stored graph names op {op!r}, which is not in tapeviz's primitive registry")
    attrs = data["attrs"]
    if op == "CustomGradient":
        decoded = {
            "function": str(attrs["function"]),
            "n_args": int(attrs["n_args"]),
            "n_variables": int(attrs["n_variables"]),
            "forward": decode_graph(attrs["forward"], variables),
            "gradient": None if attrs["gradient"] is None else decode_graph(attrs["gradient"], variables),
        }
    elif op in _CONTROL_FLOW_GRAPHS:
        if not isinstance(attrs, dict) or set(attrs) != set(_CONTROL_FLOW_GRAPHS[op]) | set(_CONTROL_FLOW_NUMBERS[op]):
            raise ValueError(f"a stored {op} node has the attributes {sorted(attrs)!r:.200}")
        decoded = {key: decode_graph(attrs[key], variables) for key in _CONTROL_FLOW_GRAPHS[op]}
        for key in _CONTROL_FLOW_NUMBERS[op]:
            value = attrs[key]
            if not (value is None and key == "maximum_iterations") and not (
                isinstance(value, int) and not isinstance(value, bool) and value >= 0
            ):
                raise ValueError(f"a stored {op} node's {key} is {value!r:.60}")
            decoded[key] = value
    elif op == "HostCall":
        name = str(attrs["name"])
        if name not in HOST_CALLS:
            raise ValueError(f"a stored graph calls {name!r}, which is not one of tapeviz's host calls")
        arguments = decode_value(attrs["arguments"], variables)
        if name.startswith(METHOD_HOST_CALLS) and not _first_is_generator(arguments):
            raise ValueError(f"a stored graph calls {name!r} on something that is not a stored generator")
        decoded = {
            "function": HOST_CALLS[name],
            "name": name,
            "stateful": bool(attrs["stateful"]),
            "arguments": arguments,
            "result": decode_value(attrs["result"]),
            "result_variables": {},
        }
    else:
        decoded = {str(key): decode_value(value) for key, value in attrs.items()}
    return Node(op, [int(i) for i in data["inputs"]], [int(i) for i in data["outputs"]], decoded)
