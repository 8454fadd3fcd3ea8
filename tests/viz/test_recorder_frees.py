"""Issue 30: with the recorder on (as in every lesson), deleting a gradient frees it.

The recorder holds a gradient a sweep returned by weak reference: the caller's tensor while the
caller keeps it, a sketch (shape, dtype) once it was deleted, never the array.
"""

import gc
import weakref

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import recorder

BIG = (2048, 2048)  # a 16 MiB float32 gradient, the size the issue found kept alive


@pytest.fixture(autouse=True)
def recording():
    """The recorder on, with its default budget, as lessons have it."""
    viz.watch_all()
    old = recorder.SESSION.budget
    recorder.set_budget(recorder.DEFAULT_BUDGET)
    assert recorder.is_watching()
    yield
    recorder.set_budget(old)


def _dies(ref):
    gc.collect()
    return ref() is None


def test_a_deleted_gradient_is_freed_while_its_tape_lives():
    x = tf.Variable(np.ones(BIG, np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * x)
    g = tape.gradient(y, x)
    alive = weakref.ref(g)
    del g
    assert _dies(alive)
    # The tape still draws its sweep: the result as a sketch, shown as "released" (no value).
    assert viz.trace_of(tape).sweeps[-1]["results"] == ["released"]


def test_a_gradient_kept_is_still_shown_with_its_values():
    x = tf.Variable(np.ones(BIG, np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * x)
    g = tape.gradient(y, x)
    assert viz.trace_of(tape).sweeps[-1]["results"][0].startswith("mean")
    assert float(g[0, 0]) == 2.0


def test_deleting_the_gradient_and_the_tape_frees_the_gradient():
    x = tf.Variable(np.ones(BIG, np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(x) * 3.0)
    g = tape.gradient(y, x)
    alive = weakref.ref(g)
    del g, y, tape
    assert _dies(alive)


def test_every_gradient_of_a_persistent_tape_and_of_a_model_is_freed():
    x = tf.Variable(np.ones(BIG, np.float32))
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.exp(x * 0.0))
    first, second = tape.gradient(y, x), tape.gradient(y, [x])[0]
    refs = [weakref.ref(first), weakref.ref(second)]
    del first, second
    assert all(_dies(ref) for ref in refs)

    model = tf.keras.Sequential([tf.keras.layers.Dense(1024), tf.keras.layers.Dense(1024)])
    inputs = tf.constant(np.ones((4, 1024), np.float32))
    with tf.GradientTape() as model_tape:
        loss = tf.reduce_mean(model(inputs) ** 2)
    grads = model_tape.gradient(loss, model.trainable_variables)
    refs = [weakref.ref(grad) for grad in grads]
    assert any(grad.numpy().nbytes >= 4 << 20 for grad in grads)  # 4 MiB kernels
    del grads
    assert all(_dies(ref) for ref in refs)
    assert len(viz.trace_of(model_tape).sweeps[-1]["results"]) == 4  # still drawn, as sketches
