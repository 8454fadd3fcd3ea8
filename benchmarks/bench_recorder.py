"""What the visualizer's session recorder costs (issue 19). Run: python benchmarks/bench_recorder.py [--quick]

Every time row is a ratio against its baseline timed in the same process, in
alternation (one round of each, then again), the median of the rounds, in
CPU time of the process (BLAS held to one thread, so CPU time is the time of
the thread doing the work). "Recorder on" is what ``import tapeviz.viz`` (or
``lessons.setup()``) leaves listening; "off" is ``viz.stop_watching()``:
toggled in one process, which is the same as importing the visualizer or not.

  mlp       one training step of an MLP 784-1024-1024-10, batch 128 (tape,
            gradient, SGD): recorder on / off.               target <= 1.15x
  lesson11  lesson 11's two-layer network (256 x 64 -> 128 -> 10): the tape
            with the recorder on / the gradient written by hand in NumPy
            (the off ratio is printed beside it).             target <= 2.5x
  jacobian  ``tape.jacobian`` of y = tanh(W x) (2,000 elements) w.r.t. x,
            W a 2,000 x 2,000 float32 weight: recorder on / off.  target <= 1.1x
  memory    ``viz.memory(tape)`` over a tape of 20,000 ops, in seconds.  target < 2 s
  budget    the bytes allocated and not freed over 20,000 ``gradient()`` calls
            on one live persistent tape (tracemalloc), against the recorder's
            byte budget.                                      target <= 1x
"""

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import allocator  # noqa: E402

import tapeviz as tf  # noqa: E402
from tapeviz import viz  # noqa: E402
from tapeviz.viz import recorder  # noqa: E402


def cpu_seconds(fn, number):
    start = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - start) / number


def alternate(candidate, baseline, rounds, number=1, candidate_on=True):
    """Median ratio candidate / baseline over ``rounds`` interleaved rounds (after one warm-up each).

    ``candidate_on``: the candidate runs with the recorder listening, the
    baseline without it (the baseline of the lesson row is plain NumPy:
    unaffected either way).
    """

    def run(fn, on):
        (viz.watch_all if on else viz.stop_watching)()
        try:
            return cpu_seconds(fn, number)
        finally:
            viz.watch_all()

    run(candidate, candidate_on), run(baseline, False)
    ratios, times = [], []
    for _ in range(rounds):
        a = run(candidate, candidate_on)
        b = run(baseline, False)
        ratios.append(a / b)
        times.append((a, b))
    return statistics.median(ratios), statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


# -- the MLP step ---------------------------------------------------------------------------


def mlp(batch=128, sizes=(784, 1024, 1024, 10), lr=0.01):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    labels = tf.constant(rng.integers(0, sizes[-1], size=batch).astype(np.int32))
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params.append(tf.Variable(rng.uniform(-0.05, 0.05, (n_in, n_out)).astype(np.float32)))
        params.append(tf.Variable(np.zeros(n_out, np.float32)))

    def step():
        w1, b1, w2, b2, w3, b3 = params
        with tf.GradientTape() as tape:
            h1 = tf.nn.relu(tf.matmul(x, w1) + b1)
            h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)
            logits = tf.matmul(h2, w3) + b3
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        for param, grad in zip(params, tape.gradient(loss, params)):
            param.assign_sub(lr * grad)
        return loss

    return step


# -- lesson 11 ------------------------------------------------------------------------------


def lesson11():
    """The two functions lesson 11 times (notebooks/src/11_performance.py)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(256, 64)).astype("float32")
    Y = rng.normal(size=(256, 10)).astype("float32")
    W1 = tf.Variable(rng.normal(size=(64, 128)).astype("float32") * 0.1)
    W2 = tf.Variable(rng.normal(size=(128, 10)).astype("float32") * 0.1)
    x, y = tf.constant(X), tf.constant(Y)

    def with_tape():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, W1))
            loss = tf.reduce_mean((tf.matmul(h, W2) - y) ** 2)
        return tape.gradient(loss, [W1, W2])

    def by_hand():
        w1, w2 = W1.numpy(), W2.numpy()
        a = X @ w1
        h = np.maximum(a, 0)
        d_out = 2 * (h @ w2 - Y) / Y.size
        return X.T @ ((d_out @ w2.T) * (a > 0)), h.T @ d_out

    return with_tape, by_hand


# -- the jacobian ---------------------------------------------------------------------------


def jacobian(n=2000):
    rng = np.random.default_rng(0)
    w = tf.constant((rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32))
    x = tf.Variable(rng.standard_normal(n).astype(np.float32))

    def run():
        with tf.GradientTape() as tape:
            y = tf.tanh(tf.linalg.matvec(w, x))
        return tape.jacobian(y, x)

    return run


# -- viz.memory and the budget --------------------------------------------------------------


def memory_seconds(n_ops):
    x = tf.Variable(np.float32(1.0))
    with tf.GradientTape(persistent=True) as tape:
        y = x
        for _ in range(n_ops // 2):
            y = y * x + 0.5
    tape.gradient(y, x)
    start = time.perf_counter()
    view = viz.memory(tape)
    seconds = time.perf_counter() - start
    assert view.series[0][1], "the memory view drew nothing"
    return seconds


def budget_growth(calls):
    """Bytes still allocated after ``calls`` gradients of one live persistent tape (tracemalloc),
    less those after the first 10 calls, and the number of events the recorder keeps."""
    x = tf.Variable(np.ones(64, np.float32))
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.sin(x) * x)
    for _ in range(10):
        tape.gradient(y, x)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(calls - 10):
        tape.gradient(y, x)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    events = sum(len(log.events) for log in recorder.SESSION.logs.values())
    del tape
    gc.collect()
    return grown, events


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and smaller sizes (a smoke run)")
    parser.add_argument("--memory-ops", type=int, default=None, help="ops of the viz.memory row (default 20,000)")
    args = parser.parse_args()
    quick = args.quick
    rounds = 3 if quick else 9
    print(allocator.pin())
    print(f"BLAS on one thread; CPU time; median of {rounds} interleaved rounds; the machine may be shared.")
    print(f"{'row':<58}{'ratio':>8}{'target':>9}")

    step = mlp()
    ratio, on, off = alternate(step, step, rounds, number=2 if quick else 3)
    print(
        f"{'mlp 784-1024-1024-10 b=128, recorder on / off':<58}{ratio:>7.2f}x{'<= 1.15':>9}   ({on * 1e3:.1f} / {off * 1e3:.1f} ms)"
    )

    taped, hand = lesson11()
    ratio_on, _on, hand_s = alternate(taped, hand, rounds, number=10)
    ratio_off, _off, _ = alternate(taped, hand, rounds, number=10, candidate_on=False)
    print(f"{'lesson 11 tape (recorder on) / by hand':<58}{ratio_on:>7.2f}x{'<= 2.5':>9}   (off: {ratio_off:.2f}x)")

    jac = jacobian(500 if quick else 2000)
    ratio, on, off = alternate(jac, jac, max(3, rounds // 3))
    label = f"jacobian {'500' if quick else '2,000'} of W x, recorder on / off"
    print(f"{label:<58}{ratio:>7.2f}x{'<= 1.1':>9}   ({on:.2f} / {off:.2f} s)")

    n_ops = args.memory_ops or (4000 if quick else 20000)
    seconds = memory_seconds(n_ops)
    print(f"{f'viz.memory(tape), {n_ops:,} ops, seconds':<58}{seconds:>8.2f}{'< 2':>9}")

    calls = 2000 if quick else 20000
    grown, events = budget_growth(calls)
    budget = recorder.SESSION.budget
    print(
        f"{f'persistent tape, {calls:,} gradient() calls: grown / budget':<58}{grown / budget:>7.2f}x{'<= 1':>9}"
        f"   ({grown / 2**20:.1f} MiB grown, {events:,} events kept)"
    )


if __name__ == "__main__":
    main()
