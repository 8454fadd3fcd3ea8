"""The BLAS thread policy (tapeviz/backend/threads.py): small products on one thread, large ones on the default.

Timings are the benchmark's job (benchmarks/bench_threads.py); these check
which thread count each product gets, through threadpoolctl's own reading.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.backend import threads

threadpoolctl = pytest.importorskip("threadpoolctl", reason="the policy needs threadpoolctl (tapeviz[lessons])")


def _blas_threads():
    return max(
        lib.num_threads for lib in threadpoolctl.ThreadpoolController().lib_controllers if lib.user_api == "blas"
    )


@pytest.fixture
def restored():
    yield
    tf.config.threading.set_intra_op_parallelism_threads(0)


def test_small_products_run_on_one_thread_and_large_ones_on_the_default(restored):
    if not threads._blas_libraries():
        pytest.skip("no BLAS library that threadpoolctl can control")
    default = threads._library_default
    small = tf.ones((8, 8))
    tf.matmul(small, small)
    assert _blas_threads() == 1
    side = 1 + int(round((threads.SMALL_PRODUCT_FLOPS / 2) ** (1 / 3)))  # 2 * side**3 flops: just large
    large = tf.ones((side, side))
    tf.matmul(large, large)
    assert _blas_threads() == default


def test_intra_op_setting_caps_large_products(restored):
    if not threads._blas_libraries():
        pytest.skip("no BLAS library that threadpoolctl can control")
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    side = 1 + int(round((threads.SMALL_PRODUCT_FLOPS / 2) ** (1 / 3)))
    large = np.ones((side, side), np.float32)
    tf.matmul(large, large)
    assert _blas_threads() == 1
    with pytest.raises(ValueError, match="0 .the default. or positive"):
        tf.config.threading.set_intra_op_parallelism_threads(-1)


def test_the_product_is_the_same_whatever_the_threads(restored):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 300)), rng.standard_normal((300, 32))
    np.testing.assert_allclose(tf.matmul(a, b).numpy(), a @ b, rtol=1e-12)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 2
    tf.config.threading.set_inter_op_parallelism_threads(0)
