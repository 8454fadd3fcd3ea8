"""GradientTape: record ops in a ``with`` block, then sweep them backwards.

The recorded entries are already in topological order, so the reverse sweep
is a walk over them backwards: each entry's rule (from the one rules table)
turns the gradients of its outputs into gradients of its inputs, and
gradients that meet at a tensor used more than once are summed.
"""

import enum
import itertools
import operator
import sys
import warnings
import weakref

import numpy as np

from tapeviz import backend as B
from tapeviz.core import display, events, history, nest, recording, state
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.indexed_slices import IndexedSlices, combine, slices_of
from tapeviz.core.ops import execute
from tapeviz.core.primitives.array import ones_like, reshape, stack, zeros, zeros_like
from tapeviz.core.primitives.math import ADD_N
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor

_local = state.local
_DEPTH = operator.attrgetter("depth")
_next_serial = itertools.count().__next__
_live = {}  # serial -> a weak reference to the tape, while the tape lives


class _LiveRef(weakref.ref):
    """A weak reference that knows its tape's serial, so that it leaves ``_live`` when the tape dies.

    (A WeakValueDictionary does the same in Python code on every store and lookup; a tape is made
    per training step.)
    """

    __slots__ = ("serial",)


def _leave_live(ref):
    if _live.get(ref.serial) is ref:
        del _live[ref.serial]


# A binary or unary op's ``needs`` (which inputs a tape watches): shared, as rules only read them.
_BOTH, _FIRST, _SECOND, _ONLY = (True, True), (True, False), (False, True), (True,)
_new_entry = recording.new_entry
_READ = recording.READ_VARIABLE  # a variable's read: the sweep's one fast path (_Cotangents.pass_to_variable)
_NO_ATTRS = recording.NO_ATTRS
_next_entry_index = recording.next_order
# NumPy float and complex scalar types: a value of one is a float without reading its dtype.
_FLOAT_SCALARS = frozenset(np.dtype(code).type for code in "efdgFDG")


def tape_with_serial(serial):
    """The live tape numbered ``serial`` (events name tapes by number), or None."""
    ref = _live.get(serial)
    return None if ref is None else ref()


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def _unconnected(value):
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(
            f"Unknown value for unconnected_gradients: {value!r}. "
            "Use tf.UnconnectedGradients.NONE ('none') or tf.UnconnectedGradients.ZERO ('zero')."
        ) from None


class GradientTape:
    """Record operations for automatic differentiation, as ``tf.GradientTape``.

    Ops run inside the ``with`` block on watched tensors (trainable variables
    are watched when read) are recorded; ``gradient`` then sweeps the record
    backwards. In Jupyter, a tape at the end of a cell draws what it recorded.

    Args:
        persistent: allow several ``gradient``/``jacobian`` calls; otherwise
            the tape releases what it recorded after the first one.
        watch_accessed_variables: watch every trainable ``Variable`` read
            while the tape is active. With False, only what ``watch`` names.

    Returns:
        The tape, also as the ``with`` block's target (``as tape``).

    Raises:
        ValueError: entering a tape that is already recording.

    Example:
        Trainable variables are watched when read:

        >>> import tapeviz as tf
        >>> x = tf.Variable(3.0)
        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        >>> tape.gradient(y, x)
        <tf.Tensor: shape=(), dtype=float32, numpy=6.0>

        A constant is recorded once ``watch`` names it:

        >>> c = tf.constant(3.0)
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(c)
        ...     y = c * c
        >>> print(tape.gradient(y, c))
        tf.Tensor(6.0, shape=(), dtype=float32)

        Nested tapes give higher derivatives (the inner gradient is recorded
        by the outer tape):

        >>> with tf.GradientTape() as outer:
        ...     with tf.GradientTape() as inner:
        ...         y = x * x * x
        ...     dy_dx = inner.gradient(y, x)  # 3x^2 = 27
        >>> print(outer.gradient(dy_dx, x))  # 6x = 18
        tf.Tensor(18.0, shape=(), dtype=float32)

        A persistent tape answers several calls:

        >>> with tf.GradientTape(persistent=True) as tape:
        ...     y = x * x
        ...     z = y * y
        >>> print(tape.gradient(z, x), tape.gradient(y, x))
        tf.Tensor(108.0, shape=(), dtype=float32) tf.Tensor(6.0, shape=(), dtype=float32)
        >>> del tape  # releases what it recorded

        A jacobian (one gradient per element of a non-scalar target):

        >>> v = tf.Variable([1.0, 2.0])
        >>> with tf.GradientTape() as tape:
        ...     y = v * v
        >>> print(tape.jacobian(y, v))
        tf.Tensor(
        [[2. 0.]
         [0. 4.]], shape=(2, 2), dtype=float32)

        With ``watch_accessed_variables=False`` only what ``watch`` names is
        recorded:

        >>> a, b = tf.Variable(2.0), tf.Variable(5.0)
        >>> with tf.GradientTape(watch_accessed_variables=False) as tape:
        ...     tape.watch(a)
        ...     y = a * b
        >>> [None if g is None else float(g) for g in tape.gradient(y, [a, b])]
        [5.0, None]

        ``stop_recording`` leaves a part out of the gradient:

        >>> with tf.GradientTape() as tape:
        ...     y = x * x
        ...     with tape.stop_recording():
        ...         scale = x * 10.0  # not recorded: a constant for the tape
        ...     z = y * scale
        >>> print(tape.gradient(z, x))  # 2x * scale = 6 * 30
        tf.Tensor(180.0, shape=(), dtype=float32)
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self.serial = _next_serial()  # how events name this tape
        self.serials = (self.serial,)  # the ``tapes`` of an entry only this tape records
        ref = _live[self.serial] = _LiveRef(self, _leave_live)
        ref.serial = self.serial
        self._entries = []  # recorded TapeEntry objects, in execution order
        self._needs = []  # per entry: which of its inputs this tape watched when it was recorded
        self._roots = set()  # ids of what watch() (or a variable's read) added: the watched sources
        self._needs_exact = True  # see needs_for: False once a record could differ from a sweep's view
        self._released = history.EMPTY  # a sketch of the entries dropped by the last release
        self._holds_arrays = False  # an entry holds a value other than a NumPy float scalar
        self._watched = set()  # ids of watched sources and of everything computed from them
        self._watched_variables = {}  # id -> Variable
        self._recording = False
        self._used = False  # a non-persistent tape that already computed gradients
        self._warned_inside = False

    # -- the context ------------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError(
                "Tape is still recording. This can happen if you try to re-enter an "
                "already-active tape: use a new tf.GradientTape() for the inner block."
            )
        if self._used:  # a used non-persistent tape starts afresh, as in TF
            self._release()
            self._used = False
        self._push()
        return self

    def __exit__(self, *exc_info):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        self._join(len(_local.tapes))

    def _join(self, position):
        """Start recording at ``position`` in the stack: all or nothing.

        A listener that raises (even KeyboardInterrupt) on the announcement
        leaves the tape off the stack, as if the block never started.
        """
        tapes = _local.tapes
        tapes.insert(position, self)
        self._recording = True
        if state.listeners:
            try:
                events.emit(events.TapeEntered(self.serial, self._persistent, self._watch_accessed_variables))
            except BaseException:
                _remove(tapes, self)
                self._recording = False
                raise

    def _pop(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        _remove(_local.tapes, self)
        self._recording = False
        if state.listeners:
            events.emit(events.TapeExited(self.serial))

    # -- what the tape watches ------------------------------------------------------------
    def watch(self, tensor):
        """Watch a Tensor or Variable (or a nested structure of them).

        Constants are not watched by default: ops on them are recorded only
        once they are.

        Args:
            tensor: a Tensor, a Variable, or a nested list/tuple/dict of them.

        Raises:
            ValueError: something that is not a Tensor or Variable (convert it
                with ``tf.constant`` first). A tensor of integer dtype is
                watched with a warning: its gradient will be None.

        Example:
            >>> import tapeviz as tf
            >>> x = tf.constant(2.0)
            >>> with tf.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x**3
            >>> print(tape.gradient(y, x))
            tf.Tensor(12.0, shape=(), dtype=float32)
        """
        for item in nest.flatten(tensor):
            if not isinstance(item, (Tensor, Variable)):
                raise ValueError(
                    f"Passed in object {item!r} of type {type(item).__name__!r}, not a tf.Tensor "
                    "or tf.Variable. Convert it first: x = tf.constant(value); tape.watch(x)."
                )
            if not (item.dtype.is_floating or item.dtype.is_complex):
                warnings.warn(
                    f"The dtype of the watched tensor must be floating (e.g. tf.float32), "
                    f"got {item.dtype!r}: its gradient will be None.",
                    stacklevel=2,
                )
            recording.watch(self, item)

    # -- what core.recording asks and tells (the only writers of the entries and watched ids) --
    def watches(self, tensor):
        """True when ``tensor`` is watched: a watched source, or computed from one on this tape.

        Args:
            tensor: a Tensor or Variable.

        Returns:
            A bool.
        """
        return tensor._id in self._watched

    def record_op(self, primitive, inputs, outputs, attrs, local, entry=None):
        """Record an op on this tape when one of ``inputs`` is watched: the entry, else None.

        The one way onto a tape: ``recording.record`` calls it for each active tape (and a
        binary op directly, when this tape is the only one and nobody listens). It builds the
        entry (``recording.new_entry``) unless a tape recorded it first (``entry``: nested
        tapes share one), keeps which inputs it watches (``needs``, for the sweep), and, when
        gradients flow through the op, watches its float outputs. ``local``: this thread's
        state dict (state.py).

        Args:
            primitive: the op's Primitive.
            inputs: its input tensors.
            outputs: its output tensors.
            attrs: its attributes.
            local: this thread's state dict.
            entry: the entry another tape already made for this op, or None.

        Returns:
            The TapeEntry, or None when no input is watched.
        """
        watched = self._watched
        if len(inputs) == 2:  # binary ops, the commonest: one of three shared tuples
            if inputs[0]._id in watched:
                needs = _BOTH if inputs[1]._id in watched else _FIRST
            elif inputs[1]._id in watched:
                needs = _SECOND
            else:
                return None
        elif len(inputs) == 1:  # unary ops and variables' reads: one shared tuple
            if inputs[0]._id not in watched:
                return None
            needs = _ONLY
        else:
            needs = tuple([t._id in watched for t in inputs])
            if True not in needs:
                return None
        if entry is None:
            entry = _new_entry(primitive, inputs, outputs, attrs, local, self.serials)
        self._entries.append(entry)
        self._needs.append(needs)
        if primitive.differentiable:  # gradients flow through its float outputs
            for tensor in outputs:
                value = tensor._value
                if type(value) in _FLOAT_SCALARS:  # a NumPy float scalar's type says
                    watched.add(tensor._id)
                else:
                    self._holds_arrays = True
                    if value.dtype.kind in "fc":
                        watched.add(tensor._id)
        else:  # a sweep would reach what this left unwatched
            self._needs_exact = False
            self._holds_arrays = True
        return entry

    def record_read(self, variable, tensor, local):
        """Record ``variable``'s read ``tensor``, watching a trainable variable first where this tape
        auto-watches: a read's one fast path, which ``Variable.read_value`` takes when this is the
        only tape and nobody listens or traces; the same as ``recording.record_read`` (the general
        path: ``note_access`` then ``record_op``) records.

        Args:
            variable: the Variable read.
            tensor: the Tensor its read made.
            local: this thread's state dict (state.py).

        Returns:
            The TapeEntry of the read, or None when this tape does not watch the variable.
        """
        watched = self._watched
        if variable._id not in watched:
            if not (variable._trainable and self._watch_accessed_variables):
                return None
            self.add_watched(variable)  # nobody listens: no Watched event to send
        entry = _new_entry(_READ, (variable,), (tensor,), _NO_ATTRS, local, self.serials)
        self._entries.append(entry)
        self._needs.append(_ONLY)
        value = tensor._value
        if type(value) in _FLOAT_SCALARS:  # gradients flow through a float read
            watched.add(tensor._id)
        else:
            self._holds_arrays = True
            if value.dtype.kind in "fc":
                watched.add(tensor._id)
        return entry

    def add_watched(self, source):
        """Watch ``source`` (a Tensor or Variable); False when it already was.

        Args:
            source: a Tensor or Variable.

        Returns:
            True when it was not watched before.
        """
        if source._id in self._watched:
            return False
        self._watched.add(source._id)
        self._roots.add(source._id)
        if hasattr(source, "assign"):
            self._watched_variables[source._id] = source
            return True
        if type(source._value) not in _FLOAT_SCALARS:  # the entries that use it would keep it alive
            self._holds_arrays = True
        if self._entries:
            # A tensor watched late may be an input an earlier entry did not count as watched; a
            # sweep counts it (as TF does). A variable is only ever an input of its own reads,
            # which a tape records once it watches the variable.
            self._needs_exact = False
        return True

    def needs_for(self, reachable):
        """The recorded entries, the ``needs`` of each, and the ids a sweep reaches, when a
        sweep from ``reachable`` (the watched float sources) would find the same; else None.
        The tape's own lists and set, not copies: the sweep only reads them (and walks the
        entries there when it starts, should a recording sweep append more).

        It does when every watched source is among them, every entry let gradients through,
        and nothing was watched after an entry that used it: then what the sweep needs of
        each entry is what the tape watched when it recorded it, and the walk that finds
        the path (``_entries_on_path``) can be skipped.

        Args:
            reachable: the ids of the watched float sources a sweep starts from.

        Returns:
            ``(entries, needs, watched ids)``, or None.
        """
        if not self._needs_exact or not self._roots <= reachable:
            return None
        return self._entries, self._needs, self._watched  # read only, never changed by the caller

    def watched_variables(self):
        """The variables this tape watches, in order of construction (as TF returns them).

        Returns:
            A tuple of Variables (after a non-persistent tape's ``gradient`` too, as TF).

        Example:
            >>> import tapeviz as tf
            >>> a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
            >>> with tf.GradientTape() as tape:
            ...     y = b * a
            >>> [v.name for v in tape.watched_variables()]
            ['a:0', 'b:0']
        """
        return tuple(sorted(self._watched_variables.values(), key=lambda v: v._id))

    def stop_recording(self):
        """A context in which ops are not recorded by this tape.

        Returns:
            A context manager; inside its ``with`` block this tape records
            nothing (other active tapes still do).

        Raises:
            ValueError: the tape is not recording (outside its ``with`` block).

        Example:
            >>> import tapeviz as tf
            >>> x = tf.Variable(2.0)
            >>> with tf.GradientTape() as tape:
            ...     y = x * x
            ...     with tape.stop_recording():
            ...         z = y * x  # not recorded
            >>> print(tape.gradient(z, x))
            None
        """
        if not self._recording:
            raise ValueError("Tape is not recording. Call stop_recording() inside the tape's `with` block.")
        return _Paused(self)

    def reset(self):
        """Forget everything recorded so far; keep recording (as a fresh tape).

        Raises:
            ValueError: the tape is not recording (outside its ``with`` block).

        Example:
            >>> import tapeviz as tf
            >>> x = tf.Variable(2.0)
            >>> with tf.GradientTape() as tape:
            ...     y = x * x
            ...     tape.reset()
            ...     y = x * 5.0
            >>> print(tape.gradient(y, x))
            tf.Tensor(5.0, shape=(), dtype=float32)
        """
        if not self._recording:
            raise ValueError("Tape is not recording: reset() must be called inside the tape's `with` block.")
        self._release(reason="reset")

    def _release(self, reason="gradient"):
        had_state = bool(self._entries or self._watched)
        released = self._entries
        if released:  # entries of float scalars only are kept as they are: sketched when drawn
            self._released = history.Sketch(released) if self._holds_arrays else history.DeferredSketch(released)
        self._holds_arrays = False
        self._entries = []
        self._needs = []
        self._roots = set()
        self._needs_exact = True
        self._watched = set()
        self._watched_variables = {}
        if had_state and state.listeners:
            events.emit(events.TapeReleased(self.serial, reason, tuple(released)))

    def __del__(self):
        if self._entries and state.listeners:
            events.emit(events.TapeReleased(self.serial, "deleted"))

    # -- gradients ------------------------------------------------------------------------
    def _start_computing(self, what):
        if self._used:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                "gradients (or jacobians). Create the tape with tf.GradientTape(persistent=True) "
                "to call gradient() more than once."
            )
        if self._recording:
            if not self._persistent:
                self._pop()  # TF stops a non-persistent tape that computes inside its block
            elif not self._warned_inside:
                self._warned_inside = True
                warnings.warn(
                    f"Calling GradientTape.{what} on a persistent tape inside its context is "
                    "significantly less efficient than calling it outside the context (it causes "
                    "the gradient ops to be recorded on the tape, leading to increased CPU and "
                    "memory usage). Only call GradientTape.gradient inside the context if you "
                    "actually want to trace the gradient in order to compute higher order derivatives.",
                    stacklevel=3,
                )

    def _finish_computing(self):
        if not self._persistent:
            self._used = True
            variables = self._watched_variables
            self._release()
            self._watched_variables = variables  # TF still reports them after the release

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of ``target`` with respect to each of ``sources``.

        ``target`` and ``sources`` may be nested lists, tuples and dicts; a
        non-scalar target (or several targets) is summed. The result has the
        structure of ``sources``; a source the target does not depend on gets
        None (or zeros with ``unconnected_gradients='zero'``).

        Args:
            target: a Tensor, or a nested structure of Tensors, to differentiate.
            sources: a Tensor or Variable, or a nested structure of them.
            output_gradients: the upstream gradient of each target (the
                vector of a vector-Jacobian product); ones by default.
            unconnected_gradients: ``'none'`` (default) or ``'zero'``, or a
                ``tf.UnconnectedGradients`` value: what an unconnected source gets.

        Returns:
            The gradients, in the structure of ``sources``; for each source a
            Tensor (an ``IndexedSlices`` for a gather's source) or None.

        Raises:
            RuntimeError: a second call on a non-persistent tape (use
                ``GradientTape(persistent=True)``).
            TypeError: a source that is not a Tensor or Variable (a Python
                float, a string); TensorFlow 2.21 raises AttributeError there.
            tf.errors.InvalidArgumentError: ``output_gradients`` of another
                shape than its target (as TensorFlow 2.21).

        Example:
            >>> import tapeviz as tf
            >>> w = tf.Variable([1.0, 2.0])
            >>> with tf.GradientTape() as tape:
            ...     loss = tf.reduce_sum(w**2)
            >>> print(tape.gradient(loss, w))
            tf.Tensor([2. 4.], shape=(2,), dtype=float32)
        """
        unconnected = _unconnected(unconnected_gradients)
        targets = _flatten_targets(target)
        flat_sources = _flatten_sources(sources)
        seeds = _output_gradients(targets, output_gradients)
        self._start_computing("gradient")
        try:
            results = sweep(self, targets, flat_sources, seeds)
        finally:
            self._finish_computing()
        results = [_fill_unconnected(g, s, unconnected) for g, s in zip(results, flat_sources)]
        return nest.pack_sequence_as(sources, results)

    def jacobian(
        self,
        target,
        sources,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """d target[i...] / d source[j...] for each source: shape target.shape + source.shape.

        One reverse sweep per element of ``target``.

        Args:
            target: one Tensor.
            sources: a Tensor or Variable, or a nested structure of them.
            unconnected_gradients: ``'none'`` (default: None for an
                unconnected source) or ``'zero'``.
            parallel_iterations: accepted for TensorFlow compatibility; ignored.
            experimental_use_pfor: accepted for TensorFlow compatibility; ignored.

        Returns:
            A Jacobian per source, in the structure of ``sources``, each of
            shape ``target.shape + source.shape``.

        Raises:
            TypeError: several targets (stack them first).
            RuntimeError: a second call on a non-persistent tape.

        Example:
            >>> import tapeviz as tf
            >>> x = tf.Variable([1.0, 2.0])
            >>> with tf.GradientTape() as tape:
            ...     y = x * x
            >>> print(tape.jacobian(y, x))
            tf.Tensor(
            [[2. 0.]
             [0. 4.]], shape=(2, 2), dtype=float32)
        """
        unconnected = _unconnected(unconnected_gradients)
        target = _flatten_targets(target)
        if len(target) != 1:
            raise TypeError("jacobian takes one target tensor; stack several targets first (tf.stack).")
        target = target[0]
        flat_sources = _flatten_sources(sources)
        self._start_computing("jacobian")
        try:
            rows, last = [], target._value.size - 1
            for row, seed in enumerate(_unit_seeds(target._value.shape, target.dtype)):
                rows.append(sweep(self, [target], flat_sources, [seed], readers=row == last))
        finally:
            self._finish_computing()
        results = []
        for position, source in enumerate(flat_sources):
            column = [row[position] for row in rows]
            results.append(_assemble(column, target._value.shape, source, unconnected))
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(
        self,
        target,
        source,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """Per-example jacobians: result[b] = d target[b] / d source[b].

        ``target`` is [b, y...] and ``source`` [b, x...]; target[b] must depend
        only on source[b]. Result shape: [b, y..., x...]. An unconnected
        target gives zeros whatever ``unconnected_gradients`` says, as TF does.

        Args:
            target: a Tensor of rank >= 2, batch first.
            source: a Tensor or Variable of rank >= 1, the same batch first.
            unconnected_gradients: ``'none'`` (default) or ``'zero'``; checked,
                though both give zeros here.
            parallel_iterations: accepted for TensorFlow compatibility; ignored.
            experimental_use_pfor: accepted for TensorFlow compatibility; ignored.

        Returns:
            A Tensor of shape ``[b] + target.shape[1:] + source.shape[1:]``
            (zeros when ``target`` does not depend on ``source``).

        Raises:
            ValueError: ranks too small, or batch sizes that differ.

        Example:
            >>> import tapeviz as tf
            >>> x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            >>> with tf.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x * x
            >>> tape.batch_jacobian(y, x).shape
            TensorShape([2, 2, 2])
        """
        _unconnected(unconnected_gradients)  # checked, as TF does, though both give zeros
        target = _flatten_targets(target)[0]
        (source,) = _flatten_sources([source])
        if target.ndim < 2 or source.ndim < 1:
            raise ValueError(
                f"batch_jacobian needs a target of rank >= 2 and a source of rank >= 1, both with "
                f"the batch first; got shapes {tuple(target.shape)} and {tuple(source.shape)}. "
                "For a rank-1 target use jacobian(), or reshape the target to [batch, 1]."
            )
        batch = target._value.shape[0]
        if source._value.shape[0] != batch:
            raise ValueError(
                f"Need first dimension of target shape ({tuple(target.shape)}) and source shape "
                f"({tuple(source.shape)}) to match: both are the batch size."
            )
        self._start_computing("batch_jacobian")
        try:
            inner = target._value.shape[1:]
            rows, last = [], int(np.prod(inner)) - 1
            for row, seed in enumerate(_unit_seeds(inner, target.dtype)):
                full = zeros((batch,) + tuple(inner), target.dtype) + seed  # every example at once
                rows.append(sweep(self, [target], [source], [full], readers=row == last)[0])
        finally:
            self._finish_computing()
        if all(r is None for r in rows):  # zeros even for "none": TF stacks zero rows here
            return zeros((batch,) + tuple(inner) + tuple(source.shape[1:]), source.dtype)
        rows = [zeros_like(source) if r is None else r for r in rows]
        stacked = stack(rows, axis=1)  # [b, prod(inner), x...]
        result = reshape(stacked, (batch,) + tuple(inner) + tuple(source._value.shape[1:]))
        return result

    # -- read-only views, for tools built on the tape (the visualizer) ----------------------
    @property
    def persistent(self):
        return self._persistent

    @property
    def watch_accessed_variables(self):
        return self._watch_accessed_variables

    @property
    def recording(self):
        """True while ops run inside the tape's ``with`` block are being recorded."""
        return self._recording

    @property
    def recorded_ops(self):
        """The entries recorded so far, in order (empty once a non-persistent tape is used)."""
        return tuple(self._entries)

    @property
    def history(self):
        """What the tape recorded, for drawing it: the live entries while it holds
        them; after a release, sketches of them (structure without values)."""
        return tuple(self._entries) if self._entries else self._released.entries()

    @property
    def released(self):
        """True when the tape dropped its entries and keeps only their sketches."""
        return not self._entries and bool(self._released)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """In Jupyter a tape draws itself, with the renderer the package installed."""
        return display.mimebundle(self, include=include, exclude=exclude)

    def __repr__(self):
        mode = "persistent" if self._persistent else "non-persistent"
        status = "recording" if self._recording else "not recording"
        return f"<GradientTape {mode}, {status}, {len(self._entries)} recorded ops>"


def _remove(tapes, tape):
    for position in range(len(tapes) - 1, -1, -1):
        if tapes[position] is tape:
            del tapes[position]
            return position
    return None


class _Paused:
    """The ``stop_recording()`` context: the tape sits out, then rejoins in place.

    Where the tape is not on this thread's stack (inside a ``custom_gradient``
    function, which no tape records), there is nothing to pause.
    """

    def __init__(self, tape):
        self._tape = tape
        self._position = None

    def __enter__(self):
        tapes = _local.tapes
        self._position = next((i for i, t in enumerate(tapes) if t is self._tape), None)
        if self._position is not None:
            self._tape._pop()
        return self

    def __exit__(self, *exc_info):
        if self._position is not None:
            self._tape._join(min(self._position, len(_local.tapes)))
        return False


# -- helpers for gradient() ---------------------------------------------------------------


def _flatten_targets(target):
    if target is None:
        raise TypeError(
            "Argument `target` should be a Tensor, Variable or a nested structure of them to "
            "be differentiated, but received None. Did the function you traced return nothing?"
        )
    flat = nest.flatten(target)
    for item in flat:
        if not isinstance(item, (Tensor, Variable)):
            if type(item).__module__ == "numpy":
                why = (
                    "It went through NumPy (an np.* function or .numpy()), which tapes cannot "
                    "see: use the tf.math / tf.nn ops instead"
                )
            else:
                why = "A Python value has no recorded history: compute the target with tapeviz ops"
            raise TypeError(
                f"gradient() target must be a tapeviz Tensor or Variable, got {type(item).__name__} "
                f"({item!r}). {why} inside the tape's `with` block."
            )
    return flat


def _flatten_sources(sources):
    flat = nest.flatten(sources)
    for item in flat:
        if not isinstance(item, (Tensor, Variable)):
            raise TypeError(f"gradient() sources must be Tensors or Variables, got {type(item).__name__} ({item!r}).")
    return flat


def _output_gradients(targets, output_gradients):
    if output_gradients is None:
        return [None] * len(targets)
    seeds = nest.flatten(output_gradients)
    if len(seeds) != len(targets):
        raise ValueError(f"output_gradients has {len(seeds)} entries but there are {len(targets)} targets.")
    result = []
    for target, seed in zip(targets, seeds):
        if seed is None:
            result.append(None)
            continue
        seed = convert_to_tensor(seed, dtype=target.dtype)
        if seed._value.shape != target._value.shape:
            raise InvalidArgumentError(
                f"output_gradients entry has shape {tuple(seed.shape)}, but its target has shape {tuple(target.shape)}."
            )
        result.append(seed)
    return result


def _fill_unconnected(grad, source, unconnected):
    if grad is None and unconnected is UnconnectedGradients.ZERO:
        return zeros_like(source)
    return grad


def _unit_seeds(shape, dtype):
    """One-hot tensors of ``shape``, one per element, in row-major order."""
    count = 1
    for n in shape:
        count *= n
    for position in range(count):
        flat = B.xp.zeros(count, dtype=dtype.as_numpy_dtype)
        flat[position] = 1
        yield Tensor(flat.reshape(shape))


def _assemble(column, target_shape, source, unconnected):
    if not column:  # an empty target: an empty jacobian, as TF gives
        return zeros(tuple(target_shape) + tuple(source.shape), source.dtype)
    if all(g is None for g in column):
        if unconnected is UnconnectedGradients.ZERO:
            return zeros(tuple(target_shape) + tuple(source.shape), source.dtype)
        return None
    filled = [zeros_like(source) if g is None else g for g in column]
    return reshape(stack(filled, axis=0), tuple(target_shape) + tuple(source._value.shape))


# -- the sweep --------------------------------------------------------------------------------
#
# As autodidax's backward_pass: find the entries on a path from a source,
# seed the targets' cotangents, then walk those entries backwards; each
# reads the summed cotangent of its outputs, applies its rule, and adds what
# the rule produced to the cotangents of its inputs. Every step is announced
# to listeners from one place (_Announcer).


def sweep(tape, targets, sources, seeds, readers=True):
    """Reverse-mode sweep over ``tape``'s entries: d(sum of targets)/d(each source).

    Returns one gradient (or None when unconnected) per source. Gradient ops
    run as ordinary tapeviz ops, so tapes that are recording see them.
    ``readers=False``: listeners that read tapes do not hear it (a jacobian's
    rows but the last: they keep the newest sweep, and one row shows how each
    is computed); those that hear every step do.
    """
    announce = _Announcer(tape.serial, readers)
    announce.started(targets, sources, seeds)
    entries, needs, reachable = _entries_on_path(tape, sources)
    cotangents = _Cotangents(sources)
    cotangents.seed(targets, seeds, reachable)
    saved_depth = _local.depth
    try:
        deepest = _walk_back(entries, needs, cotangents, announce)
        # The sums at the sources belong to the sweep's own order.
        _local.depth = 1 + (saved_depth if deepest is None else deepest)
        results = cotangents.totals(sources)
    except BaseException:
        announce.flush()  # the steps that ran reach every listener: they show where the sweep failed
        raise
    finally:
        _local.depth = saved_depth
    announce.finished(results)
    return results


def _entries_on_path(tape, sources):
    """The entries on a path from a watched float source, the ``needs`` of each; and the ids reached.

    Two lists of one length (entry i wants gradients for the inputs ``needs[i]``
    marks), and a set of ids that the caller only reads. An unwatched source
    gets None, as in TF, even if an op used it. An input's producer comes
    before its user, so an entry's ``needs`` (which inputs want a gradient) is
    final when the walk reaches it.
    """
    reachable = {s._id for s in sources if tape.watches(s) and _is_float(s)}
    recorded = tape.needs_for(reachable)
    if recorded is not None:  # what the tape noted when it recorded each entry is the answer
        return recorded
    path, path_needs = [], []
    for entry in tape.recorded_ops:
        needs = tuple([t._id in reachable for t in entry.inputs])
        if True in needs:
            path.append(entry)
            path_needs.append(needs)
            for tensor in entry.outputs:
                if tensor._value.dtype.kind in "fc":
                    reachable.add(tensor._id)
    return path, path_needs, reachable


def _walk_back(entries, entry_needs, cotangents, announce):
    """Apply each entry's rule, last to first, moving cotangents from its outputs to its inputs.

    Returns the highest derivative order among ``entries`` (None when there are none).
    As autodidax's loop: read the cotangents of the entry's outputs, apply its
    rule, write what it produced to the cotangents of its inputs.
    """
    depth = deepest = None
    read, write, step = cotangents.read, cotangents.write, announce.step
    # Reversed list iterators start at the end the lists have now: should they grow meanwhile
    # (a persistent tape recording the sweep's own ops), only the entries there at the start are walked.
    for entry, needs in zip(reversed(entries), reversed(entry_needs)):
        if entry.depth != depth:  # ops the rule (and summing its upstream) runs are one order higher
            depth = entry.depth
            _local.depth = depth + 1
            if deepest is None or depth > deepest:
                deepest = depth
        primitive = entry.primitive
        if primitive is _READ and step is None:  # the one fast path: a read's cotangent is its variable's
            cotangents.pass_to_variable(entry)
            continue
        rule = primitive.rule
        if rule is None:  # not differentiable, or no rule in the table
            continue
        upstream = read(entry)
        if upstream is None:  # no gradient reached its outputs
            continue
        # One output, the commonest: called without building an argument list.
        produced = rule(entry, needs, upstream[0]) if len(upstream) == 1 else rule(entry, needs, *upstream)
        if type(produced) is not tuple:
            produced = tuple(produced) if isinstance(produced, list) else (produced,)
        if len(produced) != len(needs):
            raise ValueError(
                f"The gradient rule of {entry.primitive.name} returned {len(produced)} gradients "
                f"for {len(needs)} inputs."
            )
        write(entry.inputs, produced, needs)
        if step is not None:
            step(entry, needs, upstream, produced)
    return deepest


def entry_being_differentiated():
    """The tape entry whose gradient rule the running sweep is applying, or None outside a sweep.

    For error messages only (tf.debugging's numerics check names the op whose
    rule made a NaN): it walks the Python stack, so the sweep pays nothing for it.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _walk_back.__code__:
            return frame.f_locals.get("entry")
        frame = frame.f_back
    return None


class _Cotangents:
    """The gradients that arrived at each tensor, by id, summed when the tensor is read.

    ``pending[id]`` is the one gradient that arrived there, or a list when
    several did (fan-out). Gradients at a tensor are complete once the sweep
    reaches the entry that made it (the tape is in topological order), so
    reading sums and drops them, except at sources, whose totals are the answer.
    """

    __slots__ = ("pending", "source_ids")

    def __init__(self, sources):
        self.pending = {}  # id -> the gradient (or list of gradients) arriving at that tensor
        self.source_ids = {s._id for s in sources}

    def seed(self, targets, seeds, reachable):
        """Each target's seed (ones by default), where a path leads from a source to it."""
        for target, seed in zip(targets, seeds):
            if target._id in reachable or (target._id in self.source_ids and _is_float(target)):
                self.write((target,), (seed if seed is not None else ones_like(target),), _ONLY)

    def read(self, entry):
        """The summed gradient at each output of ``entry`` (a tuple), or None when none arrived.

        Outputs that got none receive zeros when others did, as TF feeds its
        multi-output rules. Gradients at a tensor are complete once the sweep
        reads them, so they are dropped, except at sources, whose totals are
        the answer.
        """
        outputs = entry.outputs
        pending = self.pending
        if len(outputs) == 1:  # the commonest case: one output, no list of them to build
            key = outputs[0]._id
            arrived = pending.pop(key, None)
            if arrived is None:
                return None
            if type(arrived) is list:
                arrived = _sum_grads(arrived)
            if key in self.source_ids:
                pending[key] = arrived
            return (arrived,)
        if not any(t._id in pending for t in outputs):
            return None
        upstream = []
        for tensor in outputs:
            key = tensor._id
            arrived = pending.pop(key, None)
            if type(arrived) is list:
                arrived = _sum_grads(arrived)
            if arrived is None:
                arrived = zeros_like(tensor)
            elif key in self.source_ids:
                pending[key] = arrived
            upstream.append(arrived)
        return tuple(upstream)

    def pass_to_variable(self, entry):
        """A variable's read (``ReadVariableOp``): the gradient at its output goes to the variable as it
        is, as its rule (the identity) would send it, without calling the rule or building tuples."""
        pending = self.pending
        key = entry.outputs[0]._id
        arrived = pending.pop(key, None)
        if arrived is None:
            return
        if type(arrived) is list:
            arrived = _sum_grads(arrived)
        if key in self.source_ids:
            pending[key] = arrived
        key = entry.inputs[0]._id
        arriving = pending.get(key)
        if arriving is None:
            pending[key] = arrived
        elif type(arriving) is list:
            arriving.append(arrived)
        else:
            pending[key] = [arriving, arrived]

    def write(self, inputs, produced, needs):
        """Add each produced gradient to its input's arrivals, where the input needs one."""
        pending = self.pending
        i = 0
        for grad in produced:  # a counter beats zip for the one or two inputs of most ops
            if grad is not None and needs[i]:
                key = inputs[i]._id
                arriving = pending.get(key)
                if arriving is None:
                    pending[key] = grad
                elif type(arriving) is list:
                    arriving.append(grad)
                else:
                    pending[key] = [arriving, grad]
            i += 1

    def totals(self, sources):
        """The summed gradient at each source, or None where none arrived."""
        results = []
        for source in sources:
            arrived = self.pending.get(source._id)
            if arrived is None:
                results.append(None)
                continue
            grads = arrived if type(arrived) is list else [arrived]
            # Only gathers' rows arrived: TF returns IndexedSlices. One dense gradient among them
            # is enough to tell otherwise, so the last (combine's first) is looked at first.
            sliced = combine(grads) if slices_of(grads[-1]) is not None else None
            summed = _sum_grads(grads) if sliced is None or len(grads) == 1 else None
            self.pending[source._id] = summed if summed is not None else sliced._tapeviz_tensor_()
            results.append(summed if sliced is None else sliced)
        return results


class _Announcer:
    """The one place the sweep tells listeners what it does; silent (and free) when nobody listens.

    Each step is one ``BackwardStep``, built once: listeners that hear each
    step get it as it happens; those that read tapes get the steps in batches
    (``BackwardSteps``, one event per batch).
    """

    __slots__ = ("serial", "audience", "step", "batch", "batch_bytes")

    def __init__(self, serial, readers=True):
        self.serial = serial
        self.audience = state.listeners if readers else state.step_listeners  # who hears the start and end
        # The per-entry hook is None without listeners, so the walk skips it with one test.
        if not self.audience:
            self.step = None
        elif not readers or not state.tape_readers:
            self.step = self._emit_step
        else:
            self.step = self._keep_step if not state.step_listeners else self._emit_and_keep_step
        self.batch = []
        self.batch_bytes = 0

    def started(self, targets, sources, seeds):
        if self.step is not None:
            events.emit(events.SweepStarted(self.serial, tuple(targets), tuple(sources), tuple(seeds)), self.audience)

    def _emit_step(self, entry, needs, upstream, produced):
        step = _backward_step(self.serial, entry, needs, upstream, produced, _next_entry_index())
        events.emit(step, state.step_listeners)
        return step

    def _keep_step(self, entry, needs, upstream, produced):
        self._keep(_backward_step(self.serial, entry, needs, upstream, produced, _next_entry_index()))

    def _emit_and_keep_step(self, entry, needs, upstream, produced):
        self._keep(self._emit_step(entry, needs, upstream, produced))  # one object for both audiences

    def _keep(self, step):
        """Add ``step`` to the batch for the listeners that read tapes; send the batch once it is full."""
        batch = self.batch
        batch.append(step)
        upstream = step.upstream
        if upstream and type(arrived := upstream[0]) is Tensor:
            self.batch_bytes += arrived._value.nbytes
        if self.batch_bytes > _BATCH_BYTES or len(batch) >= _STEPS_PER_BATCH:
            self.flush()

    def flush(self):
        """Send the steps kept so far to the listeners that read tapes."""
        if self.batch:
            steps, nbytes = tuple(self.batch), self.batch_bytes
            self.batch, self.batch_bytes = [], 0
            events.emit(events.BackwardSteps(self.serial, steps, nbytes), state.tape_readers)

    def finished(self, results):
        if self.step is not None:  # the visualizer shows gradients as tensors: an IndexedSlices as its dense form
            self.flush()
            shown = tuple([r._tapeviz_tensor_() if type(r) is IndexedSlices else r for r in results])
            events.emit(events.SweepFinished(self.serial, shown), self.audience)


_STEPS_PER_BATCH, _BATCH_BYTES = events.BackwardSteps.STEPS_PER_BATCH, events.BackwardSteps.BATCH_BYTES
_backward_step = events.backward_step


def _sum_grads(grads):
    """One tensor from the gradients that met at a tensor (fan-out), as an AddN op.

    Rules return gradients of their input's shape and dtype, so this skips
    ``add_n``'s argument checks, which cost more than the sum for long lists.
    """
    return grads[0] if len(grads) == 1 else execute(ADD_N, tuple(grads))


def _is_float(tensor):
    return tensor._value.dtype.kind in "fc"
