"""Golden DOT text for representative tapes: deterministic, no `dot` binary needed.

Regenerate after an intended change with TAPEVIZ_UPDATE_GOLDEN=1.
"""

import os
import pathlib
import re

import pytest

import tapeviz as tf
import tapeviz.viz as viz

# Importing tapeviz.viz subscribes the session recorder; keep it on only during
# these tests, so other test modules see the core with no listener.
viz.stop_watching()


pytestmark = pytest.mark.usefixtures("session_recorder")


from tapeviz.viz.trace import trace_of

GOLDEN = pathlib.Path(__file__).parents[1] / "golden"


def check_golden(name, text):
    path = GOLDEN / f"{name}.dot"
    if os.environ.get("TAPEVIZ_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"DOT differs from {path}; rerun with TAPEVIZ_UPDATE_GOLDEN=1 if intended"


def basic():
    x = tf.Variable(3.0, name="golden_basic_x")
    with tf.GradientTape() as tape:
        y = x * x + tf.sin(x)
    tape.gradient(y, x)
    return tape


def persistent():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    tape.gradient(z, x)
    tape.gradient(y, x)
    return tape


def nested():
    x = tf.Variable(1.5, name="golden_nested_x")
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    outer.gradient(dy, x)
    return outer


def training_step():
    w = tf.Variable([[0.5], [-0.25]], name="golden_train_w")
    b = tf.Variable([0.1], name="golden_train_b")
    xs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ys = tf.constant([[1.0], [0.0]])
    with tf.GradientTape() as tape:
        with tf.name_scope("dense"):
            pred = tf.matmul(xs, w) + b
        with tf.name_scope("loss"):
            loss = tf.reduce_mean(tf.square(pred - ys))
    tape.gradient(loss, [w, b])
    return tape


def large():
    x = tf.Variable(tf.ones((3,)), name="golden_large_x")
    with tf.GradientTape() as tape:
        h = x * 1.0
        for i in range(400):
            with tf.name_scope(f"block{i // 40}"):
                h = tf.tanh(h * 0.5 + 0.1)
        loss = tf.reduce_sum(h)
    tape.gradient(loss, x)
    return tape


@pytest.mark.parametrize(
    "name,make",
    [
        ("basic", basic),
        ("persistent", persistent),
        ("nested_second_order", nested),
        ("training_step", training_step),
        ("folded_large", large),
    ],
)
def test_golden_dot(name, make):
    tape = make()
    text = viz.to_dot(trace_of(tape))
    check_golden(name, text)
    assert text == viz.to_dot(trace_of(tape)), "DOT must not change between calls"


def test_same_code_same_dot_twice():
    assert viz.to_dot(trace_of(persistent())) == viz.to_dot(trace_of(persistent()))


def test_nested_tapes_are_clusters_with_orders_coloured():
    text = viz.to_dot(trace_of(nested()))
    assert "subgraph cluster_T0 {" in text and "subgraph cluster_T0_T1 {" in text
    assert "1st-order backward" in text and "#fde68a" in text  # backward ops coloured amber
    assert 'style="dashed"' in text  # backward edges styled apart


def test_large_tape_folds_under_budget_and_opens():
    trace = trace_of(large())
    view = viz.view.build(trace)
    assert len(view.nodes) <= 300
    assert view.folds and all(f["open"] for f in view.folds.values())  # scope folds name their scope
    opened = viz.view.build(trace, open=["block3"])
    assert not any(f["open"] == "block3" for f in opened.folds.values())
    # inside the opened scope its loop is one box, which opens in turn (first and last turns shown)
    (loop,) = [f for f in opened.folds.values() if f["key"].startswith("repeat:")]
    assert loop["title"] == "40 \u00d7 [Mul \u2192 AddV2 \u2192 Tanh]"
    both = viz.view.build(trace, open=["block3", loop["open"]])
    shown = [n["op"]["name"] for n in both.nodes.values() if n["kind"] == "op" and n["op"]["scope"] == "block3"]
    assert shown == ["Mul", "AddV2", "Tanh"] * 2
    middle = [f for f in both.folds.values() if f["key"].startswith("repeat:")]
    assert [f["title"] for f in middle] == ["38 \u00d7 [Mul \u2192 AddV2 \u2192 Tanh]"]
    assert len(viz.view.build(trace, fold=False).nodes) > 1000


def test_unscoped_loop_folds_by_repetition():
    x = tf.Variable(1.0, name="golden_loop_x")
    with tf.GradientTape() as tape:
        h = x * 1.0
        for _ in range(600):
            h = tf.tanh(h * 0.9)
    view = viz.view.build(trace_of(tape))
    assert len(view.nodes) <= 300
    assert any(f["title"].startswith(tuple("0123456789")) and "\u00d7" in f["title"] for f in view.folds.values())


def test_to_dot_takes_a_tape_as_well_as_a_trace():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    assert viz.to_dot(tape) == viz.to_dot(trace_of(tape))
    assert "Mul" in viz.to_dot(tape)


def test_table_takes_a_tape():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert "Mul" in viz.table(tape)


def test_pictures_label_tensors_with_the_names_the_student_gave_them():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
        loss = y + 1.0
    tape.gradient(loss, x)
    named = tf.show(tape)
    assert ">y<" in named.dot and ">loss<" in named.dot
    assert tf.show(tape).dot == named.dot  # the same labels on a second display
    plain = tf.show(tape, names=False)
    assert ">y<" not in plain.dot and ">loss<" not in plain.dot


def test_an_edge_into_stop_gradient_is_drawn_as_a_dead_end():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x)
    tape.gradient(y, x)
    dot = tf.show(tape, names=False).dot
    blocked = [line for line in dot.splitlines() if 'arrowhead="tee"' in line]
    assert len(blocked) == 1 and "no gradient flows back" in blocked[0]
    assert sum("->" in line for line in dot.splitlines()) > 1  # the other edges are ordinary


def test_a_custom_gradient_is_drawn_under_its_function_s_name():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        return tf.math.log(1 + e), lambda g: g * (1 - 1 / (1 + e))

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        log1pexp(x)
    label = next(line for line in tf.show(tape).dot.splitlines() if line.strip().startswith("op0 "))
    assert "<B>log1pexp</B>" in label and "custom gradient" in label


def test_hovering_a_value_names_it_as_the_picture_does():
    """The tooltip says ``x``, as the node does, not the trace id and TF's ``'x:0'``."""
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x * x  # noqa: F841 - named, so the picture calls it y
    tooltips = re.findall(r'tooltip="([^"]*)"', viz.show(tape).dot)
    values = [t for t in tooltips if "float32" in t]
    assert "x: float32 () = 3" in values and "y: float32 () = 9" in values, values
    assert not any(":0" in t or "t0" in t for t in values), values


def test_hovering_an_op_names_it_as_the_picture_does_and_a_fold_says_what_to_type_in_words():
    """An op's tooltip reads ``Mul → y``, as the cards head a step, never ``op3 Mul``; a folded loop's
    tooltip says what it holds and which id open= takes, and that the id is its first op's."""
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x * x  # noqa: F841 - named, so the picture calls it y
        with tf.name_scope("block"):
            z = tf.sin(y)  # noqa: F841
    ops = [t for t in re.findall(r'tooltip="([^"]*)"', viz.show(tape).dot) if "d(x*y)" in t or "sin" in t]
    assert "Mul \u2192 y: d(x*y)/dx = y,  d(x*y)/dy = x" in ops, ops
    assert "Sin \u2192 z in scope block: d sin(x)/dx = cos(x)" in ops, ops
    assert not any(re.search(r"\bop\d+\b", t) for t in ops), ops

    with tf.GradientTape() as tape:
        h = x * 1.0
        for _ in range(600):
            h = tf.tanh(h * 0.9)
    view = viz.view.build(trace_of(tape))
    loop = next(f for f in view.folds.values() if f["key"].startswith("repeat:"))
    text = viz.dot.write(view, trace_of(tape).data)
    tip = re.search(r"tooltip=\"(a loop, [^\"]*)\"", text).group(1)
    assert tip.startswith(f"a loop, {loop['title']}: {len(loop['ops']):,} ops folded into one box"), tip
    assert f"open=[{loop['open']!r}]" in tip and f"({loop['open']} is the id of the loop's first op)" in tip, tip
