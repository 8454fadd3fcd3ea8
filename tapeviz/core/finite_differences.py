"""Numerical gradient checking: compare a tape's gradients with finite differences (was tapeviz.testing).

Used by the test suite for every rule, and by ``tapeviz.gradcheck`` for users'
own functions and custom gradients. Work in float64: float32 differences are
too coarse to tell a wrong rule from rounding.
"""

import numpy as np

from tapeviz.core.primitives.math import add_n, reduce_sum
from tapeviz.core.tape import GradientTape
from tapeviz.core.tensor import constant, convert_to_tensor


def _scalarize(output, weights):
    """A scalar from ``output``: a fixed random projection, so every output element matters."""

    return reduce_sum(output * weights)


def projection_weights(fn, arrays, seed=0, make_input=constant):
    """Random weights of the shape of ``fn``'s output, to project it to a scalar."""
    out = fn(*[make_input(a) for a in arrays])
    rng = np.random.default_rng(seed)
    return constant(rng.uniform(0.5, 1.5, size=out.shape).astype(out.dtype.as_numpy_dtype))


def analytic_gradients(fn, arrays, weights, make_input=constant):
    """Gradients of sum(fn(*arrays) * weights) from a GradientTape, as NumPy arrays.

    ``make_input`` turns each array into what ``fn`` gets: a constant
    (watched) by default, or ``tf.Variable`` to differentiate through reads.
    """
    tensors = [make_input(a) for a in arrays]
    with GradientTape() as tape:
        tape.watch(tensors)
        loss = _scalarize(fn(*tensors), weights)
    grads = tape.gradient(loss, tensors)
    return [None if g is None else np.asarray(convert_to_tensor(g)) for g in grads]  # IndexedSlices densified


def numeric_gradients(fn, arrays, weights, eps=1e-6, make_input=constant):
    """Central finite differences of sum(fn(*arrays) * weights), one array per input."""
    w = np.asarray(weights)
    result = []
    for position, array in enumerate(arrays):
        grad = np.zeros_like(array, dtype=np.float64)
        for index in np.ndindex(array.shape):
            values = []
            for step in (eps, -eps):
                shifted = [a.copy() for a in arrays]
                shifted[position][index] += step
                values.append(float(np.sum(np.asarray(fn(*[make_input(a) for a in shifted])) * w)))
            grad[index] = (values[0] - values[1]) / (2 * eps)
        result.append(grad)
    return result


def hessian_vector(fn, arrays, weights, vectors, make_input=constant):
    """d/dx <grad f(x), v> by nested tapes (the second-order rules), as NumPy arrays."""
    tensors = [make_input(a) for a in arrays]
    vs = [constant(v) for v in vectors]
    with GradientTape() as outer:
        outer.watch(tensors)
        with GradientTape() as inner:
            inner.watch(tensors)
            loss = _scalarize(fn(*tensors), weights)
        grads = inner.gradient(loss, tensors)

        terms = [reduce_sum(g * v) for g, v in zip(grads, vs) if g is not None]
        directional = add_n(terms) if terms else None
    if directional is None:
        return [None] * len(arrays)
    second = outer.gradient(directional, tensors)
    return [None if g is None else np.asarray(g) for g in second]


def numeric_hessian_vector(fn, arrays, weights, vectors, eps=1e-5, make_input=constant):
    """Finite differences of <analytic grad f(x), v>: checks the rules' own derivatives."""

    def directional(*xs):
        grads = analytic_gradients(fn, [np.asarray(x) for x in xs], weights, make_input)
        return constant(sum(float(np.sum(g * v)) for g, v in zip(grads, vectors) if g is not None), dtype="float64")

    return numeric_gradients(directional, arrays, constant(1.0, dtype="float64"), eps)
