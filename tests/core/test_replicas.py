"""core/replicas.py: where code stands in a strategy, as the core reads it (Variable creation, Generator keys)."""

import threading

from tapeviz.core import replicas, state
from tapeviz.core.tensor import Variable


class _Made(Variable):
    pass


def test_scope_and_replica_contexts_nest_and_unwind():
    strategy = object()
    assert replicas.current().strategy is None
    with replicas.entered_scope(strategy, _Made):
        assert replicas.current().strategy is strategy and replicas.current().replica_id is None
        with replicas.enter_replica(strategy, 2):
            assert replicas.current().replica_id == 2
        assert replicas.current().replica_id is None
    assert replicas.current().strategy is None


def test_variable_made_in_a_scope_is_the_scopes_class_and_plain_outside():
    with replicas.entered_scope(object(), _Made):
        inside = Variable(1.0)
    assert type(inside) is _Made and float(inside.numpy()) == 1.0
    assert type(Variable(1.0)) is Variable


def test_snapshot_carries_contexts_and_tapes_to_another_thread():
    strategy = object()
    seen = {}
    with replicas.entered_scope(strategy, None):
        saved = replicas.snapshot()

    def other():
        replicas.restore(saved)
        seen["strategy"] = replicas.current().strategy
        seen["tapes"] = state.local.tapes

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen["strategy"] is strategy and seen["tapes"] == []


def test_local_updates_nest():
    assert not replicas.updating_locally()
    with replicas.local_updates():
        with replicas.local_updates():
            assert replicas.updating_locally()
        assert replicas.updating_locally()
    assert not replicas.updating_locally()
