"""Behaviour of the array ops: values against NumPy, shapes, dtypes, TF's errors."""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing

rng = np.random.default_rng(0)


def values(*shape):
    return rng.uniform(-1, 1, size=shape)


def grad_matches_numeric(fn, *arrays):
    """First-order check of fn's gradients (float64) against finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    weights = testing.projection_weights(fn, arrays)
    analytic = testing.analytic_gradients(fn, arrays, weights)
    numeric = testing.numeric_gradients(fn, arrays, weights)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-6)


# -- expand_dims / squeeze ---------------------------------------------------------------


@pytest.mark.parametrize(
    "axis, shape", [(0, (1, 2, 3)), (1, (2, 1, 3)), (2, (2, 3, 1)), (-1, (2, 3, 1)), (-3, (1, 2, 3))]
)
def test_expand_dims(axis, shape):
    x = values(2, 3)
    assert tf.expand_dims(x, axis).shape == shape
    np.testing.assert_array_equal(tf.expand_dims(x, axis).numpy(), np.expand_dims(x, axis))


def test_expand_dims_out_of_range():
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        tf.expand_dims(tf.zeros([2, 3]), 3)


def test_squeeze_all_and_some():
    x = tf.zeros([1, 2, 1, 3])
    assert tf.squeeze(x).shape == (2, 3)
    assert tf.squeeze(x, axis=2).shape == (1, 2, 3)
    assert tf.squeeze(x, axis=[0, -2]).shape == (2, 3)


def test_squeeze_a_non_unit_axis_is_an_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Can not squeeze dim\\[1\\]"):
        tf.squeeze(tf.zeros([1, 2]), axis=1)


# -- concat / split ----------------------------------------------------------------------


def test_concat_values_and_negative_axis():
    x, y = values(2, 3), values(2, 1)
    np.testing.assert_array_equal(tf.concat([x, y], axis=-1).numpy(), np.concatenate([x, y], -1))
    np.testing.assert_array_equal(tf.concat([x, x], 0).numpy(), np.concatenate([x, x], 0))


def test_concat_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension 0 in both shapes must be equal"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([3, 3])], axis=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Ranks of all input tensors"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([3])], axis=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32 tensor but is a int32"):
        tf.concat([tf.zeros([2]), tf.constant([1, 2])], axis=0)


# TF 2.21's values (tests/tf_reference/concat_matching_reference.py): a Python value takes the dtype
# of the first tensor among concat's inputs, wherever that tensor stands.
@pytest.mark.parametrize(
    "parts, dtype, expected",
    [
        (lambda: (tf.constant([1.0]), [2]), "float32", [1.0, 2.0]),
        (lambda: ([2], tf.constant([1.0])), "float32", [2.0, 1.0]),
        (lambda: ([1, 2], [3]), "int32", [1, 2, 3]),
        (lambda: (tf.constant([1.0], tf.float64), [2.0]), "float64", [1.0, 2.0]),
    ],
)
def test_concat_converts_python_values_to_the_first_tensors_dtype(parts, dtype, expected):
    result = tf.concat(parts(), axis=0)
    assert result.dtype.name == dtype and result.numpy().tolist() == expected


def test_concat_refuses_a_python_float_next_to_an_int_tensor_as_tf():
    with pytest.raises(TypeError, match="int32"):
        tf.concat((tf.constant([1]), [2.5]), axis=0)


def test_split_even_and_sizes():
    x = values(2, 6)
    parts = tf.split(x, 3, axis=1)
    assert [p.shape for p in parts] == [(2, 2)] * 3
    for got, want in zip(parts, np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got.numpy(), want)
    parts = tf.split(x, [1, -1, 2], axis=1)
    assert [p.shape[1] for p in parts] == [1, 3, 2]


def test_split_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divide"):
        tf.split(tf.zeros([5]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Determined shape"):
        tf.split(tf.zeros([5]), [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Determined shape"):
        tf.split(tf.zeros([5]), [-1, -1])


def test_gradient_through_one_piece_of_a_split():
    x = tf.constant(values(2, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        first, _ = tf.split(x, 2, axis=1)
        y = tf.reduce_sum(first * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[3, 3, 0, 0]] * 2)


# -- tile / pad / reverse ----------------------------------------------------------------


def test_tile():
    x = values(2, 3)
    np.testing.assert_array_equal(tf.tile(x, [2, 1]).numpy(), np.tile(x, [2, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="vector of length 2"):
        tf.tile(x, [2])


def test_tile_gradient_counts_copies():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.tile(x, [3]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])


@pytest.mark.parametrize(
    "mode, np_mode", [("CONSTANT", "constant"), ("reflect", "reflect"), ("SYMMETRIC", "symmetric")]
)
def test_pad_modes(mode, np_mode):
    x = values(3, 4)
    paddings = [[1, 2], [2, 0]]
    np.testing.assert_array_equal(tf.pad(x, paddings, mode=mode).numpy(), np.pad(x, paddings, mode=np_mode))


def test_pad_constant_values_and_dtype():
    got = tf.pad(tf.constant([[1, 2]]), [[0, 0], [1, 1]], constant_values=9)
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(), [[9, 1, 2, 9]])


def test_mirror_pad_gradient():
    grad_matches_numeric(lambda x: tf.pad(x, [[2, 1], [0, 2]], mode="REFLECT"), values(3, 3))
    grad_matches_numeric(lambda x: tf.pad(x, [[2, 1], [0, 3]], mode="SYMMETRIC"), values(3, 3))


def test_pad_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape \\[2, 2\\]"):
        tf.pad(tf.zeros([2, 2]), [[1, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.pad(tf.zeros([2]), [[-1, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="less than the dimension size"):
        tf.pad(tf.zeros([3]), [[3, 0]], mode="REFLECT")
    tf.pad(tf.zeros([3]), [[3, 0]], mode="SYMMETRIC")  # SYMMETRIC allows pad == size
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(tf.zeros([3]), [[1, 0]], mode="WRAP")


def test_reverse():
    x = values(2, 3, 4)
    np.testing.assert_array_equal(tf.reverse(x, [0, -1]).numpy(), x[::-1, :, ::-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than once"):
        tf.reverse(x, [1, -2])


def test_slice():
    x = values(3, 4)
    np.testing.assert_array_equal(tf.slice(x, [1, 0], [2, -1]).numpy(), x[1:3, :])
    with pytest.raises(tf.errors.InvalidArgumentError, match="fit in"):
        tf.slice(x, [2, 0], [2, 1])


# -- gather / gather_nd ------------------------------------------------------------------


def test_gather_axis_0_and_1():
    x = values(4, 3)
    np.testing.assert_array_equal(tf.gather(x, [3, 0, 0]).numpy(), x[[3, 0, 0]])
    np.testing.assert_array_equal(tf.gather(x, [[2], [1]], axis=1).numpy(), x[:, [[2], [1]]])
    assert tf.gather(x, tf.constant([[0, 1]], dtype=tf.int64), axis=-1).shape == (4, 1, 2)


def test_gather_batch_dims():
    params = values(2, 3, 5, 4)
    indices = np.array([[0, 4, 4], [1, 2, 3]])
    got = tf.gather(params, indices, axis=2, batch_dims=1).numpy()
    want = np.stack([params[b][:, indices[b]] for b in range(2)])
    assert got.shape == (2, 3, 3, 4)
    np.testing.assert_array_equal(got, want)
    grad_matches_numeric(lambda p: tf.gather(p, indices, axis=2, batch_dims=1), params)
    assert tf.gather(params, indices % 3, batch_dims=1).shape == (2, 3, 5, 4)  # axis defaults to batch_dims


def test_gather_gradient_is_indexed_slices_whose_dense_form_adds_repeats():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.gather(x, [0, 2, 0]))
    grad = tape.gradient(y, x)
    assert isinstance(grad, tf.IndexedSlices)  # as TF (tests/core/test_indexed_slices.py)
    dense = tf.convert_to_tensor(grad)
    np.testing.assert_array_equal(dense.numpy(), [2.0, 0.0, 1.0])
    assert tf.convert_to_tensor(grad) is dense


def test_gather_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
        tf.gather(tf.zeros([3]), [0, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not in"):
        tf.gather(tf.zeros([3]), [-1])
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.gather(tf.zeros([3]), [0.0])
    with pytest.raises(ValueError, match="batch_dims"):
        tf.gather(tf.zeros([2, 3]), [[0], [1]], axis=0, batch_dims=1)


def test_gather_nd():
    x = values(3, 2, 4)
    idx = np.array([[0, 1], [2, 0]])
    np.testing.assert_array_equal(tf.gather_nd(x, idx).numpy(), x[idx[:, 0], idx[:, 1]])
    np.testing.assert_array_equal(tf.gather_nd(x, [[[2, 1, 3]]]).numpy(), [[x[2, 1, 3]]])
    batched = tf.gather_nd(x, [[[1], [0]], [[0], [0]], [[1], [1]]], batch_dims=1)
    assert batched.shape == (3, 2, 4)
    np.testing.assert_array_equal(batched.numpy()[0], x[0][[1, 0]])
    grad_matches_numeric(lambda p: tf.gather_nd(p, [[[1], [0]], [[0], [0]], [[1], [1]]], batch_dims=1), x)


def test_gather_nd_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into param shape"):
        tf.gather_nd(tf.zeros([2, 2]), [[0, 2]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="innermost dimension"):
        tf.gather_nd(tf.zeros([2, 2]), [[0, 0, 0]])


# -- range / eye / one_hot ---------------------------------------------------------------


def test_range_dtypes_and_values():
    assert tf.range(5).dtype == tf.int32
    np.testing.assert_array_equal(tf.range(5).numpy(), np.arange(5))
    np.testing.assert_array_equal(tf.range(2, 10, 3).numpy(), [2, 5, 8])
    r = tf.range(0.0, 1.0, 0.25)
    assert r.dtype == tf.float32
    np.testing.assert_allclose(r.numpy(), [0, 0.25, 0.5, 0.75])
    assert tf.range(3, dtype=tf.float64).dtype == tf.float64
    assert tf.range(tf.constant(3, dtype=tf.int64)).dtype == tf.int64
    np.testing.assert_array_equal(tf.range(5, 0, -2).numpy(), [5, 3, 1])


def test_range_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="delta != 0"):
        tf.range(0, 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="start <= limit"):
        tf.range(5, 0)


def test_range_does_not_shadow_python_range_elsewhere():
    assert list(range(3)) == [0, 1, 2]


def test_eye():
    np.testing.assert_array_equal(tf.eye(3).numpy(), np.eye(3))
    assert tf.eye(3).dtype == tf.float32
    np.testing.assert_array_equal(tf.eye(2, 3).numpy(), np.eye(2, 3))
    batch = tf.eye(2, batch_shape=[4], dtype=tf.int32)
    assert batch.shape == (4, 2, 2) and batch.dtype == tf.int32


def test_one_hot():
    got = tf.one_hot([0, 2, -1, 5], 3)
    assert got.dtype == tf.float32
    np.testing.assert_array_equal(got.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    got = tf.one_hot([[1, 0]], 2, on_value=5, off_value=-1, axis=0)
    assert got.dtype == tf.int32 and got.shape == (2, 1, 2)
    np.testing.assert_array_equal(got.numpy()[:, 0, :], [[-1, 5], [5, -1]])
    assert tf.one_hot([1], 3, dtype=tf.float64).dtype == tf.float64


# -- __getitem__ -------------------------------------------------------------------------

KEYS = {
    "basic": (1, slice(0, 3)),
    "negative_step": (slice(None, None, -1), slice(3, 0, -2)),
    "newaxis": (None, slice(None), None, 2),
    "ellipsis": (Ellipsis, 1),
    "ellipsis_middle": (0, Ellipsis, None),
    "int_array": ([2, 0, 2],),
    "int_arrays_pair": ([0, 2], [1, 3]),
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_getitem_matches_numpy_and_differentiates(name):
    x = values(3, 4)
    key = KEYS[name]
    np.testing.assert_array_equal(tf.constant(x)[key].numpy(), x[key])
    grad_matches_numeric(lambda t: t[key], x)


def test_getitem_with_a_bool_mask():
    x = values(3, 4)
    mask = x > 0
    np.testing.assert_array_equal(tf.constant(x)[tf.constant(mask)].numpy(), x[mask])
    grad_matches_numeric(lambda t: t[mask], x)


def test_getitem_with_tensor_indices():
    x = tf.constant(values(3, 4))
    i = tf.constant(2)
    np.testing.assert_array_equal(x[i].numpy(), x.numpy()[2])
    np.testing.assert_array_equal(x[tf.constant([0, 2])].numpy(), x.numpy()[[0, 2]])
    np.testing.assert_array_equal(x[:, i:].numpy(), x.numpy()[:, 2:])


def test_repeated_int_array_index_adds_gradients():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x[[0, 0, 1]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 1.0])


def test_getitem_out_of_range():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.zeros([3])[5]


# -- a failing op leaves the tape usable -------------------------------------------------


def test_an_op_raising_inside_a_tape_leaves_it_usable():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.gather(y, [7])
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.concat([y, tf.zeros([1, 1])], axis=0)
        z = tf.reduce_sum(tf.gather(y, [2, 0]))
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [2.0, 0.0, 6.0])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize(
    "shape,axis",
    [((4, 3, 2, 5), [0, 1, 2]), ((6, 5), 0), ((0, 3), 0), ((3, 0, 2), [0, 1]), ((2, 3, 4), [1, 2]), ((2, 3), [0, 1])],
)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_sum_over_leading_axes_matches_numpy(dtype, shape, axis, keepdims):
    # Leading-axis sums (bias gradients) take a BLAS path; it must agree with NumPy's sum.
    x = np.random.default_rng(0).normal(size=shape).astype(dtype)
    got = tf.reduce_sum(x, axis=axis, keepdims=keepdims).numpy()
    want = np.sum(x, axis=tuple(np.atleast_1d(axis)), keepdims=keepdims, dtype=x.dtype)  # TF keeps the dtype
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
