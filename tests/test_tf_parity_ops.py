"""TF parity of single ops and of printing: the tf.where trap at sqrt(0), selu'(0),
integer division by zero, float-only kernels, LookupError versus None, TensorShape,
and Tensor.__format__, against TF 2.21.

TF's numbers and messages come from tests/tf_reference/ops_reference.py
(section "parity cases and printing").
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitive import PRIMITIVES
from tapeviz.core.rules import RULES
from tests.tf_compare import assert_tf

nan, inf = float("nan"), float("inf")

# Output of ops_reference.py, TF 2.21.0 (CPU).
TF = {
    "where_sqrt": [[0.0, 2.0, 0.0], [0.0, 0.25, 0.0]],
    "where_rsqrt": [[0.0, 0.5, 0.0], [0.0, -0.0625, 0.0]],
    "where_reciprocal": [[0.0, 0.25, 0.0], [0.0, -0.0625, 0.0]],
    "where_log": [[0.0, 1.3862943649291992, 0.0], [nan, 0.25, -0.0]],
    "where_divide": [[0.0, 0.25, 0.0], [nan, -0.0625, -0.0]],
    "where_sqrt_at_zero_taken": [[0.0, 2.0, 0.0], [inf, 0.25, 0.0]],
    "selu": [
        [0.0, -1.1113307476043701, 2.1014020442962646],
        [1.0507010221481323, 0.6467685699462891, 1.0507010221481323],
    ],
    "elu": [[0.0, -0.6321205496788025, 2.0], [1.0, 0.3678794503211975, 1.0]],
    "selu_grad_at_0_float64": 1.0507009873554805,
    "float_division_by_zero": [inf, nan, inf],
    "integer_kernels_kept": [16, 4, -1],
    "shape_text": [
        "TensorShape([2, 2])",
        "(2, 2)",
        "TensorShape([])",
        "TensorShape(None)",
        "<unknown>",
        "TensorShape([None, 3])",
        "(None, 3)",
        "TensorShape([2])",
        "TensorShape([2, 2, 3])",
        "TensorShape([3, 2, 2])",
    ],
    "shape_api": [
        True,
        True,
        [2, 2],
        2,
        6,
        None,
        False,
        True,
        "TensorShape([3, 2])",
        True,
        "ValueError: as_list() is not defined on an unknown TensorShape.",
    ],
    "format": [
        "1.235",
        "1.5",
        "[[1. 2.]\n [3. 4.]]",
        "[[1. 2.]\n [3. 4.]]",
        "TypeError: unsupported format string passed to numpy.ndarray.__format__",
        "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.5>",
        "   7",
        "50.0%",
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)",
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],\n       [3., 4.]], dtype=float32)>",
    ],
}


# -- the tf.where trap: TF's fused SqrtGrad/RsqrtGrad/ReciprocalGrad give 0 for a 0 upstream -------


@pytest.mark.parametrize(
    "name, fn",
    [
        ("sqrt", lambda w: tf.where(w > 0, tf.sqrt(w), 0.0)),
        ("rsqrt", lambda w: tf.where(w > 0, tf.math.rsqrt(w), 0.0)),
        ("reciprocal", lambda w: tf.where(w > 0, tf.math.reciprocal(w), 0.0)),
        ("log", lambda w: tf.where(w > 0, tf.math.log(w), 0.0)),  # no fused kernel: still nan, as TF
        ("divide", lambda w: tf.where(w > 0, 1.0 / w, 0.0)),
        ("sqrt_at_zero_taken", lambda w: tf.where(w >= 0, tf.sqrt(w), 0.0)),  # inf where sqrt(0) is used
    ],
)
def test_where_gradients_as_tf(name, fn):
    w = tf.Variable([0.0, 4.0, -1.0])
    with tf.GradientTape() as tape:
        y = fn(w)
    value, grad = TF[f"where_{name}"]
    assert_tf(y, value)
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), np.asarray(grad, dtype=np.float32))


def test_sqrt_second_derivative_and_forward_mode_unchanged():
    x = tf.Variable(4.0, dtype=tf.float64)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.sqrt(x)
        dy = inner.gradient(y, x)
    np.testing.assert_allclose(dy.numpy(), 0.25)
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), -0.25 / 4.0 / 2.0)  # -x^-1.5 / 4
    primal = tf.constant([4.0, 9.0])
    with tf.autodiff.ForwardAccumulator(primal, tf.constant([1.0, 2.0])) as acc:
        y = tf.sqrt(primal) + tf.math.rsqrt(primal) + tf.math.reciprocal(primal)
    expected = np.array([1.0, 2.0]) * (
        0.5 / np.sqrt([4.0, 9.0]) - 0.5 * np.array([4.0, 9.0]) ** -1.5 - np.array([4.0, 9.0]) ** -2.0
    )
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-6)


# -- activations at 0 ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["selu", "elu"])
def test_activation_gradients_at_zero_as_tf(name):
    x = tf.Variable([0.0, -1.0, 2.0])
    with tf.GradientTape() as tape:
        y = getattr(tf.nn, name)(x)
    assert_tf([y, tape.gradient(y, x)], TF[name])


def test_selu_gradient_at_zero_is_scale_in_float64():
    x = tf.Variable(0.0, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.nn.selu(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(TF["selu_grad_at_0_float64"], rel=1e-15)


# -- integer division by zero; float-only kernels ---------------------------------------------------


@pytest.mark.parametrize(
    "fn, op",
    [
        (lambda: tf.constant(5) // tf.constant(0), "FloorDiv"),
        (lambda: tf.constant(5) % tf.constant(0), "FloorMod"),
        (lambda: tf.math.floordiv(tf.constant([5, 3], tf.int64), [1, 0]), "FloorDiv"),
    ],
)
def test_integer_division_by_zero_raises_as_tf(fn, op):
    # TF: InvalidArgumentError: Integer division by zero [Op:FloorDiv]
    with pytest.raises(InvalidArgumentError, match=rf"Integer division by zero.*\[Op:{op}\]"):
        fn()


def test_float_division_by_zero_stays_silent_as_tf():
    found = [
        (tf.constant(5.0) // 0.0).numpy(),
        (tf.constant(5.0) % 0.0).numpy(),
        (tf.constant(5) / tf.constant(0)).numpy(),
    ]
    np.testing.assert_array_equal(found, TF["float_division_by_zero"])


@pytest.mark.parametrize(
    "fn, dtype, op",
    [
        (lambda: tf.sqrt(tf.constant(4)), "int32", "Sqrt"),
        (lambda: tf.exp(tf.constant(4)), "int32", "Exp"),
        (lambda: tf.sqrt(tf.constant(True)), "bool", "Sqrt"),
        (lambda: tf.exp(tf.constant([True])), "bool", "Exp"),
        (lambda: tf.math.log(tf.constant(4, tf.int64)), "int64", "Log"),
        (lambda: tf.sigmoid(tf.constant(4)), "int32", "Sigmoid"),
        (lambda: tf.sqrt(4), "int32", "Sqrt"),
    ],
)
def test_no_integer_kernel_raises_as_tf_with_the_fix(fn, dtype, op):
    # TF: InvalidArgumentError: Value for attr 'T' of int32 is not in the list of allowed values: ...
    with pytest.raises(InvalidArgumentError, match=rf"Value for attr 'T' of {dtype} is not in the list") as caught:
        fn()
    assert "tf.cast" in str(caught.value) and f"[Op:{op}]" in str(caught.value)


def test_integer_kernels_tf_has_are_kept():
    assert_tf(
        [tf.square(tf.constant(4)), tf.abs(tf.constant(-4)), tf.sign(tf.constant(-4))], TF["integer_kernels_kept"]
    )
    assert tf.square(tf.constant(4)).dtype == tf.int32


# -- no gradient registered (LookupError) versus not differentiable (None) --------------------------


def test_only_ops_tf_leaves_unregistered_raise_lookup_error():
    unregistered = {name for name, p in PRIMITIVES.items() if p.differentiable and p not in RULES}
    # TF 2.21 registers no gradient for these either (a tape.gradient through one raises LookupError there too)
    assert unregistered == {"AdjustContrastv2", "Unique", "UniqueWithCounts", "TruncateMod"}


@pytest.mark.parametrize(
    "fn",
    [
        tf.round,
        tf.floor,
        tf.math.ceil,
        lambda x: tf.cast(tf.argmax(x), tf.float32),
        lambda x: tf.cast(x > 1.0, tf.float32),
    ],
)
def test_ops_tf_marks_not_differentiable_give_none(fn):
    x = tf.Variable([0.3, 1.7])
    with tf.GradientTape() as tape:
        y = fn(x)
    assert tape.gradient(y, x) is None


# -- TensorShape ---------------------------------------------------------------------------------


def test_tensor_shape_prints_as_tf():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    texts = [
        repr(t.shape),
        str(t.shape),
        repr(tf.constant(1.0).shape),
        repr(tf.TensorShape(None)),
        str(tf.TensorShape(None)),
        repr(tf.TensorShape([None, 3])),
        str(tf.TensorShape([None, 3])),
        repr(t.shape[1:]),
        repr(t.shape + (3,)),
        repr((3,) + t.shape),
    ]
    assert texts == TF["shape_text"]
    assert type(t.shape) is tf.TensorShape and type(tf.Variable(t).shape) is tf.TensorShape


def test_tensor_shape_api_as_tf():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    found = [
        t.shape == (2, 2),
        t.shape == [2, 2],
        t.shape.as_list(),
        t.shape.rank,
        tf.TensorShape([2, 3]).num_elements(),
        tf.TensorShape(None).rank,
        tf.TensorShape([None, 2]).is_fully_defined(),
        tf.TensorShape([1, 2]).is_compatible_with([None, 2]),
        repr(tf.TensorShape([None, 2]).merge_with([3, 2])),
        bool(tf.TensorShape([])),
    ]
    assert found == TF["shape_api"][:-1]
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape"):
        tf.TensorShape(None).as_list()


def test_tensor_shape_unpacks_compares_and_hashes_as_a_tuple():
    shape = tf.zeros([7, 10]).shape
    rows, cols = shape
    assert (rows, cols) == (7, 10) and np.zeros(shape).shape == (7, 10) and hash(shape) == hash((7, 10))
    assert tf.reshape(tf.zeros([70]), shape).shape == shape
    assert tf.TensorShape(tf.constant([2, 3])) == (2, 3)
    assert tf.TensorShape(None) == tf.TensorShape(None) and tf.TensorShape(None) != ()
    with pytest.raises(ValueError, match="are not compatible"):  # TF's words
        tf.TensorShape([2, 3]).merge_with([2, 4])


# -- __format__ ------------------------------------------------------------------------------------


def test_format_goes_to_the_numpy_value_as_tf():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    v = tf.Variable(2.5)
    expected = TF["format"]
    assert f"{tf.constant(1.23456):.3f}" == expected[0]
    assert f"{tf.constant(1.5)}" == expected[1]
    assert f"{t}" == expected[2] and f"{t}" == expected[3]
    with pytest.raises(TypeError, match="unsupported format string passed to numpy.ndarray.__format__"):
        f"{t:.3f}"
    assert f"{v}" == expected[5]
    assert f"{tf.constant(7):>4d}" == expected[6] and f"{tf.constant(0.5):.1%}" == expected[7]
    assert str(t) == expected[8] and repr(t) == expected[9]


def test_variable_takes_a_format_spec():
    # TF raises TypeError for f"{v:.2f}"; tapeviz formats the value (docs/tf-map.md).
    assert f"{tf.Variable(2.5):.2f}" == "2.50"
