"""The TensorFlow values behind tests/core/primitives/test_numeric_edges.py (issue 17; runs only with TF).

    /tmp/tfenv/bin/python tests/tf_reference/numbers_reference.py

Output of TF 2.21.0 (CPU), pasted as REFERENCE in tests/core/primitives/test_numeric_edges.py:
each entry is a value (as plain lists) or "ErrorType: first line of the
message". The inputs are the same expressions on both sides. Not collected by
pytest, and it imports nothing from tapeviz.
"""

import numpy as np
import tensorflow as tf

NAN = float("nan")


def plain(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    return np.asarray(value).tolist()


def outcome(fn):
    try:
        return plain(fn())
    except Exception as exc:  # noqa: BLE001 - recording which error TF raises
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:90]}"


def cumprod_grad(xs, **kw):
    x = tf.Variable(xs, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.math.cumprod(x, **kw)
    return tape.gradient(y, x)


def batch_jacobian_unconnected(setting, use_pfor):
    x = tf.constant([[1.0, 2.0]], tf.float64)
    u = tf.constant([[1.0, 2.0, 3.0]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    return tape.batch_jacobian(y, u, unconnected_gradients=setting, experimental_use_pfor=use_pfor)


def jacobian_unconnected():
    x, u = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([x, u])
        y = x * 2.0
    return tape.jacobian(y, u)


def relu_second_order():
    x = tf.Variable([-1.0, 2.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.nn.relu(x)
        d = inner.gradient(y, x)
    return outer.gradient(d, x)


def reduce_max_empty_gradient():
    x = tf.Variable(tf.zeros([0, 3]))
    with tf.GradientTape() as tape:
        y = tf.reduce_max(x, axis=0)
    return tape.gradient(y, x).shape


B = tf.constant([True, False, False, False])
I32 = tf.constant([1, 2])
CASES = {
    # 1. cumprod's gradient at a zero: TF divides with div_no_nan and gives 0 (the exact value is 32)
    "cumprod_grad": lambda: cumprod_grad([2.0, 0.0, 3.0, 4.0]),
    "cumprod_grad_two_zeros": lambda: cumprod_grad([2.0, 0.0, 3.0, 0.0]),
    "cumprod_grad_exclusive": lambda: cumprod_grad([2.0, 0.0, 3.0, 4.0], exclusive=True),
    "cumprod_grad_reverse": lambda: cumprod_grad([2.0, 0.0, 3.0, 4.0], reverse=True),
    "cumprod_grad_no_zero": lambda: cumprod_grad([2.0, 0.5, 3.0, 4.0]),
    # 2. bool arithmetic
    "reduce_sum_bool": lambda: tf.reduce_sum(B),
    "reduce_mean_bool": lambda: tf.reduce_mean(B),
    "reduce_prod_bool": lambda: tf.reduce_prod(B),
    "reduce_max_bool": lambda: tf.reduce_max(B),
    "reduce_min_bool": lambda: tf.reduce_min(B),
    "add_bool": lambda: B + B,
    "tf_add_bool": lambda: tf.add(B, B),
    "sub_bool": lambda: B - B,
    "add_n_bool": lambda: tf.add_n([B, B]),
    "cumsum_bool": lambda: tf.cumsum(B),
    "mul_bool": lambda: B * B,
    "reduce_any_bool": lambda: tf.reduce_any(B),
    "mean_of_cast_bool": lambda: tf.reduce_mean(tf.cast(B, tf.float32)),
    # 3. an integer tensor and a Python float
    "int32_plus_float": lambda: I32 + 2.0,
    "tf_add_int32_float": lambda: tf.add(I32, 2.0),
    "float_plus_int32": lambda: 2.0 + I32,
    "int32_minus_float": lambda: I32 - 2.0,
    "int32_times_float": lambda: I32 * 2.5,
    "int32_less_float": lambda: I32 < 2.0,
    "int64_plus_float": lambda: tf.constant([1, 2], tf.int64) + 2.0,
    "constant_float_int32": lambda: tf.constant(2.0, tf.int32),
    "int32_plus_int": lambda: I32 + 2,
    "int32_plus_numpy_float": lambda: I32 + np.float32(2.0),
    "float32_plus_int": lambda: tf.constant([1.0]) + 2,
    # 4. unconnected jacobians, relu's second derivative
    "batch_jacobian_none_pfor": lambda: batch_jacobian_unconnected("none", True),
    "batch_jacobian_none_loop": lambda: batch_jacobian_unconnected("none", False),
    "batch_jacobian_zero": lambda: batch_jacobian_unconnected("zero", True),
    "jacobian_none": jacobian_unconnected,
    "relu_second_order": relu_second_order,
    # 5. max/min over an empty axis
    "reduce_max_empty_axis0": lambda: tf.reduce_max(tf.zeros([0, 3]), axis=0),
    "reduce_min_empty_axis0": lambda: tf.reduce_min(tf.zeros([0, 3]), axis=0),
    "reduce_max_empty_all": lambda: tf.reduce_max(tf.zeros([0])),
    "reduce_max_empty_keepdims": lambda: tf.reduce_max(tf.zeros([0, 2]), axis=0, keepdims=True),
    "reduce_max_empty_axis1": lambda: tf.reduce_max(tf.zeros([2, 0]), axis=1),
    "reduce_max_empty_int32": lambda: tf.reduce_max(tf.zeros([0, 2], tf.int32), axis=0),
    "reduce_min_empty_int32": lambda: tf.reduce_min(tf.zeros([0, 2], tf.int32), axis=0),
    "reduce_max_empty_int8": lambda: tf.reduce_max(tf.zeros([0], tf.int8)),
    "reduce_min_empty_uint8": lambda: tf.reduce_min(tf.zeros([0], tf.uint8)),
    "reduce_max_empty_uint8": lambda: tf.reduce_max(tf.zeros([0], tf.uint8)),
    "reduce_max_empty_float64": lambda: tf.reduce_max(tf.zeros([0], tf.float64)),
    "reduce_max_empty_gradient_shape": reduce_max_empty_gradient,
    "reduce_mean_empty": lambda: tf.reduce_mean(tf.zeros([0])),
    # 6. NaN in argmax/argmin (TF skips it) and in sort/top_k (TF's order depends on the position)
    "argmax_nan": lambda: tf.argmax(tf.constant([3.0, NAN, 1.0, 2.0])),
    "argmin_nan": lambda: tf.argmin(tf.constant([3.0, NAN, 1.0, 2.0])),
    "argmax_nan_first": lambda: tf.argmax(tf.constant([NAN, 3.0, NAN, 1.0])),
    "argmin_nan_first": lambda: tf.argmin(tf.constant([NAN, 3.0, NAN, 1.0])),
    "argmax_all_nan": lambda: tf.argmax(tf.constant([NAN, NAN])),
    "argmin_all_nan": lambda: tf.argmin(tf.constant([NAN, NAN])),
    "argmax_nan_rows": lambda: tf.argmax(tf.constant([[NAN, 1.0, 2.0], [3.0, NAN, NAN]]), axis=1),
    "argmax_nan_columns": lambda: tf.argmax(tf.constant([[NAN, 1.0], [3.0, NAN]]), axis=0),
    "argmax_nan_minus_inf": lambda: tf.argmax(tf.constant([NAN, -np.inf])),
    "argmin_nan_inf": lambda: tf.argmin(tf.constant([NAN, np.inf])),
    "argmax_nan_float64": lambda: tf.argmax(tf.constant([1.0, NAN, 0.5], tf.float64)),
    "sort_nan": lambda: tf.sort(tf.constant([3.0, NAN, 1.0, 2.0])),
    "sort_nan_descending": lambda: tf.sort(tf.constant([3.0, NAN, 1.0, 2.0]), direction="DESCENDING"),
    "sort_nan_first": lambda: tf.sort(tf.constant([NAN, 3.0, NAN, 1.0])),
    "top_k_nan": lambda: tf.math.top_k(tf.constant([3.0, NAN, 1.0, 2.0]), k=2),
    "top_k_nan_first": lambda: tf.math.top_k(tf.constant([NAN, 3.0, NAN, 1.0]), k=4),
    "argsort_nan": lambda: tf.argsort(tf.constant([3.0, NAN, 1.0, 2.0])),
    "argsort_nan_descending": lambda: tf.argsort(tf.constant([3.0, NAN, 1.0, 2.0]), direction="DESCENDING"),
    "sort_no_nan": lambda: tf.sort(tf.constant([3.0, -np.inf, 1.0, np.inf, 1.0])),
    "top_k_no_nan": lambda: tf.math.top_k(tf.constant([3.0, -np.inf, 1.0, np.inf, 1.0]), k=5),
    # 7. log(0)
    "log_zero": lambda: tf.math.log(0.0),
}

if __name__ == "__main__":
    print(f"# TensorFlow {tf.__version__}")
    print("REFERENCE = {")
    for name, fn in CASES.items():
        print(f"    {name!r}: {outcome(fn)!r},")
    print("}")
