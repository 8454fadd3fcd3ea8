"""``tf.autodiff.ForwardAccumulator``: forward-mode Jacobian-vector products.

tapeviz computes a JVP from the reverse-mode rules with the "double VJP"
trick: the VJP u -> J^T u is linear in u, so J v is the gradient of
<J^T u, v> with respect to u. Every op with a reverse rule therefore has a
forward mode too, and nested tapes still see everything.
"""

from tapeviz.core import nest
from tapeviz.core.primitives.math import add_n, reduce_sum
from tapeviz.core.primitives.array import ones_like, zeros_like
from tapeviz.core.tape import GradientTape, UnconnectedGradients, _unconnected, sweep
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor


class ForwardAccumulator:
    """Compute d(output)/d(primals) · tangents for outputs computed inside the block.

    Usage, as in TF::

        with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
            y = f(x)
        acc.jvp(y)
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

    def __enter__(self):
        self._tape.__enter__()
        self._tape.watch(self._primals)
        return self

    def __exit__(self, *exc_info):
        return self._tape.__exit__(*exc_info)

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The JVP of each tensor in ``primals`` (any nested structure), or None if unconnected."""
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
