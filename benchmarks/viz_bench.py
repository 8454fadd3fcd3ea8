"""Visualizer benchmark: every tape shape draws in under 2 s.

For each shape below, ``run()`` records the tape (and its sweep), then
times the three stages of a picture separately: the trace (events -> plain
data), the view + DOT text (folding included), and the layout by the layout
program (system Graphviz ``dot`` when present, ``graphviz-pure`` otherwise;
both when both are there). It prints the op count, the visible node count,
the folds and each time against the 2 s target for the whole picture
(trace + view + layout), as a ratio: at most 1.0 meets the target.

Shapes (the ones that hurt before folding learned them):

- ``rnn``: a loop reading a variable every step, ``z = z * w + c``
  unrolled 2,500 times: must fold to one box "2,500 x [Mul -> AddV2]";
- ``rnn30``: the same loop for 30 steps: few nodes, but ``w`` and ``c`` reach
  every step with long edges (op by op, Graphviz took 2 to 10 s);
- ``chain``: a 5,000-op unscoped chain ``h = tanh(h * 0.5 + 0.1)``;
- ``scoped``: the same chain in two levels of name scopes (layers/units);
- ``steps``: a 1,000-step loop with a name scope per step (one loop box, not
  1,000 scope boxes);
- ``longbody``: a loop whose body is 120 ops long, 60 turns;
- ``irregular``: 3,000 ops in no repeating order (folds into segments);
- ``fanout``: one variable feeding 2,500 ops, summed;
- ``params``: 500 variables, each used once (wide, no repetition to find);
- ``nested3``: three nested tapes (3rd derivative) of a 200-step loop;
  ``nested3_10``: of a 10-step loop (op by op: 450 nodes, 5 to 18 s);
- ``cnn``: a tapeviz.keras training step, Conv2D -> MaxPool -> Flatten ->
  Dense(64) -> Dense(10) on a 32x8x8x1 batch, loss and gradients of every weight;
- ``big``: a 2-layer MLP on 1000x1000 float32 tensors (values are summarised).

Run: ``python benchmarks/viz_bench.py [--quick] [--only rnn,cnn]`` or
``python benchmarks/bench_core.py --only viz``.
"""

import argparse
import os
import sys
import time

TARGET_S = 2.0  # the bound on drawing any tape (trace + view + DOT + layout)
LAYOUT_TIMEOUT_S = 60  # a layout slower than this is reported as "inf"


# -- the shapes: each returns the tape after its sweep ---------------------------------------------


def rnn(tf, steps=2500):
    w = tf.Variable(0.9, name="w")
    c = tf.constant(0.1)
    z = tf.constant(1.0)
    with tf.GradientTape() as tape:
        for _ in range(steps):
            z = z * w + c
    tape.gradient(z, w)
    return tape


def chain(tf, n_ops=5000, scoped=False):
    x = tf.Variable(tf.ones((4,)), name="x")
    with tf.GradientTape() as tape:
        h = x * 1.0
        for i in range(n_ops // 3):
            if scoped:
                with tf.name_scope(f"layer{i // 20}"), tf.name_scope(f"unit{i % 20}"):
                    h = tf.tanh(h * 0.5 + 0.1)
            else:
                h = tf.tanh(h * 0.5 + 0.1)
        loss = tf.reduce_sum(h)
    tape.gradient(loss, x)
    return tape


def steps(tf, count=1000):
    """A loop with a name scope per step (``name_scope(f"step{i}")``): 1,000 scopes, one loop."""
    w = tf.Variable(0.9, name="w")
    z = tf.constant(1.0)
    with tf.GradientTape() as tape:
        for i in range(count):
            with tf.name_scope(f"step{i}"):
                z = tf.tanh(z * w + 0.1)
    tape.gradient(z, w)
    return tape


def longbody(tf, steps=60, width=60):
    """A loop whose body is 120 ops long (a deep cell unrolled): longer than any short period."""
    import random

    pick = random.Random(1)
    cell = [pick.choice([tf.sin, tf.cos, tf.tanh, tf.square]) for _ in range(width)]
    x = tf.Variable(0.5, name="x")
    with tf.GradientTape() as tape:
        h = x
        for _ in range(steps):
            for fn in cell:
                h = fn(h) * x
    tape.gradient(h, x)
    return tape


def irregular(tf, n_ops=3000):
    """No loop to find: primitives in a pseudo-random order, each reading an earlier value."""
    import random

    pick = random.Random(0)
    x = tf.Variable(0.5, name="x")
    values = [x * 1.0]
    unary = [tf.sin, tf.cos, tf.tanh, tf.exp, tf.square]
    with tf.GradientTape() as tape:
        values = [x * 1.0]
        for _ in range(n_ops):
            a, b = pick.choice(values[-8:]), pick.choice(values[-8:])
            values.append(pick.choice(unary)(a) * 0.5 if pick.random() < 0.5 else a * b + 0.1)
        loss = tf.add_n(values[-8:])
    tape.gradient(loss, x)
    return tape


def fanout(tf, width=2500):
    x = tf.Variable(2.0, name="x")
    with tf.GradientTape() as tape:
        terms = [x * float(i) for i in range(width)]
        loss = tf.add_n(terms)
    tape.gradient(loss, x)
    return tape


def params(tf, count=500):
    ws = [tf.Variable(float(i), name=f"w{i}") for i in range(count)]
    with tf.GradientTape() as tape:
        loss = tf.add_n([w * w for w in ws])
    tape.gradient(loss, ws)
    return tape


def nested3(tf, steps=200):
    x = tf.Variable(0.5, name="x")
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                h = x
                for _ in range(steps):
                    h = tf.sin(h) * x
            d1 = t1.gradient(h, x)
        d2 = t2.gradient(d1, x)
    t3.gradient(d2, x)
    return t3


def cnn(tf, batch=32):
    import numpy as np

    keras = tf.keras
    model = keras.Sequential(
        [
            keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    rng = np.random.default_rng(0)
    images = tf.constant(rng.standard_normal((batch, 8, 8, 1)).astype("float32"))
    labels = tf.constant(rng.integers(0, 10, batch))
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model(images)  # build the weights outside the tape
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images))
    tape.gradient(loss, model.trainable_variables)
    return tape


def big(tf, size=1000):
    import numpy as np

    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((size, size)).astype("float32"))
    w1 = tf.Variable(rng.standard_normal((size, size)).astype("float32") * 0.01, name="w1")
    w2 = tf.Variable(rng.standard_normal((size, size)).astype("float32") * 0.01, name="w2")
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)))
    tape.gradient(loss, [w1, w2])
    return tape


SHAPES = {
    "rnn": rnn,
    "rnn30": lambda tf: rnn(tf, 30),
    "chain": chain,
    "scoped": lambda tf: chain(tf, scoped=True),
    "steps": steps,
    "longbody": longbody,
    "irregular": irregular,
    "fanout": fanout,
    "params": params,
    "nested3": nested3,
    "nested3_10": lambda tf: nested3(tf, 10),
    "cnn": cnn,
    "big": big,
}


# -- measuring -------------------------------------------------------------------------------------


def measure(name, programs):
    import tapeviz as tf
    from tapeviz.viz import dot, render, view
    from tapeviz.viz.trace import trace_of

    tape = SHAPES[name](tf)
    start = time.perf_counter()
    data = trace_of(tape).data
    traced = time.perf_counter()
    picture = view.build(data)
    source = dot.write(picture, data)
    written = time.perf_counter()
    layouts = {}
    for program in programs:
        begin = time.perf_counter()
        try:
            render.run_dot(source, "svg", timeout=LAYOUT_TIMEOUT_S, program=program)
            layouts[program] = time.perf_counter() - begin
        except render.GraphvizUnavailable:  # over the timeout: say so, go on
            layouts[program] = float("inf")
    return {
        "ops": len(data["ops"]),
        "nodes": len(picture.nodes),
        "edges": len(picture.edges),
        "folds": len(picture.folds),
        "trace_s": traced - start,
        "view_s": written - traced,
        "layouts": layouts,
        "titles": [f["title"] for f in picture.folds.values()][:3],
    }


def run(quick=False, only=None):
    from tapeviz.viz import render

    programs = render.layout_programs()
    if not programs:
        print("viz: no layout program (neither Graphviz's dot nor graphviz-pure): layout times skipped")
    print(
        f"viz: target {TARGET_S:.0f} s per picture (trace + view/DOT + layout); layout by "
        + (", ".join(f"{name} ({path})" for name, path in programs.items()) or "nothing")
    )
    names = only or list(SHAPES)
    misses = []
    for name in names:
        r = measure(name, list(programs))
        lay = "  ".join(f"{p} {s:5.2f} s" for p, s in r["layouts"].items())
        first = next(iter(r["layouts"].values()), 0.0)
        total = r["trace_s"] + r["view_s"] + first
        ratio = total / TARGET_S
        if ratio > 1.0:
            misses.append(name)
        print(
            f"  {name:8s} {r['ops']:6d} ops -> {r['nodes']:4d} nodes {r['edges']:4d} edges {r['folds']:3d} folds | "
            f"trace {r['trace_s']:5.2f} s  view+DOT {r['view_s']:5.2f} s  layout: {lay} | "
            f"total/target {ratio:4.2f}" + (f"   e.g. {r['titles'][0]}" if r["titles"] else ""),
            flush=True,
        )
    print("viz targets met" if not misses else "viz over target: " + ", ".join(misses))
    if only is None:
        compare_programs()
    return misses


def compare_programs(rounds=5):
    """Each layout program on the golden DOT files: median time, picture size, and whether the
    SVG holds the same node/edge ids, texts and tooltips as the first program's."""
    import glob
    import html
    import re
    import statistics

    from tapeviz.viz import render

    programs = render.layout_programs()
    if len(programs) < 2:
        print("viz: one layout program installed; nothing to compare")
        return
    print(f"layout programs on tests/golden/*.dot (median of {rounds}; sizes in points):")
    golden = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "golden")
    for path in sorted(glob.glob(os.path.join(golden, "*.dot"))):
        source = open(path, encoding="utf-8").read()
        results = {}
        for name in programs:
            times = []
            for _ in range(rounds):
                begin = time.perf_counter()
                svg = render.svg(source, program=name)
                times.append(time.perf_counter() - begin)
            size = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
            content = (
                sorted(re.findall(r'<g id="([^"]+)" class="(?:node|edge|cluster)"', svg)),
                sorted(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)),
                sorted(re.findall(r'xlink:title="([^"]*)"', svg)),
            )
            results[name] = (statistics.median(times), size, content)
        first = next(iter(results.values()))
        print(
            f"  {os.path.basename(path):26s} "
            + "  ".join(
                f"{name} {t * 1e3:5.1f} ms {float(w):.0f}x{float(h):.0f}"
                + ("" if c == first[2] else " CONTENT DIFFERS")
                for name, (t, (w, h), c) in results.items()
            )
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="accepted for symmetry with bench_core (same shapes)")
    parser.add_argument("--only", help="comma-separated shape names: " + ",".join(SHAPES))
    args = parser.parse_args(argv)
    run(args.quick, args.only.split(",") if args.only else None)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main()
