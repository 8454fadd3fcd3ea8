"""Max pooling kernels against a loop-by-window reference: TF's first-max routing under ties.

The rule cases use distinct values (finite differences cannot see ties);
here inputs are full of ties (a relu output has many all-zero windows) and
the gradient must still go to each window's first max in row-major order.
"""

import numpy as np
import pytest

from tapeviz import backend as B
from tapeviz.core.primitives import conv as c
from tapeviz.core.primitives.conv import pooling


def _on_backend(kernel):
    """``kernel`` on the active backend's arrays: host arrays in, host arrays out."""
    return lambda *args: B.to_numpy(kernel(*[B.asarray(a) if isinstance(a, np.ndarray) else a for a in args]))


_max_pool, _max_pool_grad, _max_pool_grad_grad = map(
    _on_backend, (pooling._max_pool, pooling._max_pool_grad, pooling._max_pool_grad_grad)
)

TILED = [((2, 2), (2, 2), "VALID"), ((3, 3), (3, 3), "VALID"), ((2, 3), (2, 3), "VALID"), ((1, 1), (1, 1), "VALID")]
SWEPT = [((2, 2), (2, 2), "SAME"), ((3, 3), (2, 2), "SAME"), ((2, 2), (1, 2), "SAME"), ((3, 2), (1, 1), "VALID")]


def first_max_cells(x, ksize, strides, padding):
    """Per output (n, oh, ow, c): the (row, col) in x of its window's first max, window by window.

    Padding cells are left out (they never win); np.argmax takes the first
    max, or the first NaN.
    """
    n, h, w, ch = x.shape
    oh, ow, ph, pw = c.geometry(x.shape, ksize, strides, padding)
    rows, cols = np.empty((2, n, oh, ow, ch), dtype=int)
    for r in range(oh):
        for q in range(ow):
            cells = [
                (r * strides[0] + i - ph[0], q * strides[1] + j - pw[0])
                for i in range(ksize[0])
                for j in range(ksize[1])
            ]
            cells = [(a, b) for a, b in cells if 0 <= a < h and 0 <= b < w]
            first = np.argmax(np.stack([x[:, a, b, :] for a, b in cells]), axis=0)
            rows[:, r, q, :] = np.array([a for a, _ in cells])[first]
            cols[:, r, q, :] = np.array([b for _, b in cells])[first]
    return rows, cols


def reference_grad(x, g, ksize, strides, padding):
    rows, cols = first_max_cells(x, ksize, strides, padding)
    n_idx, _, _, c_idx = np.indices(g.shape)
    out = np.zeros(x.shape, dtype=g.dtype)
    np.add.at(out, (n_idx, rows, cols, c_idx), g)
    return out


def reference_grad_grad(x, h, ksize, strides, padding):
    rows, cols = first_max_cells(x, ksize, strides, padding)
    n_idx, _, _, c_idx = np.indices(rows.shape)
    return h[n_idx, rows, cols, c_idx]


def tied_input(shape, seed):
    """Relu-like: about half zeros (many all-zero windows) and a few repeated positive values."""
    rng = np.random.default_rng(seed)
    return np.maximum(rng.integers(-3, 3, size=shape), 0).astype(np.float32)


def small_ints(shape, seed):
    """Integer-valued floats, so that sums over overlapping windows are exact in any order."""
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype(np.float32)


@pytest.mark.parametrize("ksize, strides, padding", TILED + SWEPT)
def test_pool_grad_and_grad_grad_use_the_first_max_of_each_window(ksize, strides, padding):
    x = tied_input((3, 6, 6, 4), seed=1)
    oh, ow, _, _ = c.geometry(x.shape, ksize, strides, padding)
    g, h = small_ints((3, oh, ow, 4), seed=2), small_ints(x.shape, seed=3)
    np.testing.assert_array_equal(
        _max_pool_grad(x, g, ksize, strides, padding), reference_grad(x, g, ksize, strides, padding)
    )
    np.testing.assert_array_equal(
        _max_pool_grad_grad(x, h, ksize, strides, padding), reference_grad_grad(x, h, ksize, strides, padding)
    )


@pytest.mark.parametrize("ksize, strides, padding", TILED)
def test_tiled_pool_is_the_window_max_bit_for_bit(ksize, strides, padding):
    rng = np.random.default_rng(4)
    x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0], np.float32), size=(2, 6, 6, 3))  # signed zero ties
    expected = x.reshape(2, 6 // ksize[0], ksize[0], 6 // ksize[1], ksize[1], 3).max(axis=(2, 4))
    assert _max_pool(x, ksize, strides, padding).tobytes() == expected.tobytes()


@pytest.mark.parametrize("ksize, strides, padding", [TILED[0], SWEPT[1]])
def test_routed_gradient_keeps_its_exact_bits_and_is_plus_zero_elsewhere(ksize, strides, padding):
    x = tied_input((2, 6, 6, 3), seed=5)
    oh, ow, _, _ = c.geometry(x.shape, ksize, strides, padding)
    g = np.random.default_rng(6).choice(
        np.array([-0.0, np.inf, -np.inf, np.nan, -2.5], np.float32), size=(2, oh, ow, 3)
    )
    routed = _max_pool_grad(x, g, ksize, strides, padding)
    rows, cols = first_max_cells(x, ksize, strides, padding)
    n_idx, _, _, c_idx = np.indices(g.shape)
    if strides == ksize:  # one window per pixel: the value itself, not a sum
        assert routed[n_idx, rows, cols, c_idx].tobytes() == g.tobytes()
    unreached = np.ones(x.shape, dtype=bool)
    unreached[n_idx, rows, cols, c_idx] = False
    assert not np.signbit(routed[unreached]).any() and (routed[unreached] == 0).all()


def test_a_nan_is_the_max_of_a_tiled_window_for_both_gradients():
    x = tied_input((1, 4, 4, 2), seed=7)
    x[0, 0, 1, 0] = x[0, 1, 0, 0] = np.nan  # window (0, 0), channel 0: the first NaN is at (0, 1)
    g, h = small_ints((1, 2, 2, 2), seed=8), small_ints(x.shape, seed=9)
    routed = _max_pool_grad(x, g, (2, 2), (2, 2), "VALID")
    assert routed[0, 0, 1, 0] == g[0, 0, 0, 0] and routed[0, 1, 0, 0] == 0
    np.testing.assert_array_equal(routed, reference_grad(x, g, (2, 2), (2, 2), "VALID"))
    np.testing.assert_array_equal(
        _max_pool_grad_grad(x, h, (2, 2), (2, 2), "VALID"), reference_grad_grad(x, h, (2, 2), (2, 2), "VALID")
    )
    assert np.isnan(_max_pool(x, (2, 2), (2, 2), "VALID")[0, 0, 0, 0])
