"""What graph control flow costs on replay (issue 33): a tf.function whose tensor ``while`` (AutoGraph's
tf.while_loop) replays its body sub-graph, against the same loop run eagerly in Python, in one process.

Run: python benchmarks/bench_control_flow.py [--turns 200] [--repeat 20]

Prints the median time of each and the ratio replay / eager (near 1 or below: a replay runs the same
primitives through ``execute`` without running the Python).
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tapeviz as tf  # noqa: E402


def loop(x, n):
    i = tf.constant(0)
    while i < n:
        x = tf.sin(x) * 0.5 + x
        i += 1
    return x


def median_seconds(run, repeat):
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    x, n = tf.constant([0.3, 0.7]), tf.constant(args.turns)
    traced = tf.function(loop)
    traced(x, n)  # the trace
    graph = traced.get_concrete_function(x, n).graph
    assert [node.op for node in graph.nodes] == ["While"], "the loop was not traced as one While node"
    eager = median_seconds(lambda: loop(x, n), args.repeat)
    replay = median_seconds(lambda: traced(x, n), args.repeat)
    print(f"eager Python loop: {eager * 1e3:.2f} ms; traced While replay: {replay * 1e3:.2f} ms")
    print(f"ratio replay / eager: {replay / eager:.2f} ({args.turns} turns)")


if __name__ == "__main__":
    main()
