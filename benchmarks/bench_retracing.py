"""What a tf.function call costs as its traces pile up (issue 30, item 4).

Run: python benchmarks/bench_retracing.py [--traces 5000] [--quick]

One tf.function is called with ``--traces`` distinct Python values (each a new
signature, so each traces). At 100 traces and again at the end it times, in
CPU time of the process:

  new        a call with a value never seen (it traces)
  seen       a call with a value seen before (it replays a trace)
  general    a call of a second function whose trace generalised the shape
             (``reduce_retracing=True``) with a size never seen before

and prints each time at the end over the time at 100 traces: the lookup is a
dictionary's, so the ratios stay near 1 (before issue 30 they grew with the
number of traces: 9-13 ms a call after 1,900 traces, against 0.4 ms at first).
"""

import argparse
import logging
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tapeviz as tf  # noqa: E402

logging.getLogger("tapeviz").setLevel(logging.ERROR)  # the retracing warning is expected here


def per_call(fn, values, rounds=5):
    """Median over ``rounds`` of the CPU seconds per call of ``fn(v)`` for each v of a round."""
    times = []
    for batch in values(rounds):
        start = time.process_time()
        for v in batch:
            fn(v)
        times.append((time.process_time() - start) / len(batch))
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=5000, help="how many distinct signatures to trace")
    parser.add_argument("--quick", action="store_true", help="1,000 traces (a quick look)")
    args = parser.parse_args()
    total = 1000 if args.quick else args.traces
    batch = 20

    x = tf.constant([1.0, 2.0, 3.0])

    @tf.function
    def scaled(x, n):
        return x * n + 1.0

    @tf.function(reduce_retracing=True)
    def general(x, n):
        return tf.reduce_sum(x * 2.0) + n

    traced = 0
    fresh = iter(range(10**9))

    def trace_up_to(count):
        nonlocal traced
        while traced < count:
            n = next(fresh)
            scaled(x, n)
            general(x, n)
            general(tf.ones([2]), n)  # the second size of n: its trace generalises to shape (None,)
            traced += 1

    def new_values(rounds):
        return [[next(fresh) for _ in range(batch)] for _ in range(rounds)]

    def seen_values(rounds):
        return [list(range(i * batch, (i + 1) * batch)) for i in range(rounds)]

    sizes = iter(range(3, 10**9))

    def new_sizes(rounds):
        return [[tf.ones([next(sizes)]) for _ in range(batch)] for _ in range(rounds)]

    rows = {}
    for at in (100, total):
        trace_up_to(at)
        rows[at] = {
            "seen": per_call(lambda n: scaled(x, n), seen_values),
            "general": per_call(lambda v: general(v, 0), new_sizes),
            "new": per_call(lambda n: scaled(x, n), new_values),
        }
        traced = scaled.experimental_get_tracing_count()
        print(
            f"at {at:6d} traces: new {rows[at]['new'] * 1e3:7.3f} ms   seen {rows[at]['seen'] * 1e3:7.3f} ms   "
            f"general {rows[at]['general'] * 1e3:7.3f} ms",
            flush=True,
        )
    for what in ("new", "seen", "general"):
        print(f"{what:8s} per call at {total} traces / at 100 traces: {rows[total][what] / rows[100][what]:.2f}")


if __name__ == "__main__":
    main()
