"""Recording a Python function's primitives into a Graph while it runs.

tapeviz traces by running the function on the call's real tensors with a
Tracer listening: every executed primitive, variable read and assignment
becomes a node. The first call's results are therefore exact, and the graph
is what later calls replay. What the tracer cannot see it refuses to bake:

- Python reading a traced tensor's value (``if x > 0``, ``float(x)``,
  ``x.numpy()``) marks the trace unusable, so the function falls back to
  running eagerly (with one warning naming the line);
- a variable changed behind the ops' back marks it unusable too;
- work that must run on every call but is not a primitive (random draws,
  ``tf.print``, an optimizer step, a metric update) is wrapped with
  ``host_call`` and replayed by calling it again.
"""

import functools
import os
import sys
import warnings

from tapeviz.core import nest, state
from tapeviz.core.graph import SPECIAL_OPS, Graph, Node
from tapeviz.core.tensor import Tensor, Variable, bind_trace_hooks, convert_to_tensor, ids, tensor_id, to_array

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> function: host calls a stored graph may name (a closed table of tapeviz functions).
HOST_CALLS = {}

# Tensors a finished tf.function trace computed and did not return (a global assigned inside it):
# TF's graph tensors, "out of scope" after the trace. tensor id -> (function name, graph name).
# Another trace capturing one raises TF's TypeError. Forgotten all at once beyond _LEAKED_MAX
# (a missed error, never a false one).
_leaked = {}
_LEAKED_MAX = 200_000
_PLAIN_LEAVES = (Tensor, Variable, type(None), bool, int, float, complex, str, bytes)


_SHAPE_OPS = frozenset({"Shape", "Size", "Rank"})  # their outputs are the input's shape, not its values
# Deterministic ops that shape computations use: what they make of shapes alone is a shape too.
_SHAPE_ARITHMETIC = frozenset(
    {"AddV2", "Sub", "Mul", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Neg", "Cast", "Identity", "StridedSlice"}
    | {"Slice", "GatherV2", "Pack", "ConcatV2", "Prod", "Sum", "Reshape", "Squeeze", "ExpandDims"}
)


class Tracer:
    """Builds one Graph from the ops that run while it is on ``state.local.tracers``."""

    def __init__(self, dry=False):
        self.graph = Graph()
        self.refs = {}  # tensor/variable _id -> value id
        self.symbolic = set()  # ids of tensors computed from the placeholders (or the placeholders)
        self.of_shapes_only = set()  # ids of those computed from the placeholders' shapes only (tf.shape)
        self.literals = set()  # ids of tensors the traced code made from Python values (tf.constant(2.0))
        self.relaxed_sizes = set()  # traced sizes of the dimensions a signature leaves open (None)
        self.display_shapes = {}  # placeholder value id -> its signature's shape (None sizes), for printing
        self.first_id = next(ids)  # tensors with larger ids were made during the trace
        self.untraceable = None  # (what, filename, line) of the first thing it could not record
        self.shape_specific = False  # the Python read a traced tensor's shape (or baked one)
        self.created_variables = []
        self.dry = dry  # get_concrete_function: skip stateful host calls
        self.deferred_errors = {}  # tensor id -> the error its op raised (raised by finish if the op is kept)
        self._op_counts = {}

    # -- building --------------------------------------------------------------------
    def add_placeholder(self, value, name):
        graph = self.graph
        value_id = graph.new_value(name)
        graph.inputs.append(value_id)
        is_variable = hasattr(value, "assign")
        graph.input_kinds.append("variable" if is_variable else "tensor")
        key = tensor_id(value)
        self.refs[key] = value_id
        if not is_variable:
            self.symbolic.add(key)
        return value_id

    def ref(self, value):
        """The value id of a tensor or variable an op reads (captured on first sight)."""
        key = tensor_id(value)
        value_id = self.refs.get(key)
        if value_id is not None:
            return value_id
        if key in _leaked and not hasattr(value, "assign"):
            raise TypeError(_out_of_scope(value, *_leaked[key]))
        value_id = self.graph.new_value()
        if hasattr(value, "assign"):
            self.graph.variables[value_id] = value
            self.graph.names[value_id] = value.name
        else:
            array = to_array(value)
            self.graph.constants[value_id] = array
            if key > self.first_id and key not in self.literals and self._sized_like_input(array):
                self.shape_specific = True
        self.refs[key] = value_id
        return value_id

    def _sized_like_input(self, array):
        """Made in the trace by library code (not a literal) and perhaps from a size a call may change:
        an integer (tf.size, tf.shape) or an array with a dimension of such a size (zeros_like)."""
        if not self.relaxed_sizes:
            return False  # every call of this trace has the traced sizes
        return array.dtype.kind in "iu" or bool(set(array.shape) & self.relaxed_sizes)

    def add_node(self, op, inputs, outputs, attrs, symbolic=True):
        input_ids = [self.ref(t) for t in inputs]
        output_ids = []
        # A Shape, Size or Rank reads no value, nor does the arithmetic that only they feed (tf.shape(x)[0] - 1).
        from_inputs = [tensor_id(t) for t in inputs if tensor_id(t) in self.symbolic]
        of_shapes = symbolic and (
            op in _SHAPE_OPS
            or (op in _SHAPE_ARITHMETIC and from_inputs and all(k in self.of_shapes_only for k in from_inputs))
        )
        for position, tensor in enumerate(outputs):
            count = self._op_counts.get(op, 0)
            name = f"{op}:{position}" if not count else f"{op}_{count}:{position}"
            value_id = self.graph.new_value(name)
            key = tensor_id(tensor)
            self.refs[key] = value_id
            if symbolic:
                self.symbolic.add(key)
                if of_shapes:
                    self.of_shapes_only.add(key)
            output_ids.append(value_id)
        self._op_counts[op] = self._op_counts.get(op, 0) + 1
        self.graph.nodes.append(Node(op, input_ids, output_ids, attrs))

    def capture(self, primitive, inputs, outputs, attrs):
        """An executed primitive (called by recording.record)."""
        if attrs and self.relaxed_sizes and not self.shape_specific and _mentions(attrs, self.relaxed_sizes):
            self.shape_specific = True  # an attribute holds an open dimension's traced size (a reshape's shape)
        self.add_node(primitive.name, inputs, outputs, dict(attrs) if attrs else {})

    def finish(self, result):
        """Close the graph on ``result``: Python numbers become constants, variables are read."""
        tensors = []

        def leaf(value):
            if value is None:
                return None
            if hasattr(value, "assign"):
                with tracing_only(self):
                    value = value.read_value()
            elif not isinstance(value, Tensor):
                value = convert_to_tensor(value)
            tensors.append(value)
            return self.ref(value)

        graph = self.graph
        graph.outputs = nest.map_structure(leaf, result)
        flat_ids = [v for v in nest.flatten(graph.outputs) if v is not None]
        graph.specs = {v: (t.dtype.name, self._output_shape(t)) for v, t in zip(flat_ids, tensors)}
        by_id = dict(zip(flat_ids, tensors))
        self.result = nest.map_structure(lambda v: None if v is None else by_id[v], graph.outputs)
        graph.prune()
        self._raise_kept_errors()
        return graph

    def defer_error(self, tensor, error):
        """An op failed on the traced values: it raises only if the graph keeps it (TF never runs unused ops)."""
        self.deferred_errors[tensor_id(tensor)] = error

    def _raise_kept_errors(self):
        if not self.deferred_errors or self.dry:
            return
        made = {v for node in self.graph.nodes for v in node.outputs}
        for key, error in self.deferred_errors.items():
            if self.refs.get(key) in made:
                raise error

    def _output_shape(self, tensor):
        """An output's shape as TF would infer it: open where it follows an open input dimension
        (a size only open dimensions had), unknown when an input's rank was unknown."""
        shape = tuple(to_array(tensor).shape)
        if tensor_id(tensor) not in self.symbolic:
            return shape
        open_shapes = list(self.display_shapes.values())
        if any(s is None for s in open_shapes):
            return None
        fixed = {n for s in open_shapes for n in s if n is not None}
        open_sizes = self.relaxed_sizes - fixed
        return tuple(None if n in open_sizes else n for n in shape)

    # -- what it cannot record ---------------------------------------------------------
    def refuse(self, what):
        if self.untraceable is None:
            self.untraceable = (what,) + user_frame()


def _mentions(value, sizes):
    """True when ``value`` (an attribute: ints, tuples, lists, dicts of them) holds one of ``sizes``."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value in sizes
    if isinstance(value, (tuple, list)):
        return any(_mentions(v, sizes) for v in value)
    if isinstance(value, dict):
        return any(_mentions(v, sizes) for v in value.values())
    return False


def user_frame():
    """(file, line) of the innermost caller outside tapeviz: the user's line."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep):
            return filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


class tracing_only:
    """Run a block with only ``tracer`` listening (tapes and other tracers set aside)."""

    def __init__(self, tracer, tapes=None):
        self.tracer, self.tapes = tracer, tapes

    def __enter__(self):
        local = state.local
        self.saved = local.tracers, local.tapes
        local.tracers = [self.tracer] if self.tracer is not None else []
        if self.tapes is not None:
            local.tapes = self.tapes

    def __exit__(self, *exc):
        state.local.tracers, state.local.tapes = self.saved


def _out_of_scope(tensor, function_name, graph_name):
    shape = tuple(to_array(tensor).shape)
    shown = f"<tf.Tensor '{_colon(graph_name)}' shape={shape} dtype={tensor.dtype.name}>"
    return (
        f"{shown} is out of scope and cannot be used here. Use return values, explicit Python locals or "
        "TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/guide/function"
        "#all_outputs_of_a_tffunction_must_be_return_values for more information.\n\nThe tensor "
        f"{shown} cannot be accessed from here, because it was defined in the trace of tf.function "
        f"'{function_name}', which is out of scope (it was not returned: return it, or compute it here)."
    )


def close_trace(tracer, function_name, result):
    """After an eager call's trace: what it computed and did not return goes out of scope, as in TF.

    Its returned tensors are handed back as fresh tensors of the same values (when no tape records:
    a tape needs the traced ones), so a tensor the function also stored in a global stays the
    traced one. A later trace that captures such a tensor raises TF's TypeError.

    Args:
        tracer: the finished Tracer.
        function_name: the tf.function's name (for the error).
        result: what the trace returned.

    Returns:
        ``result``, its tensors fresh when no tape records.
    """
    leaves = nest.flatten(result)
    if not all(isinstance(leaf, _PLAIN_LEAVES) for leaf in leaves):
        return result  # composite results (ragged, sparse...) hold their tensors: leave them in scope
    if state.local.tapes:
        returned = {tensor_id(leaf) for leaf in leaves if isinstance(leaf, Tensor)}
    else:
        returned = set()
        result = nest.map_structure(lambda v: Tensor(to_array(v)) if type(v) is Tensor else v, result)
    if len(_leaked) > _LEAKED_MAX:
        _leaked.clear()
    names = tracer.graph.names
    for key in tracer.symbolic - returned:
        _leaked[key] = (function_name, names.get(tracer.refs.get(key), "Tensor"))
    return result


# -- hooks called by Tensor and Variable, only while a tracer is active (bound below) -------
def value_read(value, what):
    """Python asked for a value (``float(x)``, ``x.numpy()``, ``if x:``)."""
    is_variable = hasattr(value, "assign")
    for tracer in state.local.tracers:
        if is_variable or tensor_id(value) in tracer.symbolic:
            tracer.refuse(what)


def host_read(value, what):
    """An op takes ``value``, a tensor, as a Python number (an axis, a count, ``top_k``'s ``k``).

    A trace keeps the number it read, so one computed from the inputs' values would be replayed
    for every later input: the function runs eagerly from then on instead, as after ``int(x)``.
    One computed from their shapes only (``tf.rank(x) - 1``) holds for every call of this trace,
    whose sizes are fixed; where the signature leaves sizes open, the trace becomes size-specific.
    """
    for tracer in state.local.tracers:
        key = tensor_id(value)
        if key not in tracer.symbolic:
            continue
        if key in tracer.of_shapes_only:
            tracer.shape_specific = True  # as a read of its shape: the trace holds for these sizes
        else:
            tracer.refuse(what)


def shape_read(value):
    """The user's code read a traced tensor's shape (tapeviz's own reads are its metadata checks)."""
    caller = sys._getframe(2).f_code.co_filename  # shape_read <- Tensor.shape <- the reader
    if os.path.abspath(caller).startswith(_PACKAGE_DIR + os.sep):
        return
    for tracer in state.local.tracers:
        if tensor_id(value) in tracer.symbolic:
            tracer.shape_specific = True


def symbolic_name(tensor):
    """TF's graph-tensor text (``Tensor("x:0", shape=(), dtype=float32)``) while tracing, else None."""
    for tracer in reversed(state.local.tracers):
        key = tensor_id(tensor)
        value_id = tracer.refs.get(key)
        if value_id is not None and key in tracer.symbolic:
            name = tracer.graph.names.get(value_id, "Tensor")
            shape = tracer.display_shapes.get(value_id, tuple(to_array(tensor).shape))
            if shape is None:
                return f'Tensor("{_colon(name)}", dtype={tensor.dtype.name})'
            dims = ", ".join("None" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "")
            return f'Tensor("{_colon(name)}", shape=({dims}), dtype={tensor.dtype.name})'
    return None


def _colon(name):
    return name if ":" in name else name + ":0"


def literal_made(tensor):
    for tracer in state.local.tracers:
        tracer.literals.add(tensor_id(tensor))


def assigned(variable, op, tensor):
    """``variable.assign*(tensor)`` ran: record it (called before the update, with tracers set aside after)."""
    for tracer in state.local.tracers:
        tracer.add_node(op, (variable, tensor), (), {})


def changed_behind_ops(variable):
    """A variable changed by a path no tracer sees (``_apply`` with raw arrays)."""
    for tracer in state.local.tracers:
        tracer.refuse(f"variable '{variable.name}' was changed outside tapeviz's ops")


def variable_created(variable):
    for tracer in state.local.tracers:
        tracer.created_variables.append(variable)


bind_trace_hooks(
    value_read=value_read,
    host_read=host_read,
    shape_read=shape_read,
    symbolic_name=symbolic_name,
    literal_made=literal_made,
    assigned=assigned,
    changed_behind_ops=changed_behind_ops,
    variable_created=variable_created,
)


# -- host calls -------------------------------------------------------------------------
def host_call(name=None, stateful=False, peek=None):
    """Decorate a function that a trace must call again on every replay.

    Its tensor arguments become the node's inputs, its tensor results the
    node's outputs; everything else is kept as is. ``name`` registers it for
    stored graphs (tapeviz functions only); ``stateful`` keeps it when unused.
    ``peek`` (for a stateful one) is what a dry trace (get_concrete_function, a
    branch) runs instead: same arguments and result, nothing changed; without
    it a dry trace skips the call and records no result.
    """

    def decorate(fn):
        if name is not None:
            HOST_CALLS[name] = fn

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not state.local.tracers:
                return fn(*args, **kwargs)
            return _traced_host_call(fn, name, stateful, args, kwargs, peek)

        wrapper.host_function = fn
        return wrapper

    return decorate


def _is_tensorlike(value):
    return isinstance(value, (Tensor, Variable))


def _template(structure, tensors):
    """``structure`` with tensor leaves replaced by ("tensor", k); fills ``tensors``."""

    def leaf(value):
        if _is_tensorlike(value):
            tensors.append(value)
            return Slot(len(tensors) - 1)
        return value

    return nest.map_structure(leaf, structure)


class Slot:
    """A tensor's place in a host call's arguments or result."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"<tensor {self.index}>"


def fill(template, values):
    return nest.map_structure(lambda v: values[v.index] if isinstance(v, Slot) else v, template)


def _traced_host_call(fn, name, stateful, args, kwargs, peek=None):
    tracers = state.local.tracers
    inputs = []
    arguments = _template((list(args), kwargs), inputs)
    dry = stateful and any(t.dry for t in tracers)
    if dry and peek is None:
        result = None
    else:
        watcher = _CreationWatcher()
        with tracing_only(watcher):
            result = (peek if dry else fn)(*args, **kwargs)
        for tracer in tracers:  # an optimizer building its slots on a later trace is TF's error too
            tracer.created_variables.extend(watcher.created_variables)
    outputs = []
    returned = _template(result, outputs)
    returned_tensors = [o for o in outputs if not hasattr(o, "assign")]
    attrs = {
        "function": fn,
        "name": name,
        "stateful": stateful,
        "arguments": arguments,
        "result": returned,
        "result_variables": {i: o for i, o in enumerate(outputs) if hasattr(o, "assign")},
    }
    for tracer in tracers:
        tracer.add_node("HostCall", inputs, returned_tensors, attrs, symbolic=True)
    return result


class _CreationWatcher(Tracer):
    """Stands in the tracer stack while a host call runs: records nothing, notes variables it creates."""

    def capture(self, primitive, inputs, outputs, attrs):
        pass

    def _sized_like_input(self, array):
        """Made in the trace by library code (not a literal) and perhaps from a size a call may change:
        an integer (tf.size, tf.shape) or an array with a dimension of such a size (zeros_like)."""
        if not self.relaxed_sizes:
            return False  # every call of this trace has the traced sizes
        return array.dtype.kind in "iu" or bool(set(array.shape) & self.relaxed_sizes)

    def add_node(self, op, inputs, outputs, attrs, symbolic=True):
        pass

    def refuse(self, what):
        pass


def _run_host_call(node, inputs):
    attrs = node.attrs
    args, kwargs = fill(attrs["arguments"], inputs)
    result = attrs["function"](*args, **kwargs)
    outputs = []
    _template(result, outputs)
    return [o for o in outputs if not hasattr(o, "assign")]


SPECIAL_OPS["HostCall"] = _run_host_call


# -- warnings -----------------------------------------------------------------------------
def warn_fallback(function_name, untraceable):
    what, filename, line = untraceable
    warnings.warn_explicit(
        f"tf.function '{function_name}' runs eagerly from now on: {what} at {filename}:{line}, and a trace "
        "cannot record a Python decision on a tensor's value. Express the choice with tensor ops (tf.where), "
        "or make the decision outside the tf.function.",
        RuntimeWarning,
        filename,
        line,
    )


def trace_call(run, placeholders, dry=False, display_shapes=None, fixed_sizes=()):
    """Call ``run()`` with a new Tracer on top; returns (tracer, result).

    ``fixed_sizes``: sizes of open dimensions that the function itself asked for (see
    ``Function._trace_open_sizes``): a trace that mentions them does not depend on the call's sizes.
    """
    tracer = Tracer(dry=dry)
    for value, name in placeholders:
        tracer.add_placeholder(value, name)
    tracer.display_shapes = {} if display_shapes is None else display_shapes
    for position, (value, _) in enumerate(placeholders):
        shape, open_shape = tuple(to_array(value).shape), tracer.display_shapes.get(position, ())
        if open_shape is None or len(open_shape) != len(shape):
            tracer.relaxed_sizes.update(shape)
        else:
            tracer.relaxed_sizes.update(n for n, o in zip(shape, open_shape) if o is None)
    tracer.relaxed_sizes.discard(1)  # a size-1 dimension broadcasts: constants of size 1 are not sized by it
    tracer.relaxed_sizes.difference_update(fixed_sizes)
    local = state.local
    local.tracers = local.tracers + [tracer]
    try:
        result = run()
    finally:
        local.tracers = [t for t in local.tracers if t is not tracer]
    return tracer, result
