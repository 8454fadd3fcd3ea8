"""What the visualizer keeps alive, in bytes (issue 9's cases). Run: python benchmarks/bench_memory.py

Each case runs twice in this process, with the session recorder off and on
(`import tapeviz.viz` turns it on), and prints the bytes still held after it
(tracemalloc sees NumPy's allocations), so the ratio is the recorder's cost.
"""

import gc
import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tapeviz as tf  # noqa: E402
from tapeviz import viz  # noqa: E402

BUDGET_MIB = 32  # documented: a few tens of MB at most, whatever the tape


def untaped_ops():
    """300 ops on 4 MB tensors outside any tape (once 1.1 GiB with the recorder)."""
    big = tf.constant(np.ones((1024, 1024), np.float32))
    for _ in range(300):
        big = big * 1.0001
    return big


def inference_passes():
    """Three inference passes of a 4 x Dense(1024) model at batch 256 (once 1.2 GiB)."""
    model = tf.keras.Sequential([tf.keras.layers.Dense(1024, activation="relu") for _ in range(4)])
    x = tf.constant(np.ones((256, 1024), np.float32))
    for _ in range(3):
        y = model(x)
    return model, y


def released_tape():
    """A non-persistent tape over 40 ops on 1 MB tensors, after gradient()."""
    x = tf.Variable(np.ones((512, 512), np.float32))
    with tf.GradientTape() as tape:
        h = x
        for _ in range(40):
            h = tf.sin(h)
        y = tf.reduce_sum(h)
    return x, tape, tape.gradient(y, x)


def held_mib(case):
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = case()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del kept
    return held / 2**20


def main():
    rows = []
    for case in (untaped_ops, inference_passes, released_tape):
        viz.stop_watching()
        off = held_mib(case)
        viz.watch_all()
        on = held_mib(case)
        rows.append((case.__name__, off, on))
        print(
            f"{case.__name__:17s} without recorder {off:7.1f} MiB   with recorder {on:7.1f} MiB   "
            f"recorder's cost {on - off:6.1f} MiB (budget {BUDGET_MIB} MiB)"
        )
    met = all(on - off <= BUDGET_MIB for _name, off, on in rows)
    print("memory targets met" if met else "memory targets NOT met")


if __name__ == "__main__":
    main()
