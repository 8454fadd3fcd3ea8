"""The hook bus (tapeviz.events): what tapes announce while recording and sweeping."""

import pytest

import tapeviz as tf
from tapeviz.core import events  # the bus itself: its subscriber lists are read here


class Recorder:
    """A callable listener that keeps every event."""

    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    def kinds(self):
        return [e.kind for e in self.events]

    def of(self, kind):
        return [e for e in self.events if e.kind == kind]


@pytest.fixture
def rec():
    recorder = Recorder()
    with events.listening(recorder):
        yield recorder
    assert recorder not in events._listeners


# -- subscribing ---------------------------------------------------------------------------------


def test_subscribe_and_unsubscribe(no_listeners):
    seen = []
    listener = events.subscribe(seen.append)
    try:
        tf.constant(1.0) + 1.0
    finally:
        events.unsubscribe(listener)
    count = len(seen)
    assert count >= 1
    tf.constant(1.0) + 1.0
    assert len(seen) == count
    events.unsubscribe(listener)  # unsubscribing twice is harmless


def test_a_listener_can_leave_out_the_ops_of_unrecorded_sweeps(no_listeners):
    every, taped_only = [], []
    all_ops = events.subscribe(every.append)
    taped_ops = events.subscribe(taped_only.append, untaped_sweep_ops=False)
    try:
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)  # its sweep's ops are recorded by `outer`
        outer.gradient(dy, x)  # its sweep's ops are recorded by no tape
    finally:
        events.unsubscribe(all_ops)
        events.unsubscribe(taped_ops)

    def sweep_ops(seen, taped):
        return [e for e in seen if isinstance(e, events.OpExecuted) and e.entry.depth > 0 and bool(e.tapes) == taped]

    assert sweep_ops(every, taped=False) and not sweep_ops(taped_only, taped=False)
    assert sweep_ops(taped_only, taped=True) == sweep_ops(every, taped=True) != []
    assert [e for e in every if not (isinstance(e, events.OpExecuted) and e.entry.depth and not e.tapes)] == taped_only
    assert not events._listeners and not events._sweep_op_listeners


def _three_sweeps_of_a_chain(length):
    """A persistent tape of ``length`` scalar ops, swept three times; returns the tape."""
    x = tf.constant(1.0001)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x
        for _ in range(length):
            y = y * x
    for _ in range(3):
        tape.gradient(y, x)
    return tape, y, x


def test_a_tape_reader_reads_ops_from_the_tape_and_gets_the_same_steps_in_batches(no_listeners):
    every, reader = [], []
    hears_all = events.subscribe(every.append, untaped_sweep_ops=False)
    reads = events.subscribe(reader.append, untaped_sweep_ops=False, reads_tapes=True)
    try:
        length = events.BackwardSteps.STEPS_PER_BATCH + 50  # one full batch and a rest, per sweep
        tape, _y, _x = _three_sweeps_of_a_chain(length)
    finally:
        events.unsubscribe(hears_all)
        events.unsubscribe(reads)
    assert not [e for e in reader if isinstance(e, (events.OpExecuted, events.BackwardStep))]
    assert [e.entry for e in every if isinstance(e, events.OpExecuted)] == list(tape.recorded_ops)
    batches = [e for e in reader if isinstance(e, events.BackwardSteps)]
    assert [len(b.steps) for b in batches] == [events.BackwardSteps.STEPS_PER_BATCH, 50] * 3
    steps = [step for b in batches for step in b.steps]
    heard = [e for e in every if isinstance(e, events.BackwardStep)]
    # One form, built once per step: the batches carry the very events a listener of each step heard.
    assert len(steps) == len(heard) and all(s is e for s, e in zip(steps, heard))
    orders = [s.order for s in steps]
    assert orders == sorted(orders) and all(o > tape.recorded_ops[-1].index for o in orders)
    assert all(b.nbytes == sum(s.upstream[0].numpy().nbytes for s in b.steps) for b in batches)
    # Everything else is heard as every listener hears it, in the same order.
    others = [e for e in every if not isinstance(e, (events.OpExecuted, events.BackwardStep))]
    assert [e for e in reader if not isinstance(e, events.BackwardSteps)] == others


def test_a_batch_goes_out_once_its_gradients_pass_the_batch_bytes(no_listeners):
    batches = []
    reads = events.subscribe(batches.append, reads_tapes=True)
    try:
        x = tf.Variable(tf.ones([65536]))  # 256 KiB gradients: the batch bytes pass after a few steps
        with tf.GradientTape() as tape:
            y = x
            for _ in range(12):
                y = y * 1.5
            loss = tf.reduce_sum(y)
        tape.gradient(loss, x)
    finally:
        events.unsubscribe(reads)
    sizes = [e.nbytes for e in batches if isinstance(e, events.BackwardSteps)]
    assert len(sizes) > 1 and all(size <= events.BackwardSteps.BATCH_BYTES + 256 * 1024 for size in sizes)


def test_a_failing_sweep_still_delivers_the_steps_that_ran(no_listeners):
    reader = []
    reads = events.subscribe(reader.append, reads_tapes=True)

    @tf.custom_gradient
    def broken(v):
        def grad(upstream):
            raise RuntimeError("a broken rule")

        return v * 1.0, grad

    try:
        x = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            y = broken(x) * x
        with pytest.raises(RuntimeError, match="a broken rule"):
            tape.gradient(y, x)
    finally:
        events.unsubscribe(reads)
    (batch,) = [e for e in reader if isinstance(e, events.BackwardSteps)]
    assert batch.steps[0].entry.primitive.name == "Mul"  # the step before the broken one
    assert not [e for e in reader if isinstance(e, events.SweepFinished)]


def test_a_tape_reader_hears_the_last_row_of_a_jacobian_and_a_step_listener_every_row(no_listeners):
    every, reader = [], []
    hears_all = events.subscribe(every.append)
    reads = events.subscribe(reader.append, reads_tapes=True)
    try:
        x = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape(persistent=True) as tape:
            y = x * x
        jacobian = tape.jacobian(y, x)
        batch = tape.batch_jacobian(tf.reshape(y, [1, 3]), tf.reshape(x, [1, 3]))
    finally:
        events.unsubscribe(hears_all)
        events.unsubscribe(reads)
    started = [e for e in every if isinstance(e, events.SweepStarted)]
    assert len(started) == 3 + 3  # a row per element of each target
    read = [e for e in reader if isinstance(e, events.SweepStarted)]
    assert read == [started[2], started[5]]  # the last row of each
    assert [e.results for e in reader if isinstance(e, events.SweepFinished)][0][0].numpy().tolist() == [0, 0, 6]
    assert jacobian.numpy().tolist() == [[2, 0, 0], [0, 4, 0], [0, 0, 6]] and batch.shape == (1, 3, 3)


def test_a_release_hands_its_entries_to_the_listeners(no_listeners):
    heard = []
    with events.listening(heard.append):
        x = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            y = x * x
        recorded = tape.recorded_ops
        tape.gradient(y, x)
    (released,) = [e for e in heard if isinstance(e, events.TapeReleased)]
    assert released.reason == "gradient" and released.entries == recorded and not tape.recorded_ops


def test_object_listener_gets_only_its_kinds():
    class OnlyOps:
        def __init__(self):
            self.names = []

        def on_op_executed(self, event):
            self.names.append(event.entry.primitive.name)

    listener = OnlyOps()
    with events.listening(listener):
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.sin(x) * x
        tape.gradient(y, x)
    assert listener.names[:2] == ["Sin", "Mul"]


def test_subscribe_rejects_non_listeners():
    with pytest.raises(TypeError):
        events.subscribe(42)


def test_a_misspelled_handler_is_refused_naming_the_kind_it_meant(no_listeners):
    class Misspelled:
        def on_op_executed(self, event):
            pass

        def on_backward_stpe(self, event):
            pass

    with pytest.raises(TypeError, match=r"on_backward_stpe \(did you mean on_backward_step\?\)"):
        events.subscribe(Misspelled())
    assert not events._listeners  # nothing was subscribed

    class Callable:  # a callable hears every event: its other names are its own business
        def __call__(self, event):
            pass

        def on_anything(self):
            pass

    listener = events.subscribe(Callable())
    events.unsubscribe(listener)


def test_every_event_has_a_kind():
    kinds = {cls.kind for cls in events.ALL_EVENTS}
    assert {
        "tape_entered",
        "tape_exited",
        "watched",
        "op_executed",
        "variable_assigned",
        "sweep_started",
        "backward_step",
        "sweep_finished",
        "tape_released",
    } <= kinds


@pytest.fixture
def no_listeners():
    """Unsubscribe everything (a session-wide recorder, say) for one test."""
    with events.silenced():
        yield


def test_no_event_objects_without_listeners(monkeypatch, no_listeners):
    assert not events._listeners

    def boom(*args, **kwargs):
        raise AssertionError("an event was built with no listener subscribed")

    for cls in events.ALL_EVENTS:
        monkeypatch.setattr(events, cls.__name__, boom)
    v = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            with tape.stop_recording():
                tf.exp(x)
            y = tf.reduce_sum(x * v)
        g = tape.gradient(y, [x, v])
        outer.reset()
    outer.gradient(g[0], x)
    v.assign_add([1.0, 1.0])
    tape_ref = outer
    del outer, tape_ref
    assert float(g[0][0]) == 1.0


# -- the context --------------------------------------------------------------------------------------


def test_tape_entered_and_exited(rec):
    with tf.GradientTape() as tape:
        pass
    assert rec.kinds() == ["tape_entered", "tape_exited"]
    assert all(e.tape == tape.serial for e in rec.events)


def test_stop_recording_announces_exit_and_reentry(rec):
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            pass
    assert rec.kinds() == ["tape_entered", "tape_exited", "tape_entered", "tape_exited"]


def test_nested_tapes_enter_and_exit_in_order(rec):
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            pass
    assert [(e.kind, e.tape) for e in rec.events] == [
        ("tape_entered", outer.serial),
        ("tape_entered", inner.serial),
        ("tape_exited", inner.serial),
        ("tape_exited", outer.serial),
    ]


def test_watched_automatic_flag(rec):
    v = tf.Variable(1.0)
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = v * x
        v * x  # a second read: already watched, not announced again
    watched = rec.of("watched")
    assert [(e.source, e.automatic) for e in watched] == [(x, False), (v, True)]
    assert all(e.tape == tape.serial for e in watched)


def test_explicitly_watched_variable_is_not_automatic(rec):
    v = tf.Variable(1.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        v * 2.0
    assert [(e.source, e.automatic) for e in rec.of("watched")] == [(v, False)]


# -- ops ----------------------------------------------------------------------------------------


def test_op_executed_lists_recording_tapes(rec):
    x, k = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            a = k * 3.0  # not recorded: no watched input
            b = x * k  # recorded by both
            inner.watch(k)
            c = k + 1.0  # recorded by inner only
    ops = rec.of("op_executed")
    assert [e.entry.primitive.name for e in ops] == ["Mul", "Mul", "AddV2"]
    assert ops[0].tapes == ()
    assert set(ops[1].tapes) == {outer.serial, inner.serial}
    assert ops[2].tapes == (inner.serial,)
    assert ops[1].entry.outputs[0] is b
    assert ops[1].entry.inputs == (x, k)
    assert inner.recorded_ops == (ops[1].entry, ops[2].entry)
    assert outer.recorded_ops == (ops[1].entry,)  # the same entry object is shared
    assert a is ops[0].entry.outputs[0] and c is ops[2].entry.outputs[0]


def test_op_executed_outside_any_tape(rec):
    y = tf.constant(1.0) * 2.0
    (event,) = rec.of("op_executed")
    assert event.tapes == () and event.entry.outputs[0] is y and event.entry.depth == 0


def test_variable_read_is_an_op(rec):
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        v * 2.0
    names = [(e.entry.primitive.name, len(e.tapes)) for e in rec.of("op_executed")]
    assert names == [("ReadVariableOp", 1), ("Mul", 1)]


def test_variable_assigned(rec):
    v = tf.Variable(1.0)
    with tf.GradientTape():
        v.assign(3.0)
        v.assign_sub(1.0)
    assigned = rec.of("variable_assigned")
    assert len(assigned) == 2 and all(e.variable is v for e in assigned)
    assert not [e for e in rec.of("op_executed") if e.tapes]


# -- depth ---------------------------------------------------------------------------------------


def test_depth_of_forward_and_backward_ops(rec):
    x = tf.constant(2.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x) * x
            forward = list(rec.of("op_executed"))
            dy = t1.gradient(y, x)
            first = [e for e in rec.of("op_executed") if e not in forward]
        d2y = t2.gradient(dy, x)
        second = [e for e in rec.of("op_executed") if e not in forward and e not in first]
    t3.gradient(d2y, x)

    assert forward and all(e.entry.depth == 0 for e in forward)
    assert first and all(e.entry.depth == 1 for e in first)
    assert all(set(e.tapes) == {t2.serial, t3.serial} for e in first if e.tapes)
    assert any(e.tapes for e in first), "the first backward pass was not recorded on the outer tapes"
    assert second and all(e.entry.depth in (1, 2) for e in second)
    # the second sweep differentiates depth-1 entries (ops at depth 2) and the
    # forward entries t2 also recorded (ops at depth 1); its final sums are depth 2
    assert any(e.entry.depth == 2 for e in second)
    assert any(e.tapes == (t3.serial,) for e in second)
    # the sweep restores depth afterwards
    assert tf.core.state.local.depth == 0
    assert (tf.constant(1.0) * 2.0) is not None
    assert rec.of("op_executed")[-1].entry.depth == 0


def test_entry_scope_follows_name_scope(rec):
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.name_scope("layer"):
            with tf.name_scope("inner"):
                y = x * 2.0
        z = y + 1.0
    scopes = [(e.entry.primitive.name, e.entry.scope) for e in rec.of("op_executed")]
    assert scopes == [("Mul", "layer/inner"), ("AddV2", "")]


# -- the sweep ---------------------------------------------------------------------------------------


def test_sweep_events(rec):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = tf.sin(x)
        y = h * x
    rec.events.clear()
    g = tape.gradient(y, x)
    kinds = rec.kinds()
    assert kinds[0] == "sweep_started"
    assert kinds[-2:] == ["sweep_finished", "tape_released"]
    started = rec.of("sweep_started")[0]
    assert started.tape == tape.serial and started.targets == (y,) and started.sources == (x,)
    assert started.output_gradients == (None,)
    steps = rec.of("backward_step")
    assert [s.entry.primitive.name for s in steps] == ["Mul", "Sin"]
    mul, sin = steps
    assert float(mul.upstream[0]) == 1.0
    assert len(mul.grads) == 2 and float(mul.grads[1]) == float(h)  # d(h*x)/dx = h
    assert mul.needs == (True, True) and sin.needs == (True,)
    finished = rec.of("sweep_finished")[0]
    assert finished.results == (g,)
    released = rec.of("tape_released")[0]
    assert released.tape == tape.serial and released.reason == "gradient"


def test_backward_step_skips_unneeded_inputs(rec):
    x, k = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * k
    rec.events.clear()
    tape.gradient(y, x)
    (step,) = rec.of("backward_step")
    assert step.needs == (True, False) and step.grads[1] is None


def test_output_gradients_in_sweep_started(rec):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    seed = tf.constant([3.0, 4.0])
    tape.gradient(y, x, output_gradients=seed)
    (started,) = rec.of("sweep_started")
    assert started.output_gradients[0] is seed or float(started.output_gradients[0][1]) == 4.0


def test_jacobian_is_one_sweep_per_row(rec):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    assert len(rec.of("sweep_started")) == 3 and len(rec.of("sweep_finished")) == 3
    assert len(rec.of("tape_released")) == 1


# -- release ---------------------------------------------------------------------------------------


def test_tape_released_on_reset(rec):
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        x * 2.0
        tape.reset()
    (released,) = rec.of("tape_released")
    assert released.tape == tape.serial and released.reason == "reset"


def test_persistent_tape_not_released_by_gradient(rec):
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    tape.gradient(y, x)
    tape.gradient(y, x)
    assert rec.of("tape_released") == []


def test_persistent_tape_released_when_deleted():
    import gc

    released = []  # events name tapes by serial: nothing here keeps the tape alive

    def listen(event):
        if event.kind == "tape_released":
            released.append((event.tape, event.reason))

    with events.listening(listen):
        x = tf.constant(1.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            x * 2.0
        ident = tape.serial
        del tape
        gc.collect()
    assert [reason for i, reason in released if i == ident] == ["deleted"]


def test_listener_can_unsubscribe_itself_during_emit():
    seen = []

    def once(event):
        seen.append(event.kind)
        events.unsubscribe(once)

    events.subscribe(once)
    try:
        tf.constant(1.0) * 2.0
        tf.constant(1.0) * 2.0
    finally:
        events.unsubscribe(once)
    assert seen == ["op_executed"]


# -- the redesign's promises --------------------------------------------------------------------------


def test_events_name_tapes_by_serial_and_hold_no_tape(rec):
    import gc
    import weakref

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    dead = weakref.ref(tape)
    del tape
    gc.collect()
    assert dead() is None, "a kept event held the tape alive"
    assert all(isinstance(getattr(e, "tape", 0), int) for e in rec.events)


def test_every_event_is_a_frozen_slotted_dataclass_with_a_kind():
    import dataclasses

    for cls in events.ALL_EVENTS:
        assert dataclasses.is_dataclass(cls) and hasattr(cls, "__slots__"), cls
        assert cls.__dataclass_params__.frozen, f"{cls.__name__} is not frozen"
        assert isinstance(cls.kind, str) and cls.kind not in [f.name for f in dataclasses.fields(cls)]
    assert len({cls.kind for cls in events.ALL_EVENTS}) == len(events.ALL_EVENTS)


def test_an_event_cannot_be_changed_by_a_listener(rec):
    """The same object goes from emit to every listener and recorder: none may alter it for the others."""
    import dataclasses

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    for event in rec.events:
        field = dataclasses.fields(event)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, field, None)


def test_a_listener_raising_on_enter_leaves_no_tape_behind():
    from tapeviz.core import state

    def refuse(event):
        if event.kind == "tape_entered":
            raise KeyboardInterrupt

    tape = tf.GradientTape()
    with events.listening(refuse):
        with pytest.raises(KeyboardInterrupt):
            with tape:
                pass
    assert state.local.tapes == [] and not tape.recording
    x = tf.constant(1.0)
    y = x * 2.0  # no tape records it any more
    assert tape.recorded_ops == () and float(y) == 2.0
    with tape:  # and the tape can still be used
        tape.watch(x)
        z = x * x
    assert float(tape.gradient(z, x)) == 2.0


def test_a_listener_raising_when_stop_recording_ends_leaves_the_tape_paused():
    from tapeviz.core import state

    calls = []

    def refuse_second_enter(event):
        if event.kind == "tape_entered":
            calls.append(event)
            if len(calls) == 2:
                raise RuntimeError("listener broke")

    with events.listening(refuse_second_enter):
        with tf.GradientTape() as tape:
            with pytest.raises(RuntimeError, match="listener broke"):
                with tape.stop_recording():
                    pass
            assert tape not in state.local.tapes and not tape.recording
    assert state.local.tapes == []


# -- a listener and the ops it runs itself (issue 17) ---------------------------------------------------


def test_a_listener_does_not_hear_the_ops_it_runs_itself():
    heard, bystander = [], Recorder()

    def busy(event):  # runs an op on every op it hears: before the guard, a RecursionError
        heard.append(event.entry.primitive.name)
        tf.exp(tf.constant(1.0))

    with events.listening(busy), events.listening(bystander):
        y = tf.constant(2.0) * 3.0
    assert float(y) == 6.0
    assert heard == ["Mul"]
    # another listener hears both: the busy listener's Exp first, as it ran while Mul was announced
    assert [e.entry.primitive.name for e in bystander.of("op_executed")] == ["Exp", "Mul"]


def test_a_listener_that_opens_a_tape_does_not_hear_it():
    heard = []

    def tapes_inside(event):
        heard.append(event.kind)
        if event.kind == "op_executed":
            x = tf.constant(1.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            tape.gradient(y, x)

    with events.listening(tapes_inside):
        tf.constant(2.0) + 1.0
    assert heard == ["op_executed"]


def test_the_guard_is_per_thread():
    import threading

    inside, done = threading.Event(), threading.Event()
    heard = []

    def slow(event):
        heard.append((threading.current_thread().name, event.entry.primitive.name))
        if threading.current_thread().name == "first":
            inside.set()
            assert done.wait(10)

    def first():
        tf.constant(1.0) * 2.0

    def second():
        assert inside.wait(10)
        tf.constant(1.0) - 2.0  # heard by `slow`, although `slow` is busy in the first thread
        done.set()

    with events.listening(slow):
        threads = [threading.Thread(target=first, name="first"), threading.Thread(target=second, name="second")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
    assert sorted(heard) == [("first", "Mul"), ("second", "Sub")]


def test_a_listener_that_raises_is_not_left_marked_busy():
    heard = []

    def fails_once(event):
        heard.append(event.kind)
        if len(heard) == 1:
            raise RuntimeError("listener fault")

    with events.listening(fails_once):
        with pytest.raises(RuntimeError, match="listener fault"):
            tf.constant(1.0) * 2.0
        tf.constant(1.0) * 2.0  # heard: the guard was released by the fault
    assert heard == ["op_executed", "op_executed"]
