"""No listener runs under a lock (issue 30): listeners are user code, and user code run under a
variable's or an optimizer's lock can wait for another thread that waits for that lock.

Every scenario runs in threads joined with a timeout, so a regression fails instead of hanging.
"""

import threading

import numpy as np

import tapeviz as tf
from tapeviz.core import events
from tapeviz.core.tensor import updating

TIMEOUT = 20  # seconds: the steps take milliseconds; a deadlock never ends


def _finish(*targets, timeout=TIMEOUT):
    """Run each target in a daemon thread; fail (not hang) if one is still running after ``timeout``."""
    errors = []

    def wrap(fn):
        def inner():
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported to the test
                errors.append(exc)

        return inner

    threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "deadlock: a thread is still waiting"
    if errors:
        raise errors[0]


def _train(optimizer, variable, steps):
    def run():
        for _ in range(steps):
            optimizer.apply_gradients([(tf.constant([1.0, -1.0]), variable)])

    return run


def test_listeners_that_assign_to_the_other_threads_variable_do_not_deadlock():
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable([3.0, 4.0], name="b")
    other = {id(a): b, id(b): a}
    mine = {}  # thread id -> the variable that thread trains
    # Both threads are inside the listener at once: had they kept their variable's lock, neither could go on.
    meet = threading.Barrier(2, timeout=TIMEOUT / 2)
    heard = []

    def cross_assign(event):
        if isinstance(event, events.VariableAssigned) and event.variable is mine.get(threading.get_ident()):
            meet.wait()
            other[id(event.variable)].assign_add([0.0, 0.0])
            heard.append(event.variable.name)

    def trainer(variable):
        def run():
            mine[threading.get_ident()] = variable
            _train(tf.keras.optimizers.Adam(0.1), variable, 5)()

        return run

    with events.listening(cross_assign):
        _finish(trainer(a), trainer(b))
    assert sorted(heard) == ["a:0"] * 5 + ["b:0"] * 5


def test_a_listener_stepping_another_optimizer_on_each_step_does_not_deadlock():
    """A listener of optimizer steps that runs a step of the other thread's optimizer."""
    a, b = tf.Variable([1.0, 2.0], name="a"), tf.Variable([3.0, 4.0], name="b")
    scratch = {id(a): tf.Variable([0.0, 0.0], name="scratch_a"), id(b): tf.Variable([0.0, 0.0], name="scratch_b")}
    optimizers = {id(a): tf.keras.optimizers.Adam(0.1), id(b): tf.keras.optimizers.Adam(0.1)}
    other = {id(a): b, id(b): a}
    for variable in (a, b):
        optimizers[id(variable)].build([variable, scratch[id(variable)]])
    meet = threading.Barrier(2, timeout=TIMEOUT / 2)

    def cross_step(event):
        if isinstance(event, events.OptimizerStep) and id(event.variables[0]) in other:
            meet.wait()
            there = other[id(event.variables[0])]
            optimizers[id(there)].apply_gradients([(tf.constant([1.0, 1.0]), scratch[id(there)])])

    with events.listening(cross_step):
        _finish(_train(optimizers[id(a)], a, 4), _train(optimizers[id(b)], b, 4))
    # Each optimizer stepped its own variable 4 times and the other thread's scratch variable 4 times.
    assert int(optimizers[id(a)].iterations.numpy()) == 8
    assert int(optimizers[id(b)].iterations.numpy()) == 8


def test_every_event_of_a_step_is_heard_with_no_variable_locked():
    """Whatever a step announces (the step, slots, decay, a constraint's ops, iterations), a listener
    hearing it can take every variable's update lock from another thread."""
    layer = tf.keras.layers.Dense(3, kernel_constraint=tf.keras.constraints.NonNeg())
    x = tf.constant(np.ones((2, 4), np.float32))
    layer(x)
    optimizer = tf.keras.optimizers.AdamW(0.1, weight_decay=0.1)
    optimizer.build(layer.trainable_variables)
    locked = list(layer.trainable_variables) + list(optimizer.variables)
    kinds = set()

    def take_every_lock(event):
        def take():
            for variable in locked:
                with updating(variable):
                    pass

        taker = threading.Thread(target=take, daemon=True)
        taker.start()
        taker.join(TIMEOUT / 4)
        assert not taker.is_alive(), f"{event.kind} was heard while a variable was locked"
        kinds.add(event.kind)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(x))
        optimizer.apply_gradients(zip(tape.gradient(loss, layer.trainable_variables), layer.trainable_variables))

    with events.listening(take_every_lock):
        _finish(step)
    assert {"optimizer_step", "variable_assigned", "op_executed"} <= kinds


def test_events_emitted_under_a_held_lock_arrive_after_it_is_released_in_order():
    lock = threading.RLock()
    heard = []
    v = tf.Variable(1.0, name="v")

    def listener(event):
        if isinstance(event, events.VariableAssigned):
            heard.append((float(event.variable.numpy()), _free(lock)))

    with events.listening(listener):
        with events.held(lock):
            v.assign(2.0)
            with events.held(lock):  # nested: still held
                v.assign(3.0)
            assert heard == []
        v.assign(4.0)
    # Delivered in order once the outer block ended, when another thread could take the lock; the values
    # are read when heard (after the block), so both first events see 3.0.
    assert heard == [(3.0, True), (3.0, True), (4.0, True)]


def _free(lock):
    """Whether another thread can take ``lock`` now."""
    result = []
    thread = threading.Thread(target=lambda: result.append(lock.acquire(timeout=1) and (lock.release() or True)))
    thread.start()
    thread.join(5)
    return result == [True]
