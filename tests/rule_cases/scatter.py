"""Cases for the scatter and top_k rules."""

import numpy as np

import tapeviz as tf
from tests.rule_cases import Case, rand

_IDX = np.array([[0, 1], [2, 0], [0, 1]])  # a repeat: scatter_nd adds, gather_nd gathers twice
_DISTINCT = np.array([[0, 1], [2, 0]])
_HALF_UP = np.array([[5.0, -5.0], [-5.0, 5.0]])  # half the updates win, half lose, none near a tie

CASES = {
    # Distinct values (away from ties), along the last axis of a batch; k < n.
    "TopKV2": Case(lambda x: tf.math.top_k(x * x, k=2).values, [rand(2, 4) + np.arange(4)]),
    "ScatterNd": Case(lambda u: tf.scatter_nd(_IDX, u * u, [3, 2, 2]), [rand(3, 2)]),
    "TensorScatterUpdate": Case(
        lambda t, u: tf.tensor_scatter_nd_update(t * t, _DISTINCT, u * u), [rand(3, 2, 2), rand(2, 2)]
    ),
    "TensorScatterAdd": Case(lambda t, u: tf.tensor_scatter_nd_add(t * t, _IDX, u * u), [rand(3, 2, 2), rand(3, 2)]),
    "TensorScatterSub": Case(lambda t, u: tf.tensor_scatter_nd_sub(t * t, _IDX, u * u), [rand(3, 2, 2), rand(3, 2)]),
    # Away from ties (the rule splits them evenly, as TF's): updates drawn apart from the tensor's values.
    "TensorScatterMax": Case(
        lambda t, u: tf.tensor_scatter_nd_max(t, _DISTINCT, u), [rand(3, 2, 2), rand(2, 2) + _HALF_UP]
    ),
    "TensorScatterMin": Case(
        lambda t, u: tf.tensor_scatter_nd_min(t, _DISTINCT, u), [rand(3, 2, 2), rand(2, 2) + _HALF_UP]
    ),
}
