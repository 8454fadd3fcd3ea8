"""The strict backend (TAPEVIZ_BACKEND=strict): NumPy arrays that refuse NumPy outside the seam.

It stands in for CuPy on machines without a GPU: code that would break on a
GPU (np.asarray of a device array, NumPy functions on it, host arrays mixed
with device arrays) breaks here too. The last test re-runs the core test files
on it, so `./dev.sh test` checks that no code path bypasses the backend.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import backend
from tapeviz.backend import strict
from tapeviz.core.ops import execute
from tapeviz.core.primitive import PRIMITIVES, Primitive
from tapeviz.core.tensor import to_array

ROOT = Path(__file__).resolve().parents[2]
xp = strict.xp

# The files re-run on the strict backend: every primitive's kernel and rule
# (gradcheck, higher order, forward mode), the tape, keras and the optimizers.
CORE_FILES = [
    "core/test_rules.py",
    "core/primitives/array/test_array_ops.py",
    "test_nn.py",
    "test_linalg.py",
    "core/test_tape.py",
    "core/test_higher_order.py",
    "core/test_forward.py",
    "core/test_custom_gradient.py",
    "test_math.py",
    "core/primitives/conv/test_pooling.py",
    "keras/optimizers/test_optimizers.py",
    "core/test_variable_updates.py",
    "keras/layers/test_layers.py",
    "keras/trainers/test_training_end_to_end.py",
    "test_random.py",
    "core/test_numerics.py",
    "backend/test_backend.py",
    "viz/test_explain.py",
]

# Training to 95 % accuracy takes minutes on the strict arrays (a Python wrapper per
# operation) and checks numbers, which the default run does. Their code paths (the
# seeds' custom loop with an MLP and a CNN, compile/fit/evaluate) run here instead on
# a few batches: test_the_training_paths_run_on_the_strict_backend.
TRAINED_TO_ACCURACY = [
    "keras/trainers/test_training_end_to_end.py::test_custom_loop_mlp",
    "keras/trainers/test_training_end_to_end.py::test_custom_loop_cnn",
    "keras/trainers/test_training_end_to_end.py::test_compile_fit_evaluate",
]


def test_numpy_functions_refuse_backend_arrays():
    a = xp.arange(3.0)
    with pytest.raises(TypeError, match="tapeviz.backend.to_numpy"):
        np.asarray(a)
    with pytest.raises(TypeError, match="tapeviz.backend.xp"):
        np.sum(a)
    with pytest.raises(TypeError, match="does not support ufuncs"):
        np.exp(a)
    with pytest.raises(TypeError, match="does not support ufuncs"):
        np.add.at(a, [0], 1.0)


def test_host_arrays_lists_and_tuples_do_not_mix_with_backend_arrays():
    a = xp.ones(3)
    for host in (np.ones(3), [1.0, 2.0, 3.0], (1.0, 2.0, 3.0)):
        with pytest.raises(TypeError, match="Unsupported type"):
            a + host
        with pytest.raises(TypeError, match="Unsupported type"):
            xp.maximum(a, host)
    with pytest.raises(TypeError, match="Unsupported type"):
        np.ones(3) * a  # NumPy hands the operator over, and it refuses
    with pytest.raises(TypeError, match="Unsupported type"):
        xp.where(a > 0, np.zeros(3), a)


def test_scalars_mix_and_host_data_comes_in_through_asarray():
    a = xp.asarray(np.array([1.0, 4.0], np.float32))
    assert isinstance(a, strict.StrictArray) and a.dtype == np.float32
    b = np.float32(2.0) / a + 1  # NumPy scalars on the left reach the array's reflected operator
    np.testing.assert_array_equal(strict.to_numpy(b), [3.0, 1.5])


def test_reductions_and_scalar_indexing_give_0d_arrays_as_cupy_does():
    a = xp.arange(6.0).reshape(2, 3)
    for value in (xp.sum(a), a.max(), a[1, 2]):
        assert isinstance(value, strict.StrictArray) and value.ndim == 0
    assert float(a[1, 2]) == 5.0 and a.sum().item() == 15.0


def test_asarray_and_out_return_the_same_array_and_views_hold_their_owner():
    a = xp.zeros(3)
    assert xp.asarray(a) is a
    assert xp.add(a, 1.0, out=a) is a
    view = a[1:]
    assert view.base is a  # a view keeps its owner alive, as CuPy's .base does
    a += 1.0
    np.testing.assert_array_equal(strict.to_numpy(view), [2.0, 2.0])


def test_to_numpy_copies_as_a_device_to_host_transfer_does():
    a = xp.ones(2)
    host = strict.to_numpy(a)
    host[0] = 5.0
    assert float(a[0]) == 1.0


@pytest.fixture
def strict_backend():
    before = backend.name()
    backend.use("strict")
    try:
        yield
    finally:
        backend.use(before)


def test_a_kernel_that_bypasses_the_backend_is_caught(strict_backend):
    leaky = Primitive("StrictCheckLeakyExp", lambda x: np.exp(x))  # raw NumPy: wrong on a GPU
    del PRIMITIVES[leaky.name]  # not a real op: keep it out of the table the gradchecks walk
    x = tf.constant([0.0, 1.0])
    with pytest.raises(TypeError, match="does not support ufuncs"):
        execute(leaky, (x,))
    np.testing.assert_allclose(tf.exp(x).numpy(), np.exp([0.0, 1.0]), rtol=1e-6)  # the real op goes through xp


def test_tensors_hold_backend_arrays_and_convert_to_host(strict_backend):
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.square(x))
    g = tape.gradient(y, x)
    assert isinstance(to_array(g), strict.StrictArray)
    np.testing.assert_array_equal(np.asarray(g), [[2.0, 4.0]])  # Tensor.__array__ copies through the backend
    assert g.device.endswith("CPU:0")


@pytest.mark.slow  # a second pytest over 18 files
@pytest.mark.skipif(os.environ.get("TAPEVIZ_BACKEND") == "strict", reason="already running on the strict backend")
def test_core_test_files_pass_on_the_strict_backend():
    env = dict(
        os.environ,
        TAPEVIZ_BACKEND="strict",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    files = [str(ROOT / "tests" / name) for name in CORE_FILES]
    deselect = [arg for test in TRAINED_TO_ACCURACY for arg in ("--deselect", f"tests/{test}")]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *deselect, *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, (
        "The core tests fail on TAPEVIZ_BACKEND=strict: some code computes on backend arrays "
        "without going through tapeviz.backend (it would fail on CuPy too). Rerun with\n"
        f"  TAPEVIZ_BACKEND=strict python -m pytest {' '.join('tests/' + n for n in CORE_FILES)}\n"
        + proc.stdout[-6000:]
        + proc.stderr[-2000:]
    )


def test_host_values_read_from_tensors_go_through_the_backend(strict_backend):
    # Paths the core test files do not take: an axis given as a tensor, a Sum
    # metric's result, a dataset's cardinality. Each once read a device array
    # with np.asarray or wrapped a host array in a Tensor.
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tf.reduce_sum(x, axis=tf.constant(1)).numpy(), [3.0, 7.0])
    total = tf.keras.metrics.Sum()
    total.update_state([1.0, 2.0])
    for value in (total.result(), tf.data.Dataset.from_tensor_slices([1, 2, 3]).cardinality()):
        assert isinstance(to_array(value), strict.StrictArray)
    assert float(total.result()) == 3.0


def test_keras_fit_with_its_progress_bar_and_a_layer_called_on_a_device_array(strict_backend, capsys):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32), epochs=1, verbose=1)
    assert "loss" in capsys.readouterr().out and len(history.history["loss"]) == 1
    out = model(backend.xp.ones((2, 3), dtype=np.float32))  # what a CuPy user passes: it stays on the device
    assert isinstance(to_array(out), strict.StrictArray)


def test_the_training_paths_run_on_the_strict_backend(strict_backend):
    from tapeviz.keras.datasets import load_digits
    from tests.keras.trainers.test_training_end_to_end import _custom_loop

    (x, y), _ = load_digits()
    x, y = x[:64], y[:64]
    layers = tf.keras.layers
    tf.random.set_seed(0)
    mlp = tf.keras.Sequential([layers.Flatten(), layers.Dense(16, activation="relu"), layers.Dense(10)])
    cnn = tf.keras.Sequential(
        [
            layers.Conv2D(4, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(10),
        ]
    )
    for model, inputs in ((mlp, x), (cnn, x[..., None])):
        assert np.isfinite(_custom_loop(model, inputs, y, epochs=1))
        assert all(isinstance(to_array(v), strict.StrictArray) for v in model.trainable_variables)
    fitted = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(8, 8)),
            layers.Flatten(),
            layers.Dense(16, activation="relu"),
            layers.Dropout(0.1),
            layers.Dense(10, activation="softmax"),
        ]
    )
    fitted.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = fitted.fit(x, y, epochs=1, batch_size=32, validation_data=(x, y), verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    loss, accuracy = fitted.evaluate(x, y, verbose=0)
    assert np.isfinite(loss) and accuracy == pytest.approx(history.history["val_accuracy"][-1])
