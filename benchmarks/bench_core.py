"""tapeviz core benchmarks. Run: python benchmarks/bench_core.py [--quick]

Every figure is a ratio against a baseline run in the same process, in
alternation, so a busy machine slows both sides alike. Reported: the median
of several rounds, in CPU time of the process (time.process_time), which
other work on a shared machine does not inflate; BLAS is held to one thread
(as in the training section), so CPU time is the time of the one thread
that does the work. The allocator is pinned first (allocator.py), so that
no side pays page faults the other does not.

  (a) per-op overhead: a chain of 2,000 scalar `y = y * x + c` recorded and
      differentiated (4,000 ops), in microseconds per op; against the same
      chain in plain NumPy scalars (forward only: NumPy has no backward),
      and against PyTorch (CPU, one thread) recording and differentiating
      the same chain: with no listener, then with the visualizer's session
      recorder listening (``import tapeviz.viz``). PyTorch is optional: the
      rows are skipped, saying so, when it is not installed. The Variable
      chain is the same chain with ``x = tf.Variable(1.0001)``, the way
      weights are written: each ``y * x`` records a read of the variable too
      (ReadVariableOp), against the same PyTorch chain (tensor inputs).
  (b) one training step of an MLP 784-512-512-10, batch 256, float32, ReLU,
      softmax cross-entropy, plain SGD: tapeviz (GradientTape) against the
      same step written by hand in NumPy (forward and hand-derived backward).
  (c) the same tapeviz step with a hook listener that keeps every event of
      the step (as the visualizer keeps a live tape's).

Other sections (training, visualizer) are added by their own modules.
"""

import argparse
import gc
import os
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

# One BLAS thread for every contender (effective only when numpy is not imported yet).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # the package, and the sibling sections

import allocator  # noqa: E402

import tapeviz as tf  # noqa: E402

TARGETS = {
    "per_op_us": 6.0,
    "torch_ratio": 0.5,
    "torch_recorder_ratio": 1.0,
    "torch_variable_ratio": 0.5,
    "mlp_ratio": 1.15,
    "mlp_hooked_ratio": 2.0,
}


def timed(fn):
    start = time.process_time()
    fn()
    return time.process_time() - start


def alternate(candidate, baseline, rounds):
    """Median CPU seconds of each, timed in alternation (warm-up round dropped)."""
    candidate(), baseline()
    a, b = [], []
    for _ in range(rounds):
        a.append(timed(candidate))
        b.append(timed(baseline))
    return statistics.median(a), statistics.median(b)


# -- (a) per-op overhead ------------------------------------------------------------------


def scalar_chain(n=2000):
    x, c = tf.constant(1.0001), tf.constant(0.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n):
            y = y * x + c
    return tape.gradient(y, x)


def variable_chain(n=2000):
    """The chain with a Variable input: every ``y * x`` reads ``x`` (a recorded ReadVariableOp)."""
    x, c = tf.Variable(1.0001), tf.constant(0.5)
    with tf.GradientTape() as tape:
        y = x
        for _ in range(n):
            y = y * x + c
    return tape.gradient(y, x)


def numpy_chain(n=2000):
    x, c = np.float32(1.0001), np.float32(0.5)
    y = x
    for _ in range(n):
        y = y * x + c
    return y


def torch_chain_or_none():
    """The chain in PyTorch (CPU, one thread), or None when PyTorch is not installed.

    Imported here, never at the top: PyTorch is a contender, not a dependency.
    """
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)

    def torch_chain(n=2000):
        x = torch.tensor(1.0001, requires_grad=True)  # float32, as tf.constant(1.0001)
        c = torch.tensor(0.5)
        y = x
        for _ in range(n):
            y = y * x + c
        (grad,) = torch.autograd.grad(y, x)
        return grad

    return torch_chain


@contextmanager
def session_recorder():
    """The visualizer's session recorder listening for a block (as after ``import tapeviz.viz``)."""
    import tapeviz.viz as viz

    viz.watch_all()
    try:
        yield
    finally:
        viz.stop_watching()


# -- (b, c) the MLP step ------------------------------------------------------------------

SIZES = (784, 512, 512, 10)
BATCH, LR = 256, 0.01


def mlp_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], size=BATCH).astype(np.int32)
    weights = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        limit = np.sqrt(6 / (n_in + n_out))  # Glorot uniform
        weights.append(rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32))
        weights.append(np.zeros(n_out, np.float32))
    return x, labels, weights


class TapevizMLP:
    def __init__(self, x, labels, weights):
        self.x, self.labels = tf.constant(x), tf.constant(labels)
        self.params = [tf.Variable(w) for w in weights]

    def step(self):
        w1, b1, w2, b2, w3, b3 = self.params
        with tf.GradientTape() as tape:
            h1 = tf.nn.relu(tf.matmul(self.x, w1) + b1)
            h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)
            logits = tf.matmul(h2, w3) + b3
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=self.labels, logits=logits))
        grads = tape.gradient(loss, self.params)
        for param, grad in zip(self.params, grads):
            param.assign_sub(LR * grad)
        return loss


class NumpyMLP:
    """The same step by hand: forward, hand-derived backward, SGD. The baseline."""

    def __init__(self, x, labels, weights):
        self.x, self.labels = x, labels
        self.params = [w.copy() for w in weights]
        self.one_hot = np.eye(SIZES[-1], dtype=np.float32)[labels]

    def step(self):
        w1, b1, w2, b2, w3, b3 = self.params
        x = self.x
        a1 = x @ w1 + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2 + b2
        h2 = np.maximum(a2, 0)
        logits = h2 @ w3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = np.mean(np.log(total[:, 0]) - shifted[np.arange(BATCH), self.labels])
        d_logits = (exp / total - self.one_hot) / BATCH
        d_w3, d_b3 = h2.T @ d_logits, d_logits.sum(axis=0)
        d_a2 = (d_logits @ w3.T) * (a2 > 0)
        d_w2, d_b2 = h1.T @ d_a2, d_a2.sum(axis=0)
        d_a1 = (d_a2 @ w2.T) * (a1 > 0)
        d_w1, d_b1 = x.T @ d_a1, d_a1.sum(axis=0)
        for param, grad in zip(self.params, (d_w1, d_b1, d_w2, d_b2, d_w3, d_b3)):
            param -= LR * grad
        return loss


def check_same_step():
    """Both implementations compute the same loss and the same updated weights."""
    x, labels, weights = mlp_data()
    ours, theirs = TapevizMLP(x, labels, weights), NumpyMLP(x, labels, weights)
    for _ in range(2):
        np.testing.assert_allclose(ours.step().numpy(), theirs.step(), rtol=1e-4)
    for p, q in zip(ours.params, theirs.params):
        np.testing.assert_allclose(p.numpy(), q, rtol=1e-3, atol=1e-5)


def run_core(rounds):
    results = {}
    per_op, numpy_op = alternate(scalar_chain, numpy_chain, rounds * 3)
    results["per_op_us"] = per_op / 4000 * 1e6
    print(
        f"(a) per-op overhead: {results['per_op_us']:.2f} us/op recorded+differentiated "
        f"(plain NumPy forward: {numpy_op / 4000 * 1e6:.3f} us/op; ratio {per_op / numpy_op:.0f}x)"
    )
    results.update(run_torch(rounds))

    check_same_step()
    x, labels, weights = mlp_data()
    ours, theirs = TapevizMLP(x, labels, weights), NumpyMLP(x, labels, weights)
    t_ours, t_numpy = alternate(ours.step, theirs.step, rounds)
    results["mlp_ratio"] = t_ours / t_numpy
    print(
        f"(b) MLP step: tapeviz {t_ours * 1e3:.1f} ms, hand-written NumPy {t_numpy * 1e3:.1f} ms, "
        f"ratio {results['mlp_ratio']:.3f}"
    )

    kept = []

    def hooked_step():
        # The listener keeps every event of the step, as the visualizer keeps a
        # live tape's; dropping the previous step's events is part of its cost.
        # (Keeping all steps' events would grow memory and slow both sides.)
        kept.clear()
        ours.step()

    with tf.events.listening(kept.append):
        t_hooked, t_numpy = alternate(hooked_step, theirs.step, rounds)
    results["mlp_hooked_ratio"] = t_hooked / t_numpy
    print(
        f"(c) MLP step with a listener keeping every event ({len(kept)} events a step): "
        f"{t_hooked * 1e3:.1f} ms, ratio {results['mlp_hooked_ratio']:.3f}"
    )
    return results


def run_torch(rounds):
    """(a) against PyTorch: no listener, then the session recorder listening.

    The garbage collector stays on: PyTorch's graph lives in C++,
    tapeviz's in Python objects, and walking them is part of tapeviz's cost.
    What importing PyTorch left behind is frozen first (gc.freeze): a full
    collection would otherwise walk PyTorch's hundreds of thousands of
    import-time objects, a cost of running both in one process that neither
    has alone (measured: the recorder row then swings between 11 and 30 us/op
    with when the collections fall).
    """
    torch_chain = torch_chain_or_none()
    if torch_chain is None:
        print("(a) vs PyTorch: skipped (PyTorch is not installed; pip install torch to compare)")
        return {}
    gc.collect()
    gc.freeze()
    ours, theirs = float(scalar_chain()), float(torch_chain())
    assert abs(ours - theirs) <= 1e-3 * abs(theirs), f"the chains differ: {ours} vs {theirs}"
    results = {}
    t_ours, t_torch = alternate(scalar_chain, torch_chain, rounds * 3)
    results["torch_ratio"] = t_ours / t_torch
    print(
        f"(a) vs PyTorch (CPU, 1 thread): tapeviz {t_ours / 4000 * 1e6:.2f} us/op, "
        f"PyTorch {t_torch / 4000 * 1e6:.2f} us/op, ratio {results['torch_ratio']:.2f}"
    )
    assert abs(float(variable_chain()) - theirs) <= 1e-3 * abs(theirs), "the Variable chain differs"
    t_ours, t_torch = alternate(variable_chain, torch_chain, rounds * 3)
    results["torch_variable_ratio"] = t_ours / t_torch
    print(
        f"    the chain with x a tf.Variable: tapeviz {t_ours / 4000 * 1e6:.2f} us/op, "
        f"PyTorch {t_torch / 4000 * 1e6:.2f} us/op, ratio {results['torch_variable_ratio']:.2f}"
    )
    with session_recorder():
        t_ours, t_torch = alternate(scalar_chain, torch_chain, rounds * 3)
    results["torch_recorder_ratio"] = t_ours / t_torch
    print(
        f"    with the session recorder listening: tapeviz {t_ours / 4000 * 1e6:.2f} us/op, "
        f"PyTorch {t_torch / 4000 * 1e6:.2f} us/op, ratio {results['torch_recorder_ratio']:.2f}"
    )
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--only", choices=["core", "training", "viz"], help="run one section")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else 11
    print(f"tapeviz {tf.__version__}, NumPy {np.__version__}, backend {tf.backend.name()}, {allocator.pin()}")
    results = {}
    if args.only in (None, "core"):
        results.update(run_core(rounds))
    for section in ("training", "viz"):
        if args.only not in (None, section):
            continue
        print(f"\n[{section}]")
        if section == "viz" and "tapeviz.viz" in sys.modules:
            sys.modules["tapeviz.viz"].watch_all()  # as importing it does (section (a) turned it off)
        __import__(f"{section}_bench").run()
    if args.only in (None, "core"):
        misses = [f"{k}={v:.3f} (target <= {TARGETS[k]})" for k, v in results.items() if v > TARGETS[k]]
        print("\ncore targets met" if not misses else "\ncore over target: " + ", ".join(misses))
    return results


if __name__ == "__main__":
    main()
