"""Eight gradient bugs on TF 2.21, for docs/debugging.md: what the user sees plainly, and with
tf.debugging.enable_check_numerics (pass any argument). Run with TensorFlow installed (never a tapeviz
dependency): python tests/tf_reference/debugging_comparison_tf.py [check]
"""

import sys
import traceback

import numpy as np
import tensorflow as tf


def norm_at_zero():
    x = tf.Variable([0.0, 0.0])
    with tf.GradientTape() as t:
        y = tf.norm(x)
    return t.gradient(y, x)


def log_zero_xent():
    logits = tf.Variable([[10.0, -10.0, -10.0]])
    labels = tf.constant([[0.0, 1.0, 0.0]])
    with tf.GradientTape() as t:
        p = tf.exp(logits) / tf.reduce_sum(tf.exp(logits))
        p = p * tf.cast(p > 1e-6, tf.float32)  # a probability that underflowed to 0
        loss = -tf.reduce_sum(labels * tf.math.log(p))
    return t.gradient(loss, logits)


def numpy_activation():
    w = tf.Variable([[1.0, 2.0]])
    with tf.GradientTape() as t:
        h = np.tanh(tf.matmul(w, tf.ones([2, 1])))
        loss = tf.reduce_sum(h)
    return t.gradient(loss, w)


def replaced_variable():
    w = tf.Variable(1.0)
    for _ in range(2):
        with tf.GradientTape() as t:
            loss = (w * 3.0 - 1.0) ** 2
        g = t.gradient(loss, w)
        w = w - 0.1 * g
    return g


def vanishing():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 16)).astype("float32"))
    ws = [tf.Variable(rng.normal(size=(16, 16)).astype("float32")) for _ in range(20)]
    with tf.GradientTape() as t:
        h = x
        for w in ws:
            h = tf.sigmoid(tf.matmul(h, w))
        loss = tf.reduce_sum(h)
    g = t.gradient(loss, ws)
    return [float(tf.norm(gi)) for gi in (g[0], g[10], g[19])]


def exploding():
    rng = np.random.default_rng(0)
    wh = tf.Variable((rng.normal(size=(16, 16)) * 1.5).astype("float32"))
    x = tf.constant(rng.normal(size=(4, 16)).astype("float32"))
    with tf.GradientTape() as t:
        h = x
        for _ in range(60):
            h = tf.nn.relu(tf.matmul(h, wh) * 0.9 + x)
        loss = tf.reduce_sum(h)
    g = t.gradient(loss, wh)
    return float(tf.norm(g))


@tf.custom_gradient
def my_square(x):
    return x * x, lambda dy: -2.0 * x * dy  # wrong sign


def wrong_custom_gradient():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = my_square(x)
    return t.gradient(y, x)


def where_nan():
    p = tf.Variable([0.5, 0.0])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.where(p > 0, p * tf.math.log(p), 0.0))
    return t.gradient(y, p)


BUGS = [
    norm_at_zero,
    log_zero_xent,
    numpy_activation,
    replaced_variable,
    vanishing,
    exploding,
    wrong_custom_gradient,
    where_nan,
]


def run(check):
    if check:
        tf.debugging.enable_check_numerics()
    for bug in BUGS:
        try:
            out = bug()
            print(f"{bug.__name__}: returns {out!r}"[:300].replace("\n", " "))
        except Exception as e:
            tb = traceback.extract_tb(e.__traceback__)
            user = [f for f in tb if f.filename == __file__]
            msg = str(e).strip().splitlines()
            print(
                f"{bug.__name__}: {type(e).__name__}: {msg[0][:250]} ... [user line: {user[-1].lineno if user else None}]"
            )
            print("    full msg lines:", len(msg), "|", " / ".join(m.strip() for m in msg[1:6])[:600])


run(check=len(sys.argv) > 1)
