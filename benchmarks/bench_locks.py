"""What issue 17's guards cost a single thread, as same-process ratios (guarded / unguarded).

    python benchmarks/bench_locks.py

- the variable lock: ``assign_add`` and an SGD ``apply_gradients`` step, with the
  real locks and with no-op stand-ins (the code path without them);
- the ``np.errstate`` block around an optimizer step (inf/nan gradients stay silent);
- the bool check of ``+``: ``add`` (which checks) against the same op built without it;
- the listener guard in ``events.emit``: an op heard by one listener, against the emit loop without it.

Each pair runs interleaved, best of several rounds in process CPU time, so
machine noise hits both alike; a ratio of 1.00 is free. Prints ratios, asserts nothing.
"""

import contextlib
import operator
import time
import timeit

import numpy as np

import tapeviz as tf
from tapeviz.core import events
from tapeviz.core.primitives._define import binary
from tapeviz.core.primitives.math import add


def NoLock():  # noqa: N802 - stands where a lock class is called
    """A stand-in with a lock's ``with`` protocol that does nothing."""
    return contextlib.nullcontext()


def emit_without_guard(event, listeners=events._listeners):
    for listener in tuple(listeners):
        if callable(listener):
            listener(event)
        else:
            method = getattr(listener, "on_" + event.kind, None)
            if method is not None:
                method(event)


def best(fn, number, rounds=5):
    # CPU time of this process: on a shared machine, time spent waiting for a core is not counted
    return min(timeit.repeat(fn, number=number, repeat=rounds, timer=time.process_time)) / number


def pair(name, guarded, unguarded, number):
    times = {"guarded": [], "unguarded": []}
    for _ in range(9):  # interleave, so drift hits both
        times["guarded"].append(best(guarded, number))
        times["unguarded"].append(best(unguarded, number))
    g, u = min(times["guarded"]), min(times["unguarded"])
    print(f"{name:42s} {g * 1e6:8.2f} us vs {u * 1e6:8.2f} us   ratio {g / u:.3f}")


def main():
    v_locked, v_free = tf.Variable([0.0] * 4), tf.Variable([0.0] * 4)
    v_free._lock = NoLock()
    delta = tf.constant([1.0] * 4)
    pair("assign_add (4 floats)", lambda: v_locked.assign_add(delta), lambda: v_free.assign_add(delta), 2000)

    opt_locked, opt_free = tf.keras.optimizers.SGD(0.01), tf.keras.optimizers.SGD(0.01)
    w_locked, w_free = tf.Variable([[0.0] * 8] * 8), tf.Variable([[0.0] * 8] * 8)
    grad = tf.ones([8, 8])
    opt_locked.apply_gradients([(grad, w_locked)])
    opt_free.apply_gradients([(grad, w_free)])
    opt_free._step_lock = NoLock()
    w_free._lock = NoLock()
    pair(
        "SGD apply_gradients (one 8x8 variable)",
        lambda: opt_locked.apply_gradients([(grad, w_locked)]),
        lambda: opt_free.apply_gradients([(grad, w_free)]),
        1000,
    )

    real_errstate = np.errstate

    def step_with(errstate):
        np.errstate = errstate  # the step looks it up at each call (tapeviz.backend.xp is NumPy)
        try:
            opt_locked.apply_gradients([(grad, w_locked)])
        finally:
            np.errstate = real_errstate

    pair(
        "SGD apply_gradients (np.errstate per step)",
        lambda: step_with(real_errstate),
        lambda: step_with(lambda **kwargs: contextlib.nullcontext()),
        1000,
    )

    unchecked_add = binary("add", "AddV2Unchecked", operator.add, "x + y, without the bool check.")
    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([4.0, 5.0, 6.0])
    pair("x + y, 3 floats (bool check)", lambda: add(x, y), lambda: unchecked_add(x, y), 20000)

    heard = []
    guarded_emit = events.emit

    def op_with(emit):
        events.emit = emit  # recording calls events.emit through the module
        try:
            return x * y
        finally:
            events.emit = guarded_emit

    with events.listening(heard.append):
        pair(
            "x * y, one listener (self-guard in emit)",
            lambda: op_with(guarded_emit),
            lambda: op_with(emit_without_guard),
            20000,
        )
        heard.clear()


if __name__ == "__main__":
    main()
