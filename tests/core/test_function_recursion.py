"""A tf.function that calls itself with the same input signature while it is being traced recurses forever
in TF 2.21 (RecursionError, TF's function guide); recursion on Python values traces once per value."""

import pytest

import tapeviz as tf


def test_recursion_on_a_traced_tensor_raises_as_tf():
    @tf.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1

    with pytest.raises(RecursionError, match="calls itself, while being traced"):
        recursive_fn(tf.constant(5))
    assert recursive_fn.experimental_get_tracing_count() == 0  # nothing half-traced is kept


def test_recursion_on_python_values_traces_each_value():
    @tf.function
    def factorial(n):
        return 1 if n <= 1 else n * factorial(n - 1)

    assert int(factorial(5)) == 120
    assert int(factorial(5)) == 120  # the trace of 5 is reused
