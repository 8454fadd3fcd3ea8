"""The benchmark compares like with like: its hand-written NumPy MLP step and the
tapeviz step compute the same loss and the same updated weights (no timing here)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_core  # noqa: E402
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
