"""The tf.debugging cases compared with TF 2.21: shared by the reference script and tests/test_debugging.py.

Each case is ``name -> code``: Python run with ``tf`` bound to TensorFlow or
tapeviz, ``np`` to NumPy, and ``tf`` only (nothing else is imported here); its
last line's value is the result. ``run`` returns ``["ok", repr of the
result]`` or ``[error type name, message]``.
"""

import numpy as np

CASES = {
    # check_numerics
    "check_numerics:finite": "tf.debugging.check_numerics(tf.constant([1.0, 2.0]), 'fine').numpy().tolist()",
    "check_numerics:nan": "tf.debugging.check_numerics(tf.constant([1.0, np.nan]), 'x has NaN')",
    "check_numerics:inf": "tf.debugging.check_numerics(tf.constant([np.inf, 1.0]), 'x has Inf')",
    "check_numerics:nan_and_inf": "tf.debugging.check_numerics(tf.constant([np.inf, np.nan]), 'both')",
    "check_numerics:float64": "tf.debugging.check_numerics(tf.constant([np.nan], tf.float64), 'f64')",
    "check_numerics:int": "tf.debugging.check_numerics(tf.constant([1, 2]), 'ints')",
    "check_numerics:gradient": (
        "x = tf.constant([0.0, 4.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = tf.debugging.check_numerics(tf.sqrt(x), 'sqrt')\n"
        "tape.gradient(y, x)"
    ),
    "check_numerics:gradient_finite": (
        "x = tf.constant([1.0, 4.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = tf.debugging.check_numerics(x * x, 'square')\n"
        "tape.gradient(y, x).numpy().tolist()"
    ),
    "check_numerics:gradient_checked": (
        "x = tf.constant([0.0, 4.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = tf.math.log(tf.debugging.check_numerics(x, 'before log'))\n"
        "tape.gradient(y, x)"
    ),
    # assert_equal and its kin
    "assert_equal:ok": "tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2]))",
    "assert_equal:fail": "tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))",
    "assert_equal:message": "tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message='mine')",
    "assert_equal:broadcast": "tf.debugging.assert_equal(tf.constant([[1, 2], [3, 4]]), tf.constant(1))",
    "assert_equal:summarize": (
        "tf.debugging.assert_equal(tf.range(10), tf.zeros([10], tf.int32), summarize=3, message='few')"
    ),
    "assert_equal:scalars": "tf.debugging.assert_equal(tf.constant(1.5), tf.constant(2.5))",
    "assert_equal:bad_shapes": "tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2, 3]))",
    "assert_equal:dtypes": "tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1.0, 2.0]))",
    "assert_equal:python": "tf.debugging.assert_equal([1, 2], [1, 2])",
    "assert_none_equal:ok": "tf.debugging.assert_none_equal(tf.constant([1, 2]), tf.constant([3, 4]))",
    "assert_none_equal:fail": "tf.debugging.assert_none_equal(tf.constant([1, 2]), tf.constant([3, 2]))",
    "assert_less:ok": "tf.debugging.assert_less(tf.constant([1, 2]), tf.constant([2, 3]))",
    "assert_less:fail": "tf.debugging.assert_less(tf.constant([1.0, 2.0, 3.0]), tf.constant([2.0, 2.0, 2.0]))",
    "assert_less_equal:fail": "tf.debugging.assert_less_equal(tf.constant([1, 5]), tf.constant(4))",
    "assert_less_equal:ok": "tf.debugging.assert_less_equal(tf.constant([1, 4]), tf.constant(4))",
    "assert_greater:fail": "tf.debugging.assert_greater(tf.constant([3, 1]), tf.constant([2, 2]), message='g')",
    "assert_greater:ok": "tf.debugging.assert_greater(tf.constant([3, 4]), tf.constant([2, 2]))",
    "assert_greater_equal:fail": "tf.debugging.assert_greater_equal(tf.constant([[1, 2], [3, 0]]), 1)",
    "assert_greater_equal:ok": "tf.debugging.assert_greater_equal(tf.constant([[1, 2], [3, 1]]), 1)",
    "assert_near:ok": "tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0 + 1e-7]))",
    "assert_near:fail": "tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1]))",
    "assert_near:tolerances": (
        "tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.05, 2.0]), rtol=0.01, atol=0.01, "
        "message='tol')"
    ),
    "assert_near:float64": (
        "tf.debugging.assert_near(tf.constant([1.0], tf.float64), tf.constant([1.0 + 1e-9], tf.float64))"
    ),
    "assert_near:ints": "tf.debugging.assert_near(tf.constant([1, 2]), tf.constant([1, 3]))",
    # sign assertions
    "assert_negative:fail": "tf.debugging.assert_negative(tf.constant([-1.0, 0.0, 2.0]))",
    "assert_negative:ok": "tf.debugging.assert_negative(tf.constant([-1.0, -2.0]))",
    "assert_positive:fail": "tf.debugging.assert_positive(tf.constant([1, 0, -3]), message='pos')",
    "assert_positive:ok": "tf.debugging.assert_positive(tf.constant([1, 2]))",
    "assert_non_negative:fail": "tf.debugging.assert_non_negative(tf.constant([0.0, -0.5]))",
    "assert_non_negative:ok": "tf.debugging.assert_non_negative(tf.constant([0.0, 0.5]))",
    "assert_non_positive:fail": "tf.debugging.assert_non_positive(tf.constant([0, 1]))",
    "assert_non_positive:ok": "tf.debugging.assert_non_positive(tf.constant([0, -1]))",
    "assert_positive:empty": "tf.debugging.assert_positive(tf.constant([], tf.float32))",
    # finiteness
    "assert_all_finite:ok": "tf.debugging.assert_all_finite(tf.constant([1.0]), 'fine').numpy().tolist()",
    "assert_all_finite:nan": "tf.debugging.assert_all_finite(tf.constant([np.nan, 1.0]), 'all finite?')",
    "assert_all_finite:int": "tf.debugging.assert_all_finite(tf.constant([1]), 'int')",
    # shapes and ranks
    "assert_rank:ok": "tf.debugging.assert_rank(tf.zeros([2, 3]), 2)",
    "assert_rank:fail": "tf.debugging.assert_rank(tf.zeros([2, 3]), 1)",
    "assert_rank:message": "tf.debugging.assert_rank(tf.zeros([2, 3]), 3, message='rank!')",
    "assert_rank:tensor_rank": "tf.debugging.assert_rank(tf.zeros([2]), tf.constant(2))",
    "assert_rank_at_least:ok": "tf.debugging.assert_rank_at_least(tf.zeros([2, 3]), 1)",
    "assert_rank_at_least:fail": "tf.debugging.assert_rank_at_least(tf.zeros([2]), 2)",
    "assert_rank_in:ok": "tf.debugging.assert_rank_in(tf.zeros([2]), [1, 2])",
    "assert_rank_in:fail": "tf.debugging.assert_rank_in(tf.zeros([2]), [0, 2])",
    "assert_scalar:ok": "tf.debugging.assert_scalar(tf.constant(1.0)).numpy().tolist()",
    "assert_scalar:fail": "tf.debugging.assert_scalar(tf.zeros([2]))",
    "assert_scalar:message": "tf.debugging.assert_scalar(tf.zeros([2]), message='scalar please')",
    "assert_shapes:ok": (
        "tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N', 'D')), (tf.zeros([2]), ('N',)), (tf.zeros([]), ())])"
    ),
    "assert_shapes:fail_dim": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N', 'D')), (tf.zeros([3]), ('N',))])",
    "assert_shapes:fail_rank": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N',))])",
    "assert_shapes:fail_size": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 4))])",
    "assert_shapes:scalar": "tf.debugging.assert_shapes([(tf.zeros([2]), ())])",
    "assert_shapes:ellipsis": "tf.debugging.assert_shapes([(tf.zeros([5, 2, 3]), (..., 'N', 3))])",
    "assert_shapes:ellipsis_fail": "tf.debugging.assert_shapes([(tf.zeros([5, 2, 3]), (..., 'N', 2))])",
    "assert_shapes:wildcard": "tf.debugging.assert_shapes([(tf.zeros([5, 2]), (None, 2)), (tf.zeros([7]), ('.',))])",
    "assert_shapes:dict": "tf.debugging.assert_shapes({'x': (tf.zeros([2, 3]), ('N', 'D'))}.values())",
    "assert_shapes:message": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N', 'N'))], message='square')",
    # dtypes
    "assert_type:ok": "tf.debugging.assert_type(tf.constant([1.0]), tf.float32)",
    "assert_type:fail": "tf.debugging.assert_type(tf.constant([1.0]), tf.int32)",
    "assert_type:message": "tf.debugging.assert_type(tf.constant([1]), tf.float64, message='dtype!')",
    "assert_integer:ok": "tf.debugging.assert_integer(tf.constant([1]))",
    "assert_integer:fail": "tf.debugging.assert_integer(tf.constant([1.0]))",
    "assert_integer:message": "tf.debugging.assert_integer(tf.constant([1.0]), message='int please')",
    "assert_same_float_dtype:ok": (
        "tf.debugging.assert_same_float_dtype([tf.constant([1.0]), tf.constant([2.0])]).name"
    ),
    "assert_same_float_dtype:mixed": (
        "tf.debugging.assert_same_float_dtype([tf.constant([1.0]), tf.constant([2.0], tf.float64)])"
    ),
    "assert_same_float_dtype:ints": "tf.debugging.assert_same_float_dtype([tf.constant([1])])",
    "assert_same_float_dtype:dtype_given": ("tf.debugging.assert_same_float_dtype([tf.constant([1.0])], tf.float64)"),
    "assert_same_float_dtype:empty": "tf.debugging.assert_same_float_dtype([]).name",
    "assert_proper_iterable:ok": "tf.debugging.assert_proper_iterable([1, 2])",
    "assert_proper_iterable:tensor": "tf.debugging.assert_proper_iterable(tf.constant([1, 2]))",
    "assert_proper_iterable:string": "tf.debugging.assert_proper_iterable('abc')",
    "assert_proper_iterable:number": "tf.debugging.assert_proper_iterable(3)",
    "assert_proper_iterable:ndarray": "tf.debugging.assert_proper_iterable(np.zeros(2))",
    "is_numeric_tensor:float": "tf.debugging.is_numeric_tensor(tf.constant([1.0]))",
    "is_numeric_tensor:bool": "tf.debugging.is_numeric_tensor(tf.constant([True]))",
    "is_numeric_tensor:python": "tf.debugging.is_numeric_tensor(1.0)",
    "is_numeric_tensor:int": "tf.debugging.is_numeric_tensor(tf.constant([1]))",
    # Assert
    "Assert:ok": "tf.debugging.Assert(tf.constant(True), ['never shown'])",
    "Assert:fail": "tf.debugging.Assert(tf.constant(False), ['x is', tf.constant([1, 2]), 'and y is', 2.5])",
    "Assert:summarize": "tf.debugging.Assert(tf.constant(False), [tf.range(10)], summarize=4)",
    "Assert:python_bool": "tf.debugging.Assert(False, ['plain False'])",
    "Assert:not_scalar": "tf.debugging.Assert(tf.constant([True, False]), ['vector'])",
    # device placement
    "log_device_placement": "tf.debugging.set_log_device_placement(False)\ntf.debugging.get_log_device_placement()",
}


# Run with tf.debugging.enable_check_numerics() on.
NUMERICS_CASES = {
    "forward": "tf.math.log(tf.constant([1.0, 0.0]))",
    "forward_two_inputs": "tf.constant([1.0, -1.0, 0.0]) / tf.constant([0.0, 0.0, 0.0])",
    "plus_inf_and_nan": "tf.constant([1.0, 0.0]) / tf.constant([0.0, 0.0])",
    "minus_inf_and_nan": "tf.constant([-1.0, 0.0]) / tf.constant([0.0, 0.0])",
    "both_infs": "tf.constant([-1.0, 1.0]) / tf.constant([0.0, 0.0])",
    "nan_only": "tf.constant([0.0], tf.float64) / tf.constant([0.0], tf.float64)",
    "exp_overflow": "tf.exp(tf.constant([1.0, 100.0, 200.0]))",
    "backward": (
        "x = tf.constant([0.0, 4.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = tf.sqrt(x)\n"
        "tape.gradient(y, x)"
    ),
    "ints_unchecked": "(tf.constant([1, 2]) // tf.constant([1, 1])).numpy().tolist()",
    "finite": "tf.exp(tf.constant([0.0, 1e-3])).numpy().tolist()[0]",
    "in_function": "tf.function(lambda x: tf.math.log(x))(tf.constant([0.0]))",
}


def run(tf, code):
    """["ok", repr(result)] or [error type name, message] for one case's code."""
    lines = code.split("\n")
    scope = {"tf": tf, "np": np}
    try:
        exec("\n".join(lines[:-1]), scope)  # noqa: S102 - the cases above, written here
        result = eval(lines[-1], scope)  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - the reference records whatever TF raises
        message = getattr(exc, "message", None) or str(exc)
        return [type(exc).__name__, message]
    return ["ok", repr(result) if not hasattr(result, "numpy") else "tensor"]
