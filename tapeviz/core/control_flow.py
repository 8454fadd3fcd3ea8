"""``tf.cond``, ``tf.while_loop``, ``tf.case``, ``tf.switch_case``: eagerly Python, traced graph nodes with sub-graphs.

Eagerly they run the chosen branch or the loop's Python, so tapes record the
ops that ran. Inside a trace, when the predicate comes from the traced
function's inputs, each branch (or the loop's condition and body) is traced
into its own Graph: a sub-trace that runs the Python once, dry (assignments and
prints skipped, tapes set aside), with every tensor from outside the branch
captured as an input of the node. The node (``If`` / ``While``) then runs for
real, replaying the sub-graphs, and every replay picks its branch or counts
its iterations from that call's values. A replay runs primitives through
``execute``, so the gradient of a cond or a loop is the gradient through
the ops that ran.
"""

from tapeviz.core import nest, state
from tapeviz.core.graph import SPECIAL_OPS, STATEFUL_OPS, Graph
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor, tensor_id, to_array
from tapeviz.core.tracing import Tracer, tracing_only

_SKIPPED_WHEN_DRY = {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"}


class _SubTracer(Tracer):
    """Traces one branch or loop function; tensors from outside become the sub-graph's captured inputs."""

    def __init__(self, outer):
        super().__init__(dry=True)
        self.outer = outer  # the tracers around (to tell a symbolic outside tensor)
        self.captured = []  # the outside tensors, in the order of their placeholders
        for tracer in outer:  # an outside tensor computed from the inputs is one inside too (tf.shape, if, reads)
            self.symbolic |= tracer.symbolic

    def ref(self, value):
        key = tensor_id(value)
        value_id = self.refs.get(key)
        if value_id is not None:
            return value_id
        if isinstance(value, Tensor) and key < self.first_id:  # made outside the branch: an input of the node
            value_id = self.graph.new_value(self.graph_name(value))
            self.graph.inputs.append(value_id)
            self.graph.input_kinds.append("tensor")
            self.refs[key] = value_id
            if any(key in tracer.symbolic for tracer in self.outer):
                self.symbolic.add(key)
            self.captured.append(value)
            return value_id
        return super().ref(value)

    def graph_name(self, value):
        for tracer in reversed(self.outer):
            value_id = tracer.refs.get(tensor_id(value))
            if value_id is not None and value_id in tracer.graph.names:
                return tracer.graph.names[value_id]
        return None

    def add_loop_placeholders(self, tensors, names):
        fresh = [Tensor(to_array(t)) for t in tensors]
        for tensor, name in zip(fresh, names):
            self.add_placeholder(tensor, name)
        return fresh


def _trace_function(fn, args, placeholders_of=None, names=None):
    """Run ``fn(*args)`` under a dry sub-trace; returns (sub-tracer, result, the args it ran on)."""
    outer = list(state.local.tracers)
    sub = _SubTracer(outer)
    if placeholders_of is not None:
        flat = sub.add_loop_placeholders(placeholders_of, names)
        args = nest.pack_sequence_as(args, flat)
    with tracing_only(sub, tapes=[]):
        result = fn(*args)
    for tracer in outer:  # what the branch could not record spoils the whole trace
        if sub.untraceable is not None and tracer.untraceable is None:
            tracer.untraceable = sub.untraceable
        tracer.shape_specific = tracer.shape_specific or sub.shape_specific
        tracer.created_variables.extend(sub.created_variables)
    return sub, result, args


def is_symbolic(value):
    """True when a trace is running and ``value`` is a tensor computed from its inputs."""
    if not isinstance(value, Tensor):
        return False
    key = tensor_id(value)
    return any(key in tracer.symbolic for tracer in state.local.tracers)


def _dry():
    return any(tracer.dry for tracer in state.local.tracers)


def _record(op, inputs, outputs, attrs):
    for tracer in state.local.tracers:
        tracer.add_node(op, inputs, outputs, attrs)


def as_bool(pred, what):
    """``pred`` (a Python value or a one-element tensor) as a Python bool."""
    if isinstance(pred, Variable):
        pred = pred.read_value()
    if isinstance(pred, Tensor):
        array = to_array(pred)
        if array.size != 1:
            raise ValueError(f"{what} must be a scalar boolean; got a tensor of shape {tuple(array.shape)}.")
        return bool(array.reshape(()))
    return bool(pred)


# -- tf.cond ----------------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``.

    Both functions take no arguments and return the same structure of tensors.
    Eagerly only the chosen one runs; in a ``tf.function`` whose ``pred``
    depends on its inputs, both are traced into an ``If`` node that picks one
    on every call.

    Args:
        pred: a bool scalar (a Python bool or a tensor).
        true_fn: a function of no arguments, called when ``pred`` holds.
        false_fn: one called otherwise.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        What the chosen function returns.

    Raises:
        TypeError: a ``true_fn`` or ``false_fn`` that is not callable.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.constant(2.0)
        >>> print(tf.cond(x > 0, lambda: x * 10, lambda: -x).numpy())
        20.0
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("true_fn and false_fn must be callable.")
    if not is_symbolic(pred):
        return true_fn() if as_bool(pred, "pred") else false_fn()
    return traced_cond(convert_to_tensor(pred), true_fn, false_fn)


def traced_cond(pred, true_fn, false_fn, names=None):
    """The ``If`` node of a traced ``pred``; with ``names`` (AutoGraph's), each branch returns one value per
    name, and a name neither branch binds is passed through unbound."""
    branches = [_trace_function(fn, ()) for fn in (true_fn, false_fn)]
    (true_sub, true_result, _), (false_sub, false_result, _) = branches
    unbound = []
    if names is not None:
        true_result, false_result, unbound = _bound_outputs(true_result, false_result, names)
        names = [n for n, u in zip(names, unbound) if not u]
    _check_branches(true_result, false_result, names)
    graphs = [true_sub.finish(true_result), false_sub.finish(false_result)]
    inputs = [pred] + true_sub.captured + false_sub.captured
    attrs = {"then": graphs[0], "else": graphs[1], "n_then": len(true_sub.captured)}
    taken = bool(to_array(pred).reshape(()))
    if _dry():  # a dry trace changes nothing: the branch's traced result stands for the call's
        outputs = nest.flatten((true_sub if taken else false_sub).result)
    else:
        with tracing_only(None):
            outputs = _run_if(attrs, inputs)
    _record("If", inputs, outputs, attrs)
    result = nest.pack_sequence_as(true_sub.result, outputs)
    if unbound:
        defined = iter(result)
        return tuple(skipped if skipped is not None else next(defined) for skipped in unbound)
    return result


def _bound_outputs(true_values, false_values, names):
    """The values both branches bind, and per name its passed-through value (None where both bind it)."""
    kept_true, kept_false, unbound = [], [], []
    for name, a, b in zip(names, true_values, false_values):
        a_missing, b_missing = _unbound(a), _unbound(b)
        if a_missing and b_missing:
            unbound.append(a)
            continue
        if a_missing or b_missing:
            branch = "main" if a_missing else "else"
            raise ValueError(f"'{name}' must also be initialized in the {branch} branch")
        unbound.append(None)
        kept_true.append(a)
        kept_false.append(b)
    return tuple(kept_true), tuple(kept_false), unbound


def _unbound(value):
    return value is None or type(value).__name__ == "Undefined"


def _check_branches(a, b, names):
    try:
        _assert_same_structure(a, b)
    except (TypeError, ValueError):
        raise ValueError(
            "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of "
            f"return values.\n\ntrue_fn output: {a}\nfalse_fn output: {b}"
        ) from None
    for position, (x, y) in enumerate(zip(nest.flatten(a), nest.flatten(b))):
        dx, dy = (convert_to_tensor(v).dtype for v in (x, y))
        if dx != dy:
            label = f"'{names[position]}'" if names else f"Output {position}"
            raise TypeError(f"{label} has dtype {dx.name} in the main branch, but dtype {dy.name} in the else branch")


def _assert_same_structure(a, b):
    """TypeError unless ``a`` and ``b`` nest lists, tuples and dicts the same way (leaves may differ)."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)):
            raise TypeError("different dicts")
        for key in a:
            _assert_same_structure(a[key], b[key])
    elif isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)):
            raise TypeError("different sequences")
        for x, y in zip(a, b):
            _assert_same_structure(x, y)


def _run_if(attrs, inputs, dry=False):
    pred, captured = inputs[0], inputs[1:]
    n_then = attrs["n_then"]
    if as_bool(pred, "pred"):
        return run_subgraph(attrs["then"], captured[:n_then], dry)
    return run_subgraph(attrs["else"], captured[n_then:], dry)


def run_subgraph(graph, inputs, dry=False):
    """A sub-graph's flat outputs; ``dry`` skips its assignments (a dry trace changes nothing)."""
    if not dry:
        return graph.run_flat(inputs)
    kept = [node for node in graph.nodes if node.op not in _SKIPPED_WHEN_DRY]
    saved, graph.nodes = graph.nodes, kept
    try:
        return nest.flatten(graph.run(inputs))
    finally:
        graph.nodes = saved


# -- tf.while_loop -----------------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):  # fmt: skip
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final ``loop_vars``.

    ``loop_vars`` is a tensor or a (nested) list/tuple of them; ``body``
    returns the same structure. Eagerly it is a Python loop; in a
    ``tf.function`` whose loop depends on its inputs, ``cond`` and ``body``
    are traced once into a ``While`` node that loops on every call.

    Args:
        cond: a function of the loop variables that returns a bool scalar.
        body: a function of the loop variables that returns new ones, in the same structure.
        loop_vars: the initial loop variables (a tuple, list or nested structure).
        shape_invariants: accepted for TensorFlow compatibility.
        parallel_iterations: accepted for TensorFlow compatibility.
        back_prop: accepted for TensorFlow compatibility (gradients always flow).
        swap_memory: accepted for TensorFlow compatibility.
        maximum_iterations: stop after this many iterations.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        The final loop variables.

    Raises:
        TypeError: a ``cond`` or ``body`` that is not callable.

    Example:
        >>> import tapeviz as tf
        >>> i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), (0, 0))
        >>> int(i), int(total)
        (4, 6)

    Example:
        >>> import tapeviz as tf
        >>> i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), (0, 0))
        >>> print(int(total))
        6
    """
    if not callable(cond) or not callable(body):
        raise TypeError("cond and body must be callable.")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    flat = [_loop_value(v) for v in nest.flatten(structure)]
    packed = nest.pack_sequence_as(structure, flat)
    limit = None if maximum_iterations is None else int(_as_number(maximum_iterations))
    if state.local.tracers and any(_symbolic_var(v) for v in flat):
        result = _traced_while(cond, body, packed, limit)
    else:
        result = _python_while(cond, body, packed, limit)
    return result[0] if single else result


def _as_number(value):
    return to_array(value).reshape(()).item() if isinstance(value, Tensor) else value


def _python_while(cond, body, loop_vars, limit, names=None):
    """The loop in Python; inside a trace, a graph loop from the first condition that depends on the inputs."""
    count = 0
    while limit is None or count < limit:
        pred = cond(*loop_vars)
        if is_symbolic(pred):
            rest = None if limit is None else limit - count
            return _traced_while(cond, body, loop_vars, rest, names)
        if not as_bool(pred, "cond's result"):
            break
        loop_vars = _body_result(body(*loop_vars), loop_vars)
        count += 1
    return loop_vars


def _body_result(result, loop_vars):
    if len(loop_vars) == 1 and not isinstance(result, (list, tuple)):
        result = [result]
    try:
        _assert_same_structure(list(loop_vars), list(result))
    except (TypeError, ValueError):
        raise ValueError(
            "The two structures don't have the same nested structure: body must return the structure of "
            f"loop_vars.\n\nloop_vars: {loop_vars}\nbody returned: {result}"
        ) from None
    return type(loop_vars)(result) if isinstance(loop_vars, (list, tuple)) else result


def traced_while(cond, body, loop_vars, names):
    """The ``While`` node of AutoGraph's loop over ``loop_vars`` (a tuple, one value per name)."""
    flat = [_loop_value(v) for v in loop_vars]
    return _traced_while(cond, body, tuple(flat), None, list(names))


def _loop_value(value):
    """A loop variable as the loop carries it: a tensor, or a composite that lowers to one (a TensorArray)."""
    if is_loop_composite(value):
        return value
    return value.read_value() if isinstance(value, Variable) else convert_to_tensor(value)


def _symbolic_var(value):
    """Whether a loop variable (a tensor or a composite's tensor) is computed from the trace's inputs."""
    if is_loop_composite(value):
        try:
            value = value.loop_tensor()
        except ValueError:  # nothing in it yet
            return False
    return is_symbolic(value)


def is_loop_composite(value):
    """Whether ``value`` is carried through a graph loop as a tensor it lowers to (``loop_tensor()``),
    rebuilt in the body and after the loop with ``from_loop_tensor`` (tapeviz's TensorArray)."""
    return hasattr(value, "loop_tensor") and hasattr(value, "from_loop_tensor")


def _lowered(structure):
    """``structure`` with its composites replaced by their tensors."""
    flat = nest.flatten(structure)
    return nest.pack_sequence_as(structure, [v.loop_tensor() if is_loop_composite(v) else v for v in flat])


def _lower_composites(cond, body, loop_vars):
    """cond, body and loop_vars over plain tensors, and how to rebuild the composites in a result."""
    templates = [v if is_loop_composite(v) else None for v in nest.flatten(loop_vars)]
    if not any(t is not None for t in templates):
        return cond, body, loop_vars, None

    def rebuild(values):
        flat = nest.flatten(values)
        rebuilt = [t.from_loop_tensor(v) if t is not None else v for v, t in zip(flat, templates)]
        return nest.pack_sequence_as(values, rebuilt)

    def plain_cond(*args):
        return cond(*rebuild(args))

    def plain_body(*args):
        return _lowered(body(*rebuild(args)))

    return plain_cond, plain_body, _lowered(loop_vars), rebuild


def _traced_while(cond, body, loop_vars, limit, names=None):
    cond, body, loop_vars, rebuild = _lower_composites(cond, body, loop_vars)
    if rebuild is not None:
        result = _traced_while(cond, body, loop_vars, limit, names)
        return rebuild(result)
    flat = nest.flatten(loop_vars)
    names = names or [f"loop_var_{i}" for i in range(len(flat))]
    cond_sub, pred, _ = _trace_function(cond, loop_vars, flat, names)
    body_sub, result, body_args = _trace_function(body, loop_vars, flat, names)
    result = _body_result(result, body_args)
    for position, (before, after) in enumerate(zip(flat, nest.flatten(result))):
        after_dtype = convert_to_tensor(after).dtype
        if after_dtype != before.dtype:
            label = f"'{names[position]}'"
            raise TypeError(
                f"{label} has dtype {before.dtype.name} before the loop, but dtype {after_dtype.name} after one "
                "iteration"
            )
    attrs = {
        "cond": cond_sub.finish(pred),
        "body": body_sub.finish(list(result)),
        "n_vars": len(flat),
        "n_cond": len(cond_sub.captured),
        "maximum_iterations": limit,
    }
    inputs = flat + cond_sub.captured + body_sub.captured
    with tracing_only(None):
        outputs = _run_while(attrs, inputs, dry=_dry())
    _record("While", inputs, outputs, attrs)
    return nest.pack_sequence_as(loop_vars, outputs)


def _run_while(attrs, inputs, dry=False):
    n_vars, n_cond, limit = attrs["n_vars"], attrs["n_cond"], attrs["maximum_iterations"]
    values = list(inputs[:n_vars])
    cond_captured, body_captured = inputs[n_vars : n_vars + n_cond], inputs[n_vars + n_cond :]
    count = 0
    while limit is None or count < limit:
        (pred,) = run_subgraph(attrs["cond"], values + cond_captured, dry)
        if not as_bool(pred, "the loop's condition"):
            break
        values = run_subgraph(attrs["body"], values + body_captured, dry)
        count += 1
    return values


# -- tf.case, tf.switch_case (nests of conds) -----------------------------------------------------------
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function paired with the first true predicate (``default`` when none is true).

    Args:
        pred_fn_pairs: a list of ``(bool scalar, function)`` pairs.
        default: the function to call when no predicate is true.
        exclusive: check that at most one predicate is true.
        strict: accepted for TensorFlow compatibility.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        What the chosen function returns.

    Raises:
        ValueError: no pairs and no default.
        TypeError: an entry that is not a (predicate, callable) pair.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.constant(3)
        >>> print(tf.case([(x < 0, lambda: x - 1), (x < 5, lambda: x + 2)], default=lambda: x).numpy())
        5
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    if not pairs and default is None:
        raise ValueError("tf.case needs at least one (predicate, function) pair or a default.")
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and callable(pair[1])):
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple of a predicate and a callable; got {pair}")
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]

    def chain(index):
        if index == len(pairs):
            return default()
        pred, fn = pairs[index]
        return cond(pred, fn, lambda: chain(index + 1))

    return chain(0)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``branch_fns[branch_index]()``; ``default`` (else the last branch) for an index out of range.

    Args:
        branch_index: an int scalar.
        branch_fns: a list of functions of no arguments (or ``(index, function)`` pairs).
        default: the function for an index out of range (the last branch when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        What the chosen function returns.

    Raises:
        ValueError: no branches.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.switch_case(tf.constant(1), [lambda: tf.constant(10), lambda: tf.constant(20)]).numpy())
        20
    """
    fns = [fn for _, fn in sorted(branch_fns.items())] if isinstance(branch_fns, dict) else list(branch_fns)
    keys = sorted(branch_fns) if isinstance(branch_fns, dict) else list(range(len(fns)))
    if not fns:
        raise ValueError("branch_fns must not be empty.")
    fallback = default if default is not None else fns[-1]
    index = convert_to_tensor(branch_index)
    return case([(index == key, fn) for key, fn in zip(keys, fns)], default=fallback)


def subgraphs(node):
    """The sub-graphs a control-flow node holds (for pruning, checking, drawing)."""
    return [value for value in node.attrs.values() if isinstance(value, Graph)]


SPECIAL_OPS["If"] = lambda node, inputs: _run_if(node.attrs, inputs)
SPECIAL_OPS["While"] = lambda node, inputs: _run_while(node.attrs, inputs)
CONTROL_FLOW_OPS = ("If", "While")
assert not set(CONTROL_FLOW_OPS) & STATEFUL_OPS
