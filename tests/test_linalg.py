"""Behaviour of the matrix ops: values against NumPy, shapes, gradients, TF's errors."""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import finite_differences as testing

rng = np.random.default_rng(0)


def values(*shape):
    return rng.uniform(-1, 1, size=shape)


def well_conditioned(*batch, n=3):
    return values(*batch, n, n) * 0.5 + 2.0 * np.eye(n)


def grad_matches_numeric(fn, *arrays):
    """First-order check of fn's gradients (float64) against finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    weights = testing.projection_weights(fn, arrays)
    analytic = testing.analytic_gradients(fn, arrays, weights)
    numeric = testing.numeric_gradients(fn, arrays, weights)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-6, atol=1e-6)


def test_top_level_names():
    assert tf.matmul is tf.linalg.matmul
    assert tf.einsum is tf.linalg.einsum
    assert tf.tensordot is tf.linalg.tensordot
    assert tf.eye is tf.linalg.eye


# -- matmul --------------------------------------------------------------------------------


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_transposes(ta, tb):
    m, k = values(3, 4), values(4, 2)
    a, b = (m.T if ta else m), (k.T if tb else k)
    want = m @ k
    np.testing.assert_allclose(tf.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy(), want)


def test_matmul_batch_broadcasting_values_and_gradients():
    a, b = values(2, 1, 3, 4), values(5, 4, 2)
    assert tf.matmul(a, b).shape == (2, 5, 3, 2)
    np.testing.assert_allclose(tf.matmul(a, b).numpy(), a @ b)
    grad_matches_numeric(tf.matmul, a, b)
    grad_matches_numeric(tf.matmul, values(3, 4), values(2, 4, 2))  # an unbatched matrix against a batch


def test_matmul_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2"):
        tf.matmul(tf.zeros([3]), tf.zeros([3, 1]))


def test_matvec():
    a, b = values(2, 3, 4), values(2, 4)
    np.testing.assert_allclose(tf.linalg.matvec(a, b).numpy(), np.einsum("bij,bj->bi", a, b))
    np.testing.assert_allclose(tf.linalg.matvec(a, values(3)[None].repeat(2, 0), transpose_a=True).shape, (2, 4))
    grad_matches_numeric(tf.linalg.matvec, a, b)


def test_matrix_transpose():
    x = values(2, 3, 4)
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x).numpy(), np.swapaxes(x, -1, -2))


# -- tensordot -----------------------------------------------------------------------------

TENSORDOT = [
    (0, (2, 3), (4,)),
    (1, (2, 3, 4), (4, 5)),
    (2, (2, 3, 4), (3, 4, 5)),
    ([[1, 2], [0, 1]], (2, 3, 4), (3, 4, 5)),
    ([1, 0], (2, 3), (3, 2)),
    ([[2], [1]], (2, 3, 4), (5, 4)),
    ([[0, -1], [1, 0]], (2, 3, 4), (4, 2)),
]


@pytest.mark.parametrize("axes, sa, sb", TENSORDOT)
def test_tensordot_matches_numpy(axes, sa, sb):
    a, b = values(*sa), values(*sb)
    np_axes = axes if isinstance(axes, int) else tuple(axes)
    want = np.tensordot(a, b, np_axes)
    got = tf.tensordot(a, b, axes)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want)
    grad_matches_numeric(lambda x, y: tf.tensordot(x, y, axes), a, b)


def test_tensordot_full_contraction_is_a_scalar():
    a = values(2, 3)
    np.testing.assert_allclose(tf.tensordot(a, a, [[0, 1], [0, 1]]).numpy(), np.sum(a * a))


def test_tensordot_errors():
    with pytest.raises(ValueError, match="does not match"):
        tf.tensordot(tf.zeros([2, 3]), tf.zeros([4, 5]), 1)
    with pytest.raises(ValueError, match="as many axes"):
        tf.tensordot(tf.zeros([2, 3]), tf.zeros([3, 5]), [[1], [0, 1]])
    with pytest.raises(ValueError, match="axes=3"):
        tf.tensordot(tf.zeros([2, 3]), tf.zeros([3, 5]), 3)


# -- einsum --------------------------------------------------------------------------------

EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
    ("ba,ca", [(2, 3), (4, 3)]),  # implicit output, alphabetical: "bc"
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),  # ellipsis, broadcast
    ("...i->...", [(2, 3, 4)]),
    ("ij,ij->ij", [(1, 3), (4, 3)]),  # a size-1 axis broadcast against 4
    ("i,i->", [(3,), (3,)]),
]


@pytest.mark.parametrize("equation, shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_numpy_and_differentiates(equation, shapes):
    arrays = [values(*s) for s in shapes]
    want = np.einsum(equation, *arrays)
    got = tf.einsum(equation, *arrays)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want)
    grad_matches_numeric(lambda *xs: tf.einsum(equation, *xs), *arrays)


def test_einsum_takes_a_list_of_operands_and_spaces():
    a, b = values(2, 3), values(3, 4)
    np.testing.assert_allclose(tf.einsum("ij, jk -> ik", [a, b]).numpy(), a @ b)


def test_einsum_diagonal_runs_but_its_gradient_is_unimplemented():
    a = tf.constant(values(3, 3))
    np.testing.assert_allclose(tf.einsum("ii->i", a).numpy(), np.diag(a.numpy()))
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.einsum("ii->", a)
    with pytest.raises(tf.errors.UnimplementedError, match="repeats a subscript"):
        tape.gradient(y, a)
    with pytest.raises(NotImplementedError):  # UnimplementedError is a NotImplementedError
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.einsum("ii,j->j", a, tf.ones([2], dtype=tf.float64))
        tape.gradient(y, a)


def test_einsum_gradient_of_the_other_operand_beside_a_diagonal_works():
    a, b = tf.constant(values(3, 3)), tf.constant(values(2))
    with tf.GradientTape() as tape:
        tape.watch(b)
        y = tf.reduce_sum(tf.einsum("ii,j->j", a, b))
    np.testing.assert_allclose(tape.gradient(y, b).numpy(), [np.trace(a.numpy())] * 2)


def test_einsum_errors():
    with pytest.raises(ValueError, match="names 2 operands but 1"):
        tf.einsum("ij,jk->ik", tf.zeros([2, 3]))
    with pytest.raises(ValueError, match="operand has rank 3"):
        tf.einsum("ij->i", tf.zeros([2, 3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected dimension 3"):
        tf.einsum("ij,jk->ik", tf.zeros([2, 3]), tf.zeros([4, 5]))
    with pytest.raises(ValueError, match="output subscripts"):
        tf.einsum("ij->k", tf.zeros([2, 3]))


# -- inverse, determinant, diagonals -----------------------------------------------------------


def test_inv_values_batched_and_adjoint():
    a = well_conditioned(4)
    np.testing.assert_allclose(tf.linalg.inv(a).numpy(), np.linalg.inv(a))
    np.testing.assert_allclose(tf.linalg.inv(a, adjoint=True).numpy(), np.linalg.inv(np.swapaxes(a, -1, -2)))
    grad_matches_numeric(tf.linalg.inv, a)


def test_inv_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.inv(tf.zeros([2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be square"):
        tf.linalg.inv(tf.zeros([2, 3]))


def test_det_values_and_gradient_formula():
    a = well_conditioned(2)
    np.testing.assert_allclose(tf.linalg.det(a).numpy(), np.linalg.det(a))
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.det(x))
    want = np.linalg.det(a)[:, None, None] * np.linalg.inv(a).transpose(0, 2, 1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be square"):
        tf.linalg.det(tf.zeros([3]))


def test_diag_part_diag_and_trace():
    x = values(2, 3, 4)
    np.testing.assert_array_equal(tf.linalg.diag_part(x).numpy(), np.diagonal(x, axis1=-2, axis2=-1))
    np.testing.assert_allclose(tf.linalg.trace(x).numpy(), np.trace(x, axis1=-2, axis2=-1))
    np.testing.assert_array_equal(tf.linalg.diag([1.0, 2.0]).numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_array_equal(tf.linalg.diag([1.0, 2.0], num_cols=3).numpy(), [[1, 0, 0], [0, 2, 0]])
    grad_matches_numeric(tf.linalg.trace, x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not fit"):
        tf.linalg.diag([1.0, 2.0], num_rows=3, num_cols=3)
    with pytest.raises(NotImplementedError, match="k=0"):
        tf.linalg.diag_part(x, k=1)


def test_linalg_eye():
    np.testing.assert_array_equal(
        tf.linalg.eye(2, 3, batch_shape=[2]).numpy(), np.broadcast_to(np.eye(2, 3), (2, 2, 3))
    )


def test_second_order_through_inverse():
    """d²/dx² of 1/x written as a 1x1 matrix inverse: 2/x³."""
    x = tf.constant([[2.0]], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.linalg.inv(x)
        dy = inner.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), [[2 / 8]])


def test_a_singular_matrix_inside_a_tape_leaves_it_usable():
    x = tf.constant(well_conditioned())
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.linalg.inv(x * 0.0)
        y = tf.linalg.trace(tf.linalg.inv(x))
    inv = np.linalg.inv(x.numpy())
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), -(inv @ inv).T)


@pytest.mark.parametrize(
    "equation, shapes", [("ij->i", [(2, 3)]), ("ij,ij->ij", [(1, 3), (4, 3)]), ("...ij,jk->...ik", [(2, 2, 3), (3, 2)])]
)
def test_einsum_second_order_on_the_reshaping_paths(equation, shapes):
    arrays = [values(*s) for s in shapes]

    def fn(*xs):
        return tf.einsum(equation, *[x * x for x in xs])

    weights = testing.projection_weights(fn, arrays)
    vectors = [values(*s) for s in shapes]
    analytic = testing.hessian_vector(fn, arrays, weights, vectors)
    numeric = testing.numeric_hessian_vector(fn, arrays, weights, vectors)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("transpose_a", [False, True])
def test_matmul_outer_product_values_and_gradients(transpose_a):
    # An inner size of 1 (a weight gradient over a batch of one) takes the dot path.
    rng = np.random.default_rng(3)
    a = rng.normal(size=(1, 5) if transpose_a else (5, 1))
    b = rng.normal(size=(1, 4))
    x, y = tf.constant(a), tf.constant(b)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.matmul(x, y, transpose_a=transpose_a)
        loss = tf.reduce_sum(z * z)
    a_mat = a.T if transpose_a else a
    np.testing.assert_allclose(z.numpy(), a_mat @ b)
    ga, gb = tape.gradient(loss, [x, y])
    g = 2 * (a_mat @ b)
    np.testing.assert_allclose(ga.numpy(), (g @ b.T).T if transpose_a else g @ b.T)
    np.testing.assert_allclose(gb.numpy(), a_mat.T @ g)
