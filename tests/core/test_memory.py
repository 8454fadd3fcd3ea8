"""What a tape keeps alive, and that training does not leak. Measured in bytes
(tracemalloc) and object lifetimes (weakref), never in seconds."""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import events


@pytest.fixture(scope="module", autouse=True)
def older_objects_left_out_of_collections():
    """Objects made before this module (the earlier tests of this process) are moved out of the
    collector's sight: gc.collect() then walks only what these tests made, in well under a second
    instead of many seconds after a thousand tests. Frozen objects stay alive as before; whatever
    these tests make is collected as usual."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(autouse=True)
def no_listeners():
    """A subscribed listener (a recorder) keeps events, and with them tensors, alive."""
    with events.silenced():
        yield


def _collect():
    gc.collect()
    gc.collect()


# -- (a) a used non-persistent tape holds nothing --------------------------------------------


def test_non_persistent_tape_releases_after_gradient():
    x = tf.constant(np.linspace(-1.0, 1.0, 50))
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = tf.tanh(x)
        h2 = h * h
        y = tf.reduce_sum(tf.exp(h2))
    refs = [weakref.ref(t) for t in (h, h2)]
    assert len(tape.recorded_ops) == 4
    g = tape.gradient(y, x)
    assert tape.recorded_ops == ()
    assert not tape._watched
    del h, h2, y
    _collect()
    assert [r() for r in refs] == [None, None], "the used tape still keeps intermediates alive"
    assert g.shape == (50,)


def test_a_released_tape_of_float_scalars_keeps_its_entries_until_drawn():
    """Dropping a scalar tape's entries would free next to nothing: they are kept, and sketched
    (values dropped) only when the tape is drawn; the sketch is the live entries' structure."""
    x = tf.constant(1.5)
    with tf.GradientTape(persistent=True) as outer:  # sees the same entries, kept live to compare
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = x * x
            y = tf.sin(h) * h + 0.5
    live = [(e.index, e.name, [t.numpy().dtype for t in e.outputs]) for e in outer.recorded_ops]
    ref = weakref.ref(h)
    del h, outer
    tape.gradient(y, x)
    _collect()
    assert tape.released and tape.recorded_ops == ()
    assert ref() is not None, "the release of a scalar tape sketched its entries at once"
    drawn = [(e.index, e.name, [t.dtype for t in e.outputs]) for e in tape.history]
    assert drawn == live
    _collect()
    assert ref() is None, "the drawn tape still keeps its entries"


def test_intermediates_die_with_gradients_kept():
    """The gradient itself must not reference the forward intermediates."""
    w = tf.Variable(np.ones((3, 3)))
    with tf.GradientTape() as tape:
        a = tf.matmul(w, w)
        b = tf.sigmoid(a)
        loss = tf.reduce_mean(b)
    refs = [weakref.ref(t) for t in (a, b, loss)]
    grad = tape.gradient(loss, w)
    del a, b, loss, tape
    _collect()
    assert [r() for r in refs] == [None, None, None]
    assert grad.shape == (3, 3)


def test_ops_outside_any_tape_keep_nothing():
    x = tf.constant([1.0, 2.0])
    y = tf.exp(x)
    ref = weakref.ref(y)
    z = y * 2.0
    del y
    _collect()
    assert ref() is None
    assert z.shape == (2,)


# -- (b) training memory stays flat ---------------------------------------------------------------


@pytest.mark.slow
def test_training_loop_memory_is_flat():
    rng = np.random.default_rng(0)
    X = tf.constant(rng.normal(size=(32, 4)).astype(np.float32))
    Y = tf.constant(rng.normal(size=(32, 1)).astype(np.float32))
    W1 = tf.Variable(rng.normal(size=(4, 8)).astype(np.float32) * 0.3)
    b1 = tf.Variable(np.zeros(8, np.float32))
    W2 = tf.Variable(rng.normal(size=(8, 1)).astype(np.float32) * 0.3)
    b2 = tf.Variable(np.zeros(1, np.float32))
    params = [W1, b1, W2, b2]

    def step():
        with tf.GradientTape() as tape:
            hidden = tf.tanh(tf.matmul(X, W1) + b1)
            pred = tf.matmul(hidden, W2) + b2
            loss = tf.reduce_mean(tf.square(pred - Y))
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(0.05 * g)
        return float(loss)

    first = step()
    for _ in range(20):  # warm caches (dtype tables, name counters, ...)
        step()
    _collect()
    tracemalloc.start()
    try:
        for _ in range(80):
            step()
        _collect()
        at_100, _ = tracemalloc.get_traced_memory()
        for _ in range(900):
            last = step()
        _collect()
        at_1000, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    growth = at_1000 - at_100
    assert growth < 64 * 1024, f"memory grew by {growth} bytes over 900 training steps"
    assert last < first  # and it did train


@pytest.mark.slow
def test_persistent_tapes_in_a_loop_do_not_leak():
    x = tf.Variable(np.ones(16, np.float32))

    def step():
        with tf.GradientTape(persistent=True) as tape:
            y = tf.reduce_sum(tf.sin(x) * x)
        tape.gradient(y, x)
        tape.gradient(y, x)

    for _ in range(10):
        step()
    _collect()
    tracemalloc.start()
    try:
        for _ in range(50):
            step()
        _collect()
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(500):
            step()
        _collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert after - before < 64 * 1024


# -- (c) a persistent tape keeps entries until it is deleted ---------------------------------------


def test_persistent_tape_keeps_entries_until_deleted():
    x = tf.constant(np.arange(4.0))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = tf.sin(x)
        y = tf.reduce_sum(h * h)
    refs = [weakref.ref(h), weakref.ref(y)]
    entry_outputs = [weakref.ref(e.outputs[0]) for e in tape.recorded_ops]
    tape_ref = weakref.ref(tape)
    del h, y
    _collect()
    assert all(r() is not None for r in refs), "a persistent tape must keep what it recorded"
    tape.gradient(refs[1](), x)
    _collect()
    assert all(r() is not None for r in refs)
    assert len(tape.recorded_ops) == 3
    del tape
    _collect()
    assert tape_ref() is None
    assert [r() for r in refs] == [None, None]
    assert all(r() is None for r in entry_outputs)


def test_persistent_tape_with_gradient_inside_frees_on_delete():
    import warnings

    x = tf.constant(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x * x
            dy = tape.gradient(y, x)
    ref = weakref.ref(tape)
    outputs = [weakref.ref(e.outputs[0]) for e in tape.recorded_ops]
    del tape, y, dy
    _collect()
    assert ref() is None
    assert all(r() is None for r in outputs)
