"""``tapeviz.events`` is importable by the name the reference gives it, with the core's own objects."""

import importlib


def test_the_events_module_imports_as_documented():
    events = importlib.import_module("tapeviz.events")
    from tapeviz.core import events as core_events
    from tapeviz.events import subscribe, unsubscribe

    assert subscribe is core_events.subscribe and unsubscribe is core_events.unsubscribe
    assert events.ALL_EVENTS is core_events.ALL_EVENTS
    assert all(getattr(events, name) is getattr(core_events, name) for name in events.__all__)


def test_tf_events_is_that_module():
    import tapeviz as tf
    import tapeviz.events

    assert tf.events is tapeviz.events
    heard = []
    with tf.events.listening(lambda event: heard.append(event.kind)):
        tf.exp(tf.constant(1.0))
    assert "op_executed" in heard
