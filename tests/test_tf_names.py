"""TF top-level names added for issue 33, against TF 2.21 (tests/tf_reference/tf_names_*) and finite differences."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as fd
from tests.tf_reference import tf_names_cases

REFERENCE = json.loads((pathlib.Path(__file__).parent / "tf_reference" / "tf_names_values.json").read_text())
# tapeviz's additions: TF 2.21's v[...] has only .assign
ADDITIONS = {"slice_assign_add": [True, True]}


def _close(want, got, where):
    if isinstance(want, list) and len(want) == 2 and want[0] in ("float32", "float64"):
        assert got[0] == want[0], where
        rtol = 1e-6  # float64 gradients of float32 ops (resize) carry float32 rounding
        np.testing.assert_allclose(np.asarray(got[1]), np.asarray(want[1]), rtol=rtol, atol=rtol, err_msg=where)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (w, g) in enumerate(zip(want, got)):
            _close(w, g, f"{where}[{i}]")
    else:
        assert got == want, where


@pytest.fixture(scope="module")
def facts():
    return json.loads(json.dumps(tf_names_cases.facts(tf)))


@pytest.mark.parametrize("key", sorted(REFERENCE["facts"]))
def test_each_name_answers_as_tf_2_21(facts, key):
    if key in ADDITIONS:
        assert REFERENCE["facts"][key] == [False, False] and facts[key] == ADDITIONS[key]
        return
    _close(REFERENCE["facts"][key], facts[key], key)


def _check_fd(fn, *arrays, eps=1e-6, tol=1e-6):
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    weights = fd.projection_weights(fn, arrays)
    numeric = fd.numeric_gradients(fn, arrays, weights, eps=eps)
    for got, want in zip(fd.analytic_gradients(fn, arrays, weights), numeric):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


X = np.random.default_rng(3).uniform(-1, 1, (3, 4))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tf.repeat(x, [2, 0, 3], axis=0),
        lambda x: tf.repeat(x, 2, axis=1),
        lambda x: tf.repeat(x, 3),
        lambda x: tf.roll(x, [1, -5], [0, 1]),
        lambda x: tf.reverse_sequence(x, [4, 1, 2], seq_axis=1),
        lambda x: tf.math.scalar_mul(2.5, x),
        lambda x: tf.identity_n([x])[0] * x,
        lambda x: tf.ensure_shape(x, [3, None]) ** 2,
        lambda x: tf.recompute_grad(lambda t: tf.sin(t) * t)(x),
        lambda x: tf.image.resize_with_pad(x[:, :, None], 5, 7)[..., 0],
        lambda x: tf.image.resize_with_pad(x[None, :, :, None], 2, 6, method="nearest")[0, ..., 0],
        lambda x: tf.dtypes.saturate_cast(x * 3.0, tf.float64),
        lambda x: tf.strided_slice(x, [2, 0], [0, 4], [-1, 2]),
        lambda x: tf.space_to_batch_nd(x[None, :, :, None], [2, 3], [[0, 1], [1, 1]]),
        lambda x: tf.batch_to_space(tf.reshape(x, [4, 1, 3, 1]), [2, 2], [[0, 1], [2, 1]]),
        lambda x: tf.concat(tf.dynamic_partition(x, [2, 0, 2], 3), 0),
        lambda x: tf.dynamic_stitch([[2, 0], [1]], [x[:2], x[2:]]),
    ],
    ids=[
        "repeat_rows",
        "repeat_cols",
        "repeat_flat",
        "roll",
        "reverse_sequence",
        "scalar_mul",
        "identity_n",
        "ensure_shape",
        "recompute_grad",
        "resize_with_pad",
        "resize_with_pad_nearest",
        "saturate_cast",
        "strided_slice",
        "space_to_batch_nd",
        "batch_to_space",
        "dynamic_partition",
        "dynamic_stitch",
    ],
)
def test_new_ops_gradients_match_finite_differences(fn, request):
    if "resize_with_pad" in request.node.name:  # bilinear resizing runs in float32, as TF's: a wide step
        _check_fd(fn, X, eps=1e-2, tol=1e-4)
    else:
        _check_fd(fn, X)


def test_a_sliced_read_of_a_variable_differentiates_and_assign_does_not():
    v = tf.Variable(X.copy())
    s = tf.Variable(2.0, dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        returned = v[1, :2].assign(s * tf.constant([1.0, 3.0], tf.float64))
        y = tf.reduce_sum(v[:, 1:3] ** 2)
    assert returned is v and tape.gradient(returned, s) is None
    want = np.zeros_like(X)
    want[:, 1:3] = 2 * v.numpy()[:, 1:3]
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), want)
    np.testing.assert_allclose(v.numpy()[1, :2], [2.0, 6.0])


def test_slice_assign_add_and_sub_update_only_the_slice():
    v = tf.Variable(np.zeros((2, 3)))
    before = v.read_value()
    v[:, 0].assign_add([1.0, 2.0])
    v[1, 1:].assign_sub(0.5)
    np.testing.assert_array_equal(v.numpy(), [[1.0, 0.0, 0.0], [2.0, -0.5, -0.5]])
    np.testing.assert_array_equal(before.numpy(), np.zeros((2, 3)))  # a tensor read earlier keeps its values


def test_a_sliced_assignment_inside_tf_function_runs_on_every_call():
    v = tf.Variable(np.zeros((2, 2)))

    @tf.function
    def put(row):
        v[0].assign(row)
        return v.read_value()

    put(tf.constant([1.0, 2.0], tf.float64))
    np.testing.assert_array_equal(put(tf.constant([3.0, 4.0], tf.float64)).numpy(), [[3.0, 4.0], [0.0, 0.0]])


def test_an_index_tensor_slice_has_no_assign():
    v = tf.Variable([1.0, 2.0, 3.0])
    assert not hasattr(v[[0, 2]], "assign")  # a gather, not a strided slice: TF has no assign there either
    assert v[tf.constant(1)].assign(7.0) is v and v.numpy()[1] == 7.0


def test_masked_softmax_as_the_textbook_writes_it():
    # d2l's masked_softmax: valid lengths repeated per query (1-D) or flattened (2-D), then a sequence mask
    def masked_softmax(x, valid_lens):
        shape = x.shape
        if len(valid_lens.shape) == 1:
            valid_lens = tf.repeat(valid_lens, repeats=shape[1])
        else:
            valid_lens = tf.reshape(valid_lens, shape=-1)
        flat = tf.reshape(x, shape=(-1, shape[-1]))
        mask = tf.range(start=0, limit=shape[-1], dtype=tf.float32)[None, :] < tf.cast(valid_lens[:, None], tf.float32)
        return tf.nn.softmax(tf.reshape(tf.where(mask, flat, -1e6), shape=shape), axis=-1)

    probs = masked_softmax(tf.random.uniform((2, 2, 4)), tf.constant([2, 3]))
    np.testing.assert_allclose(tf.reduce_sum(probs, -1).numpy(), np.ones((2, 2)), rtol=1e-6)
    assert (probs.numpy()[0, :, 2:] == 0).all() and (probs.numpy()[1, :, 3:] == 0).all()
    heads = tf.repeat(tf.constant([[1, 2], [3, 4]]), repeats=2, axis=0)  # multi-head attention's valid_lens
    assert heads.numpy().tolist() == [[1, 2], [1, 2], [3, 4], [3, 4]]


def test_a_value_check_inside_tf_function_runs_on_every_call():
    @tf.function
    def positive_double(x):
        tf.assert_greater(x, 0.0, message="x must be positive")
        return x * 2.0

    assert positive_double(tf.constant(1.0)).numpy() == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        positive_double(tf.constant(-1.0))


def test_get_logger_is_tfs_logger_and_timestamp_moves():
    import logging

    assert tf.get_logger() is logging.getLogger("tensorflow")
    first = tf.timestamp()
    assert first.dtype == tf.float64 and tf.timestamp().numpy() >= first.numpy()


def test_no_gradient_silences_a_primitive_without_a_rule():
    import tapeviz.image  # noqa: F401  (defines AdjustContrastv2)
    from tapeviz.core.primitive import PRIMITIVES

    primitive = PRIMITIVES["AdjustContrastv2"]
    saved = primitive.differentiable, primitive.rule
    try:
        tf.no_gradient("AdjustContrastv2")
        x = tf.constant(np.ones((2, 2, 3)))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.image.adjust_contrast(x, 2.0)
        assert tape.gradient(y, x) is None
        with pytest.raises(KeyError, match="Registering two gradient"):
            tf.no_gradient("AdjustContrastv2")
    finally:
        primitive.differentiable, primitive.rule = saved


def test_tf_top_level_names_now_present():
    added = [
        "repeat", "roll", "reverse_sequence", "sequence_mask", "unique", "unique_with_counts", "initializers",
        "constant_initializer", "zeros_initializer", "ones_initializer", "random_normal_initializer",
        "random_uniform_initializer", "hessians", "recompute_grad", "grad_pass_through", "no_gradient", "acosh",
        "asinh", "atanh", "realdiv", "truncatediv", "truncatemod", "scalar_mul", "saturate_cast", "dtypes",
        "uint16", "uint32", "uint64", "histogram_fixed_width", "histogram_fixed_width_bins", "shape_n",
        "identity_n", "ensure_shape", "broadcast_static_shape", "broadcast_dynamic_shape", "unravel_index",
        "get_static_value", "no_op", "group", "tuple", "control_dependencies", "inside_function",
        "get_current_name_scope", "guarantee_const", "parallel_stack", "VariableAggregation",
        "VariableSynchronization", "AggregationMethod", "strided_slice", "Assert", "assert_equal",
        "assert_greater", "assert_less", "assert_rank", "losses", "metrics", "get_logger", "timestamp",
        "space_to_batch_nd", "space_to_batch", "batch_to_space", "required_space_to_batch_paddings",
        "dynamic_partition", "dynamic_stitch", "bitwise",
    ]  # fmt: skip
    assert set(added) <= set(REFERENCE["dir(tf)"])
    assert [name for name in added if name not in dir(tf)] == []
