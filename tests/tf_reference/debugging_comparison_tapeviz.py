"""The same eight bugs on tapeviz, for docs/debugging.md: tf.viz.diagnose after gradient(), as an engineer
asks. python tests/tf_reference/debugging_comparison_tapeviz.py (tests/viz/test_diagnosis.py asserts each finding).
"""

import numpy as np

import tapeviz as tf
import tapeviz.viz


def show(name, tape, target, sources, check=False):
    d = tf.viz.diagnose(tape, target, sources, check=check)
    if not d.findings:
        print(f"{name}: no findings")
        return
    for f in d.findings[:2]:
        print(f"{name}: {f.cause} | op={f.op} | name={f.name} | where={f.where} | step={f.step}\n    {f.message}")


def norm_at_zero():
    x = tf.Variable([0.0, 0.0])
    with tf.GradientTape() as t:
        y = tf.norm(x)
    t.gradient(y, x)
    show("norm_at_zero", t, y, x)


def log_zero_xent():
    logits = tf.Variable([[10.0, -10.0, -10.0]])
    labels = tf.constant([[0.0, 1.0, 0.0]])
    with tf.GradientTape() as t:
        p = tf.exp(logits) / tf.reduce_sum(tf.exp(logits))
        p = p * tf.cast(p > 1e-6, tf.float32)
        loss = -tf.reduce_sum(labels * tf.math.log(p))
    t.gradient(loss, logits)
    show("log_zero_xent", t, loss, logits)


def numpy_activation():
    w = tf.Variable([[1.0, 2.0]])
    with tf.GradientTape() as t:
        h = np.tanh(tf.matmul(w, tf.ones([2, 1])))
        loss = tf.reduce_sum(h)
    t.gradient(loss, w)
    show("numpy_activation", t, loss, w)


def replaced_variable():
    w = tf.Variable(1.0)
    for _ in range(2):
        with tf.GradientTape() as t:
            loss = (w * 3.0 - 1.0) ** 2
        g = t.gradient(loss, w)
        if g is None:
            show("replaced_variable", t, loss, w)
            return
        w = w - 0.1 * g


def vanishing():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 16)).astype("float32"))
    ws = [tf.Variable(rng.normal(size=(16, 16)).astype("float32")) for _ in range(20)]
    with tf.GradientTape() as t:
        h = x
        for i, w in enumerate(ws):
            with tf.name_scope(f"layer{i}"):
                h = tf.sigmoid(tf.matmul(h, w))
        loss = tf.reduce_sum(h)
    t.gradient(loss, ws)
    show("vanishing", t, loss, ws)


def exploding():
    rng = np.random.default_rng(0)
    wh = tf.Variable((rng.normal(size=(16, 16)) * 1.5).astype("float32"))
    x = tf.constant(rng.normal(size=(4, 16)).astype("float32"))
    with tf.GradientTape() as t:
        h = x
        for _ in range(60):
            h = tf.nn.relu(tf.matmul(h, wh) * 0.9 + x)
        loss = tf.reduce_sum(h)
    t.gradient(loss, wh)
    show("exploding", t, loss, wh)


@tf.custom_gradient
def my_square(x):
    return x * x, lambda dy: -2.0 * x * dy


def wrong_custom_gradient():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = my_square(x)
    t.gradient(y, x)
    show("wrong_custom_gradient", t, y, x, check=True)


def where_nan():
    p = tf.Variable([0.5, 0.0])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.where(p > 0, p * tf.math.log(p), 0.0))
    t.gradient(y, p)
    show("where_nan", t, y, p)


for bug in [
    norm_at_zero,
    log_zero_xent,
    numpy_activation,
    replaced_variable,
    vanishing,
    exploding,
    wrong_custom_gradient,
    where_nan,
]:
    bug()
