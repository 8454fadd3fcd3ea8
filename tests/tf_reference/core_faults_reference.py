"""TF 2.21 (tensorflow-cpu) behaviour behind tests/core/test_tape_faults.py. Run with TensorFlow installed:

    python tests/tf_reference/core_faults_reference.py

Printed on TF 2.21.0:

    empty jacobian: (TensorShape([0, 3]), tf.float32)
    stop_recording inside custom_gradient: ok
    grad tf.Tensor(4.0, shape=(), dtype=float32)
    mixed keys: TypeError '<' not supported between instances of 'int' and 'str'
    wrong shape custom grad: tf.Tensor([1. 1. 1. 1. 1.], shape=(5,), dtype=float32)
    batch_jacobian rank1: ValueError Shape (2,) must have rank at least 2

tapeviz matches the first three and the last; for mixed dict keys it raises a
TypeError that says what to do, and a custom gradient of the wrong shape is an
error naming the function (TF returns it silently and fails far away): see
docs/tf-map.md.
"""

import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x[:0] * 2.0
j = tape.jacobian(y, x)
print("empty jacobian:", None if j is None else (j.shape, j.dtype))
x = tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch(x)

    @tf.custom_gradient
    def f(x):
        try:
            with tape.stop_recording():
                y = x * x
            print("stop_recording inside custom_gradient: ok")
        except Exception as e:
            print("stop_recording inside custom_gradient:", type(e).__name__, e)
            y = x * x
        return y, lambda g: g * 2.0 * x

    y = f(x)
print("grad", tape.gradient(y, x))
a, b = tf.constant(1.0), tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch([a, b])
    y = a * b
try:
    tape.gradient(y, {"a": a, 1: b})
except Exception as e:
    print("mixed keys:", type(e).__name__, str(e)[:200])


@tf.custom_gradient
def clip(x):
    def grad(upstream):
        return tf.ones([5])

    return tf.identity(x), grad


x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(clip(x))
try:
    print("wrong shape custom grad:", tape.gradient(y, x))
except Exception as e:
    print("wrong shape custom grad:", type(e).__name__, str(e)[:200])
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(x, axis=1)
try:
    tape.batch_jacobian(y, x)
except Exception as e:
    print("batch_jacobian rank1:", type(e).__name__, str(e)[:150])
