"""TF 2.21's values for tests/core/test_tensor.py (lists holding tensors, packed by convert_to_tensor).

Run with TensorFlow installed: python tests/tf_reference/autopacking_reference.py
"""

import tensorflow as tf


def main():
    x = tf.Variable(3.0)
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        packed = tf.convert_to_tensor([x, x * x])
        packed_sum = tf.reduce_sum(packed)
        summed = tf.reduce_sum([x, x * x, 2.0])
        added = tf.reduce_sum(tf.add([x, x * x], 1.0))
        nested = tf.reduce_sum(tf.convert_to_tensor([[1.0, 2.0], v * 3.0]))
        joined = tf.reduce_sum(tf.constant(2.0) * tf.concat([[x], [x * x]], 0))
        asked_other = tf.reduce_sum(tf.convert_to_tensor([x, 2.0], dtype=tf.float64))
    print("packed", packed.numpy().tolist(), tape.gradient(packed_sum, x).numpy())
    print("summed", summed.numpy(), tape.gradient(summed, x).numpy())
    print("added", added.numpy(), tape.gradient(added, x).numpy())
    print("nested", nested.numpy(), tape.gradient(nested, v).numpy().tolist())
    print("joined", joined.numpy(), tape.gradient(joined, x).numpy())
    print("asked_other", asked_other.numpy(), tape.gradient(asked_other, x))
    for name, make in [
        ("mixed dtypes", lambda: tf.convert_to_tensor([tf.constant(1.0), tf.constant(1)])),
        ("float next to an int tensor", lambda: tf.convert_to_tensor([tf.constant(1), 2.5])),
    ]:
        try:
            make()
        except Exception as error:  # noqa: BLE001 - the class is the reference value
            print(name, type(error).__name__)
    print("stack of a tensor and a number", tf.stack([tf.constant(1.0), 2]).dtype.name)
    print("asked float64", repr(tf.convert_to_tensor([x, 0.1], dtype=tf.float64).numpy().tolist()))
    print("int tensor asked float64", tf.convert_to_tensor([tf.constant(1), 0.1], dtype=tf.float64).numpy().tolist())


if __name__ == "__main__":
    main()
