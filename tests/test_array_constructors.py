"""linspace, meshgrid, sort, argsort, top_k, boolean_mask, scatter_nd, tensor_scatter_nd_*,
clip_by_value on variables and searchsorted, against TF 2.21.

TF's numbers come from tests/tf_reference/ops_reference.py (section "array
constructors"); gradients are of sum(out * weights) as in tests/tf_compare.py.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.errors import InvalidArgumentError
from tests.tf_compare import assert_tf, grads

nan = float("nan")

# Output of ops_reference.py, TF 2.21.0 (CPU).
TF = {
    "linspace_int": [[0.0, 0.25, 0.5, 0.75, 1.0], "float64"],
    "linspace_7": [-1.0, -0.6666666269302368, -0.3333333134651184, 0.0, 0.3333333730697632, 0.6666667461395264, 1.0],
    "linspace_batched": [[0.0, 1.0], [0.5, 2.0], [1.0, 3.0]],
    "linspace_batched_last": [[0.0, 0.5, 1.0], [1.0, 2.0, 3.0]],
    "linspace_broadcast": [
        [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]],
        [[0.5, 1.5, 2.5], [1.0, 2.0, 3.0]],
        [[1.0, 3.0, 5.0], [1.0, 3.0, 5.0]],
    ],
    "linspace_grad": [[1.2214858531951904, -0.14447873830795288], [-1.0873229503631592, 1.4885698556900024]],
    "linspace_grad_num1": [1.0, 0.0],
    "meshgrid_xy": [[[1, 2, 3], [1, 2, 3]], [[4, 4, 4], [5, 5, 5]]],
    "meshgrid_ij": [[[1, 1], [2, 2], [3, 3]], [[4, 5], [4, 5], [4, 5]]],
    "meshgrid_grad": [
        [0.010007500648498535, -0.1133413314819336, -0.13248464465141296],
        [12.548579216003418, -17.457759857177734],
    ],
    "sort": [[1.0, 1.0, 2.0, 3.0, 5.0], [5.0, 3.0, 2.0, 1.0, 1.0]],
    "argsort": [[1, 3, 2, 0, 4], [4, 0, 2, 1, 3]],
    "sort_int": [-2, 0, 3, 7],
    "sort_axis0": [[1.0, 0.0, 2.0], [9.0, 4.0, 9.0]],
    "sort_grad": [
        [[1.0, -0.416146844625473, 0.5403022766113281], [-0.6536436080932617, -0.9899924993515015, 0.28366219997406006]]
    ],
    "sort_grad_axis0_desc": [
        [[-0.9899924993515015, 0.5403022766113281, 0.28366219997406006], [1.0, -0.6536436080932617, -0.416146844625473]]
    ],
    "top_k": [[[4.0, 2.0], [9.0, 9.0]], [[1, 2], [0, 2]], "int32"],
    "top_k_grad": [[[0.0, 1.0, 0.5403022766113281], [-0.416146844625473, 0.0, -0.9899924993515015]]],
    "boolean_mask": [[[1.0, 2.0], [5.0, 6.0]], [1.0, 4.0, 5.0, 6.0], [[2.0], [4.0], [6.0]]],
    "boolean_mask_grad": [[[1.0, 0.0], [0.0, 0.5403022766113281], [-0.416146844625473, -0.9899924993515015]]],
    "scatter_nd": [[0.0, 11.0, 0.0, 10.0, 9.0, 0.0, 0.0, 12.0], [0.0, 19.0, 0.0], [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]],
    "tensor_scatter": [
        [[1.0, 10.0], [3.0, 4.0], [20.0, 6.0]],
        [[10.0, 20.0], [3.0, 4.0], [30.0, 40.0]],
        [[1.0, 32.0], [3.0, 4.0], [5.0, 6.0]],
        [[1.0, -8.0], [3.0, 4.0], [-15.0, 6.0]],
    ],
    "tensor_scatter_grads": [
        [
            [[1.0, 0.0], [-0.416146844625473, -0.9899924993515015], [0.0, 0.28366219997406006]],
            [0.5403022766113281, -0.6536436080932617],
        ],
        [
            [
                [1.0, 0.5403022766113281],
                [-0.416146844625473, -0.9899924993515015],
                [-0.6536436080932617, 0.28366219997406006],
            ],
            [0.5403022766113281, 0.5403022766113281],
        ],
        [
            [
                [1.0, 0.5403022766113281],
                [-0.416146844625473, -0.9899924993515015],
                [-0.6536436080932617, 0.28366219997406006],
            ],
            [-0.5403022766113281, 0.6536436080932617],
        ],
        [[0.5403022766113281, -0.6536436080932617, 0.5403022766113281]],
        [
            [[1.0, 0.5403022766113281], [0.0, 0.0], [-0.6536436080932617, 0.28366219997406006]],
            [-1.2484405040740967, -2.969977378845215],
        ],
    ],
    "clip_variable": [
        [-1.0, -1.0, 0.5, 1.0, 1.0],
        [0.0, 0.5403022766113281, -0.416146844625473, -0.9899924993515015, 0.0],
    ],
    "clip_int_variable": [-1, 0, 1],
    "clip_assigned": [0.0, 0.0, 0.5, 1.0, 1.0],
    "searchsorted": [[[1, 4], [0, 2]], [[1, 5], [0, 3]], [2, 0, 2], "int64"],
}

VALUES = [3.0, 1.0, 2.0, 1.0, 5.0]
MATRIX = [[1.0, 4.0, 2.0], [9.0, 0.0, 9.0]]
TABLE = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
MASK2D = [[True, False], [False, True], [True, True]]
PAIRS = [[0, 1], [2, 0]]
SEQUENCE = [[0.0, 3.0, 8.0, 9.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0]]


# -- linspace ---------------------------------------------------------------------------------


def test_linspace_values_and_dtypes_as_tf():
    t = tf.linspace(0, 1, 5)
    assert_tf(t, TF["linspace_int"][0])
    assert t.dtype.name == TF["linspace_int"][1]  # integers divide as float64
    seven = tf.linspace(-1.0, 1.0, 7)
    assert seven.dtype == tf.float32
    np.testing.assert_array_equal(seven.numpy(), np.asarray(TF["linspace_7"], dtype=np.float32))  # bit for bit
    assert tf.linspace(2.0, 3.0, 1).numpy().tolist() == [2.0]
    assert tf.linspace(2.0, 3.0, 0).shape == (0,)
    assert tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3).dtype == tf.float64
    assert_tf(tf.linspace(0.0, 1.0, tf.constant(3)), [0.0, 0.5, 1.0])


def test_linspace_with_tensor_and_batched_ends():
    assert_tf(tf.linspace([0.0, 1.0], [1.0, 3.0], 3), TF["linspace_batched"])
    assert_tf(tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=-1), TF["linspace_batched_last"])
    wide = tf.linspace([[0.0], [1.0]], [1.0, 3.0, 5.0], 3)
    assert wide.shape == (3, 2, 3)
    assert_tf(wide, TF["linspace_broadcast"])


def test_linspace_gradients_as_tf():
    assert_tf(grads(lambda s, e: tf.linspace(s, e, 4, axis=1), [0.5, 1.0], [2.0, -1.0]), TF["linspace_grad"])
    # num=1 keeps only start: stop gets 0 (not None), as in TF.
    assert_tf(grads(lambda s, e: tf.linspace(s, e, 1), 0.5, 2.0), TF["linspace_grad_num1"])


def test_linspace_errors_as_tf():
    with pytest.raises(TypeError, match="must be of type integer"):
        tf.linspace(0.0, 1.0, 3.0)
    with pytest.raises(InvalidArgumentError):
        tf.linspace(2.0, 3.0, -1)
    with pytest.raises(ValueError, match="float64"):
        tf.linspace(tf.constant(0.0), tf.constant(4.0, tf.float64), 3)


# -- meshgrid ----------------------------------------------------------------------------------


def test_meshgrid_as_tf():
    assert_tf(tf.meshgrid([1, 2, 3], [4, 5]), TF["meshgrid_xy"])
    assert_tf(tf.meshgrid([1, 2, 3], [4, 5], indexing="ij"), TF["meshgrid_ij"])
    assert tf.meshgrid([1, 2, 3], [4, 5])[0].dtype == tf.int32
    assert tf.meshgrid() == []
    assert_tf(
        grads(lambda a, b: tf.stack(tf.meshgrid(a, b * b)), [1.0, 2.0, 3.0], [4.0, 5.0]), TF["meshgrid_grad"], rtol=1e-5
    )
    with pytest.raises(ValueError, match="'xy' or 'ij'"):
        tf.meshgrid([1], [2], indexing="yx")


def test_meshgrid_three_axes_xy_swaps_only_the_first_two():
    x, y, z = tf.meshgrid([1, 2], [3, 4, 5], [6, 7, 8, 9])
    assert x.shape == y.shape == z.shape == (3, 2, 4)
    np.testing.assert_array_equal(x.numpy(), np.meshgrid([1, 2], [3, 4, 5], [6, 7, 8, 9])[0])


# -- sort, argsort, top_k ------------------------------------------------------------------------


def test_sort_and_argsort_as_tf():
    assert_tf([tf.sort(VALUES), tf.sort(VALUES, direction="DESCENDING")], TF["sort"])
    order = [tf.argsort(VALUES), tf.argsort(VALUES, direction="DESCENDING")]
    assert_tf(order, TF["argsort"])  # ties keep their order
    assert order[0].dtype == tf.int32
    assert_tf(tf.sort([3, -2, 7, 0]), TF["sort_int"])
    assert tf.sort([3, -2, 7, 0]).dtype == tf.int32
    assert_tf(tf.sort(MATRIX, axis=0), TF["sort_axis0"])
    with pytest.raises(ValueError, match="ASCENDING, DESCENDING"):
        tf.sort(VALUES, direction="UP")


def test_sort_gradients_follow_the_values_as_tf():
    assert_tf(grads(lambda v: tf.sort(v), MATRIX), TF["sort_grad"])
    assert_tf(grads(lambda v: tf.sort(v, axis=0, direction="DESCENDING"), MATRIX), TF["sort_grad_axis0_desc"])


def test_top_k_as_tf():
    top = tf.math.top_k(MATRIX, k=2)
    assert_tf([top.values, top.indices], TF["top_k"][:2])
    assert top.indices.dtype.name == TF["top_k"][2]
    values, indices = tf.nn.top_k(MATRIX, 2)  # a namedtuple: unpacks
    assert_tf([values, indices], TF["top_k"][:2])
    assert tf.math.top_k(VALUES, k=2, index_type=tf.int64).indices.dtype == tf.int64
    assert_tf(grads(lambda v: tf.math.top_k(v, k=2).values, MATRIX), TF["top_k_grad"])
    with pytest.raises(InvalidArgumentError, match="at least k columns"):
        tf.math.top_k(VALUES, k=6)
    with pytest.raises(InvalidArgumentError, match=">= 1-D"):
        tf.math.top_k(1.0)


# -- boolean_mask -------------------------------------------------------------------------------


def test_boolean_mask_as_tf():
    assert_tf(
        [
            tf.boolean_mask(TABLE, [True, False, True]),
            tf.boolean_mask(TABLE, MASK2D),
            tf.boolean_mask(TABLE, [False, True], axis=1),
        ],
        TF["boolean_mask"],
    )
    assert_tf(tf.boolean_mask(TABLE, tf.constant(TABLE)[:, 0] > 2), [[3.0, 4.0], [5.0, 6.0]])
    assert_tf(grads(lambda v: tf.boolean_mask(v, MASK2D), TABLE), TF["boolean_mask_grad"])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        tf.boolean_mask(TABLE, [True, False])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(TABLE, True)


# -- scatter ----------------------------------------------------------------------------------


def test_scatter_nd_as_tf():
    assert_tf(
        [
            tf.scatter_nd([[4], [3], [1], [7]], [9.0, 10.0, 11.0, 12.0], [8]),
            tf.scatter_nd([[1], [1]], [9.0, 10.0], [3]),  # repeats add up
            tf.scatter_nd([[0], [2]], [[1.0, 2.0], [3.0, 4.0]], [3, 2]),
        ],
        TF["scatter_nd"],
    )
    assert tf.scatter_nd([[1]], [1], tf.constant([3])).dtype == tf.int32
    with pytest.raises(InvalidArgumentError, match=r"indices\[0\] = \[5\] does not index into shape \[3\]"):
        tf.scatter_nd([[5]], [1.0], [3])
    with pytest.raises(InvalidArgumentError, match=r"Dimensions \[0,1\) of indices\[shape=\[2, 1\]\]"):
        tf.scatter_nd([[1], [2]], [1.0], [3])


def test_tensor_scatter_nd_as_tf():
    assert_tf(
        [
            tf.tensor_scatter_nd_update(TABLE, PAIRS, [10.0, 20.0]),
            tf.tensor_scatter_nd_update(TABLE, [[0], [2]], [[10.0, 20.0], [30.0, 40.0]]),
            tf.tensor_scatter_nd_add(TABLE, [[0, 1], [0, 1]], [10.0, 20.0]),
            tf.tensor_scatter_nd_sub(TABLE, PAIRS, [10.0, 20.0]),
        ],
        TF["tensor_scatter"],
    )
    assert_tf(tf.tensor_scatter_nd_update(tf.zeros([3]), [[1], [1]], [5.0, 6.0]), [0.0, 6.0, 0.0])  # the last wins
    assert_tf(tf.tensor_scatter_nd_update(TABLE, [[0, 1]], [1]), [[1.0, 1.0], [3.0, 4.0], [5.0, 6.0]])  # updates cast
    with pytest.raises(InvalidArgumentError, match="does not index into shape"):
        tf.tensor_scatter_nd_update(TABLE, [[3, 0]], [1.0])


def test_scatter_gradients_as_tf():
    assert_tf(
        [
            grads(lambda v, u: tf.tensor_scatter_nd_update(v, PAIRS, u), TABLE, [10.0, 20.0]),
            grads(lambda v, u: tf.tensor_scatter_nd_add(v, [[0, 1], [0, 1]], u), TABLE, [10.0, 20.0]),
            grads(lambda v, u: tf.tensor_scatter_nd_sub(v, PAIRS, u), TABLE, [10.0, 20.0]),
            grads(lambda u: tf.scatter_nd([[0, 1], [2, 0], [0, 1]], u, [3, 2]), [10.0, 20.0, 30.0]),
            grads(lambda v, u: tf.tensor_scatter_nd_update(v, [[1], [1]], tf.stack([u, 2.0 * u])), TABLE, [1.0, 2.0]),
        ],
        TF["tensor_scatter_grads"],
    )


def test_a_failed_scatter_leaves_the_tape_usable():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        with pytest.raises(InvalidArgumentError):
            tf.scatter_nd([[7]], v, [3])
        y = tf.reduce_sum(tf.scatter_nd([[2], [0]], v * v, [3]))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, 4.0])


# -- clip_by_value on variables -----------------------------------------------------------------


def test_clip_by_value_on_variables_as_tf():
    v = tf.Variable([-2.0, -1.0, 0.5, 1.0, 3.0])
    with tf.GradientTape() as tape:
        clipped = tf.clip_by_value(v, -1.0, 1.0)
        loss = tf.reduce_sum(clipped * tf.constant(np.cos(np.arange(5.0)), tf.float32))
    # At the bounds themselves the gradient passes; beyond them it is 0.
    assert_tf([clipped, tape.gradient(loss, v)], TF["clip_variable"])
    assert_tf(tf.clip_by_value(tf.Variable([-5, 0, 7]), -1, 1), TF["clip_int_variable"])
    v.assign(tf.clip_by_value(v, 0.0, 1.0))
    assert_tf(v, TF["clip_assigned"])
    bounds = tf.Variable([0.0, 0.0, 0.0, 0.0, 0.0])
    assert_tf(tf.clip_by_value(v, bounds, 0.75), [0.0, 0.0, 0.5, 0.75, 0.75])


# -- searchsorted --------------------------------------------------------------------------------


def test_searchsorted_as_tf():
    found = [
        tf.searchsorted(SEQUENCE, [[2.0, 10.0], [0.0, 3.0]]),
        tf.searchsorted(SEQUENCE, [[2.0, 10.0], [0.0, 3.0]], side="right"),
        tf.searchsorted([1.0, 2.0, 3.0], [2.5, 0.0, 3.0]),
    ]
    assert_tf(found, TF["searchsorted"][:3])
    assert found[0].dtype == tf.int32
    assert tf.searchsorted([1.0, 2.0, 3.0], [2.5], out_type=tf.int64).dtype.name == TF["searchsorted"][3]


def test_searchsorted_errors_as_tf():
    with pytest.raises(InvalidArgumentError, match="Leading dim_size of both tensors must match"):
        tf.searchsorted(SEQUENCE, [2.0, 10.0])
    with pytest.raises(ValueError, match="either 'right' or 'left'"):
        tf.searchsorted([1.0, 2.0], [1.0], side="middle")
    with pytest.raises(InvalidArgumentError, match="LowerBound"):
        tf.searchsorted([1.0, 2.0, 3.0], [2])


def test_searchsorted_large_batches_match_numpy():
    rng = np.random.default_rng(0)
    sequence = np.sort(rng.normal(size=(4, 3, 50)), axis=-1)
    values = rng.normal(size=(4, 3, 7))
    found = tf.searchsorted(sequence, values, side="right").numpy()
    for index in np.ndindex(4, 3):
        np.testing.assert_array_equal(found[index], np.searchsorted(sequence[index], values[index], side="right"))
