"""``tf.custom_gradient``: a function with a hand-written gradient.

The decorated function runs with recording paused, and its outputs are
recorded as ONE entry whose rule calls the user's ``grad_fn``: the tape shows
the function as a single box, as TF does. Variables the function reads are
noted by a stand-in on the tape stack that records nothing.
"""

import functools
import inspect

from tapeviz.core import nest, recording, state
from tapeviz.core import traced_custom_gradient as traced
from tapeviz.core.primitive import Primitive
from tapeviz.core.rules import defgrad, described
from tapeviz.core.tensor import Tensor, convert_to_tensor, to_array

CUSTOM_GRADIENT = Primitive("CustomGradient", kernel=None)


def custom_gradient(f=None):
    """Decorate ``f(*x) -> (y, grad_fn)`` so that the gradient of y is ``grad_fn``.

    ``grad_fn(*upstream)`` gets one upstream gradient per output of ``f`` (zeros
    for outputs that were not used) and returns one gradient per input. If
    ``f`` reads variables, ``grad_fn`` must take ``variables=`` and return
    ``(input_grads, variable_grads)``.

    Args:
        f: a function of Tensors returning ``(outputs, grad_fn)``.

    Returns:
        A function of the same arguments returning ``outputs``; tapes record
        it as one op whose gradient is ``grad_fn``.

    Raises:
        TypeError: when the decorated function is called, if ``f`` does not
            return ``(outputs, grad_fn)``, or reads variables and ``grad_fn``
            takes no ``variables=``.

    Example:
        A gradient clipped to [-1, 1] on its way back:

        >>> import tapeviz as tf
        >>> @tf.custom_gradient
        ... def clip_gradient(x):
        ...     def grad_fn(upstream):
        ...         return tf.clip_by_value(upstream, -1.0, 1.0)
        ...     return tf.identity(x), grad_fn
        >>> x = tf.Variable(2.0)
        >>> with tf.GradientTape() as tape:
        ...     y = clip_gradient(x) * 10.0
        >>> print(tape.gradient(y, x))
        tf.Tensor(1.0, shape=(), dtype=float32)
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        inputs = [convert_to_tensor(a) for a in args]  # variable args are read here, recorded
        forward = None
        if state.local.tracers:  # inside tf.function: record f and grad_fn as graphs too
            result, flat, grad_fn, variables, forward = traced.trace_forward(f, inputs, kwargs)
        else:
            result, grad_fn, variables = _run_unrecorded(f, inputs, kwargs)
        if not callable(grad_fn):
            raise TypeError(
                f"@custom_gradient function {f.__name__} must return (outputs, grad_fn); "
                f"got {type(grad_fn).__name__} as grad_fn."
            )
        if variables and "variables" not in inspect.signature(grad_fn).parameters:
            names = ", ".join(v.name for v in variables)
            raise TypeError(
                f"@custom_gradient function {f.__name__} reads variables ({names}), so its grad_fn "
                "must accept a keyword argument 'variables' and return (input_grads, variable_grads)."
            )
        flat = nest.flatten(result)
        outputs = [Tensor(to_array(t)) for t in flat]  # fresh ids: never an input's
        for variable in variables:
            recording.note_access(variable)  # by the tapes, or by an enclosing custom_gradient
        # ``forward``: the function itself, so a diagnosis can check grad_fn against finite differences.
        attrs = {
            "grad_fn": grad_fn,
            "function": f.__name__,
            "n_args": len(inputs),
            "variables": variables,
            "forward": f,
        }
        if forward is None:
            recording.record(CUSTOM_GRADIENT, tuple(inputs) + tuple(variables), tuple(outputs), attrs)
        else:
            gradient_graph, forward_graph = traced.trace_gradient(forward, flat, grad_fn, variables)
            tracers, state.local.tracers = state.local.tracers, []  # they get the node with its graphs
            try:
                recording.record(CUSTOM_GRADIENT, tuple(inputs) + tuple(variables), tuple(outputs), attrs)
            finally:
                state.local.tracers = tracers
            traced.add_node(f.__name__, inputs, variables, outputs, forward_graph, gradient_graph)
        return nest.pack_sequence_as(result, outputs)

    return wrapper


def _run_unrecorded(f, inputs, kwargs):
    """Run ``f`` with the thread's tapes set aside; return (result, grad_fn, variables read)."""
    accessed = recording.AccessedVariables()
    saved, state.local.tapes = state.local.tapes, [accessed]
    try:
        result, grad_fn = f(*inputs, **kwargs)
    finally:
        state.local.tapes = saved
    return result, grad_fn, list(accessed.variables.values())


@defgrad(CUSTOM_GRADIENT, "the user's grad_fn", local=described(every="whatever your grad_fn returns"))
def _custom_gradient_rule(op, needs, *upstream):
    grad_fn, n_args, variables = op.attrs["grad_fn"], op.attrs["n_args"], op.attrs["variables"]
    name = op.attrs["function"]
    if variables:
        produced = grad_fn(*upstream, variables=variables)
        if not (isinstance(produced, (tuple, list)) and len(produced) == 2):
            raise ValueError(
                f"custom_gradient function {name}'s grad_fn uses variables, so it must return "
                "(input_grads, variable_grads)."
            )
        input_grads, variable_grads = produced
        input_grads = _as_list(input_grads)
        variable_grads = _as_list(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError(
                f"custom_gradient function {name} expected to return {len(variables)} variable "
                f"gradients, but returned {len(variable_grads)} instead."
            )
    else:
        input_grads, variable_grads = _as_list(grad_fn(*upstream)), []
    if len(input_grads) != n_args:
        raise ValueError(
            f"custom_gradient function {name} expected to return {n_args} gradients, but returned "
            f"{len(input_grads)} instead. Return one gradient per input of {name} (None for an "
            "input that gets none)."
        )
    grads = [
        _checked(name, g, x, position) for position, (g, x) in enumerate(zip(input_grads + variable_grads, op.inputs))
    ]
    return tuple(g if need else None for g, need in zip(grads, needs))


def _checked(name, grad, like, position):
    """``grad`` as a tensor of ``like``'s shape and dtype, or an error naming the function."""
    if grad is None:
        return None
    which = f"input {position}" if not hasattr(like, "assign") else f"variable '{like.name}'"
    try:
        grad = convert_to_tensor(grad, dtype=like.dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"custom_gradient function {name}'s grad_fn returned a gradient for {which} that is not a "
            f"{like.dtype.name} tensor ({exc}). Return gradients of the same dtype as the inputs."
        ) from None
    if tuple(grad.shape) != tuple(like.shape):
        raise ValueError(
            f"custom_gradient function {name}'s grad_fn returned a gradient of shape {tuple(grad.shape)} "
            f"for {which}, which has shape {tuple(like.shape)}. Each gradient must have its input's shape "
            "(sum over broadcast axes with tf.reduce_sum if the input was broadcast)."
        )
    return grad


def _as_list(grads):
    return list(grads) if isinstance(grads, (list, tuple)) else [grads]
