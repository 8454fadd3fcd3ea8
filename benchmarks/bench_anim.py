"""Animation benchmark: the reverse-sweep player's exports at tape sizes a student meets.

Targets (issue 9): the kernel-free HTML of a 2,000-op tape under 5 MB and
5 s; a GIF of a 500-op tape under 30 s and 500 MB of memory. Frames are
deltas over one layout and GIF frames are made one at a time, so both grow
linearly with the number of steps.

``run()`` prints, for each case, the measured figure and its ratio to the
target (below 1.00 meets it). The GIF runs in a child process so its peak
resident memory (``ru_maxrss``) is its own. Timings include building the
trace, the frames, the layout (graphviz ``dot``) and writing the file.

    PYTHONPATH=. python benchmarks/bench_anim.py
"""

import multiprocessing
import os
import resource
import sys
import tempfile
import time

HTML_OPS, HTML_MB, HTML_S = 2000, 5.0, 5.0
GIF_OPS, GIF_MB, GIF_S = 500, 500.0, 30.0


def chain_tape(n_ops):
    """A loop of ``tanh(h * 0.5 + 0.1)`` (3 ops a step) on a variable, swept once."""
    import tapeviz as tf
    import tapeviz.viz  # noqa: F401  (the session recorder keeps the sweep)

    x = tf.Variable(tf.ones((4,)) * 0.3, name="x")
    with tf.GradientTape() as tape:
        h = x * 1.0
        ops = 2
        while ops < n_ops - 1:
            h = tf.tanh(h * 0.5 + 0.1)
            ops += 3
        loss = tf.reduce_sum(h)
    tape.gradient(loss, x)
    return tape


def measure_html(n_ops=HTML_OPS):
    from tapeviz.viz.export import Animation

    tape = chain_tape(n_ops)
    start = time.perf_counter()
    animation = Animation(tape)
    page = animation.to_html()
    seconds = time.perf_counter() - start
    return {
        "ops": n_ops,
        "frames": len(animation.frames),
        "nodes": len(animation.view.nodes),
        "mb": len(page.encode("utf-8")) / 1e6,
        "s": seconds,
    }


def _gif_child(n_ops, queue):
    from tapeviz.viz.export import Animation

    tape = chain_tape(n_ops)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    animation = Animation(tape)
    with tempfile.TemporaryDirectory() as folder:
        path = animation.save_gif(os.path.join(folder, "sweep.gif"), duration_ms=200)
        size = os.path.getsize(path)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    queue.put(
        {
            "ops": n_ops,
            "frames": len(animation.frames),
            "s": seconds,
            "peak_mb": peak / 1024,
            "growth_mb": (peak - before) / 1024,
            "gif_mb": size / 1e6,
        }
    )


def measure_gif(n_ops=GIF_OPS):
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_gif_child, args=(n_ops, queue))
    child.start()
    result = queue.get(timeout=600)
    child.join()
    return result


def run():
    from tapeviz.viz import render

    if render.dot_binary() is None:
        print("anim: graphviz's dot is missing: the exports cannot be laid out; skipped")
        return
    h = measure_html()
    print(
        f"anim html: {h['ops']} ops -> {h['frames']} frames over {h['nodes']} nodes; "
        f"{h['mb']:.2f} MB (target {HTML_MB:.0f} MB, ratio {h['mb'] / HTML_MB:.2f}), "
        f"{h['s']:.2f} s (target {HTML_S:.0f} s, ratio {h['s'] / HTML_S:.2f})"
    )
    g = measure_gif()
    print(
        f"anim gif: {g['ops']} ops -> {g['frames']} frames, {g['gif_mb']:.1f} MB file; "
        f"{g['s']:.1f} s (target {GIF_S:.0f} s, ratio {g['s'] / GIF_S:.2f}), "
        f"peak RSS {g['peak_mb']:.0f} MB (+{g['growth_mb']:.0f} MB while writing; "
        f"target {GIF_MB:.0f} MB, ratio {g['peak_mb'] / GIF_MB:.2f})"
    )


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run()
