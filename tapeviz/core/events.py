"""The hook bus: what tapes announce as they record and as they sweep backwards.

Subscribe a listener to see every event::

    def show(event):
        print(event.kind, event)

    with tapeviz.events.listening(show):
        ...

A listener is a callable taking one event, or an object with ``on_<kind>``
methods (``on_op_executed``, ``on_backward_step``...) for the kinds it wants.
With no listener subscribed, no event object is even built.

Each kind of event is one frozen dataclass below: emitted once, kept as it is
by recorders, and dispatched on its type by whoever reads it (the
visualizer's trace builder has one handler per class). Adding an event is
one dataclass here, one ``emit`` where it happens, one handler.

Tapes appear in events as their serial number (``tape.serial``), never as the
object, so a recorder never keeps a tape alive. Entries and tensors are live
objects: tensors are immutable, so keeping a reference is a cheap copy.
"""

import dataclasses
import difflib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar


class _Subscribers(list):
    """A list of listeners that caches, per event class, whom to call and how.

    Emitting reads the cached ``(listener, handler)`` tuple instead of
    copying the list and looking up an ``on_<kind>`` method for every event;
    any change to the list, in place or not, drops the cache.
    """

    __slots__ = ("routes",)

    def __init__(self, *args):
        super().__init__(*args)
        self.routes = {}  # event class -> ((listener, handler), ...)


def _dropping_routes(name):
    method = getattr(list, name)

    def changed(self, *args):
        result = method(self, *args)
        self.routes = {}
        return self if name.startswith("__i") else result

    changed.__name__ = name
    return changed


for _name in (
    "append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
    "__setitem__", "__delitem__", "__iadd__", "__imul__",
):  # fmt: skip
    setattr(_Subscribers, _name, _dropping_routes(_name))


_listeners = _Subscribers()  # shared by reference with core.state: its truthiness is the fast check
_sweep_op_listeners = _Subscribers()  # the listeners that want untaped sweep ops (see subscribe), shared likewise
_step_listeners = _Subscribers()  # those that hear each taped op and backward step as it happens, likewise
_tape_readers = _Subscribers()  # those that read tapes instead (``reads_tapes=True``), likewise
#: The four lists above, in that order, for the core's hot paths (core.state) to share; read, never change them.
SUBSCRIBERS = (_listeners, _sweep_op_listeners, _step_listeners, _tape_readers)


def subscribe(listener, untaped_sweep_ops=True, reads_tapes=False):
    """Start sending every event to ``listener``; returns it, for ``unsubscribe``.

    ``untaped_sweep_ops=False`` leaves out the ``OpExecuted`` of ops that a
    sweep runs and no tape records (the arithmetic of a gradient nobody
    differentiates further): when no listener wants them, they are not even
    built. The visualizer's session recorder subscribes so; ``trace()`` keeps
    them.

    ``reads_tapes=True`` is for a listener that keeps what tapes record (the
    session recorder): it hears no ``OpExecuted`` of an op a tape recorded
    (it reads the tape's entries, ``tape.recorded_ops``, and those a release
    drops, ``TapeReleased.entries``) and no ``BackwardStep`` one at a time:
    a sweep's steps come in batches (``BackwardSteps``). An op and a step
    then cost the core no event and no call; the rest it hears as everyone.

    An object's ``on_<kind>`` methods are looked up when it subscribes (on
    the first event of each kind), not again for every event.

    Args:
        listener: a callable that takes each event, or an object with
            ``on_<kind>`` methods (``on_op_executed``...), one per kind it wants.
        untaped_sweep_ops: also hear the ops a sweep runs that no tape records.
        reads_tapes: read what tapes record instead of hearing each op and step
            (see above).

    Returns:
        ``listener`` itself, to pass to ``unsubscribe``.

    Raises:
        TypeError: an object that is not callable and has no ``on_<kind>``
            method, or one whose ``on_`` method names no event kind (the message
            suggests the closest kind); nothing is subscribed then.

    Example:
        >>> import tapeviz as tf
        >>> from tapeviz import events
        >>> kinds = []
        >>> listener = events.subscribe(lambda event: kinds.append(type(event).__name__))
        >>> x = tf.Variable(2.0)
        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        >>> _ = tape.gradient(y, x)
        >>> events.unsubscribe(listener)
        >>> sorted(set(kinds))[:3]
        ['BackwardStep', 'OpExecuted', 'SweepFinished']
    """
    if not callable(listener):
        _check_handlers(listener)
    _listeners.append(listener)
    if untaped_sweep_ops:
        _sweep_op_listeners.append(listener)
    (_tape_readers if reads_tapes else _step_listeners).append(listener)
    return listener


def _check_handlers(listener):
    """An object listener's ``on_`` methods must each name a kind: a misspelled one would never be called."""
    handlers = [name for name in dir(listener) if name.startswith("on_")]
    if not handlers:
        raise TypeError(f"A listener must be callable or have on_<kind> methods; got {type(listener).__name__}.")
    known = ["on_" + event_class.kind for event_class in ALL_EVENTS]
    unknown = [name for name in handlers if name not in known]
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints.append(f"{name} (did you mean {close[0]}?)" if close else name)
        raise TypeError(
            f"{type(listener).__name__} has handlers for no event kind: {', '.join(hints)}. "
            f"The kinds are {', '.join(known)} (tapeviz.events.ALL_EVENTS); nothing was subscribed."
        )


def unsubscribe(listener):
    """Stop sending events to ``listener`` (no error if it was not subscribed).

    Args:
        listener: what ``subscribe`` returned.
    """
    for subscribed in SUBSCRIBERS:
        for position, existing in enumerate(subscribed):
            if existing is listener:
                del subscribed[position]
                break


@contextmanager
def silenced():
    """Run a block that no listener hears (every subscription set aside, then restored).

    For measuring or testing the core as it runs with nobody listening, the
    visualizer's recorder included.

    Returns:
        A context manager.
    """
    saved = [list(subscribed) for subscribed in SUBSCRIBERS]
    for subscribed in SUBSCRIBERS:
        subscribed.clear()  # in place: core.state shares these lists
    try:
        yield
    finally:
        for subscribed, kept in zip(SUBSCRIBERS, saved):
            subscribed[:] = kept


@contextmanager
def listening(listener):
    """Subscribe ``listener`` for the duration of a ``with`` block.

    Args:
        listener: a callable, or an object with ``on_<kind>`` methods (as ``subscribe`` takes).

    Returns:
        A context manager; its ``as`` target is ``listener``.

    Example:
        >>> import tapeviz as tf
        >>> from tapeviz import events
        >>> seen = []
        >>> with events.listening(lambda event: seen.append(event.kind)):
        ...     y = tf.constant(2.0) * 3.0
        >>> seen
        ['op_executed']
    """
    subscribe(listener)
    try:
        yield listener
    finally:
        unsubscribe(listener)


_local = None  # the thread state (core.state sets it): what tf.function traces, which listeners run


def _routes(listeners, cls):
    """``(listener, handler)`` for each of ``listeners`` that hears events of class ``cls``."""
    # The cache is taken before the list is read: if another thread changes the list
    # meanwhile, what is built here lands in the cache that change discarded.
    cache = listeners.routes if type(listeners) is _Subscribers else {}
    routes = cache.get(cls)
    if routes is None:
        routes = []
        for listener in tuple(listeners):
            handler = listener if callable(listener) else getattr(listener, "on_" + cls.kind, None)
            if handler is not None:
                routes.append((listener, handler))
        routes = cache[cls] = tuple(routes)
    return routes


def emit(event, listeners=_listeners):
    """Send ``event`` to every listener, or to ``listeners`` (a subset of them).

    A listener does not hear the events it causes itself (an op it runs, a
    tape it opens): it would hear its own op, run another, and recurse
    without end. Other listeners hear them. The guard is per thread, so the
    same listener still hears what other threads do meanwhile.
    """
    local = _local
    if local.holding:  # inside a held() block: heard once its lock is released (see held)
        local.deferred.append((event, listeners))
        return
    routes = listeners.routes.get(type(event)) if type(listeners) is _Subscribers else None
    if routes is None:
        routes = _routes(listeners, type(event))
    if not local.tracers:
        _send(event, routes, local.listening)
        return
    # A listener looking at values (the recorder's previews) is not the traced code reading them.
    saved, local.tracers = local.tracers, []
    try:
        _send(event, routes, local.listening)
    finally:
        local.tracers = saved


class held:
    """``with held(lock):`` holds ``lock``; the events this thread emits meanwhile are sent after it is released.

    A listener is user code: run under a lock, it could wait for a lock another
    thread holds while that thread waits for this one (a listener that assigns
    to another thread's variable, during two optimizer steps). So no listener
    runs under a lock taken here: what the block announces is kept, in order,
    and sent when the outermost ``held`` block of this thread ends (normally
    or by an exception). Variables' updates and optimizer steps hold their
    locks through this.
    """

    __slots__ = ("lock",)

    def __init__(self, lock):
        self.lock = lock

    def __enter__(self):
        self.lock.acquire()
        _local.holding += 1
        return self

    def __exit__(self, *exc_info):
        local = _local
        local.holding -= 1
        self.lock.release()
        if not local.holding and local.deferred:
            deliver_deferred()


def deliver_deferred():
    """Send the events this thread kept while it held a lock (see ``held``), in the order they happened."""
    local = _local
    while local.deferred and not local.holding:
        waiting, local.deferred = local.deferred, []
        for event, listeners in waiting:  # (a listener that raises stops the delivery, as in emit)
            emit(event, listeners)


def _send(event, routes, calling):
    """Call each route's handler with ``event``, but not a listener this thread is inside now (``calling``,
    innermost last)."""
    for listener, handler in routes:
        if calling and any(inside is listener for inside in calling):
            continue
        calling.append(listener)
        try:
            handler(event)
        finally:
            calling.pop()


def _builder(cls):
    """A fast constructor of ``cls``, for the events emitted once per op or step.

    A frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``; this sets them through their slots. The class is
    looked up by name on each call, so replacing it in this module (as a test
    does, to prove no event is built without listeners) still takes effect.
    """
    setters = tuple(cls.__dict__[field.name].__set__ for field in dataclasses.fields(cls))
    new, classes, name = object.__new__, globals(), cls.__name__
    if len(setters) == 2:
        set_a, set_b = setters

        def build(a, b):
            event = new(classes[name])
            set_a(event, a)
            set_b(event, b)
            return event

    else:
        set_a, set_b, set_c, set_d, set_e, set_f = setters

        def build(a, b, c, d, e, f):
            event = new(classes[name])
            set_a(event, a)
            set_b(event, b)
            set_c(event, c)
            set_d(event, d)
            set_e(event, e)
            set_f(event, f)
            return event

    build.__name__ = f"new_{cls.kind}"
    build.__doc__ = f"A :class:`{name}` from its fields, in order: what ``{name}(...)`` builds, built faster."
    return build


@dataclass(frozen=True, slots=True)
class TapeEntered:
    """Tape number ``tape`` started recording: its ``with`` block began, or a
    ``stop_recording`` block ended. Carries the tape's settings, so a recorder
    can describe the tape without holding it.

    Args:
        tape: the tape's serial number (``tape.serial``).
        persistent: the tape's ``persistent`` setting.
        watch_accessed_variables: its ``watch_accessed_variables`` setting.
    """

    tape: int
    persistent: bool
    watch_accessed_variables: bool
    kind: ClassVar[str] = "tape_entered"


@dataclass(frozen=True, slots=True)
class TapeExited:
    """Tape number ``tape`` stopped recording: its block ended, or ``stop_recording`` began.

    Args:
        tape: the tape's serial number (``tape.serial``).
    """

    tape: int
    kind: ClassVar[str] = "tape_exited"


@dataclass(frozen=True, slots=True)
class Watched:
    """Tape number ``tape`` now watches ``source`` (a Tensor or Variable).

    ``automatic`` is True when a trainable variable was watched because it was
    read inside the tape (``watch_accessed_variables=True``).

    Args:
        tape: the tape's serial number (``tape.serial``).
        source: the Tensor or Variable now watched.
        automatic: watched because a trainable variable was read.
    """

    tape: int
    source: Any
    automatic: bool = False
    kind: ClassVar[str] = "watched"


@dataclass(frozen=True, slots=True)
class OpExecuted:
    """An op ran. ``tapes``: the serial numbers of the tapes that recorded it (empty: none).

    ``entry`` has ``primitive`` (with ``.name``), ``inputs``, ``outputs`` (the
    values saved for the backward pass), ``attrs``, ``scope`` (the name scope)
    and ``depth``: 0 for forward ops, n for ops run by an n-th order backward
    step (the gradient of a gradient has depth 2).

    Args:
        entry: the op's ``TapeEntry`` (see above).
        tapes: the serial numbers of the tapes that recorded it.
    """

    entry: Any
    tapes: tuple
    kind: ClassVar[str] = "op_executed"


@dataclass(frozen=True, slots=True)
class VariableAssigned:
    """``variable.assign*`` replaced a value. Not recorded by any tape.

    Args:
        variable: the Variable, holding its new value.
    """

    variable: Any
    kind: ClassVar[str] = "variable_assigned"


@dataclass(frozen=True, slots=True)
class SweepStarted:
    """A reverse sweep over tape number ``tape`` began: ``gradient`` (or one row of a jacobian).

    ``output_gradients`` holds one seed per target (None: ones).

    Args:
        tape: the tape's serial number (``tape.serial``).
        targets: the flattened targets.
        sources: the flattened sources.
        output_gradients: one seed per target (None: ones).
    """

    tape: int
    targets: tuple
    sources: tuple
    output_gradients: tuple
    kind: ClassVar[str] = "sweep_started"


@dataclass(frozen=True, slots=True)
class BackwardStep:
    """One recorded entry was differentiated during a sweep.

    ``needs``: for each input, whether the sweep wanted its gradient (the
    argument the rule was given). ``upstream``: the gradient arriving at each
    output. ``grads``: what the rule produced for each input (None where not
    needed). ``order``: the step's place among the process's entries
    (``TapeEntry.index`` numbers them from the same count, so a step sorts
    after the ops its rule ran). Gradients that meet at one tensor are summed
    by the sweep; how many arrived so far is for listeners to count (the
    visualizer does).

    Args:
        tape: the tape's serial number (``tape.serial``).
        entry: the ``TapeEntry`` differentiated.
        needs: per input, whether its gradient was wanted.
        upstream: the gradient arriving at each output.
        grads: the rule's gradient per input (None where not needed).
        order: the step's place among the process's entries.
    """

    tape: int
    entry: Any
    needs: tuple
    upstream: tuple
    grads: tuple
    order: int
    kind: ClassVar[str] = "backward_step"


@dataclass(frozen=True, slots=True)
class BackwardSteps:
    """Consecutive backward steps of one sweep, for the listeners that read tapes
    (``subscribe(..., reads_tapes=True)``); the others hear each one as it happens.

    ``steps``: the sweep's ``BackwardStep`` events, in order (the same objects
    a listener of each step hears). ``nbytes``: the bytes of the gradients
    arriving at these steps (each gradient arrives at one step). A batch goes
    out when it holds ``STEPS_PER_BATCH`` steps or ``BATCH_BYTES`` of arriving
    gradients, and when the sweep ends (or fails), before ``SweepFinished``: a
    reader's memory bound stays within one batch.

    Args:
        tape: the tape's serial number (``tape.serial``).
        steps: the ``BackwardStep`` events, in order.
        nbytes: the bytes of the gradients arriving at these steps.
    """

    tape: int
    steps: tuple
    nbytes: int
    kind: ClassVar[str] = "backward_steps"

    STEPS_PER_BATCH: ClassVar[int] = 1024
    BATCH_BYTES: ClassVar[int] = 1 << 20


@dataclass(frozen=True, slots=True)
class SweepFinished:
    """The sweep ended; ``results`` aligns with the flattened sources.

    Args:
        tape: the tape's serial number (``tape.serial``).
        results: one gradient (or None) per flattened source.
    """

    tape: int
    results: tuple
    kind: ClassVar[str] = "sweep_finished"


@dataclass(frozen=True, slots=True)
class TapeReleased:
    """The tape dropped what it held for the backward pass.

    ``reason``: "gradient" (a non-persistent tape was used), "reset", or
    "deleted" (the tape was garbage collected while holding entries).
    ``entries``: what it dropped, in order (empty when "deleted"): a listener
    that reads tapes keeps them, if it wants the values, from here.

    Args:
        tape: the tape's serial number (``tape.serial``).
        reason: ``"gradient"``, ``"reset"`` or ``"deleted"``.
        entries: the entries dropped, in order.
    """

    tape: int
    reason: str
    entries: tuple = ()
    kind: ClassVar[str] = "tape_released"


@dataclass(frozen=True, slots=True)
class OptimizerStep:
    """An optimizer is about to update ``variables`` from ``gradients``: step number ``step`` (1 first).

    ``gradients`` are the arrays the update uses, one per variable, after the
    optimizer's own clipping (``clipnorm``, ``global_clipnorm``...); pairs whose
    gradient was None are left out of both. ``learning_rate`` is the rate of
    this step (a schedule's value). Nothing has changed yet when this is
    heard, so a listener can read the values before the step; the changes
    follow as ``variable_assigned`` events (each variable's slots, then the
    variable), and the step ends with ``optimizer.iterations`` assigned.

    Args:
        optimizer: the optimizer taking the step.
        variables: the variables it updates.
        gradients: their gradients, in the same order.
        learning_rate: the learning rate of this step.
        step: the step's number (the optimizer's ``iterations`` before it).
    """

    optimizer: Any
    variables: tuple
    gradients: tuple
    learning_rate: float
    step: int
    kind: ClassVar[str] = "optimizer_step"


# What record() and the sweep call once per op or step: the same objects as the classes build.
op_executed = _builder(OpExecuted)
backward_step = _builder(BackwardStep)

#: Every event class, in the order a tape emits them; ``event.kind`` names each one.
ALL_EVENTS = (
    TapeEntered,
    TapeExited,
    Watched,
    OpExecuted,
    VariableAssigned,
    SweepStarted,
    BackwardStep,
    BackwardSteps,
    SweepFinished,
    TapeReleased,
    OptimizerStep,
)
