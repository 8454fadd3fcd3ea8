"""TF's top-level gradient helpers: ``tf.recompute_grad``, ``tf.grad_pass_through``, ``tf.no_gradient``, ``tf.hessians``.

``recompute_grad`` and ``grad_pass_through`` are ``tf.custom_gradient``
functions, as TF writes them: the first runs its function again under a tape
when the gradient is asked for (TF does it to save memory; here the picture
shows it), the second lets the upstream gradient through unchanged.
"""

from tapeviz.core import nest as _nest
from tapeviz.core.custom_gradient import custom_gradient as _custom_gradient
from tapeviz.core.primitive import PRIMITIVES as _PRIMITIVES
from tapeviz.core.rules import RULES as _RULES
from tapeviz.core.tape import GradientTape as _GradientTape

__all__ = ["grad_pass_through", "hessians", "no_gradient", "recompute_grad"]


def recompute_grad(f):
    """``f`` whose gradient is computed by running ``f`` again, as TF's ``tf.recompute_grad``.

    Same values and gradients as ``f`` (also for the variables it reads); the
    forward pass keeps nothing for the sweep, and the sweep runs ``f`` anew
    under a tape of its own.

    Args:
        f: a function of tensors.

    Returns:
        A function with ``f``'s value and gradient.

    Example:
        >>> import tapeviz as tf
        >>> block = tf.recompute_grad(lambda x: tf.sin(x) * 3.0)
        >>> x = tf.constant(0.0)
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = block(x)
        >>> print(tape.gradient(y, x).numpy())
        3.0
    """

    @_custom_gradient
    def recomputed(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad_fn(*upstream, variables=None):
            with _GradientTape() as tape:
                tape.watch(list(args))
                again = f(*args, **kwargs)
            sources = [*args, *(variables or [])]
            grads = tape.gradient(_nest.flatten(again), sources, output_gradients=list(upstream))
            if variables:
                return grads[: len(args)], grads[len(args) :]
            return grads

        return result, grad_fn

    recomputed.__wrapped__ = f
    return recomputed


def grad_pass_through(f):
    """``f``'s value with the identity's gradient, as TF's ``tf.grad_pass_through`` (a straight-through estimator).

    The upstream gradient reaches ``f``'s inputs unchanged (so ``f`` must keep
    their shapes); variables ``f`` reads get no gradient.

    Args:
        f: a function of tensors.

    Returns:
        A function with ``f``'s value whose gradient passes its input's upstream unchanged.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.constant([0.4, 1.6])
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = tf.reduce_sum(tf.grad_pass_through(tf.round)(x) * 2.0)
        >>> print(tape.gradient(y, x).numpy())
        [2. 2.]
    """

    @_custom_gradient
    def passed_through(*args, **kwargs):
        def grad_fn(*upstream, variables=None):
            if variables:
                return list(upstream), [None] * len(variables)
            return list(upstream)

        return f(*args, **kwargs), grad_fn

    passed_through.__wrapped__ = f
    return passed_through


_DECLARED = set()  # op types declared without a gradient, as TF's registry remembers them


def no_gradient(op_type):
    """Declare ``op_type`` (a primitive's name) to have no gradient: sweeps pass it with ``None``, as TF's.

    As TF: a name that already has a gradient, or one declared before, raises
    ``KeyError``. A tapeviz primitive without a rule (``AdjustContrastv2``)
    then gives ``None`` instead of ``LookupError``; a name tapeviz has no
    primitive for is remembered.

    Args:
        op_type: the name of a primitive (``"Relu"``).

    Raises:
        TypeError: a name that is not a string.
        KeyError: a name that already has a gradient, or was declared before.
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    primitive = _PRIMITIVES.get(op_type)
    if op_type in _DECLARED or (primitive is not None and primitive in _RULES):
        raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous registration was in tapeviz)")
    _DECLARED.add(op_type)
    if primitive is not None:
        primitive.differentiable = False
        primitive.rule = None


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """``tf.hessians`` belongs to TF's graph mode, like ``tf.gradients``: eagerly TF raises, and so does tapeviz.

    Raises RuntimeError saying what to write instead: two nested tapes and a jacobian.

    Args:
        ys: TF's targets.
        xs: TF's sources.
        gate_gradients: TF's option.
        aggregation_method: TF's option.
        name: TF's op name.

    Raises:
        RuntimeError: always (use nested tapes and a jacobian), as TF 2 raises eagerly.
    """
    raise RuntimeError(
        "tf.hessians is not supported when eager execution is enabled (it is tf.gradients twice). "
        "Use nested tf.GradientTape instead:\n"
        "    with tf.GradientTape() as outer:\n"
        "        with tf.GradientTape() as inner:\n"
        "            y = f(x)\n"
        "        g = inner.gradient(y, x)\n"
        "    hessian = outer.jacobian(g, x)"
    )
