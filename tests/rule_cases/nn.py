"""Cases for the neural-network rules."""

import numpy as np

import tapeviz as tf
from tapeviz.core.primitives.nn import relu_grad
from tests.rule_cases import Case, rand

# Away from relu's kink at 0.
_AWAY_FROM_ZERO = np.array([[-1.5, -0.4, 0.3], [0.8, -0.9, 2.0]])
_SPARSE_LABELS = tf.constant([2, 0, 3], dtype=tf.int64)


def _distribution(*shape, seed=0):
    """Rows that sum to 1: what softmax cross-entropy assumes of its labels."""
    p = rand(*shape, low=0.1, high=1.0, seed=seed)
    return p / p.sum(axis=-1, keepdims=True)


def _dense_ce(logits, labels):
    return tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def _dense_ce_gradient(logits, labels):
    """The cross-entropy's gradient taken inside fn: the outer tape records its backprop op."""
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = _dense_ce(logits, labels)
    return tape.gradient(loss, logits)


def _sparse_ce_gradient(logits):
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=_SPARSE_LABELS, logits=logits)
    return tape.gradient(loss, logits)


CASES = {
    "Relu": Case(tf.nn.relu, [_AWAY_FROM_ZERO]),
    "ReluGrad": Case(
        relu_grad,
        [rand(2, 3), _AWAY_FROM_ZERO],
        wrt=(0,),
        notes="linear in the upstream; zero gradient for y away from 0",
    ),
    "Softplus": Case(tf.nn.softplus, [rand(2, 3, low=-3.0, high=3.0)]),
    "Softmax": Case(lambda x: tf.nn.softmax(x, axis=0), [rand(3, 2)]),
    "LogSoftmax": Case(tf.nn.log_softmax, [rand(2, 4)]),
    "SoftmaxCrossEntropyWithLogits": Case(_dense_ce, [rand(3, 4), _distribution(3, 4)]),
    "SparseSoftmaxCrossEntropyWithLogits": Case(
        lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=_SPARSE_LABELS, logits=logits),
        [rand(3, 4)],
    ),
    "SoftmaxCrossEntropyBackprop": Case(
        _dense_ce_gradient,
        [rand(3, 4), _distribution(3, 4)],
        notes="the cross-entropy's second order; the sparse one below",
    ),
}

# The same backprop op reached from the sparse loss (labels are not an input there).
SPARSE_BACKPROP_CASE = Case(_sparse_ce_gradient, [rand(3, 4)])
