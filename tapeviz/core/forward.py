"""``tf.autodiff.ForwardAccumulator``: forward-mode Jacobian-vector products.

tapeviz computes a JVP from the reverse-mode rules with the "double VJP"
trick: the VJP u -> J^T u is linear in u, so J v is the gradient of
<J^T u, v> with respect to u. Every op with a reverse rule therefore has a
forward mode too, and nested tapes still see everything.

:func:`op_jvp` does the same for ONE recorded op: its outputs' tangents from
its inputs' tangents, through that op's rule alone (what the visualizer's
tangent player shows step by step).
"""

from tapeviz.core import nest, state
from tapeviz.core.primitives.array import ones_like, zeros_like
from tapeviz.core.primitives.math import add_n, reduce_sum
from tapeviz.core.tape import GradientTape, UnconnectedGradients, _unconnected, sweep
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor


class ForwardAccumulator:
    """Compute d(output)/d(primals) · tangents for outputs computed inside the block.

    Forward mode: the Jacobian-vector product of every output with the
    ``tangents``, in one pass, without a tape. Nested inside a
    ``GradientTape`` it gives Hessian-vector products.

    Args:
        primals: a Tensor or Variable, or a nested structure of them: the
            inputs that move.
        tangents: the direction each primal moves in, of its shape and dtype.

    Returns:
        The accumulator, as the ``with`` block's target.

    Raises:
        ValueError: a tangent of another shape or dtype than its primal, or
            not one tangent per primal.
        TypeError: a primal that is not a Tensor or Variable.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.Variable(3.0)
        >>> with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant(1.0)) as acc:
        ...     y = x * x
        >>> print(acc.jvp(y))
        tf.Tensor(6.0, shape=(), dtype=float32)
    """

    def __init__(self, primals, tangents):
        self._primals = nest.flatten(primals)
        self._tangents = [convert_to_tensor(t) for t in nest.flatten(tangents)]
        if len(self._primals) != len(self._tangents):
            raise ValueError(f"ForwardAccumulator got {len(self._primals)} primals but {len(self._tangents)} tangents.")
        for primal, tangent in zip(self._primals, self._tangents):
            if not isinstance(primal, (Tensor, Variable)):
                raise TypeError(f"primals must be Tensors or Variables, got {type(primal).__name__}.")
            if tuple(primal.shape) != tuple(tangent.shape) or primal.dtype != tangent.dtype:
                raise ValueError(
                    f"Tangent {tangent!r} does not match its primal: shape {tuple(primal.shape)} and "
                    f"dtype {primal.dtype.name} are needed."
                )
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)

    @property
    def primals(self):
        """The primals given, flattened (a list of Tensors and Variables)."""
        return list(self._primals)

    @property
    def tangents(self):
        """Their tangents, flattened, as Tensors."""
        return list(self._tangents)

    @property
    def tape(self):
        """The persistent GradientTape that records the block (what ``tapeviz.viz`` draws)."""
        return self._tape

    def __enter__(self):
        self._tape.__enter__()
        self._tape.watch(self._primals)
        return self

    def __exit__(self, *exc_info):
        return self._tape.__exit__(*exc_info)

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The JVP of each tensor in ``primals`` (any nested structure), or None if unconnected.

        Args:
            primals: tensors computed inside the accumulator's block (any
                nested structure).
            unconnected_gradients: ``'none'`` (default: None for a tensor
                that does not depend on the primals) or ``'zero'``.

        Returns:
            For each tensor, d(tensor)/d(primals) · tangents, of the tensor's
            shape, in the structure of ``primals``.

        Example:
            >>> import tapeviz as tf
            >>> x = tf.constant([1.0, 2.0])
            >>> with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
            ...     y = tf.reduce_sum(x**2)
            >>> print(acc.jvp(y))
            tf.Tensor(2.0, shape=(), dtype=float32)
        """
        unconnected = _unconnected(unconnected_gradients)
        results = [self._jvp_of(t, unconnected) for t in nest.flatten(primals)]
        return nest.pack_sequence_as(primals, results)

    def _jvp_of(self, target, unconnected):
        # The VJP is linear in the cotangent, so any value would do, but not 0:
        # the fused kernels (SqrtGrad...) give 0 for a 0 upstream, as TF's do.
        # TF pairs with ones too.
        cotangent = ones_like(target)
        with GradientTape() as dual:
            dual.watch(cotangent)
            if self._tape.recording:
                with self._tape.stop_recording():
                    vjps = sweep(self._tape, [target], self._primals, [cotangent])
            else:
                vjps = sweep(self._tape, [target], self._primals, [cotangent])
            terms = [reduce_sum(g * v) for g, v in zip(vjps, self._tangents) if g is not None]
            pairing = add_n(terms) if terms else None  # inside the block: dual must record it
        jvp = dual.gradient(pairing, cotangent) if terms else None
        if jvp is None and unconnected is UnconnectedGradients.ZERO:
            return zeros_like(target)
        return jvp


def op_jvp(entry, tangents):
    """The tangent of each output of one recorded op, given the tangent of each input.

    ``entry``: a recorded op (``inputs``, ``outputs``, ``attrs``, ``primitive``);
    ``tangents``: one Tensor (or None: no tangent) per input. Returns one
    Tensor or None (not connected, not a float, or no rule) per output. The
    double-VJP trick on the op's rule alone: with ``u`` a cotangent of the
    outputs, J v = d<rule(u), v>/du. No tape of this thread records it.
    """
    outputs = entry.outputs
    rule = entry.primitive.rule
    needs = tuple([t is not None for t in tangents])
    if rule is None or not any(needs):
        return tuple([None] * len(outputs))
    if any(o.dtype.is_complex for o in outputs):
        raise NotImplementedError(
            f"The tangent player does not step through complex tensors yet ({entry.primitive.name} makes one); "
            "acc.jvp(...) gives the result, and a GradientTape's player shows the reverse sweep."
        )
    floats = [o.dtype.is_floating for o in outputs]
    with state.no_tapes():
        cotangents = [zeros_like(o) for o in outputs]
        with GradientTape() as dual:
            dual.watch([u for u, f in zip(cotangents, floats) if f])
            produced = rule(entry, needs, *cotangents)
            if not isinstance(produced, (tuple, list)):
                produced = (produced,)
            terms = [
                reduce_sum(g * convert_to_tensor(v, dtype=g.dtype))
                for g, v, need in zip(produced, tangents, needs)
                if need and g is not None
            ]
            pairing = add_n(terms) if terms else None
        if pairing is None:
            return tuple([None] * len(outputs))
        jvps = dual.gradient(pairing, cotangents)
    return tuple([j if f else None for j, f in zip(jvps, floats)])
