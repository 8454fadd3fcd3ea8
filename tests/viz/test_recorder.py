"""Issue 19: the session recorder pays only for what it shows, and what it holds stays within its budget."""

import gc
import threading
import tracemalloc

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import viz
from tapeviz.core.tensor import Tensor
from tapeviz.viz import recorder


@pytest.fixture
def budget():
    """Run a test under a budget of its choosing; the default is put back."""
    viz.watch_all()
    old = recorder.SESSION.budget
    yield recorder.set_budget
    recorder.set_budget(old)


def _recount(session):
    """The bytes the session holds, counted afresh from what it keeps (the exact figure)."""
    with session._lock:
        session._bury()
        untaped = sum(size for _seq, _event, size in session.untaped)
        sweeps = sum(s.large + s.small for s in session._sweeps.values())
        logs = sum(log.large for log in session.logs.values())
        return untaped, sweeps, logs


def test_recording_never_copies_or_reduces_an_array(monkeypatch):
    """A shape is read from the array in place: no .numpy() copy, no preview, whatever the size."""
    viz.watch_all()
    w = tf.constant(np.full((300, 300), 0.01, np.float32))
    x = tf.Variable(np.ones(300, np.float32))

    def refuse(self):
        raise AssertionError("the recorder copied an array while recording")

    monkeypatch.setattr(Tensor, "numpy", refuse)
    with tf.GradientTape() as tape:
        y = tf.tanh(tf.linalg.matvec(w, x))
    jac = tape.jacobian(y, x)
    monkeypatch.undo()
    assert jac.shape == (300, 300)
    trace = viz.trace_of(tape)
    # The recorder hears a jacobian's last row (one row shows how each is computed). Its result, a
    # returned gradient, is held weakly (issue 30): nobody holds the row once it is stacked, so a sketch.
    assert len(trace.sweeps) == 1 and trace.sweeps[-1]["results"] == ["released"]
    assert trace.sweeps[-1]["steps"][0]["grads"][0].startswith("mean")  # its steps keep their values


def test_the_byte_count_stays_exact_under_eight_threads(budget):
    """Once the count drifted under threads and then the recorder dropped everything."""
    budget(256 << 10)
    errors = []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            x = tf.Variable(rng.normal(size=(40, 40)).astype(np.float32))
            for _ in range(15):
                with tf.GradientTape() as tape:
                    y = tf.reduce_sum(tf.sin(tf.matmul(x, x)))
                tape.gradient(y, x)
                tf.constant(rng.normal(size=(20, 20)).astype(np.float32)) * 2.0  # untaped
        except Exception as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    gc.collect()
    session = recorder.SESSION
    untaped, sweeps, logs = _recount(session)
    assert (session.untaped_bytes, session.sweep_bytes, session.log_bytes) == (untaped, sweeps, logs)
    assert session.held_bytes() <= session.budget
    # and it keeps recording afterwards: the newest tape still plays its sweep
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    assert viz.trace_of(tape).sweeps[0]["results"] == ["4"]


def test_a_live_persistent_tape_with_many_gradient_calls_stays_within_the_budget(budget):
    budget(64 << 10)
    x = tf.Variable(np.ones(64, np.float32))
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.sin(x) * x)
    for _ in range(50):
        tape.gradient(y, x)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(1500):
            tape.gradient(y, x)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert recorder.SESSION.held_bytes() <= 64 << 10
    # the budget's estimate of what a kept event costs is honest: nothing grows past it
    assert grown <= 64 << 10, f"{grown} bytes grew over 1,500 gradient() calls under a 64 KiB budget"
    trace = viz.trace_of(tape)
    assert 1 <= len(trace.sweeps) < 1550  # the oldest sweeps were dropped, the newest kept
    assert trace.sweeps[-1]["results"][0].startswith("mean")


def test_past_the_budget_older_sweeps_of_a_tape_go_first_and_the_newest_keeps_its_gradients(budget):
    budget(2 << 20)
    x = tf.Variable(np.ones((256, 256), np.float32))  # 256 KiB gradients
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.sin(x) * 3.0)
    for _ in range(6):
        tape.gradient(y, x)
    session = recorder.SESSION
    assert session.held_bytes() <= 2 << 20
    sweeps = list(session.logs[tape.serial].sweeps)
    assert 1 <= len(sweeps) < 6  # superseded sweeps were dropped
    assert sweeps[-1].large > 0 and not sweeps[-1].demoted  # the newest keeps its gradients by reference
    trace = viz.trace_of(tape)
    assert trace.sweeps[-1]["steps"][0]["grads"][0].startswith("mean")


def test_a_sweep_larger_than_the_budget_keeps_shapes_and_its_results(budget):
    budget(1 << 20)
    x = tf.Variable(np.ones((256, 256), np.float32))
    with tf.GradientTape() as tape:
        h = x
        for _ in range(8):
            h = tf.sin(h)  # 8 gradients of 256 KiB: twice the budget
        y = tf.reduce_sum(h)
    g = tape.gradient(y, x)
    assert recorder.SESSION.held_bytes() <= 1 << 20
    trace = viz.trace_of(tape)
    sweep = trace.sweeps[-1]
    assert len(sweep["steps"]) == 10
    assert any(grads[0] == "released" for grads in (step["grads"] for step in sweep["steps"]) if grads)
    assert sweep["results"][0].startswith("mean")  # the gradient returned is the caller's: kept
    del g


def test_the_newest_sweep_is_kept_even_with_no_budget(budget):
    budget(0)
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    trace = viz.trace_of(tape)
    assert trace.sweeps and trace.sweeps[-1]["results"] == ["6"]
    assert recorder.SESSION.untaped_bytes == 0


def test_a_dead_tape_gives_its_bytes_back(budget):
    budget(64 << 20)
    x = tf.Variable(np.ones((128, 128), np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.exp(tf.matmul(x, x) * 0.0))
    tape.gradient(y, x)
    assert recorder.SESSION.held_bytes() > 128 * 128 * 4  # the released log and the sweep's gradients
    before = sum(_recount(recorder.SESSION))
    del tape, y
    gc.collect()
    after = recorder.SESSION.held_bytes()
    assert after < before - 3 * 128 * 128 * 4


def test_a_tape_that_dies_before_the_next_sweep_is_never_counted(monkeypatch):
    """Counting is late: a training step's tape dies before the next sweep starts, and costs no count."""
    viz.watch_all()
    recorder.SESSION.held_bytes()  # what earlier tests left to count is counted now
    counted = []
    charge = recorder._Sweep.charge

    def spy(self, steps, tensors, n_events, last=False):
        counted.append(n_events)
        return charge(self, steps, tensors, n_events, last)

    monkeypatch.setattr(recorder._Sweep, "charge", spy)
    x = tf.Variable(np.ones(8, np.float32))

    def step():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.sin(x) * x)
        return tape.gradient(y, x)

    for _ in range(20):
        step()
    assert counted == []
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * x)
    tape.gradient(y, x)
    before = recorder.SESSION.sweep_bytes
    recorder.SESSION.held_bytes()  # reading the count counts the live tape's sweep
    assert len(counted) == 1 and recorder.SESSION.sweep_bytes > before
    assert viz.trace_of(tape).sweeps[-1]["results"][0].startswith("mean")


def test_a_tape_reset_twice_past_the_budget_keeps_its_older_parts_as_sketches(budget):
    """A log compacted once holds sketches; compacting it again (a second reset) must leave them be."""
    budget(0)
    x = tf.Variable(np.ones((64, 64), np.float32))  # 16 KiB: large
    with tf.GradientTape(persistent=True) as tape:
        for _ in range(3):
            y = tf.tanh(tf.matmul(x, x))
            tape.reset()
        y = tf.reduce_sum(tf.tanh(x))
    assert recorder.SESSION.held_bytes() <= 1 << 10
    trace = viz.trace_of(tape)
    assert [op["name"] for op in trace.ops].count("MatMul") == 3  # every part drawn, the older ones as sketches
    assert tape.gradient(y, x) is not None
