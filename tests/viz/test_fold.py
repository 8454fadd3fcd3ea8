"""Folding: a loop is one box, reads fold into their variable, folds never mix tapes or orders.

What is asserted is the picture's structure (nodes, edges, titles), never a
time: layout speed is measured by benchmarks/viz_bench.py.
"""

import pytest

import tapeviz as tf
import tapeviz.viz as viz
from tapeviz.viz import fold as folding
from tapeviz.viz import view as views
from tapeviz.viz.trace import trace_of

# Importing tapeviz.viz subscribes the session recorder; keep it on only during
# these tests, so other test modules see the core with no listener.
viz.stop_watching()


pytestmark = pytest.mark.usefixtures("session_recorder")


def rnn(steps):
    w = tf.Variable(0.9, name="w")
    c = tf.constant(0.1)
    z = tf.constant(1.0)
    with tf.GradientTape() as tape:
        for _ in range(steps):
            z = z * w + c
    tape.gradient(z, w)
    return trace_of(tape)


@pytest.fixture(scope="module")
def rnn_trace():
    viz.watch_all()
    try:
        return rnn(2500)
    finally:
        viz.stop_watching()


def check_consistent(view, data):
    """Every edge joins drawn nodes; every drawn op is shown by a node; folds hold ops of one cluster/order."""
    for src, dst, _kind, _depth in view.edges:
        assert src in view.nodes and dst in view.nodes
    ops = {op["id"]: op for op in data["ops"]}
    for oid, nid in view.op_node.items():
        assert nid in view.nodes, oid
    for fold in view.folds.values():
        members = [ops[o] for o in fold["ops"]]
        assert len({(tuple(m["tapes"]), m["depth"]) for m in members}) == 1, fold["title"]


def test_rnn_unrolled_2500_steps_is_one_box(rnn_trace):
    view = views.build(rnn_trace)
    check_consistent(view, rnn_trace.data)
    (fold,) = view.folds.values()
    assert fold["title"] == "2,500 \u00d7 [Mul \u2192 AddV2]"
    assert len(fold["ops"]) == 5000
    # the variable is one node, read once per step but drawn with one edge into the loop
    (w,) = [n for n in view.nodes.values() if n["kind"] == "tensor" and n["role"] == "variable"]
    (fold_id,) = view.folds
    assert [(s, d) for s, d, _, _ in view.edges if s == w["id"]] == [(w["id"], fold_id)]
    assert not any(n["kind"] == "op" and n["op"]["name"] == "ReadVariableOp" for n in view.nodes.values())
    assert len(view.nodes) == 3  # w -> loop -> z (the target)
    assert any(n.get("target") for n in view.nodes.values())


def test_show_reads_draws_the_reads_inside_the_loop(rnn_trace):
    view = views.build(rnn_trace, show_reads=True)
    check_consistent(view, rnn_trace.data)
    (fold,) = view.folds.values()
    assert fold["title"] == "2,500 \u00d7 [ReadVariableOp \u2192 Mul \u2192 AddV2]"
    small = views.build(rnn(3), show_reads=True)
    assert sum(n["kind"] == "op" and n["op"]["name"] == "ReadVariableOp" for n in small.nodes.values()) == 3
    assert not any(
        n["kind"] == "op" and n["op"]["name"] == "ReadVariableOp" for n in views.build(rnn(3)).nodes.values()
    )


def test_opening_a_loop_shows_its_first_and_last_turns(rnn_trace):
    (fold,) = views.build(rnn_trace).folds.values()
    assert fold["open"] == fold["ops"][0]
    opened = views.build(rnn_trace, open=[fold["open"]])
    check_consistent(opened, rnn_trace.data)
    names = [n["op"]["name"] for n in opened.nodes.values() if n["kind"] == "op"]
    assert names == ["Mul", "AddV2", "Mul", "AddV2"]
    (middle,) = opened.folds.values()
    assert middle["title"] == "2,498 \u00d7 [Mul \u2192 AddV2]"
    # the middle opens the same way
    again = views.build(rnn_trace, open=[fold["open"], middle["open"]])
    assert [f["title"] for f in again.folds.values()] == ["2,496 \u00d7 [Mul \u2192 AddV2]"]
    dot = viz.to_dot(rnn_trace, open=[fold["open"]])
    assert "2,498 \u00d7 [Mul \u2192 AddV2]" in dot and f"open=[&#x27;{middle['open']}&#x27;]" in dot


def test_a_short_loop_is_drawn_op_by_op():
    view = views.build(rnn(5))
    assert not view.folds
    assert [n["op"]["name"] for n in view.nodes.values() if n["kind"] == "op"] == ["Mul", "AddV2"] * 5


def test_one_variable_feeding_2500_ops_draws_one_edge_per_unit():
    x = tf.Variable(2.0, name="x")
    with tf.GradientTape() as tape:
        loss = tf.add_n([x * float(i) for i in range(2500)])
    tape.gradient(loss, x)
    trace = trace_of(tape)
    view = views.build(trace)
    check_consistent(view, trace.data)
    assert [f["title"] for f in view.folds.values()] == ["2,500 \u00d7 [Mul]"]
    # the 2,500 products are not drawn: one edge from the loop into AddN
    (add_n,) = [n["id"] for n in view.nodes.values() if n["kind"] == "op" and n["op"]["name"] == "AddN"]
    (fold_id,) = view.folds
    assert [(s, d) for s, d, _, _ in view.edges if d == add_n] == [(fold_id, add_n)]
    assert len(view.nodes) == 4


def test_third_order_loops_fold_per_order_and_tape():
    x = tf.Variable(0.5, name="x")
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                h = x
                for _ in range(150):
                    h = tf.sin(h) * x
            d1 = t1.gradient(h, x)
        d2 = t2.gradient(d1, x)
    t3.gradient(d2, x)
    trace = trace_of(t3)
    view = views.build(trace)
    check_consistent(view, trace.data)
    assert len(view.nodes) <= 300
    depths = sorted(n["depth"] for n in view.nodes.values() if n["kind"] == "fold")
    assert set(depths) == {0, 1, 2}, depths  # the forward loop and each backward loop apart
    (forward,) = [f for f in view.folds.values() if view.nodes[_node_of(view, f)]["depth"] == 0]
    assert forward["title"] == "150 \u00d7 [Sin \u2192 Mul]"


def _node_of(view, fold):
    return next(nid for nid, f in view.folds.items() if f is fold)


def test_a_loop_with_a_scope_per_step_is_one_box():
    w = tf.Variable(0.9, name="w")
    z = tf.constant(1.0)
    with tf.GradientTape() as tape:
        for i in range(400):
            with tf.name_scope(f"step{i}"):
                z = tf.tanh(z * w + 0.1)
    tape.gradient(z, w)
    trace = trace_of(tape)
    view = views.build(trace)
    check_consistent(view, trace.data)
    assert [f["title"] for f in view.folds.values()] == ["400 \u00d7 [Mul \u2192 AddV2 \u2192 Tanh]"]
    # with room enough, nothing folds
    small = views.build(trace, max_nodes=100000)
    assert not small.folds


def test_fold_false_and_small_budgets():
    trace = rnn(200)
    assert len(views.build(trace, fold=False).nodes) > 400
    for budget in (5, 20, 100):
        assert len(views.build(trace, max_nodes=budget).nodes) <= budget


def test_code_with_no_loop_folds_into_segments_within_budget():
    import random

    pick = random.Random(0)
    x = tf.Variable(0.5, name="x")
    with tf.GradientTape() as tape:
        values = [x * 1.0]
        for _ in range(900):
            a, b = pick.choice(values[-6:]), pick.choice(values[-6:])
            values.append(pick.choice([tf.sin, tf.cos, tf.exp])(a) if pick.random() < 0.5 else a * b)
        loss = tf.add_n(values[-4:])
    tape.gradient(loss, x)
    trace = trace_of(tape)
    view = views.build(trace, max_nodes=120)
    check_consistent(view, trace.data)
    assert len(view.nodes) <= 120
    segment = next(f for f in view.folds.values() if f["key"].startswith("segment:"))
    assert segment["open"] == segment["ops"][0] and segment["title"] == f"{segment['ops'][0]}\u2013{segment['ops'][-1]}"
    opened = views.build(trace, max_nodes=120, open=[segment["open"]])
    shown = {n["op"]["id"] for n in opened.nodes.values() if n["kind"] == "op"}
    assert set(segment["ops"]) <= shown


def test_a_cnn_training_step_is_drawn_whole():
    import numpy as np

    keras = tf.keras
    model = keras.Sequential(
        [
            keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(),
            keras.layers.Dense(10),
        ]
    )
    images = tf.constant(np.random.default_rng(0).standard_normal((32, 8, 8, 1)).astype("float32"))
    labels = tf.constant(np.arange(32) % 10)
    model(images)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images))
    tape.gradient(loss, model.trainable_variables)
    trace = trace_of(tape)
    view = views.build(trace)
    check_consistent(view, trace.data)
    assert not view.folds
    names = {n["op"]["name"] for n in view.nodes.values() if n["kind"] == "op"}
    assert {"Conv2D", "MaxPool", "MatMul"} <= names
    variables = [n for n in view.nodes.values() if n["kind"] == "tensor" and n["role"] == "variable"]
    assert len(variables) == 4 and all(n["grad"] for n in variables)


@pytest.mark.parametrize("period", [1, 2, 3, 7, 40, 150])
def test_the_loop_body_is_found_whatever_its_length(period):
    # synthetic ops: a prologue, `period`-long body repeated, an epilogue (names are all that matter)
    body = [f"P{i % max(1, period // 2 + 1)}" if i % 3 else f"Q{i}" for i in range(period)]
    names = ["Start", "Other"] + body * 9 + ["End"]
    found = []
    folding._repeats(names, 0, len(names), found)
    start, length, repeats = max(found, key=lambda f: f[1] * f[2])
    assert repeats * length == 9 * period and length == period and names[start : start + length] == body
