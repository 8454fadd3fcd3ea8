"""The benchmark compares like with like: its hand-written NumPy MLP step and the
tapeviz step compute the same loss and the same updated weights (no timing here)."""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_core  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tapeviz import backend  # noqa: E402


def test_tapeviz_and_hand_written_mlp_steps_agree():
    bench_core.check_same_step()


def test_scalar_chain_gradient_matches_closed_form():
    # y_n = y_{n-1} x + c with y_0 = x: dy/dx follows the same recurrence, by hand.
    x, c, n = 1.0001, 0.5, 2000
    y, dy = x, 1.0
    for _ in range(n):
        y, dy = y * x + c, dy * x + y
    got = float(bench_core.scalar_chain(n))
    assert abs(got - dy) / abs(dy) < 1e-3


def test_tapeviz_and_both_cnn_baselines_train_alike():
    # The CNN benchmark's two baselines (hand-written NumPy, and tapeviz's
    # kernels without the tape) give the Keras model's losses and weights.
    import training_bench

    if backend.name() != "numpy":
        pytest.skip("the CPU benchmark's KernelsCNN baseline feeds host NumPy arrays to the kernels")
    training_bench.check_same_step(batch_size=9, steps=2)


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_gpu_benchmark_hand_written_steps_match_tapeviz(kind):
    # bench_gpu.py's hand-written CuPy steps take the array module as an
    # argument: on the strict backend's namespace (NumPy arrays that refuse
    # NumPy, as CuPy's do) they must give tapeviz's losses and weights.
    import bench_gpu

    from tapeviz.backend import strict

    if kind == "mlp":
        problem, hand_class = bench_gpu.mlp_problem((12, 16, 16, 10), 8), bench_gpu.HandMLP
    else:
        problem, hand_class = bench_gpu.cnn_problem((8, 8, 3), (4, 6), 5), bench_gpu.HandCNN
    ours, hand = bench_gpu.TapevizStep(kind, *problem), hand_class(strict.xp, *problem)
    losses = bench_gpu.check_same_losses({"tapeviz": (ours, None), "hand": (hand, None)}, steps=3, rtol=1e-5)
    assert losses["tapeviz"][2] < losses["tapeviz"][0]  # it trains
    for ours_w, hand_w in zip(ours.params, hand.params):
        np.testing.assert_allclose(ours_w.numpy(), strict.to_numpy(hand_w), rtol=1e-4, atol=1e-6)


def test_gpu_benchmark_without_a_gpu_says_why_and_exits_0():
    import bench_gpu

    if bench_gpu.cupy_reason() is None or bench_gpu.torch_reason() is None:
        pytest.skip("a GPU contender can run here: the benchmark would time it")
    proc = subprocess.run(
        [sys.executable, str(Path(bench_gpu.__file__)), "--quick"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("skipped:") == 6  # three contenders, two networks, each with its reason
    assert bench_gpu.cupy_reason() in proc.stdout and bench_gpu.torch_reason() in proc.stdout
