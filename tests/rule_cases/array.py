"""Cases for the shape and indexing rules."""

import numpy as np

import tapeviz as tf
from tapeviz.core.primitives.array import gather_grad, gather_nd_grad, slice_grad, symbolic_shapes
from tests.rule_cases import Case, rand

_IDX = np.array([[2, 0], [1, 2]])  # with a repeat, so the scatter must add
_ND_IDX = np.array([[0, 1], [2, 0], [0, 1]])

CASES = {
    "ReadVariableOp": Case(lambda v: v.read_value() * v, [rand(3)], variables=True),
    "Reshape": Case(lambda x: tf.reshape(x, [3, 2]) * rand(3, 2), [rand(2, 3)]),
    # what a trace records for a reshape to sizes read from its inputs (tf.reshape(x, [tf.shape(x)[0], -1]))
    "ReshapeTo": Case(lambda x: symbolic_shapes.reshape(x, tf.constant([3, 2])) * rand(3, 2), [rand(2, 3)]),
    "BroadcastToShape": Case(lambda x: symbolic_shapes.broadcast_to(x, tf.constant([2, 3])) * rand(2, 3), [rand(1, 3)]),
    "BroadcastTo": Case(lambda x: tf.broadcast_to(x, [2, 3]), [rand(1, 3)]),
    "Squeeze": Case(lambda x: tf.squeeze(x, axis=[0, 2]) * rand(3), [rand(1, 3, 1)]),
    "Fill": Case(lambda x: tf.fill([2, 3], x * x) * rand(2, 3), [rand()]),
    "Transpose": Case(lambda x: tf.transpose(x) * rand(3, 2), [rand(2, 3)]),
    "StridedSlice": Case(lambda x: x[1:, ::2] * x[0, 0], [rand(3, 4)]),
    "StridedSliceGrad": Case(lambda g: slice_grad(g * g, (slice(1, 3),), (4, 2)), [rand(2, 2)]),
    "Pack": Case(lambda x, y: tf.stack([x, y * y], axis=1), [rand(2, 3), rand(2, 3)]),
    "Unpack": Case(lambda x: tf.unstack(x, axis=1)[0] * tf.unstack(x, axis=1)[2], [rand(2, 3)]),
    "ConcatV2": Case(lambda x, y: tf.concat([x, y * y, x], axis=1), [rand(2, 3), rand(2, 1)]),
    "SplitV": Case(lambda x: tf.split(x, [1, -1], axis=1)[1] * tf.split(x, 3, axis=1)[0], [rand(2, 3)]),
    "Tile": Case(lambda x: tf.tile(x, [2, 3]) * tf.tile(x, [2, 3]), [rand(2, 3)]),
    "Pad": Case(lambda x: tf.pad(x * x, [[1, 0], [2, 1]], constant_values=0.5), [rand(2, 3)]),
    "ReverseV2": Case(lambda x: tf.reverse(x, [1]) * x, [rand(2, 3)]),
    "GatherV2": Case(lambda x: tf.gather(x * x, _IDX, axis=1), [rand(2, 3)]),
    "GatherV2Grad": Case(lambda g: gather_grad(g * g, tf.constant(_IDX), 1, 0, (2, 3)), [rand(2, 2, 2)]),
    "GatherNd": Case(lambda x: tf.gather_nd(x * x, _ND_IDX), [rand(3, 2, 2)]),
    "GatherNdGrad": Case(lambda g: gather_nd_grad(g * g, tf.constant(_ND_IDX), 0, (3, 2, 2)), [rand(3, 2)]),
}
