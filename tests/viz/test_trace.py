"""The trace builder: one handler per event type; it counts gradient arrivals (fan-out)."""

import pytest

import tapeviz as tf
from tapeviz import viz


def _steps(block):
    with viz.trace() as recorded:
        block()
    (sweep,) = recorded.sweeps
    return recorded, sweep["steps"]


def test_fan_out_counts_arrivals_at_each_input():
    x = tf.constant(2.0)

    def block():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x  # x feeds three inputs
        tape.gradient(y, x)

    recorded, steps = _steps(block)
    assert [s["accumulated"] for s in steps] == [[1, 1], [2, 3]]
    x_id = recorded.ops[0]["inputs"][0]
    assert steps[-1]["totals"][x_id] == "12"  # 3 x**2 at 2


def test_sin_and_mul_fan_out():
    x = tf.constant(3.0)

    def block():
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = tf.sin(x)
            y = h * x
        tape.gradient(y, x)

    _recorded, steps = _steps(block)
    assert [s["accumulated"] for s in steps] == [[1, 1], [2]]


def test_unneeded_inputs_count_zero():
    x, k = tf.constant(2.0), tf.constant(5.0)

    def block():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * k
        tape.gradient(y, x)

    _recorded, steps = _steps(block)
    assert steps[0]["accumulated"] == [1, 0] and steps[0]["grads"][1] is None


def test_each_event_becomes_one_trace_event_named_by_its_kind():
    """One form from core to picture: the builder's handler for each kind is named for it, so every
    event of a block (a read, an op, a sweep and its ops, a release, an assignment) is in the trace."""
    x = tf.Variable(2.0)
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            y = x * x
        tape.gradient(y, x)
        x.assign(3.0)
    heard = [event.kind for _seq, event in recorded.records]
    assert {"backward_step", "tape_released", "variable_assigned", "watched"} <= set(heard)
    assert [event["kind"] for event in recorded.events] == heard


def test_unknown_event_types_are_ignored():
    from tapeviz.viz.trace import build

    data, _objects = build([(0, object())])
    assert data["ops"] == [] and data["notes"] == []


def test_trace_records_only_its_own_thread():
    import threading

    x = tf.constant(1.0)
    other_done = threading.Event()

    def other():
        with tf.GradientTape() as tape:
            tape.watch(x)
            tf.exp(x)
        other_done.set()

    with viz.trace() as recorded:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        y = x * 2.0
    assert other_done.is_set()
    assert [op["name"] for op in recorded.ops] == ["Mul"]
    assert recorded.tapes == []
    del y


@pytest.mark.parametrize("reason", ["gradient", "reset"])
def test_release_is_a_recorded_event(reason):
    x = tf.constant(1.0)
    with viz.trace() as recorded:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * 2.0
            if reason == "reset":
                tape.reset()
        if reason == "gradient":
            tape.gradient(y, x)
    assert [t["released"] for t in recorded.tapes] == [reason]
