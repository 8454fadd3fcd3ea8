"""``custom_gradient`` inside a trace: the function and its grad_fn become two graphs.

The forward graph maps the inputs to the outputs (and to the values grad_fn
reads); the gradient graph maps upstream gradients and those saved values to
the input (and variable) gradients. Replaying the node runs the forward graph
unrecorded and records one CustomGradient entry whose grad_fn replays the
gradient graph, as the eager ``custom_gradient`` does with the user's grad_fn.
"""

from tapeviz.core import nest, recording, state
from tapeviz.core.graph import SPECIAL_OPS
from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.tensor import Tensor, convert_to_tensor, tensor_id, to_array
from tapeviz.core.tracing import Tracer, tracing_only

# TF's message for a custom gradient saved without its gradient, when a tape needs it.
NO_GRADIENT = (
    "No gradient defined for operation '{name}' (op type: IdentityN). In general every operation must have an "
    "associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. If you want to pretend this "
    "operation is a constant in your program, you may insert `tf.stop_gradient`. This can be useful to silence the "
    "error in cases where you know gradients are not needed, e.g. the forward pass of tf.custom_gradient. Please see "
    "more details in https://www.tensorflow.org/api_docs/python/tf/custom_gradient."
)


class _GradientTracer(Tracer):
    """Traces grad_fn; forward values it reads become extra placeholders ("saved")."""

    def __init__(self, forward):
        super().__init__()
        self.forward = forward
        self.saved = []  # forward value ids, in placeholder order after the upstreams

    def ref(self, value):
        key = tensor_id(value)
        if key not in self.refs and key in self.forward.symbolic:
            self.saved.append(self.forward.refs[key])
            return self.add_placeholder(value, f"saved{len(self.saved) - 1}")
        return super().ref(value)


def trace_forward(f, inputs, kwargs):
    """Run ``f`` recording its ops into a forward Tracer (no tape sees them, as in eager)."""
    forward = Tracer()
    forward.relaxed_sizes = set().union(*[t.relaxed_sizes for t in state.local.tracers])
    for position, tensor in enumerate(inputs):
        forward.add_placeholder(tensor, f"x{position}")
    accessed = recording.AccessedVariables()
    with tracing_only(forward, tapes=[accessed]):
        result, grad_fn = f(*inputs, **kwargs)
        flat = [convert_to_tensor(t) for t in nest.flatten(result)]
    return result, flat, grad_fn, list(accessed.variables.values()), forward


def trace_gradient(forward, flat, grad_fn, variables):
    """Trace ``grad_fn`` on placeholder upstreams; returns (gradient graph, forward graph)."""
    gradient = _GradientTracer(forward)
    gradient.relaxed_sizes = forward.relaxed_sizes
    upstream = [Tensor(to_array(t) * 0 + 1) for t in flat]
    for position, tensor in enumerate(upstream):
        gradient.add_placeholder(tensor, f"upstream{position}")
    muted = list(state.listeners)
    state.listeners.clear()  # a trace of grad_fn is not an op the student ran
    try:
        with tracing_only(gradient, tapes=[]):
            produced = grad_fn(*upstream, variables=variables) if variables else grad_fn(*upstream)
            gradient_graph = gradient.finish(produced)
    finally:
        state.listeners[:] = muted
    forward_graph = forward.graph
    forward_graph.outputs = ([forward.ref(t) for t in flat], list(gradient.saved))
    forward_graph.prune()
    for tracer in (forward, gradient):
        for outer in state.local.tracers:
            if tracer.untraceable is not None:
                outer.refuse(tracer.untraceable[0])
            outer.shape_specific = outer.shape_specific or tracer.shape_specific
    return gradient_graph, forward_graph


def add_node(name, inputs, variables, outputs, forward_graph, gradient_graph):
    attrs = {
        "function": name,
        "forward": forward_graph,
        "gradient": gradient_graph,
        "n_args": len(inputs),
        "n_variables": len(variables),
    }
    for tracer in state.local.tracers:
        tracer.add_node("CustomGradient", list(inputs) + list(variables), outputs, attrs)


def _run(node, inputs):
    attrs = node.attrs
    n_args = attrs["n_args"]
    args, variables = inputs[:n_args], inputs[n_args:]
    with tracing_only(None, tapes=[recording.AccessedVariables()]):
        flat, saved = attrs["forward"].run(args)
    outputs = [Tensor(to_array(t)) for t in flat]  # fresh ids, as the eager wrapper makes
    gradient = attrs["gradient"]

    def grad_fn(*upstream, variables=None):
        if gradient is None:  # saved with SaveOptions(experimental_custom_gradients=False)
            raise LookupError(NO_GRADIENT.format(name=attrs["function"]))
        return gradient.run(list(upstream) + list(saved))

    for variable in variables:
        recording.note_access(variable)
    record_attrs = {"grad_fn": grad_fn, "function": attrs["function"], "n_args": n_args, "variables": list(variables)}
    tracers, state.local.tracers = state.local.tracers, []
    try:
        # custom_gradient's primitive, by name: that module builds on this one.
        recording.record(PRIMITIVES["CustomGradient"], tuple(inputs), tuple(outputs), record_attrs)
    finally:
        state.local.tracers = tracers
    for tracer in tracers:
        tracer.add_node("CustomGradient", inputs, outputs, attrs)
    return outputs


SPECIAL_OPS["CustomGradient"] = _run
