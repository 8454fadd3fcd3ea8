"""BLAS threads under contention: the guide's MLP loop (and a large product) with each thread policy.

    python benchmarks/bench_threads.py            # with two busy processes, then without
    python benchmarks/bench_threads.py --busy 0   # only the quiet run

Policies, timed in alternation in the same process:

- ``tapeviz``: the default (backend/threads.py): small products on one
  thread, large ones on the library's threads;
- ``library``: OpenBLAS decides alone (the policy switched off);
- ``one``: every product on one thread (as OPENBLAS_NUM_THREADS=1).

The MLP is the Keras custom-training-loop guide's (784-64-64-10, batch 64,
SGD); the large product is one 1024x1024 float32 matmul. ``--busy N`` starts
N processes spinning on the CPU for the measurement (another kernel on a
class server). Needs threadpoolctl (it comes with scikit-learn).
"""

import argparse
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tapeviz as tf  # noqa: E402
from tapeviz import keras  # noqa: E402
from tapeviz.backend import threads  # noqa: E402


@contextmanager
def policy(name):
    """Run a block under one thread policy, then restore the default."""
    threads._blas_libraries()
    libraries, small = threads._libraries, threads.SMALL_PRODUCT_FLOPS
    if name == "library":
        threads._set(threads._library_default)
        threads._libraries = ()  # the switch sees no library: OpenBLAS decides
    elif name == "one":
        threads.SMALL_PRODUCT_FLOPS = float("inf")
    try:
        yield
    finally:
        threads._libraries, threads.SMALL_PRODUCT_FLOPS = libraries, small
        threads._current = None


def guide_mlp():
    inputs = keras.Input(shape=(784,))
    x = keras.layers.Dense(64, activation="relu")(inputs)
    x = keras.layers.Dense(64, activation="relu")(x)
    model = keras.Model(inputs, keras.layers.Dense(10)(x))
    optimizer = keras.optimizers.SGD(learning_rate=1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    rng = np.random.default_rng(0)
    xb, yb = rng.standard_normal((64, 784)).astype(np.float32), rng.integers(0, 10, 64)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))

    return step


def large_product():
    a = tf.constant(np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32))
    return lambda: tf.matmul(a, a)


def median_ms(fn, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def measure(passes, count):
    work = {"guide MLP step": guide_mlp(), "1024^2 matmul": large_product()}
    results = {(w, p): [] for w in work for p in ("tapeviz", "library", "one")}
    for fn in work.values():
        fn()
    for _ in range(passes):
        for (what, name), times in results.items():
            with policy(name):
                times.append(median_ms(work[what], count))
    for what in work:
        row = {name: statistics.median(results[(what, name)]) for name in ("tapeviz", "library", "one")}
        print(
            f"  {what:<15} tapeviz policy {row['tapeviz']:8.2f} ms   library default {row['library']:8.2f} ms"
            f"   one thread {row['one']:8.2f} ms   (library / policy = {row['library'] / row['tapeviz']:.1f}x)"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=2, help="busy processes for the contended run (default 2)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--count", type=int, default=20, help="timed calls per policy per pass")
    args = parser.parse_args(argv)
    if not threads._blas_libraries():
        print("skipped: threadpoolctl is not installed (pip install threadpoolctl), so there is no policy to compare")
        return
    print(f"BLAS: {[lib.internal_api for lib in threads._libraries]}, default threads {threads._library_default}")
    if args.busy:
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
        try:
            print(f"with {args.busy} busy processes:")
            measure(args.passes, args.count)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    print("without busy processes (the machine as it is):")
    measure(args.passes, args.count)


if __name__ == "__main__":
    main()
