"""Numeric edges checked against TensorFlow 2.21 and PyTorch 2.13 (issue 17): no silent wrong answer.

REFERENCE is the output of tests/tf_reference/numbers_reference.py (TF 2.21.0,
CPU) and TORCH_CUMPROD of tests/tf_reference/cumprod_torch_reference.py
(PyTorch 2.13.0); the expressions here are the same. An error is recorded as
"Type: start of the message": tapeviz raises the same type, with a message
that starts as TF's (and then says what to do).
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.errors import InvalidArgumentError

inf, nan, NAN = float("inf"), float("nan"), float("nan")

# fmt: off
REFERENCE = {
    'cumprod_grad': [1.0, 0.0, 0.0, 0.0],
    'cumprod_grad_two_zeros': [1.0, 0.0, 0.0, 0.0],
    'cumprod_grad_exclusive': [1.0, 0.0, 0.0, 0.0],
    'cumprod_grad_reverse': [0.0, 0.0, 4.0, 4.0],
    'cumprod_grad_no_zero': [9.0, 32.0, 5.0, 3.0],
    'reduce_sum_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'reduce_mean_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'reduce_prod_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'reduce_max_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'reduce_min_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'add_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, do",
    'tf_add_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, do",
    'sub_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, do",
    'add_n_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'cumsum_bool': "InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uin",
    'mul_bool': [True, False, False, False],
    'reduce_any_bool': True,
    'mean_of_cast_bool': 0.25,
    'int32_plus_float': 'InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a fl',
    'tf_add_int32_float': 'InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a fl',
    'float_plus_int32': 'TypeError: Cannot convert 2.0 to EagerTensor of dtype int32',
    'int32_minus_float': 'TypeError: Cannot convert 2.0 to EagerTensor of dtype int32',
    'int32_times_float': 'TypeError: Cannot convert 2.5 to EagerTensor of dtype int32',
    'int32_less_float': 'TypeError: Cannot convert 2.0 to EagerTensor of dtype int32',
    'int64_plus_float': 'InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a int64 tensor but is a fl',
    'constant_float_int32': 'TypeError: Cannot convert 2.0 to EagerTensor of dtype int32',
    'int32_plus_int': [3, 4],
    'int32_plus_numpy_float': [3, 4],
    'float32_plus_int': [3.0],
    'batch_jacobian_none_pfor': [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
    'batch_jacobian_none_loop': [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
    'batch_jacobian_zero': [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
    'jacobian_none': None,
    'relu_second_order': [0.0, 0.0],
    'reduce_max_empty_axis0': [-inf, -inf, -inf],
    'reduce_min_empty_axis0': [inf, inf, inf],
    'reduce_max_empty_all': -inf,
    'reduce_max_empty_keepdims': [[-inf, -inf]],
    'reduce_max_empty_axis1': [-inf, -inf],
    'reduce_max_empty_int32': [-2147483648, -2147483648],
    'reduce_min_empty_int32': [2147483647, 2147483647],
    'reduce_max_empty_int8': -128,
    'reduce_min_empty_uint8': 255,
    'reduce_max_empty_uint8': 0,
    'reduce_max_empty_float64': -inf,
    'reduce_max_empty_gradient_shape': [0, 3],
    'reduce_mean_empty': nan,
    'argmax_nan': 0,
    'argmin_nan': 2,
    'argmax_nan_first': 1,
    'argmin_nan_first': 3,
    'argmax_all_nan': 0,
    'argmin_all_nan': 0,
    'argmax_nan_rows': [2, 0],
    'argmax_nan_columns': [1, 0],
    'argmax_nan_minus_inf': 0,
    'argmin_nan_inf': 0,
    'argmax_nan_float64': 0,
    'sort_nan': [1.0, 3.0, nan, 2.0],
    'sort_nan_descending': [3.0, nan, 2.0, 1.0],
    'sort_nan_first': [nan, 3.0, nan, 1.0],
    'top_k_nan': [[3.0, nan], [0, 1]],
    'top_k_nan_first': [[nan, 3.0, nan, 1.0], [0, 1, 2, 3]],
    'argsort_nan': [2, 0, 1, 3],
    'argsort_nan_descending': [0, 1, 3, 2],
    'sort_no_nan': [-inf, 1.0, 1.0, 3.0, inf],
    'top_k_no_nan': [[inf, 3.0, 1.0, 1.0, -inf], [3, 0, 2, 4, 1]],
    'log_zero': -inf,
}

TORCH_CUMPROD = {
    (2.0, 0.0, 3.0, 4.0): [[1.0, 32.0, 0.0, 0.0], [16.0, 32.0, 10.0, 6.0], [16.0, 20.0, 14.0, 10.0]],
    (2.0, 0.0, 3.0, 0.0): [[1.0, 8.0, 0.0, 0.0], [4.0, 12.0, 2.0, 6.0], [8.0, 12.0, 6.0, 10.0]],
    (0.0, 0.0, 0.0, 5.0): [[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [12.0, 12.0, 12.0, 0.0]],
    (2.0, 0.5, 3.0, 4.0): [[9.0, 32.0, 5.0, 3.0], [20.0, 32.0, 13.5, 8.5], [17.000000000000007, 20.00000000000003, 15.000000000000004, 11.000000000000002]],
}

# fmt: on


def outcome(fn):
    """What ``fn`` gives, in the reference's terms: plain values, or "Type: message"."""
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - comparing which error is raised
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return [np.asarray(v).tolist() for v in value]
    return np.asarray(value).tolist()


def assert_as_tf(name, fn):
    expected, got = REFERENCE[name], outcome(fn)
    if isinstance(expected, str):
        assert isinstance(got, str), f"{name}: TF raises {expected!r}, tapeviz gave {got!r}"
        assert got.startswith(expected[:60]), f"{name}: TF raises {expected!r}, tapeviz {got!r}"
    elif expected is None:
        assert got is None, name
    else:
        np.testing.assert_array_equal(np.asarray(got, dtype=float), np.asarray(expected, dtype=float), err_msg=name)


# -- 1. cumprod's gradient at a zero is exact (PyTorch's value; TF's div_no_nan gives 0) -------------


def _cumprod_derivatives(xs, orders=3):
    x = tf.Variable(xs, dtype=tf.float64)
    tapes = [tf.GradientTape() for _ in range(orders)]
    for tape in tapes:
        tape.__enter__()
    f = tf.reduce_sum(tf.math.cumprod(x))
    found = []
    for tape in reversed(tapes):
        tape.__exit__(None, None, None)
        g = tape.gradient(f, x)
        found.append(g.numpy().tolist())
        f = tf.reduce_sum(g)
    return found


@pytest.mark.parametrize("xs", sorted(TORCH_CUMPROD))
def test_cumprod_derivatives_at_zeros_are_pytorchs_exact_ones(xs):
    np.testing.assert_allclose(_cumprod_derivatives(list(xs)), TORCH_CUMPROD[xs], rtol=1e-12, atol=1e-12)


def test_cumprod_gradient_where_tf_gives_zero():
    # TF: [1, 0, 0, 0]; the exact derivative of 2 + 2*x1 + 2*x1*3 + 2*x1*3*4 in x1 is 32
    assert REFERENCE["cumprod_grad"] == [1.0, 0.0, 0.0, 0.0]
    assert _cumprod_derivatives([2.0, 0.0, 3.0, 4.0], orders=1) == [[1.0, 32.0, 0.0, 0.0]]
    # without a zero, TF and tapeviz agree
    assert_as_tf("cumprod_grad_no_zero", lambda: _cumprod_derivatives([2.0, 0.5, 3.0, 4.0], orders=1)[0])


def _central_difference(fn, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (fn(up) - fn(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumprod_gradient_with_zeros_matches_finite_differences(axis, exclusive, reverse):
    x0 = np.array([[0.0, 1.3, -0.7, 0.0], [0.9, 0.0, 1.1, 0.0], [-1.2, 0.8, 0.0, 2.0], [0.0, 1.4, 0.5, 0.0]])
    w = np.cos(np.arange(16.0)).reshape(4, 4)

    def loss(array):
        return tf.reduce_sum(tf.math.cumprod(array, axis=axis, exclusive=exclusive, reverse=reverse) * w)

    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loss(x)
    analytic = tape.gradient(y, x).numpy()
    assert np.isfinite(analytic).all()
    np.testing.assert_allclose(analytic, _central_difference(lambda a: float(loss(tf.constant(a))), x0), atol=1e-7)


def test_cumprod_gradient_in_float32_has_no_nan():
    x = tf.Variable([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]])
    with tf.GradientTape() as tape:
        y = tf.math.cumprod(x, axis=1)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[1.0, 8.0, 0.0], [1.0, 0.0, 0.0]])


# -- 2. bools are not numbers to add, sum or average ---------------------------------------------------

B = tf.constant([True, False, False, False])


@pytest.mark.parametrize(
    "name, fn",
    [
        ("reduce_sum_bool", lambda: tf.reduce_sum(B)),
        ("reduce_mean_bool", lambda: tf.reduce_mean(B)),
        ("reduce_prod_bool", lambda: tf.reduce_prod(B)),
        ("reduce_max_bool", lambda: tf.reduce_max(B)),
        ("reduce_min_bool", lambda: tf.reduce_min(B)),
        ("add_bool", lambda: B + B),
        ("tf_add_bool", lambda: tf.add(B, B)),
        ("sub_bool", lambda: B - B),
        ("add_n_bool", lambda: tf.add_n([B, B])),
        ("cumsum_bool", lambda: tf.cumsum(B)),
        ("mul_bool", lambda: B * B),
        ("reduce_any_bool", lambda: tf.reduce_any(B)),
        ("mean_of_cast_bool", lambda: tf.reduce_mean(tf.cast(B, tf.float32))),
    ],
)
def test_bool_arithmetic_as_tf(name, fn):
    assert_as_tf(name, fn)


def test_a_bool_mean_error_says_to_cast():
    with pytest.raises(InvalidArgumentError, match=r"tf.cast\(x, tf.float32\)"):
        tf.reduce_mean(tf.constant([1.0, 2.0]) > 1.5)
    with pytest.raises(InvalidArgumentError):
        tf.reduce_sum(tf.zeros([0], tf.bool))  # even empty, as TF


# -- 3. an integer tensor and a Python float ----------------------------------------------------------

I32 = tf.constant([1, 2])


@pytest.mark.parametrize(
    "name, fn",
    [
        ("int32_plus_float", lambda: I32 + 2.0),
        ("tf_add_int32_float", lambda: tf.add(I32, 2.0)),
        ("float_plus_int32", lambda: 2.0 + I32),
        ("int32_minus_float", lambda: I32 - 2.0),
        ("int32_times_float", lambda: I32 * 2.5),
        ("int32_less_float", lambda: I32 < 2.0),
        ("int64_plus_float", lambda: tf.constant([1, 2], tf.int64) + 2.0),
        ("constant_float_int32", lambda: tf.constant(2.0, tf.int32)),
        ("int32_plus_int", lambda: I32 + 2),
        ("int32_plus_numpy_float", lambda: I32 + np.float32(2.0)),
        ("float32_plus_int", lambda: tf.constant([1.0]) + 2),
    ],
)
def test_int_and_float_as_tf(name, fn):
    assert_as_tf(name, fn)


def test_int_plus_float_stays_unchanged_after_the_error():
    with pytest.raises(InvalidArgumentError):
        I32 + 2.0
    assert I32.dtype == tf.int32 and I32.numpy().tolist() == [1, 2]


# -- 4. unconnected batch_jacobian, relu's second derivative ------------------------------------------


def _unconnected(setting):
    x = tf.constant([[1.0, 2.0]], tf.float64)
    u = tf.constant([[1.0, 2.0, 3.0]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    return tape, y, u


@pytest.mark.parametrize("name, setting", [("batch_jacobian_none_pfor", "none"), ("batch_jacobian_zero", "zero")])
def test_batch_jacobian_of_an_unconnected_target_is_zeros(name, setting):
    tape, y, u = _unconnected(setting)
    result = tape.batch_jacobian(y, u, unconnected_gradients=setting)
    assert result.shape == (1, 2, 3)
    assert_as_tf(name, lambda: result)


def test_jacobian_of_an_unconnected_target_stays_none():
    x, u = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([x, u])
        y = x * 2.0
    assert_as_tf("jacobian_none", lambda: tape.jacobian(y, u))


def test_relu_second_derivative_is_zeros_not_none():
    x = tf.Variable([-1.0, 2.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.nn.relu(x)
        d = inner.gradient(y, x)
    assert_as_tf("relu_second_order", lambda: outer.gradient(d, x))


# -- 5. max and min over an empty axis: the identity ---------------------------------------------------


@pytest.mark.parametrize(
    "name, fn, dtype",
    [
        ("reduce_max_empty_axis0", lambda: tf.reduce_max(tf.zeros([0, 3]), axis=0), "float32"),
        ("reduce_min_empty_axis0", lambda: tf.reduce_min(tf.zeros([0, 3]), axis=0), "float32"),
        ("reduce_max_empty_all", lambda: tf.reduce_max(tf.zeros([0])), "float32"),
        ("reduce_max_empty_keepdims", lambda: tf.reduce_max(tf.zeros([0, 2]), axis=0, keepdims=True), "float32"),
        ("reduce_max_empty_axis1", lambda: tf.reduce_max(tf.zeros([2, 0]), axis=1), "float32"),
        ("reduce_max_empty_int32", lambda: tf.reduce_max(tf.zeros([0, 2], tf.int32), axis=0), "int32"),
        ("reduce_min_empty_int32", lambda: tf.reduce_min(tf.zeros([0, 2], tf.int32), axis=0), "int32"),
        ("reduce_max_empty_int8", lambda: tf.reduce_max(tf.zeros([0], tf.int8)), "int8"),
        ("reduce_min_empty_uint8", lambda: tf.reduce_min(tf.zeros([0], tf.uint8)), "uint8"),
        ("reduce_max_empty_uint8", lambda: tf.reduce_max(tf.zeros([0], tf.uint8)), "uint8"),
        ("reduce_max_empty_float64", lambda: tf.reduce_max(tf.zeros([0], tf.float64)), "float64"),
        ("reduce_mean_empty", lambda: tf.reduce_mean(tf.zeros([0])), "float32"),
    ],
)
def test_empty_reductions_as_tf(name, fn, dtype):
    assert fn().dtype.name == dtype
    assert_as_tf(name, fn)


def test_empty_reduce_max_gradient_is_empty():
    x = tf.Variable(tf.zeros([0, 3]))
    with tf.GradientTape() as tape:
        y = tf.reduce_max(x, axis=0)
    assert_as_tf("reduce_max_empty_gradient_shape", lambda: tape.gradient(y, x).shape)


# -- 6. NaN: argmax/argmin skip it as TF; sort, argsort and top_k put it last --------------------------


@pytest.mark.parametrize(
    "name, fn",
    [
        ("argmax_nan", lambda: tf.argmax(tf.constant([3.0, NAN, 1.0, 2.0]))),
        ("argmin_nan", lambda: tf.argmin(tf.constant([3.0, NAN, 1.0, 2.0]))),
        ("argmax_nan_first", lambda: tf.argmax(tf.constant([NAN, 3.0, NAN, 1.0]))),
        ("argmin_nan_first", lambda: tf.argmin(tf.constant([NAN, 3.0, NAN, 1.0]))),
        ("argmax_all_nan", lambda: tf.argmax(tf.constant([NAN, NAN]))),
        ("argmin_all_nan", lambda: tf.argmin(tf.constant([NAN, NAN]))),
        ("argmax_nan_rows", lambda: tf.argmax(tf.constant([[NAN, 1.0, 2.0], [3.0, NAN, NAN]]), axis=1)),
        ("argmax_nan_columns", lambda: tf.argmax(tf.constant([[NAN, 1.0], [3.0, NAN]]), axis=0)),
        ("argmax_nan_minus_inf", lambda: tf.argmax(tf.constant([NAN, -np.inf]))),
        ("argmin_nan_inf", lambda: tf.argmin(tf.constant([NAN, np.inf]))),
        ("argmax_nan_float64", lambda: tf.argmax(tf.constant([1.0, NAN, 0.5], tf.float64))),
        ("sort_no_nan", lambda: tf.sort(tf.constant([3.0, -np.inf, 1.0, np.inf, 1.0]))),
        ("top_k_no_nan", lambda: tf.math.top_k(tf.constant([3.0, -np.inf, 1.0, np.inf, 1.0]), k=5)),
    ],
)
def test_arg_reductions_and_nan_free_sorts_as_tf(name, fn):
    assert_as_tf(name, fn)


def test_nan_sorts_last_in_both_directions():
    # TF's order around NaN depends on where the NaN stands (REFERENCE["sort_nan"] is
    # [1, 3, nan, 2]): every comparison with NaN is false. tapeviz puts NaN last, below
    # -inf for top_k: the order TF's argmax implies, since it never picks a NaN.
    x = tf.constant([3.0, NAN, 1.0, -np.inf, NAN, 2.0])
    np.testing.assert_array_equal(tf.sort(x).numpy(), [-np.inf, 1.0, 2.0, 3.0, NAN, NAN])
    np.testing.assert_array_equal(tf.sort(x, direction="DESCENDING").numpy(), [3.0, 2.0, 1.0, -np.inf, NAN, NAN])
    assert tf.argsort(x).numpy().tolist() == [3, 2, 5, 0, 1, 4]
    assert tf.argsort(x, direction="DESCENDING").numpy().tolist() == [0, 5, 2, 3, 1, 4]
    values, indices = tf.math.top_k(x, k=6)
    assert indices.numpy().tolist() == [0, 5, 2, 3, 1, 4]
    np.testing.assert_array_equal(values.numpy(), [3.0, 2.0, 1.0, -np.inf, NAN, NAN])


@pytest.mark.parametrize("seed", range(5))
def test_top_k_and_sort_agree_with_tfs_argmax_and_argmin(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(4, 7)).astype(np.float32)
    a[rng.uniform(size=a.shape) < 0.4] = np.nan
    x = tf.constant(a)
    np.testing.assert_array_equal(tf.math.top_k(x, k=1).indices.numpy()[:, 0], tf.argmax(x, axis=1).numpy())
    np.testing.assert_array_equal(tf.argsort(x, axis=1).numpy()[:, 0], tf.argmin(x, axis=1).numpy())
    finite = ~np.isnan(a)
    for row, order in zip(a, tf.argsort(x, axis=1).numpy()):  # the numbers sorted, then the NaNs
        count = int((~np.isnan(row)).sum())
        assert np.isnan(row[order[count:]]).all() and (np.diff(row[order[:count]]) >= 0).all()
    assert finite.any()


def test_sort_gradient_with_nan_goes_back_to_where_values_came_from():
    x = tf.constant([3.0, NAN, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sort(x) * tf.constant([1.0, 10.0, 100.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [10.0, 100.0, 1.0])


# -- 7. log(0) ------------------------------------------------------------------------------------------


def test_log_zero_is_minus_inf():
    assert_as_tf("log_zero", lambda: tf.math.log(0.0))


def test_float_floordiv_is_tfs_floor_of_the_quotient():
    """TF 2.21: tf.math.floordiv([1, inf, -7, 7.5], [-inf, -2, 2, -2]) = [-0., -inf, -4., -4.] (NumPy's // gives
    -1 and nan for the first two)."""
    import numpy as np

    import tapeviz as tf

    got = tf.math.floordiv(tf.constant([1.0, np.inf, -7.0, 7.5]), tf.constant([-np.inf, -2.0, 2.0, -2.0])).numpy()
    np.testing.assert_array_equal(got, [-0.0, -np.inf, -4.0, -4.0])
    assert np.signbit(got[0])
