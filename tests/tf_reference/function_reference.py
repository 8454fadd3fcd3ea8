"""TF 2.21 behaviour of tf.function tracing behind tests/core/test_function.py.

Run with TensorFlow installed: python tests/tf_reference/function_reference.py. Printed on
TF 2.21.0 (tf.print writes to stderr, so its "Executing with" lines are not in this text):

    -- counts
    Tracing with Tensor("x:0", shape=(), dtype=float32) 2
    Tracing with Tensor("x:0", shape=(1,), dtype=float32) 2
    Tracing with Tensor("x:0", shape=(), dtype=int32) 2
    Tracing with Tensor("x:0", shape=(), dtype=float32) 3
    count 4
    count np scalar 4
    Tracing with Tensor("x:0", shape=(2,), dtype=float64) 2
    count np array 5
    Tracing with 2.0 2
    Tracing with 3.0 2
    count python 7
    -- signature
    Tracing with Tensor("x:0", shape=(None,), dtype=int32)
    tf.Tensor([4 1], shape=(2,), dtype=int32)
    tf.Tensor([ 4  1 10  2], shape=(4,), dtype=int32)
    count 1
    -- relaxed
    trace h Tensor("x:0", shape=(1,), dtype=float32)
    trace h Tensor("x:0", shape=(None,), dtype=float32)
    trace h Tensor("x:0", dtype=float32)
    count 3
    -- variables
    ValueError ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables for more information.
    1 2 3
    -- printed
    Input Parameters:
      x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)
      y (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=tf.float32, name=None)
    Output Type:
      Dict[['a', TensorSpec(shape=(2,), dtype=tf.float32, name=None)], ['b', List[TensorSpec(shape=(), dtype=tf.float32, name=None)]]]
    Captures:
      None
    -- methods
    trace M
    trace M
    m1 count 1
"""

import numpy as np
import tensorflow as tf


def counts():
    @tf.function
    def f(x, n=2):
        print("Tracing with", x, n)
        tf.print("Executing with", x)
        return x * n

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    f(tf.constant([1.0]))
    f(tf.constant(1))
    f(tf.constant(1.0), 3)
    f(tf.constant(1.0), 3)
    print("count", f.experimental_get_tracing_count())
    f(np.float32(1.0))
    print("count np scalar", f.experimental_get_tracing_count())
    f(np.array([1.0, 2.0]))
    f(np.array([3.0, 2.0]))
    print("count np array", f.experimental_get_tracing_count())
    f(2.0)
    f(2.0)
    f(3.0)
    print("count python", f.experimental_get_tracing_count())


def signature():
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    print(next_collatz(tf.constant([1, 2])))
    print(next_collatz(tf.constant([1, 2, 3, 4])))
    print("count", next_collatz.experimental_get_tracing_count())


def relaxed():
    @tf.function(reduce_retracing=True)
    def h(x):
        print("trace h", x)
        return x * 2

    h(tf.constant([1.0]))
    h(tf.constant([1.0, 2.0]))
    h(tf.constant([1.0, 2.0, 3.0]))
    h(tf.constant([[1.0]]))
    print("count", h.experimental_get_tracing_count())


def variables():
    @tf.function
    def g(x):
        v = tf.Variable(1.0)
        return v + x

    try:
        g(tf.constant(1.0))
    except ValueError as exc:
        print("ValueError", str(exc).strip().splitlines()[-1].strip())

    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    print(c().numpy(), c().numpy(), c().numpy())


def printed():
    @tf.function
    def k4(x, y):
        return {"a": x + y, "b": [x]}

    c4 = k4.get_concrete_function(tf.constant(1.0), tf.constant([2.0, 3.0]))
    print(c4.pretty_printed_signature())


def methods():
    class M(tf.Module):
        @tf.function
        def __call__(self, x):
            print("trace M")
            return x

    m1, m2 = M(), M()
    m1(tf.constant(1.0))
    m2(tf.constant(1.0))
    m1(tf.constant(2.0))
    print("m1 count", m1.__call__.experimental_get_tracing_count())


for case in (counts, signature, relaxed, variables, printed, methods):
    print(f"-- {case.__name__}")
    case()
