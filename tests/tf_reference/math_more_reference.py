"""TF 2.21 values, dtypes and gradients behind tests/test_math_more.py (the newer tf.math ops).

``cases(tf)`` runs on TensorFlow or tapeviz: each case gives its function and its
float64 sources; ``run(tf)`` returns name -> (value, dtype name, [gradient per source]),
a gradient None where the tape gives none. With TensorFlow installed, print the dicts
that tests/test_math_more.py stores as TF_VALUES and TF_PLAIN:

    python tests/tf_reference/math_more_reference.py
"""

import pprint

import numpy as np

INF, NAN = float("inf"), float("nan")


def cases(tf):
    """name -> (function of the sources, sources as float64 NumPy arrays)."""
    m = tf.math
    return {
        "polyval": (lambda c, x: m.polyval([c[0], c[1], c[2]], x), [[1.5, -2.0, 3.0], [0.5, 2.0, -1.25]]),
        "xlog1py": (m.xlog1py, [[0.0, 0.0, 1.0, 2.0, -0.5], [-1.0, 2.0, 3.0, -1.0, 0.25]]),
        "xlog1py_broadcast": (m.xlog1py, [[[0.0], [1.5]], [0.5, 2.0, 3.0]]),
        "reciprocal_no_nan": (m.reciprocal_no_nan, [[0.0, 2.0, -4.0, 0.5]]),
        "multiply_no_nan": (m.multiply_no_nan, [[INF, NAN, 1.0, 2.0, -3.0], [0.0, 0.0, 3.0, 0.0, 0.5]]),
        "multiply_no_nan_broadcast": (m.multiply_no_nan, [[[1.0, 2.0], [3.0, 4.0]], [0.0, 5.0]]),
        "softsign": (m.softsign, [[-2.0, 0.0, 3.0, 0.25]]),
        "softsign_huge": (m.softsign, [[INF, -INF, 1e30, -1e200]]),
        "rint": (m.rint, [[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.2]]),
        "zero_fraction": (m.zero_fraction, [[[0.0, 1.5], [2.0, 0.0], [0.0, 0.0]]]),
        "cumulative_logsumexp": (
            lambda x: m.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True),
            [[[1.0, 2.0, 3.0, -0.5, 4.0], [0.0, -1.0, 5.0, 5.0, 2.5]]],
        ),
        "cumulative_logsumexp_axis0": (m.cumulative_logsumexp, [[[1.0, -2.0], [3.0, 0.5], [-1.0, 0.25]]]),
        "cumulative_logsumexp_far_apart": (
            lambda x: m.cumulative_logsumexp(x, axis=-1, reverse=True),
            [[-1000.0, 0.0, 1.0, -2000.0]],
        ),
        "cumulative_logsumexp_infinities": (m.cumulative_logsumexp, [[-INF, 1.0, -INF, 2.0, INF, 0.0]]),
        "accumulate_n": (
            lambda a, b: m.accumulate_n([a, b, a], shape=[2, 2]),
            [[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.25]]],
        ),
    }


def plain_cases(tf):
    """name -> a thunk of ops with no gradient (bool and integer results)."""
    m = tf.math
    return {
        "logical_xor": lambda: m.logical_xor([True, False, True, False], [True, True, False, False]),
        "logical_xor_broadcast": lambda: m.logical_xor([[True], [False]], [True, False]),
        "count_nonzero_all": lambda: m.count_nonzero([[0.0, 1.5], [2.0, 0.0]]),
        "count_nonzero_axis_keepdims_int32": lambda: m.count_nonzero(
            [[0, 1, 3], [2, 0, 0]], axis=1, keepdims=True, dtype=tf.int32
        ),
        "count_nonzero_bool": lambda: m.count_nonzero([[True, False], [True, True]], axis=0),
        "count_nonzero_string": lambda: m.count_nonzero(["a", "", "b"]),
        "zero_fraction_int": lambda: m.zero_fraction([0, 1, 2]),
        "is_non_decreasing_ties": lambda: m.is_non_decreasing([1, 1, 2]),
        "is_non_decreasing_down": lambda: m.is_non_decreasing([1.0, 3.0, 2.0]),
        "is_strictly_increasing_ties": lambda: m.is_strictly_increasing([1, 1, 2]),
        "is_strictly_increasing_matrix": lambda: m.is_strictly_increasing([[1, 2], [3, 4]]),
        "is_strictly_increasing_rows_read_in_order": lambda: m.is_strictly_increasing([[1, 5], [3, 4]]),
        "is_non_decreasing_empty": lambda: m.is_non_decreasing(tf.zeros([0])),
        "is_strictly_increasing_scalar": lambda: m.is_strictly_increasing(5),
        "invert_permutation": lambda: m.invert_permutation([3, 4, 0, 2, 1]),
        "invert_permutation_int64": lambda: m.invert_permutation(tf.constant([1, 2, 0], tf.int64)),
        "accumulate_n_int": lambda: m.accumulate_n([[1, 2], [3, 4]]),
        "cumulative_logsumexp_float32_far_apart": lambda: m.cumulative_logsumexp([-1000.0, 0.0, 1.0]),
        "accumulate_n_one": lambda: m.accumulate_n([[1.5, 2.5]], tensor_dtype=tf.float32),
    }


def run_plain(tf):
    return {name: (np.asarray(thunk().numpy()).tolist(), thunk().dtype.name) for name, thunk in plain_cases(tf).items()}


def run(tf):
    results = {}
    for name, (fn, sources) in cases(tf).items():
        xs = [tf.constant(np.asarray(s, dtype=np.float64)) for s in sources]
        with tf.GradientTape(persistent=True) as tape:
            for x in xs:
                tape.watch(x)
            y = fn(*xs)
        grads = [tape.gradient(y, x) for x in xs]
        results[name] = (
            y.numpy().tolist(),
            y.dtype.name,
            [None if g is None else g.numpy().tolist() for g in grads],
        )
    return results


if __name__ == "__main__":
    import tensorflow as tf

    pprint.pprint(run(tf), width=110)
    pprint.pprint(run_plain(tf), width=110)
