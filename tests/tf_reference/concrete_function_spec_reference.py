"""get_concrete_function(TensorSpec) on a tf.function with an input_signature (TF 2.21), for
tests/core/test_function.py:

    /tmp/tfenv/bin/python tests/tf_reference/concrete_function_spec_reference.py

A fitting spec gives the signature's ConcreteFunction (its input is the signature's spec); one that
does not fit raises TypeError, whose message is printed.
"""

import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def f(x):
    return x * 2


print(f.get_concrete_function(tf.TensorSpec([3], tf.float32)).structured_input_signature)
for spec in (tf.TensorSpec([3, 2], tf.float32), tf.TensorSpec([3], tf.int32)):
    try:
        f.get_concrete_function(spec)
    except TypeError as exc:
        print(exc)
