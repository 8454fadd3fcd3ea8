"""TF's forward mode behind tests/viz/test_tangents.py. Run with TensorFlow installed:

    python tests/tf_reference/tangent_player_reference.py

It prints the JVP of every intermediate value of a small model (a variable
read, a matmul, a broadcast add, tanh, a square, a reduction) along one
tangent per primal, from tf.autodiff.ForwardAccumulator, in float64.

Printed on TF 2.21.0:

    z [[1.7000000000000002, -0.54]]
    h [[0.1297207729179352, -0.3801198781583281]]
    loss 0.16432042163133392
"""

import numpy as np
import tensorflow as tf

np.set_printoptions(precision=17)
x = tf.constant([[0.5, -1.2, 2.0]], dtype=tf.float64)
w = tf.Variable([[1.0, -0.5], [0.3, 0.8], [-1.1, 0.4]], dtype=tf.float64)
b = tf.constant([0.1, -0.2], dtype=tf.float64)
vx = tf.constant([[1.0, 0.5, -1.0]], dtype=tf.float64)
vw = tf.constant([[0.1, 0.0], [0.0, 0.2], [-0.3, 0.1]], dtype=tf.float64)
with tf.autodiff.ForwardAccumulator(primals=[x, w], tangents=[vx, vw]) as acc:
    z = tf.matmul(x, w) + b
    h = tf.tanh(z)
    loss = tf.reduce_sum(h * h)
for name, value in [("z", z), ("h", h), ("loss", loss)]:
    print(name, acc.jvp(value).numpy().tolist())
