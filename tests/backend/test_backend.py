"""The backend seam: NumPy by default; CuPy on a GPU when one is present."""

import importlib.util
import os

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import backend


def test_numpy_is_the_default_and_tensors_know_their_device():
    assert backend.name() == os.environ.get("TAPEVIZ_BACKEND", "numpy")
    t = tf.constant([1.0, 2.0])
    assert t.device.endswith("CPU:0")
    assert [d.device_type for d in tf.config.list_physical_devices()] == ["CPU"]
    assert tf.config.list_physical_devices("GPU") == []


def test_unknown_backend_is_a_clear_error():
    before = backend.name()
    with pytest.raises(ValueError, match="use 'numpy', 'cupy' or 'strict'"):
        backend.use("jax")
    assert backend.name() == before


def test_tf_device_runs_code_unchanged():
    with tf.device("/GPU:0"):
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
    assert tape.gradient(y, x).numpy() == 6.0


def _gpu_reason():
    if importlib.util.find_spec("cupy") is None:
        return "CuPy is not installed (pip install 'tapeviz[gpu]' on a machine with an NVIDIA GPU)"
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means no usable GPU
        return f"no usable CUDA GPU: {exc}"
    return None


@pytest.mark.skipif(_gpu_reason() is not None, reason=str(_gpu_reason()))
def test_cupy_backend_gives_the_same_gradients_as_numpy():
    def loss_and_grads():
        w = tf.Variable(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32))
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)
        return y.numpy(), tape.gradient(y, w).numpy()

    cpu = loss_and_grads()
    backend.use("cupy")
    try:
        gpu = loss_and_grads()
        assert tf.constant(1.0).device.endswith("GPU:0")
    finally:
        backend.use("numpy")
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=1e-5)
    np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-5)
