"""Player benchmark: showing the reverse-sweep player of a 20-layer MLP takes under 2 s (issue 28).

"Showing" is what Jupyter does with ``tf.viz.player(tape)`` as a cell's last
expression: build the frames, lay the picture out, draw the first frame in
the widget and write the kernel-free copy (``_repr_mimebundle_``). The
baseline, in the same process on the same tape, is ``tf.show(tape)`` shown
the same way (one static picture); ipywidgets is imported before timing, as
it is after a notebook's first widget.

Prints, per shape, the seconds, the ratio to the 2 s target (at most 1.00
meets it) and the ratio to the baseline.

    PYTHONPATH=. python benchmarks/bench_player.py [--only mlp20] [--layers 20]

The tape shapes: ``mlp20``, a tapeviz.keras Sequential of 20 Dense(16,
sigmoid) layers and a Dense(1) on a 32x8 batch, mean squared error, the
gradient of every weight (the issue's case: 14-22 s before the edge labels
were placed against an index of the edges); ``rnn60``, a 60-step ReLU RNN
``h = relu(h @ w + x_t)`` whose loop folds into one box.
"""

import argparse
import os
import sys
import time

TARGET_S = 2.0


def mlp(tf, layers=20, width=16, batch=32):
    import numpy as np

    keras = tf.keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.layers.Dense(width, activation="sigmoid") for _ in range(layers)] + [keras.layers.Dense(1)]
    )
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((batch, 8)).astype("float32"))
    y = tf.constant(rng.standard_normal((batch, 1)).astype("float32"))
    model(x)  # the weights exist before the tape
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    tape.gradient(loss, model.trainable_variables)
    return tape


def rnn(tf, steps=60, width=8):
    import numpy as np

    rng = np.random.default_rng(0)
    w = tf.Variable(rng.standard_normal((width, width)).astype("float32") * 0.6, name="w")
    xs = tf.constant(rng.standard_normal((steps, 1, width)).astype("float32"))
    with tf.GradientTape() as tape:
        h = tf.zeros((1, width))
        for t in range(steps):
            h = tf.nn.relu(tf.matmul(h, w) + xs[t])
        loss = tf.reduce_sum(h)
    tape.gradient(loss, w)
    return tape


SHAPES = {"mlp20": mlp, "rnn60": rnn}


def shown(thing):
    """What Jupyter asks of ``thing`` when it ends a cell."""
    return thing._repr_mimebundle_()


def measure(name, layers=20):
    import ipywidgets  # noqa: F401  (imported once per session; not what is measured)

    import tapeviz as tf
    import tapeviz.viz  # noqa: F401  (records the sweep)

    tape = SHAPES[name](tf, layers) if name == "mlp20" else SHAPES[name](tf)
    start = time.perf_counter()
    shown(tf.show(tape))
    baseline = time.perf_counter() - start
    start = time.perf_counter()
    player = tf.viz.player(tape)
    bundle = shown(player)
    seconds = time.perf_counter() - start
    return {
        "frames": len(player.frames),
        "nodes": len(player.animation.view.nodes),
        "kb": len(bundle["text/html"].encode("utf-8")) / 1e3,
        "s": seconds,
        "show_s": baseline,
    }


def run(only=None, layers=20):
    misses = []
    for name in only or list(SHAPES):
        r = measure(name, layers)
        ratio = r["s"] / TARGET_S
        if ratio > 1.0:
            misses.append(name)
        print(
            f"  player {name:6s} {r['frames']:4d} frames {r['nodes']:4d} nodes {r['kb']:7.0f} kB | "
            f"shown in {r['s']:5.2f} s  target {TARGET_S:.0f} s: ratio {ratio:4.2f} | "
            f"tf.show of the same tape {r['show_s']:5.2f} s: player/show {r['s'] / max(r['show_s'], 1e-9):5.1f}",
            flush=True,
        )
    print("player targets met" if not misses else "player over target: " + ", ".join(misses))
    return misses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated shape names: " + ",".join(SHAPES))
    parser.add_argument("--layers", type=int, default=20, help="layers of the MLP (default 20)")
    args = parser.parse_args(argv)
    run(args.only.split(",") if args.only else None, args.layers)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main()
