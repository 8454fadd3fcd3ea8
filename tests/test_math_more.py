"""The newer tf.math ops (polyval, xlog1py, the *_no_nan ops, softsign, rint, logical_xor, counting, order).

Values, dtypes and gradients against TF 2.21 (stored below, written by
tests/tf_reference/math_more_reference.py), TF's special cases where x or y is 0,
and every gradient against central finite differences in float64.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing
from tests.rule_cases import rand
from tests.tf_reference import math_more_reference as reference

INF, NAN = reference.INF, reference.NAN

# python tests/tf_reference/math_more_reference.py (TensorFlow 2.21): name -> (value, dtype, gradients)
TF_VALUES = {
    "accumulate_n": ([[2.5, 3.0], [8.0, 8.25]], "float64", [[[2.0, 2.0], [2.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]]),
    "cumulative_logsumexp": (
        [
            [4.414968950485862, 4.321350214229013, 4.011047744848594, 4.0, -INF],
            [5.734559601128703, 5.733369794827211, 5.07888973429255, 2.5, -INF],
        ],
        "float64",
        [
            [
                [0.0, 0.08937011377728529, 0.509708011762927, 0.026378790895225913, 3.374543083564561],
                [0.0, 0.0011890987626137159, 0.9600044679052249, 1.8841462878839805, 1.1546601454481804],
            ]
        ],
    ),
    "cumulative_logsumexp_axis0": (
        [[1.0, -2.0], [3.1269280110429727, 0.5788897342925496], [3.1429316284998996, 1.1210526010830604]],
        "float64",
        [
            [
                [1.2365133498483158, 1.11996889301144],
                [1.7476104101752172, 1.4615203145841482],
                [0.01587623997646676, 0.4185107924044118],
            ]
        ],
    ),
    "cumulative_logsumexp_far_apart": (
        [1.3132616875182228, 1.3132616875182228, 1.0, -2000.0],
        "float64",
        [[0.0, 0.5378828427399902, 2.46211715726001, 1.0]],
    ),
    "cumulative_logsumexp_infinities": (
        [-INF, 1.0, 1.0, 2.313261687518223, INF, INF],
        "float64",
        [[NAN, 2.268941421369995, 0.0, 0.7310585786300048, NAN, 0.0]],
    ),
    "multiply_no_nan": ([0.0, 0.0, 3.0, 0.0, -1.5], "float64", [[0.0, 0.0, 3.0, 0.0, 0.5], [INF, NAN, 1.0, 2.0, -3.0]]),
    "multiply_no_nan_broadcast": ([[0.0, 10.0], [0.0, 20.0]], "float64", [[[0.0, 5.0], [0.0, 5.0]], [4.0, 6.0]]),
    "polyval": ([2.375, 5.0, 7.84375], "float64", [[5.8125, 1.25, 3.0], [-0.5, 4.0, -5.75]]),
    "reciprocal_no_nan": ([0.0, 0.5, -0.25, 2.0], "float64", [[0.0, -0.25, -0.0625, -4.0]]),
    "rint": ([-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 4.0, -3.0], "float64", [None]),
    "softsign": ([-0.6666666666666666, 0.0, 0.75, 0.2], "float64", [[0.1111111111111111, 1.0, 0.0625, 0.64]]),
    "softsign_huge": ([NAN, NAN, 1.0, -1.0], "float64", [[0.0, 0.0, 9.999999999999998e-61, 0.0]]),
    "xlog1py": (
        [0.0, 0.0, 1.3862943611198906, -INF, -0.11157177565710488],
        "float64",
        [[0.0, 0.0, 1.3862943611198906, -INF, 0.22314355131420976], [0.0, 0.0, 0.25, INF, -0.4]],
    ),
    "xlog1py_broadcast": (
        [[0.0, 0.0, 0.0], [0.6081976621622466, 1.6479184330021643, 2.0794415416798357]],
        "float64",
        [[[0.0], [2.8903717578961645]], [1.0, 0.5, 0.375]],
    ),
    "zero_fraction": (0.6666666865348816, "float32", [None]),
}

TF_PLAIN = {
    "accumulate_n_int": ([4, 6], "int32"),
    "accumulate_n_one": ([1.5, 2.5], "float32"),
    "count_nonzero_all": (2, "int64"),
    "count_nonzero_axis_keepdims_int32": ([[2], [1]], "int32"),
    "count_nonzero_bool": ([2, 1], "int64"),
    "count_nonzero_string": (2, "int64"),
    "cumulative_logsumexp_float32_far_apart": ([-1000.0, 0.0, 1.3132617473602295], "float32"),
    "invert_permutation": ([2, 4, 3, 0, 1], "int32"),
    "invert_permutation_int64": ([2, 0, 1], "int64"),
    "is_non_decreasing_down": (False, "bool"),
    "is_non_decreasing_empty": (True, "bool"),
    "is_non_decreasing_ties": (True, "bool"),
    "is_strictly_increasing_matrix": (True, "bool"),
    "is_strictly_increasing_rows_read_in_order": (False, "bool"),
    "is_strictly_increasing_scalar": (True, "bool"),
    "is_strictly_increasing_ties": (False, "bool"),
    "logical_xor": ([False, True, True, False], "bool"),
    "logical_xor_broadcast": ([[False, True], [True, False]], "bool"),
    "zero_fraction_int": (0.3333333432674408, "float32"),
}


# Gradients with no right number, where tapeviz differs: (case, source, flat index) -> (TF's, tapeviz's).
NO_RIGHT_NUMBER = {
    # d/dx of an infinite output at its own +inf input: TF gives nan, tapeviz passes the upstream on.
    ("cumulative_logsumexp_infinities", 0, 4): (NAN, 2.0),
    # ... and at a -inf input whose outputs are all -inf (0/0 weights): TF nan, tapeviz the upstream.
    ("cumulative_logsumexp_infinities", 0, 0): (NAN, 1.0),
}


@pytest.mark.parametrize("name", sorted(TF_VALUES))
def test_values_dtypes_and_gradients_match_tf(name):
    value, dtype, grads = reference.run(tf)[name]
    want_value, want_dtype, want_grads = TF_VALUES[name]
    assert dtype == want_dtype
    np.testing.assert_allclose(np.asarray(value, float), np.asarray(want_value, float), rtol=1e-7)
    for source, (got, want) in enumerate(zip(grads, want_grads)):
        if want is None:
            assert got is None
            continue
        got, want = np.asarray(got, float).ravel(), np.asarray(want, float).ravel()
        for (case, where, index), (tf_value, ours) in NO_RIGHT_NUMBER.items():
            if (case, where) == (name, source):
                np.testing.assert_equal(want[index], tf_value)
                np.testing.assert_equal(got[index], ours)
                got[index] = want[index] = 0.0
        np.testing.assert_allclose(got, want, rtol=1e-7)


@pytest.mark.parametrize("name", sorted(TF_PLAIN))
def test_results_without_gradients_match_tf(name):
    value, dtype = reference.run_plain(tf)[name]
    want_value, want_dtype = TF_PLAIN[name]
    assert dtype == want_dtype
    if dtype.startswith("float"):  # float32 rounding may differ by an ulp
        np.testing.assert_allclose(value, want_value, rtol=1e-6)
    else:
        assert value == want_value


# -- finite differences (float64), first and second order -------------------------------


def check_fd(fn, *arrays, second_order=True):
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    weights = testing.projection_weights(fn, arrays)
    for a, n in zip(testing.analytic_gradients(fn, arrays, weights), testing.numeric_gradients(fn, arrays, weights)):
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-6)
    if second_order:
        v = [rand(*a.shape, seed=7) for a in arrays]
        for a, n in zip(
            testing.hessian_vector(fn, arrays, weights, v), testing.numeric_hessian_vector(fn, arrays, weights, v)
        ):
            np.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-4)


def test_polyval_gradients_match_finite_differences():
    check_fd(lambda c, x: tf.math.polyval([c[0], c[1], c[2], c[3]], x), rand(4), rand(3, 2))


def test_xlog1py_gradients_match_finite_differences():
    check_fd(tf.math.xlog1py, rand(3, 2), rand(2, low=0.1, high=2.0))


def test_reciprocal_no_nan_gradients_match_finite_differences():
    check_fd(tf.math.reciprocal_no_nan, rand(5, low=0.5, high=2.0))


def test_multiply_no_nan_gradients_match_finite_differences():
    check_fd(tf.math.multiply_no_nan, rand(2, 3), rand(3))


def test_multiply_no_nan_gradient_at_y_zero_is_the_derivative_there():
    # With finite x, x * y is smooth through y == 0: d/dy = x, d/dx = 0 (TF's MulNoNan gradient agrees).
    check_fd(tf.math.multiply_no_nan, [1.5, -2.0, 0.25], [0.0, 0.0, 0.0])


def test_softsign_gradients_match_finite_differences():
    check_fd(tf.math.softsign, [-2.0, -0.3, 0.4, 3.0])


# -- TF's special cases and errors --------------------------------------------------------


def test_special_cases_give_zero_in_float32_too():
    assert tf.math.xlog1py(tf.constant([0.0]), [-1.0]).dtype == tf.float32
    np.testing.assert_array_equal(tf.math.xlog1py([0.0, 0.0], [-1.0, INF]).numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(tf.math.multiply_no_nan([INF, NAN], [0.0, 0.0]).numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(tf.math.reciprocal_no_nan([0.0]).numpy(), [0.0])


def test_xlog1py_is_accurate_for_tiny_y():
    # log1p, not log(1 + y): 1 + 1e-20 is 1 in floating point.
    np.testing.assert_allclose(tf.math.xlog1py(tf.constant([2.0], tf.float64), [1e-20]).numpy(), [2e-20], rtol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tf.math.xlog1py([1, 2], [1, 2]),
        lambda: tf.math.multiply_no_nan([1, 2], [1, 2]),
        lambda: tf.math.reciprocal_no_nan([1, 2]),
        lambda: tf.math.softsign([1, 2]),
        lambda: tf.nn.softsign([1, 2]),
        lambda: tf.math.rint([1, 2]),
    ],
    ids=["xlog1py", "multiply_no_nan", "reciprocal_no_nan", "softsign", "nn.softsign", "rint"],
)
def test_integer_inputs_are_refused_with_tfs_error(call):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32 is not in the list"):
        call()


def test_python_level_refusals_are_tfs_type_errors():
    with pytest.raises(TypeError, match="bool"):
        tf.math.logical_xor([1, 0], [1, 1])
    with pytest.raises(TypeError, match="Expected x to be numeric"):
        tf.math.is_non_decreasing(["a", "b"])


def test_polyval_needs_a_list_and_an_empty_one_gives_zeros():
    with pytest.raises(ValueError, match="list"):
        tf.math.polyval(tf.constant([1.0, 2.0]), 3.0)
    empty = tf.math.polyval([], tf.constant([1.0, 2.0]))
    assert empty.dtype == tf.float32 and empty.numpy().tolist() == [0.0, 0.0]
    whole = tf.math.polyval([1, 2], 3)
    assert whole.dtype == tf.int32 and int(whole) == 5


def test_zero_fraction_is_float32_and_nan_when_empty():
    assert tf.math.zero_fraction(tf.constant([0.0, 1.0], tf.float64)).dtype == tf.float32
    assert np.isnan(tf.math.zero_fraction(tf.zeros([0])).numpy())


def test_names_sit_where_tf_puts_them():
    assert tf.nn.softsign is tf.math.softsign and tf.nn.zero_fraction is tf.math.zero_fraction
    for name in (
        "polyval",
        "xlog1py",
        "reciprocal_no_nan",
        "multiply_no_nan",
        "rint",
        "logical_xor",
        "count_nonzero",
        "zero_fraction",
        "is_non_decreasing",
        "is_strictly_increasing",
        "invert_permutation",
        "accumulate_n",
        "cumulative_logsumexp",
    ):
        assert hasattr(tf.math, name) and not hasattr(tf, name), name


def test_traced_by_tf_function_with_the_same_values_and_gradients():
    @tf.function
    def f(big, x, y):
        with tf.GradientTape() as tape:
            tape.watch(y)
            out = tf.reduce_sum(tf.math.multiply_no_nan(big, y) + tf.math.xlog1py(x, y))
        return out, tape.gradient(out, y)

    big, x, y = tf.constant([1.0, 3.0, INF]), tf.constant([0.0, 2.0, 4.0]), tf.constant([1.0, 0.5, 0.0])
    out, grad = f(big, x, y)
    np.testing.assert_allclose(out.numpy(), 1.0 + 1.5 + 2.0 * np.log1p(0.5), rtol=1e-6)
    # y's gradient: big (TF's MulNoNan: inf at y == 0 where big is inf) plus xdivy(x, 1 + y).
    np.testing.assert_allclose(grad.numpy(), [1.0, 3.0 + 2.0 / 1.5, INF], rtol=1e-6)


def test_accumulate_n_gradient_matches_finite_differences():
    check_fd(lambda a, b: tf.math.accumulate_n([a, b, a * b]), rand(2, 3), rand(2, 3))


@pytest.mark.parametrize(
    "inputs, kwargs, error, words",
    [
        ([], {}, ValueError, "at least one Tensor"),
        ("not a list", {}, ValueError, "at least one Tensor"),
        ([[1.0, 2.0], [1, 2]], {}, ValueError, "same dtype"),
        ([[1.0, 2.0], [1.0, 2.0, 3.0]], {}, ValueError, r"Shapes \(2,\) and \(3,\) are not compatible"),
        ([[1.0, 2.0]], {"shape": [3]}, ValueError, r"Shapes \(3,\) and \(2,\) are not compatible"),
        ([[1.0, 2.0]], {"tensor_dtype": "float64"}, TypeError, "tensor_dtype"),
    ],
)
def test_accumulate_n_refuses_what_tf_refuses(inputs, kwargs, error, words):
    with pytest.raises(error, match=words):
        tf.math.accumulate_n(inputs, **kwargs)


def test_accumulate_n_takes_a_partly_known_shape():
    total = tf.math.accumulate_n([tf.ones([2, 3]), tf.ones([2, 3])], shape=[None, 3])
    assert total.shape == (2, 3) and total.numpy().sum() == 12.0


@pytest.mark.parametrize(
    "perm, words",
    [
        ([0, 0, 1], "0 is duplicated in the input"),
        ([0, 5], "5 is not between 0 and 2"),
        ([1, -1], "-1 is not between 0 and 2"),
        ([[0]], "expects a 1D vector"),
        ([0.0, 1.0], "Value for attr 'T' of float is not in the list of allowed values: int32, int64"),
    ],
)
def test_invert_permutation_refuses_what_tf_refuses(perm, words):
    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
        tf.math.invert_permutation(perm)


def test_invert_permutation_under_tf_function_checks_each_call():
    invert = tf.function(tf.math.invert_permutation)
    assert invert(tf.constant([1, 0, 2])).numpy().tolist() == [1, 0, 2]
    assert invert(tf.constant([2, 0, 1])).numpy().tolist() == [1, 2, 0]  # the same trace, new values
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicated"):
        invert(tf.constant([0, 0, 1]))


def test_invert_permutation_is_an_inverse():
    perm = np.random.default_rng(3).permutation(50).astype(np.int64)
    inverse = tf.math.invert_permutation(perm).numpy()
    assert (
        inverse.dtype == np.int64 and (perm[inverse] == np.arange(50)).all() and (inverse[perm] == np.arange(50)).all()
    )


@pytest.mark.parametrize(
    "axis, exclusive, reverse, finite",
    [
        (0, False, False, np.s_[:]),
        (1, True, False, np.s_[:, 1:]),  # an exclusive scan starts at -inf: no finite differences there
        (-1, False, True, np.s_[:]),
        (0, True, True, np.s_[:-1]),
    ],
)
def test_cumulative_logsumexp_gradients_match_finite_differences(axis, exclusive, reverse, finite):
    check_fd(
        lambda x: tf.math.cumulative_logsumexp(x, axis=axis, exclusive=exclusive, reverse=reverse)[finite],
        rand(5, 3),
    )


def test_cumulative_logsumexp_matches_a_running_logsumexp_on_long_axes():
    x = np.random.default_rng(5).normal(size=(37, 2)) * 30.0
    want = np.logaddexp.accumulate(x, axis=0)
    np.testing.assert_allclose(tf.math.cumulative_logsumexp(tf.constant(x)).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize(
    "x, axis, words",
    [
        (3.0, 0, r"range \[0, 0\), but got 0"),
        ([3.0], 1, r"range \[-1, 1\), but got 1"),
        ([1, 2], 0, "Value for attr 'T' of int32"),
    ],
)
def test_cumulative_logsumexp_refuses_what_tf_refuses(x, axis, words):
    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
        tf.math.cumulative_logsumexp(x, axis=axis)


def test_cumulative_logsumexp_traced_by_tf_function():
    scan = tf.function(lambda x: tf.math.cumulative_logsumexp(x, axis=1, exclusive=True))
    x = rand(2, 6)
    want = np.concatenate([np.full((2, 1), -np.inf), np.logaddexp.accumulate(x, axis=1)[:, :-1]], axis=1)
    np.testing.assert_allclose(scan(tf.constant(x)).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("op", [tf.math.xlog1py, tf.math.multiply_no_nan])
def test_mixed_float_dtypes_are_refused(op):
    with pytest.raises(ValueError, match="cast"):
        op(tf.constant([1.0]), tf.constant([1.0], tf.float64))
