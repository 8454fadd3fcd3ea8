"""Tapes are per thread: a tape records only the ops run in its own thread."""

import threading

import numpy as np

import tapeviz as tf


def _run_in_threads(*targets):
    errors = []

    def wrap(fn):
        def inner():
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported to the main thread
                errors.append(exc)

        return inner

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def test_tapes_in_two_threads_do_not_see_each_other():
    barrier = threading.Barrier(2, timeout=10)
    shared = tf.Variable(2.0)  # read by both threads while both tapes are open
    results = {}

    def worker(name, x0, power):
        x = tf.constant(x0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            barrier.wait()  # both tapes are now recording
            y = x
            for _ in range(power - 1):
                y = y * x
                barrier.wait()  # interleave the ops of the two threads
            z = y * shared
            barrier.wait()
        results[name] = {
            "dy": tape.gradient(y, x),
            "dz_dshared": tape.gradient(z, shared),
            "ops": [e.name for e in tape.recorded_ops],
            "watched": tape.watched_variables(),
        }

    _run_in_threads(lambda: worker("a", 3.0, 2), lambda: worker("b", 5.0, 2))
    assert float(results["a"]["dy"]) == 6.0
    assert float(results["b"]["dy"]) == 10.0
    assert float(results["a"]["dz_dshared"]) == 9.0
    assert float(results["b"]["dz_dshared"]) == 25.0
    for name in "ab":
        assert results[name]["ops"] == ["Mul", "ReadVariableOp", "Mul"]
        assert results[name]["watched"] == (shared,)


def test_ops_in_another_thread_are_not_recorded():
    barrier = threading.Barrier(2, timeout=10)
    x = tf.constant(3.0)
    recorded = {}

    def recorder():
        with tf.GradientTape() as tape:
            tape.watch(x)
            barrier.wait()  # the other thread computes with x now
            barrier.wait()
            y = x * 2.0
        recorded["ops"] = [e.name for e in tape._entries]
        recorded["grad"] = tape.gradient(y, x)

    def other():
        barrier.wait()
        assert tf.core.state.local.tapes == []  # no tape is active in this thread
        for _ in range(10):
            tf.sin(x) * x
        barrier.wait()

    _run_in_threads(recorder, other)
    assert recorded["ops"] == ["Mul"]
    assert float(recorded["grad"]) == 2.0


def test_many_threads_each_with_nested_tapes():
    n = 6
    barrier = threading.Barrier(n, timeout=10)
    results = [None] * n

    def worker(i):
        x = tf.constant(float(i + 1), dtype=tf.float64)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                barrier.wait()
                y = tf.sin(x) * x
                barrier.wait()
            dy = inner.gradient(y, x)
            barrier.wait()
        d2y = outer.gradient(dy, x)
        results[i] = (float(dy), float(d2y))

    _run_in_threads(*[lambda i=i: worker(i) for i in range(n)])
    for i, (dy, d2y) in enumerate(results):
        x = i + 1.0
        np.testing.assert_allclose(dy, np.cos(x) * x + np.sin(x), rtol=1e-12)
        np.testing.assert_allclose(d2y, -np.sin(x) * x + 2 * np.cos(x), rtol=1e-12)


def test_tape_entered_in_one_thread_is_not_active_in_another():
    seen = {}
    with tf.GradientTape():
        t = threading.Thread(target=lambda: seen.setdefault("tapes", list(tf.core.state.local.tapes)))
        t.start()
        t.join()
    assert seen["tapes"] == []


# -- variables and optimizer steps are atomic across threads, as in TF (issue 17) ----------------------


def _hammer(n, *steps):
    """Run each step ``n`` times, each in its own thread, switching threads as often as Python can."""
    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave between a read and a write, if anything allows it
    try:
        _run_in_threads(*[lambda step=step: [step() for _ in range(n)] for step in steps])
    finally:
        sys.setswitchinterval(interval)


def test_assign_add_and_assign_sub_from_threads_lose_no_update():
    v = tf.Variable([0.0, 0.0])
    w = tf.Variable(0, dtype=tf.int64)
    _hammer(
        1000,
        lambda: v.assign_add([1.0, 2.0]),
        lambda: v.assign_add([1.0, 2.0]),
        lambda: v.assign_sub([0.5, 0.5]),
        lambda: w.assign_add(1),
        lambda: w.assign_add(1),
    )
    assert v.numpy().tolist() == [1500.0, 3500.0]
    assert int(w.numpy()) == 2000


def test_apply_gradients_from_two_threads_loses_no_update():
    # before the locks: 4,000 steps from 2 threads lost about 600 updates and 500 iterations
    v = tf.Variable([0.0, 0.0])
    opt = tf.keras.optimizers.SGD(learning_rate=1.0)
    one = tf.constant([1.0, 1.0])
    _hammer(2000, lambda: opt.apply_gradients([(one, v)]), lambda: opt.apply_gradients([(one, v)]))
    assert v.numpy().tolist() == [-4000.0, -4000.0]
    assert int(opt.iterations.numpy()) == 4000


def test_threaded_adam_steps_equal_the_same_steps_in_one_thread():
    # Every step has the same gradient, so any order of whole steps gives one result;
    # a step interleaved with another (slots of one, iteration count of the other) would not.
    def run(threads):
        v = tf.Variable([1.0, -2.0])
        opt = tf.keras.optimizers.Adam(learning_rate=0.01)
        g = tf.constant([0.5, -1.5])
        if threads:
            _hammer(300, *[lambda: opt.apply_gradients([(g, v)])] * threads)
        else:
            for _ in range(900):
                opt.apply_gradients([(g, v)])
        return v.numpy().tolist(), int(opt.iterations.numpy())

    assert run(threads=3) == run(threads=0)


def test_assign_add_in_one_thread_and_optimizer_steps_in_another_all_count():
    v = tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(learning_rate=1.0, momentum=0.0)
    one = tf.constant(1.0)
    _hammer(2000, lambda: v.assign_add(1.0), lambda: opt.apply_gradients([(one, v)]))
    assert float(v.numpy()) == 0.0


def test_copied_and_pickled_variables_get_their_own_lock():
    import copy
    import pickle

    from tapeviz.core.tensor import updating

    v = tf.Variable([1.0, 2.0])
    copies = [copy.copy(v), copy.deepcopy(v), pickle.loads(pickle.dumps(v))]
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model.build((None, 3))
    copies.append(copy.deepcopy(model).trainable_variables[0])
    with updating(v):  # holding the original's lock does not block updates of the copies elsewhere
        done = []
        _run_in_threads(*[lambda c=c: done.append(c.assign_add(tf.ones_like(c)) is c) for c in copies])
    assert done == [True] * 4
    assert copies[1].numpy().tolist() == [2.0, 3.0] and v.numpy().tolist() == [1.0, 2.0]
