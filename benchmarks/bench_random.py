"""How fast TF's random numbers come out of tapeviz, as a ratio to NumPy's own generator.

Run: PYTHONPATH=. python benchmarks/bench_random.py. Each draw of a million
values (TF's Philox kernels and distributions, tapeviz/core/philox.py) is timed
against NumPy's ``default_rng`` drawing the same distribution, and a dataset
shuffle against iterating the same dataset unshuffled (plus a NumPy
permutation, for the sliced one), best of several rounds in the same process. tapeviz does more work per value (ten Philox
rounds in 64-bit lanes; glibc's log and sincos emulated for Box-Muller), so
the target is a small multiple, not parity.
"""

import time

import numpy as np

import tapeviz as tf

N = 1_000_000
TARGET_RATIO = 60.0  # vectorised, so a constant factor over NumPy's C loops (Philox: ten rounds in 64-bit lanes)


def best_seconds(fn, rounds=5):
    fn()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    rng = np.random.default_rng(0)
    tf.random.set_seed(1)
    plain = tf.data.Dataset.range(10_000)
    data = plain.shuffle(10_000, seed=1)
    sliced = tf.data.Dataset.from_tensor_slices(np.arange(100_000)).shuffle(100_000, seed=1).batch(1000)
    unshuffled = tf.data.Dataset.from_tensor_slices(np.arange(100_000)).batch(1000)
    pairs = [
        ("uniform", lambda: tf.random.uniform([N]), lambda: rng.random(N, dtype=np.float32)),
        ("normal", lambda: tf.random.normal([N]), lambda: rng.standard_normal(N, dtype=np.float32)),
        ("truncated_normal", lambda: tf.random.truncated_normal([N]), lambda: rng.standard_normal(N)),
        ("shuffle", lambda: tf.random.shuffle(tf.range(N)), lambda: rng.permutation(N)),
        ("dataset shuffle (10k)", lambda: list(data), lambda: list(plain)),  # against iterating it unshuffled
        ("sliced shuffle (100k)", lambda: list(sliced), lambda: (rng.permutation(100_000), list(unshuffled))),
    ]
    worst = 0.0
    for name, ours, theirs in pairs:
        a, b = best_seconds(ours), best_seconds(theirs)
        worst = max(worst, a / b)
        print(f"{name:>22}: tapeviz {a * 1e3:8.1f} ms, NumPy {b * 1e3:7.1f} ms, ratio {a / b:6.1f}")
    print(f"worst ratio {worst:.1f} (target <= {TARGET_RATIO})")
    return worst


if __name__ == "__main__":
    main()
