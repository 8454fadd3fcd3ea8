"""TF 2.21's conversion of tf.concat's Python values behind
tests/core/primitives/array/test_array_ops.py::test_concat_converts_python_values_to_the_first_tensors_dtype.

Run with TensorFlow installed; it prints each case's dtype and values (or the error's class), which
the test stores:

    python tests/tf_reference/concat_matching_reference.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

CASES = {
    "float_then_int_list": lambda: tf.concat((tf.constant([1.0]), [2]), axis=0),
    "int_list_then_float": lambda: tf.concat(([2], tf.constant([1.0])), axis=0),
    "int_then_float_list": lambda: tf.concat((tf.constant([1]), [2.5]), axis=0),
    "lists_only": lambda: tf.concat(([1, 2], [3]), axis=0),
    "float64_then_list": lambda: tf.concat((tf.constant([1.0], tf.float64), [2.0]), axis=0),
}

if __name__ == "__main__":
    for name, case in CASES.items():
        try:
            result = case()
        except Exception as exc:  # noqa: BLE001 - the reference records whatever TF raises
            print(name, "error", type(exc).__name__)
        else:
            print(name, result.dtype.name, result.numpy().tolist())
