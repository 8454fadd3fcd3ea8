"""Helpers shared by the tests that compare tapeviz with numbers pasted from TF.

The TF side is tests/tf_reference/ops_reference.py; ``weights`` and
``grads`` here are the same expressions as there, so a pasted gradient is
the gradient of the same loss.
"""

import numpy as np

import tapeviz as tf


def weights(*shape):
    """The fixed weights of a loss sum(out * weights): cos(0), cos(1), ... (float64)."""
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape)


def grads(fn, *values, dtype=tf.float32):
    """Gradients of sum(fn(*variables) * weights) with respect to each input, as NumPy arrays."""
    variables = [tf.Variable(np.asarray(v), dtype=dtype) for v in values]
    with tf.GradientTape() as tape:
        out = fn(*variables)
        loss = tf.reduce_sum(out * tf.constant(weights(*out.shape), dtype=out.dtype))
    return [None if g is None else np.asarray(g) for g in tape.gradient(loss, variables)]


def assert_tf(actual, expected, rtol=1e-6, atol=1e-6):
    """``actual`` (tensors, arrays, nested lists) equals TF's pasted ``expected``."""
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        assert len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            assert_tf(a, e, rtol, atol)
        return
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol
    )
