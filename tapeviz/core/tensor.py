"""Tensor (immutable values) and Variable (mutable state), and conversion to tensors.

A Tensor wraps one backend array and never changes. A Variable holds an array
that ``assign`` replaces; every read of it produces a new Tensor, and that read
is what tapes record, exactly as in TensorFlow.
"""

import itertools
import sys
import threading
import types

import numpy as np

from tapeviz import backend
from tapeviz.core import dtypes, events, recording, replicas, state, string_array
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.quiet import run_quietly
from tapeviz.core.tensor_shape import TensorShape  # noqa: F401 - its home before it had its own module
from tapeviz.core.tensor_shape import from_dims as shape_from_dims
from tapeviz.core.variable_policies import VariableAggregation, VariableSynchronization

ids = itertools.count(1)  # Tensor and Variable ids: hot paths that build a Tensor inline take next(ids)
_next_id = ids.__next__
_new = object.__new__
_ndarray = np.ndarray
_local = state.local
_listeners = state.listeners


def _format_numpy(array):
    """The ``numpy=`` part of a repr, as TF prints it: a scalar as its Python value
    (float32 0.1 shows as 0.10000000149011612), an array on a new line when it spans several."""
    if not array.ndim:
        return repr(array.item())
    text = np.array_repr(array)
    return "\n" + text if "\n" in text else text


class _HoldsArray:
    """What Tensor and Variable share: reading values and metadata off ``_value``."""

    __slots__ = ()
    __array_priority__ = 100  # `ndarray * tensor` and `ndarray @ variable` come to us, not NumPy

    def __format__(self, spec):
        # As TF: the value's format. A 0-d array formats as its Python scalar,
        # so f"{loss:.3f}" works and "{}".format(t) prints 1.1051607131958008.
        if state.local.tracers:
            if not spec and type(self) is Tensor:
                return str(self)
            _traced_value_read(self, "a format() of its value")
        return format(np.asarray(backend.to_numpy(self._value)), spec)

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for rank 0), a copy.

        Returns:
            A NumPy array of the tensor's shape and dtype; for rank 0 a NumPy scalar.

        Example:
            >>> import tapeviz as tf
            >>> tf.constant([1.0, 2.0]).numpy()
            array([1., 2.], dtype=float32)
            >>> float(tf.constant(3.0).numpy())
            3.0
        """
        if state.local.tracers:
            _traced_value_read(self, ".numpy()")
        host = backend.to_numpy(self._value)
        return host[()] if host.ndim == 0 else host.copy()

    def __array__(self, dtype=None, copy=None):
        if state.local.tracers:
            _traced_value_read(self, "a NumPy conversion")
        host = np.asarray(backend.to_numpy(self._value))
        if copy or (dtype is not None and np.dtype(dtype) != host.dtype):
            return host.astype(dtype if dtype is not None else host.dtype)
        view = host.view()
        view.flags.writeable = False  # np.asarray(t) must not become a way to mutate t
        return view

    @property
    def dtype(self):
        return dtypes.of_array(self._value)

    @property
    def shape(self):
        if state.local.tracers:
            _tracing().shape_read(self)
        return shape_from_dims(self._value.shape)

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        return backend.device_of(self._value)

    def get_shape(self):
        """The shape, as ``.shape`` gives it (TF 1's spelling).

        Returns:
            A TensorShape.
        """
        return self.shape

    def ref(self):
        """A hashable reference, for using tensors and variables as dict keys or in sets.

        Returns:
            A hashable reference; ``.deref()`` gives the tensor back.
        """
        return _Reference(self)

    def __len__(self):
        if state.local.tracers:
            _tracing().shape_read(self)
        if not self._value.ndim:
            raise TypeError("Scalar tensor has no `len()`.")
        return self._value.shape[0]

    def __bool__(self):
        if state.local.tracers:
            _traced_value_read(self, "bool() (an `if` or `while` on a tensor)")
        return bool(self._value)

    def __float__(self):
        if state.local.tracers:
            _traced_value_read(self, "float()")
        return float(self._value)

    def __int__(self):
        if state.local.tracers:
            _traced_value_read(self, "int()")
        return int(self._value)

    def __index__(self):
        if state.local.tracers:
            _traced_value_read(self, "its use as a Python index")
        if self._value.dtype.kind not in "iu":
            raise TypeError(f"Only integer scalar tensors can be used as an index, not {self.dtype.name}.")
        return int(self._value)

    # -- operators: each runs a tapeviz op, so tapes record it and it is differentiable.
    # The ops are the primitive families' (bound by bind_ops as they load: they build on Tensor).
    def __add__(self, other):
        return _ops.add(self, other)

    def __radd__(self, other):
        return _ops.add(other, self)

    def __sub__(self, other):
        return _ops.subtract(self, other)

    def __rsub__(self, other):
        return _ops.subtract(other, self)

    def __mul__(self, other):
        return _ops.multiply(self, other)

    def __rmul__(self, other):
        return _ops.multiply(other, self)

    def __truediv__(self, other):
        return _ops.true_divide_operator(self, other)

    def __rtruediv__(self, other):
        return _ops.true_divide_operator(other, self)

    def __floordiv__(self, other):
        return _ops.floordiv(self, other)

    def __rfloordiv__(self, other):
        return _ops.floordiv(other, self)

    def __mod__(self, other):
        return _ops.floormod(self, other)

    def __rmod__(self, other):
        return _ops.floormod(other, self)

    def __pow__(self, other):
        return _ops.pow(self, other)

    def __rpow__(self, other):
        return _ops.pow(other, self)

    def __matmul__(self, other):
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    def __and__(self, other):
        return _ops.logical_and(self, other)

    def __rand__(self, other):
        return _ops.logical_and(other, self)

    def __or__(self, other):
        return _ops.logical_or(self, other)

    def __ror__(self, other):
        return _ops.logical_or(other, self)

    def __lt__(self, other):
        return _ops.less(self, other)

    def __le__(self, other):
        return _ops.less_equal(self, other)

    def __gt__(self, other):
        return _ops.greater(self, other)

    def __ge__(self, other):
        return _ops.greater_equal(self, other)

    def __eq__(self, other):
        return False if other is None else _ops.equal(self, other)

    def __ne__(self, other):
        return True if other is None else _ops.not_equal(self, other)

    def __neg__(self):
        return _ops.negative(self)

    def __abs__(self):
        return _ops.abs(self)

    def __invert__(self):
        return _ops.logical_not(self)

    def __getitem__(self, key):
        return _ops.slice_tensor(self, key)


class Tensor(_HoldsArray):
    """An immutable n-dimensional array, as ``tf.Tensor``.

    Operators (``+ - * / @ ** [...]`` and comparisons) run tapeviz ops, so
    they are recorded by active tapes and differentiable.

    Args:
        value: an array of the active backend (use ``tf.constant`` to make tensors).
    """

    __slots__ = ("_value", "_id", "__weakref__")

    def __init__(self, value):
        self._value = value
        self._id = _next_id()

    def __pos__(self):
        return self

    def __hash__(self):
        raise TypeError("Tensor is unhashable because == compares elementwise. Use tensor.ref() as the key instead.")

    def __iter__(self):
        if not self._value.ndim:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))

    def __setitem__(self, key, value):
        raise TypeError(
            "'Tensor' object does not support item assignment: tensors are immutable. "
            "Build a new tensor (tf.where, tf.concat) or use a tf.Variable and .assign()."
        )

    def __repr__(self):
        if state.local.tracers:
            symbolic = _tracing().symbolic_name(self)
            if symbolic is not None:
                return symbolic
        return (
            f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
            f"numpy={_format_numpy(backend.to_numpy(self._value))}>"
        )

    def __str__(self):
        if state.local.tracers:
            symbolic = _tracing().symbolic_name(self)
            if symbolic is not None:
                return symbolic
        host = backend.to_numpy(self._value)
        text = str(host[()] if host.ndim == 0 else host)  # a float32 scalar prints as TF does: 0.07700378
        if "\n" in text:  # TF starts a value that spans several lines on a line of its own
            text = "\n" + text
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"


class _Reference:
    """What ``Tensor.ref()`` and ``Variable.ref()`` return: hashes by identity."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return self._obj._id

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._obj is self._obj


class Variable(_HoldsArray):
    """Mutable state read by ops, as ``tf.Variable``.

    ``assign`` replaces the held array (never mutates it in place), so tensors
    read earlier, and saved on a tape, keep their values.

    Args:
        initial_value: the first value (anything ``tf.constant`` takes), or a
            callable that returns it.
        trainable: read inside a ``GradientTape``, it is watched automatically.
        name: shown in pictures, summaries and saved files.
        dtype: convert the initial value to this dtype.
        shape: the shape the initial value must have (checked).
        validate_shape, caching_device, synchronization, aggregation: TensorFlow's
            distribution settings, kept and reported (one device here).

    Raises:
        ValueError: ``shape`` that is not the initial value's.

    Example:
        >>> import tapeviz as tf
        >>> v = tf.Variable([1.0, 2.0], name="v")
        >>> v.assign_add([0.5, 0.5])
        <tf.Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1.5, 2.5], dtype=float32)>
    """

    def __new__(cls, *args, **kwargs):
        # Inside a tf.distribute scope, tf.Variable(...) makes the strategy's kind (a MirroredVariable).
        if cls is Variable and (args or kwargs) and (made := replicas.variable_class()) is not None:
            return made.__new__(made, *args, **kwargs)
        return super().__new__(cls)

    def __init__(
        self,
        initial_value,
        trainable=True,
        name=None,
        dtype=None,
        shape=None,
        validate_shape=True,
        caching_device=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
    ):
        # validate_shape, caching_device, synchronization, aggregation: TF's, kept and reported, one device here
        self._synchronization = VariableSynchronization(getattr(synchronization, "value", synchronization))
        self._aggregation = VariableAggregation(getattr(aggregation, "value", aggregation))
        if callable(initial_value):
            initial_value = initial_value()
        value = convert_to_tensor(initial_value, dtype=dtype)
        self._hold(value._value)
        self._lock = threading.RLock()  # assign* and optimizer steps are atomic across threads, as in TF
        self._id = _next_id()
        self._trainable = bool(trainable)
        self._name = _variable_name(name or "Variable")
        if state.local.tracers:
            _tracing().variable_created(self)
        if shape is not None and tuple(shape) != tuple(self._value.shape):
            raise ValueError(
                f"Variable initial value has shape {tuple(self._value.shape)}, but shape={tuple(shape)} was given."
            )

    # A lock cannot be copied or pickled: copies (copy, deepcopy, pickle) get a lock of their own.
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    # -- reading (recorded) --------------------------------------------------
    def read_value(self):
        """The current value as a new Tensor; active tapes record the read.

        Returns:
            A Tensor.
        """
        value = self._value
        tensor = _new(Tensor)  # Tensor(...), inlined: every use of a weight in an op reads it
        # Rank 0 as a NumPy scalar, as _to_array gives it (mixed scalar/0-d arithmetic is slow).
        tensor._value = value[()] if type(value) is _ndarray and not value.ndim else value
        tensor._id = next(ids)
        local = _local.__dict__  # one thread-local lookup (state.py)
        tapes = local["tapes"]
        if len(tapes) == 1 and not _listeners and not local["tracers"]:
            tapes[0].record_read(self, tensor, local)  # the read's one fast path (a training step)
        elif tapes or _listeners or local["tracers"]:
            recording.record_read(self, tensor)
        return tensor

    value = read_value

    # -- writing (not differentiable) ---------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value. Not differentiable: tapes do not record it.

        Args:
            value: the new value, of the variable's shape (converted to its dtype).
            use_locking, name: accepted for TensorFlow compatibility (every update holds the variable's lock).
            read_value: return the variable (True) or None.

        Returns:
            The variable itself when ``read_value``, else None.

        Raises:
            ValueError: a value of another shape.

        Example:
            >>> import tapeviz as tf
            >>> v = tf.Variable(1.0)
            >>> _ = v.assign(4.0)
            >>> print(v.numpy())
            4.0
        """
        new_tensor = convert_to_tensor(value, dtype=self.dtype)
        new = new_tensor._value
        if new.shape != self._value.shape:
            raise ValueError(
                f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable shape "
                f"{tuple(self._value.shape)}, and the assigned value shape {tuple(new.shape)} are incompatible."
            )
        if state.local.tracers and _traced_assign(self, "AssignVariableOp", new_tensor):
            return self._assigned(read_value)
        with events.held(self._lock):  # not between another thread's read and write of an update
            self._hold(new)
        return self._assigned(read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta`` to the value. Not differentiable.

        Args:
            delta: a value of the variable's shape (no broadcasting, as in TF).
            use_locking, name: accepted for TensorFlow compatibility.
            read_value: return the variable (True) or None.

        Returns:
            The variable itself when ``read_value``, else None.

        Raises:
            InvalidArgumentError: a ``delta`` of another shape.

        Example:
            >>> import tapeviz as tf
            >>> v = tf.Variable([1.0, 2.0])
            >>> _ = v.assign_add([10.0, 10.0])
            >>> v.numpy()
            array([11., 12.], dtype=float32)
        """
        return self._update(backend.xp.add, delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta`` from the value. Not differentiable.

        The update of gradient descent: ``w.assign_sub(learning_rate * grad)``.

        Args:
            delta: a value of the variable's shape (no broadcasting, as in TF).
            use_locking, name: accepted for TensorFlow compatibility.
            read_value: return the variable (True) or None.

        Returns:
            The variable itself when ``read_value``, else None.

        Raises:
            InvalidArgumentError: a ``delta`` of another shape.

        Example:
            >>> import tapeviz as tf
            >>> w = tf.Variable([1.0, 2.0])
            >>> _ = w.assign_sub(0.1 * tf.constant([10.0, 10.0]))
            >>> w.numpy()
            array([0., 1.], dtype=float32)
        """
        return self._update(backend.xp.subtract, delta, read_value)

    def _update(self, ufunc, delta, read_value):
        delta_tensor = convert_to_tensor(delta, dtype=self.dtype)
        delta = delta_tensor._value
        if delta.shape != self._value.shape:
            raise InvalidArgumentError(
                f"Cannot update variable with shape {list(self._value.shape)} using a Tensor with shape "
                f"{list(delta.shape)}, shapes must be equal (as in TF). Broadcast first, e.g. "
                f"tf.broadcast_to(delta, {list(self._value.shape)}).",
                "AssignUpdateVariableOp",
            )
        if state.local.tracers:
            op = "AssignAddVariableOp" if ufunc is backend.xp.add else "AssignSubVariableOp"
            if _traced_assign(self, op, delta_tensor):
                return self._assigned(read_value)
            with state.no_tracers():
                self._apply(ufunc, delta)
            return self._assigned(read_value)
        self._apply(ufunc, delta)
        return self._assigned(read_value)

    def _apply(self, ufunc, delta):
        """value = ufunc(value, delta) for an array ``delta`` of the value's shape and dtype.

        Optimizers call this directly with the arrays they computed; it does
        not announce the assignment (``_assigned`` does). Atomic: another
        thread's update waits (see ``updating``).
        """
        if state.local.tracers:
            _tracing().changed_behind_ops(self)
        with events.held(self._lock):  # (a tape collected meanwhile is announced after it)
            in_place = _sole_owner(self)
            try:
                if in_place:
                    # Nothing else holds this array, so no tensor can see it change:
                    # update in place and spare an allocation (training loops do this a lot).
                    ufunc(self._value, delta, out=self._value)
                else:
                    self._hold(ufunc(self._value, delta))  # a fresh array: others hold the old one
            except RuntimeWarning:  # the user made warnings errors: inf/nan arrive silently, as in TF
                if not in_place:  # (in place, NumPy reports only after writing the whole result)
                    self._hold(run_quietly(ufunc, (self._value, delta)))

    def __getitem__(self, key):
        """``v[key]``: the sliced values (recorded as a read and a slice); with basic indexing (ints,
        slices, ``...``, ``None``) the result also has ``assign``, which writes into ``v``, as TF's."""
        sliced = _ops.slice_tensor(self, key)
        basic = _basic_key(key)
        if basic is None:
            return sliced
        return VariableSlice(sliced, self, basic)

    def assign_slice(self, key, value, ufunc=None):
        """``v[key] = value`` (``ufunc``: ``v[key] = ufunc(v[key], value)``), for ``v[key].assign``.

        ``key`` is a basic index (ints, slices, ``...``, ``None``); ``value``
        broadcasts to the slice's shape, else TF's ``InvalidArgumentError``.
        Not differentiable (tapes do not record it), as every assignment.

        Args:
            key: the index (``v[key]``).
            value: the new value of that slice.
            ufunc: combine the old and new values (``np.add`` for ``assign_add``).

        Returns:
            The variable.

        Raises:
            tf.errors.InvalidArgumentError: a value that does not broadcast to the slice.
        """
        target = self._value[key].shape
        update = convert_to_tensor(value, dtype=self.dtype)
        try:
            fits = np.broadcast_shapes(update._value.shape, target) == tuple(target)
        except ValueError:
            fits = False
        if not fits:
            raise InvalidArgumentError(
                f"Cannot broadcast input shape {list(update._value.shape)} into final shape {list(target)} "
                "[Op:ResourceStridedSliceAssign]: the value must broadcast to the slice's shape.",
                "ResourceStridedSliceAssign",
            )
        if state.local.tracers:  # in a trace: ops, so a replay computes the new value again
            old = self.read_value()
            part = _ops.slice_tensor(old, key)
            new_part = _ops.broadcast_to(update if ufunc is None else ufunc(part, update), target)
            inside = np.zeros(self._value.shape, dtype=bool)
            inside[key] = True
            return self.assign(_ops.where(inside, _ops.slice_grad(new_part, key, self._value.shape), old))
        with self._lock:
            new = self._value.copy()  # tensors read earlier share the old array: they keep their values
            part = update._value if ufunc is None else ufunc(Tensor(new[key]), update)._value
            new[key] = part
            self._hold(new)
        return self._assigned(True)

    def _hold(self, array):
        # Always an array, never a NumPy scalar (what scalar ops return), so
        # that updates can write into it.
        self._value = backend.xp.asarray(array)

    def _assigned(self, read_value):
        """Announce the assignment (no tape records it) and return what TF returns."""
        recording.announce_assign(self)
        return self if read_value else None

    # -- metadata ------------------------------------------------------------
    @property
    def synchronization(self):
        """TF's ``tf.VariableSynchronization`` given at creation (one device here: it changes nothing)."""
        return self.__dict__.get("_synchronization", VariableSynchronization.AUTO)

    @property
    def aggregation(self):
        """TF's ``tf.VariableAggregation`` given at creation (one device here: it changes nothing)."""
        return self.__dict__.get("_aggregation", VariableAggregation.NONE)

    @property
    def name(self):
        return self._name

    @property
    def trainable(self):
        return self._trainable

    def __pos__(self):
        return self.read_value()

    def __hash__(self):
        raise TypeError("Variable is unhashable. Use variable.ref() as the key instead.")

    def __iter__(self):
        return iter(self.read_value())

    def __format__(self, format_spec):
        # "{}".format(v) prints the variable as TF does; a spec such as ".2f"
        # goes to the value (TF raises TypeError there).
        return str(self) if not format_spec else format(self.numpy(), format_spec)

    def __repr__(self):
        return (
            f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name}, "
            f"numpy={_format_numpy(backend.to_numpy(self._value))}>"
        )


# What tensors and variables tell the running tf.function traces (a value or shape read, a literal,
# an assignment): core.tracing's hooks, bound by it as it loads (it builds on this module). Called
# only while a tracer runs, and only core.tracing makes tracers, so they are bound by then.
_trace_hooks = types.SimpleNamespace()


def bind_trace_hooks(**hooks):
    """Route what Tensor and Variable tell a running trace to ``hooks`` (core.tracing's, by name)."""
    vars(_trace_hooks).update(hooks)


def _tracing():
    return _trace_hooks


def _traced_value_read(value, what):
    _tracing().value_read(value, what)


def host_value(value, what):
    """``to_array(value)`` for an op that takes ``value`` as a Python number or list (an axis, a count,
    a size): while tracing, a tensor computed from the inputs' values makes the function run eagerly
    from then on, since a trace would replay the number it read (tracing.host_read).

    Args:
        value: a Tensor or Variable (or what ``convert_to_tensor`` takes).
        what: how the op uses it, for the warning (``"top_k's k"``).

    Returns:
        Its backend array.
    """
    if isinstance(value, (Tensor, Variable)):
        if state.local.tracers:
            _tracing().host_read(value, what)
        return value._value
    return convert_to_tensor(value)._value


def _traced_assign(variable, op, tensor):
    """Record an assignment in the active traces; True when a dry trace must skip the update."""
    _tracing().assigned(variable, op, tensor)
    return any(t.dry for t in state.local.tracers)


def _value_references(variable):
    return sys.getrefcount(variable._value)


def _calibrate():
    """How many references ``_value_references`` counts for an array only a variable holds.

    Measured, not assumed: the count differs between Python versions (3.14
    borrows references that 3.11 counted).
    """
    holder = Variable.__new__(Variable)
    holder._value = np.zeros(1)
    return _value_references(holder)


def updating(variable):
    """A ``with`` block in which this thread alone changes ``variable``: for a read, a
    computation and an assignment that must not interleave with another thread's
    (an optimizer step). ``assign*`` take the same lock, and this thread may call them inside.
    Listeners hear the block's assignments once it ends and the lock is released (events.held).
    """
    return events.held(variable._lock)


def _sole_owner(variable):
    """True when only ``variable`` refers to its array and no other thread can be
    reading it: no tensor read from it, no view of it, no user reference.

    With other threads alive, a read could take the array between this check
    and the update, so updates then always allocate (tensors are immutable).
    """
    return (
        getattr(variable._value, "base", 0) is None
        and _value_references(variable) <= _SOLE_REFERENCES
        and threading.active_count() == 1
    )


def _variable_name(base):
    """TF 2's eager variable names: 'x:0', inside the active name scopes ('outer/x:0'); repeats allowed, as in TF."""
    scopes = state.local.scopes
    return f"{'/'.join(scopes)}/{base}:0" if scopes else f"{base}:0"


# -- conversion ----------------------------------------------------------------


def _basic_key(key):
    """``key`` as a tuple of ints, slices, ``...`` and ``None`` (scalar integer tensors read), or None for
    any other index (a list, a mask, an index tensor): TF's strided slices, the ones ``assign`` writes."""
    parts = key if isinstance(key, tuple) else (key,)
    out = []
    for part in parts:
        if isinstance(part, _HoldsArray) and part.dtype.is_integer and part.shape == ():
            part = int(part)
        if (
            part is None
            or part is Ellipsis
            or isinstance(part, (int, np.integer, slice))
            and not isinstance(part, bool)
        ):
            if isinstance(part, slice) and any(isinstance(b, _HoldsArray) for b in (part.start, part.stop, part.step)):
                part = slice(*(None if b is None else int(b) for b in (part.start, part.stop, part.step)))
            out.append(part)
        else:
            return None
    return tuple(out)


class VariableSlice(Tensor):
    """``variable[key]``: a Tensor of the sliced values that can write back, as TF's ``v[1, 2].assign(9)``.

    ``assign`` is TF's; ``assign_add`` and ``assign_sub`` are tapeviz's
    additions (TF 2.21's slices have only ``assign``). Each returns the
    variable, updated; none is differentiable, as every assignment.

    Example:
        >>> import tapeviz as tf
        >>> v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        >>> print(v[1, 0].assign(9.0).numpy())
        [[1. 2.]
         [9. 4.]]
    """

    __slots__ = ("_variable", "_key")

    def __init__(self, sliced, variable, key):
        self._value, self._id = sliced._value, sliced._id  # the same tensor as the recorded slice
        self._variable, self._key = variable, key

    def assign(self, value, name=None):
        """Write ``value`` (broadcast to the slice's shape) into the variable at this slice; returns the variable."""
        return self._variable.assign_slice(self._key, value)

    def assign_add(self, delta, name=None):
        """Add ``delta`` to the variable at this slice (a tapeviz addition); returns the variable."""
        return self._variable.assign_slice(self._key, delta, _ops.add)

    def assign_sub(self, delta, name=None):
        """Subtract ``delta`` from the variable at this slice (a tapeviz addition); returns the variable."""
        return self._variable.assign_slice(self._key, delta, _ops.subtract)


def _python_dtype(array):
    """TensorFlow's defaults for Python values: float32 and int32."""
    if array.dtype == np.float64:
        return np.float32
    if array.dtype == np.int64 and (array.size == 0 or (np.abs(array).max() < 2**31)):
        return np.int32
    return array.dtype


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``value`` as a Tensor: Tensors pass through, Variables are read (recorded).

    Python floats become float32 and ints int32 (TF's defaults); NumPy arrays
    keep their dtype unless ``dtype`` is given.

    Args:
        value: a Tensor, Variable, number, nested list, or NumPy array.
        dtype: the dtype the result must have; a Tensor of another dtype is refused.
        dtype_hint: the dtype to prefer for a Python value when ``dtype`` is None.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor (``value`` itself when it already is one of that dtype).

    Raises:
        ValueError: a Tensor of another dtype than ``dtype`` (use ``tf.cast``), or None.

    Example:
        >>> import tapeviz as tf
        >>> import numpy as np
        >>> tf.convert_to_tensor([1, 2])
        <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
        >>> tf.convert_to_tensor(np.array([1.0]))
        <tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.])>
    """
    if type(value) is Tensor:
        if dtype is not None and value._value.dtype != dtypes.as_dtype(dtype).as_numpy_dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for a tensor "
                f"with dtype {value.dtype.name}. Use tf.cast(x, {dtypes.as_dtype(dtype)!r}) to convert it."
            )
        return value
    if isinstance(value, Variable):
        tensor = value.read_value()
        return tensor if dtype is None else convert_to_tensor(tensor, dtype)
    if isinstance(value, Tensor):  # subclasses
        return value
    converter = getattr(value, "_tapeviz_tensor_", None)
    if converter is not None:
        return convert_to_tensor(converter(), dtype)
    if value is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type to a Tensor.")
    if type(value) in _SEQUENCES and _packs(value):  # TF's auto-packing: a recorded Pack per level
        return _ops.auto_pack(value if dtype is None else _cast_tensors(value, dtypes.as_dtype(dtype)))
    tensor = Tensor(_to_array(value, dtype, dtype_hint))
    if state.local.tracers:  # a literal of the traced code, not a value computed from an input's size
        _tracing().literal_made(tensor)
    return tensor


_SEQUENCES = (list, tuple)
_PLAIN = frozenset({float, int, bool, complex, str, bytes})  # what most lists given to convert_to_tensor hold


def first_tensor(values):
    """The first Tensor or Variable in a (nested) list or tuple ``values``, or None."""
    if _PLAIN.issuperset(map(type, values)):  # numbers only, told apart in C: no loop in Python
        return None
    for item in values:
        if isinstance(item, (Tensor, Variable)):
            return item
        if type(item) in _SEQUENCES:
            found = first_tensor(item)
            if found is not None:
                return found
    return None


def _packs(values):
    """True when ``values`` holds a tensor of numbers: TF packs such a list with a Pack per level, so that
    ``tf.reduce_sum([loss_a, loss_b])`` differentiates (strings nested in lists are packed by value,
    string_array.from_python)."""
    found = first_tensor(values)
    return found is not None and found._value.dtype != np.object_


def _cast_tensors(values, dtype):
    """``values`` with each tensor of another dtype cast to ``dtype`` (recorded): what TF packs when a
    list holding tensors is converted to a given dtype."""
    return [
        _cast_tensors(v, dtype)
        if type(v) in _SEQUENCES
        else _ops.cast(v, dtype)
        if isinstance(v, (Tensor, Variable)) and v.dtype != dtype
        else v
        for v in values
    ]


def _to_array(value, dtype, dtype_hint=None):
    array = _new_array(value, dtype, dtype_hint)
    # Rank 0 is held as a NumPy scalar, the form NumPy's own ops return: an op
    # mixing a scalar with a 0-d array takes NumPy's slow path (~10x).
    return array[()] if type(array) is np.ndarray and array.ndim == 0 else array


def _python_array(value):
    """``np.asarray`` of a Python value, with TF's error for a ragged nested list (not NumPy's)."""
    try:
        return np.asarray(value)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None


# The dtypes TF converts a Python bool to (not int8, int16, uint8/16/32 or complex64: TypeError there).
_TAKES_PYTHON_BOOLS = frozenset(
    np.dtype(code).type for code in ("bool", "int32", "int64", "uint64", "float16", "float32", "float64", "complex128")
)


def _check_python_kind(value, target, dtype):
    """TF's refusals when a Python value is converted to ``dtype``: a bool to most integer
    dtypes, a number to bool."""
    kind = _python_array(value).dtype.kind
    if (kind == "b" and target not in _TAKES_PYTHON_BOOLS) or (kind in "iufc" and target is np.bool_):
        name = dtypes.as_dtype(dtype).name
        raise TypeError(
            f"Cannot convert {value!r} to EagerTensor of dtype {name}. Convert it yourself first, "
            f"e.g. tf.cast(tf.constant({value!r}), tf.{name})."
        )


def _new_array(value, dtype, dtype_hint):
    xp = backend.xp
    from_numpy = isinstance(value, np.generic) or backend.is_array(value)
    if dtype is not None:
        target = dtypes.as_dtype(dtype).as_numpy_dtype
        if target is np.object_:  # tf.string
            return string_array.from_python(value)
        kind = type(value)
        if target is not np.bool_ and ((kind is float and not issubclass(target, np.integer)) or kind is int):
            return xp.array(value, dtype=target)  # a Python number, the commonest literal (`x * 2.0`): no checks due
        if not from_numpy:
            _check_python_kind(value, target, dtype)
        if not from_numpy and issubclass(target, np.integer) and _python_array(value).dtype.kind == "f":
            # TF never turns a Python float into an integer tensor, not even 2.0:
            # int32 tensor + 2.0 is an error, not a silent int32 result.
            name = dtypes.as_dtype(dtype).name
            raise TypeError(
                f"Cannot convert {value!r} to EagerTensor of dtype {name}. Write the number as an "
                f"int, or make the tensor a float first: tf.cast(x, tf.float32)."
            )
        if not from_numpy and _python_array(value).dtype.kind in "OUS":
            raise TypeError(f"Cannot convert {value!r} of type {type(value).__name__} to a tensor.")
        return xp.array(value, dtype=target)  # a copy: the caller may mutate theirs
    raw = value if from_numpy else _python_array(value)
    if raw.dtype.kind in "OUSV":
        if string_array.holds_strings(value):  # a tf.string tensor
            return string_array.from_python(value, mixed_error=ValueError)
        raise TypeError(
            f"Cannot convert {value!r} of type {type(value).__name__} to a tensor: "
            "tapeviz tensors hold numbers and booleans."
        )
    if not from_numpy:
        target = (
            np.dtype(dtypes.as_dtype(dtype_hint).as_numpy_dtype)
            if dtype_hint is not None and raw.dtype.kind in "iufc"
            else _python_dtype(raw)
        )
        raw = raw.astype(target, copy=False)
    if raw.dtype.type not in dtypes._BY_NUMPY:
        raise TypeError(
            f"tapeviz has no dtype for NumPy's {raw.dtype}; cast it to float32/float64/complex64/complex128/"
            "int32/int64/bool first."
        )
    return xp.array(raw) if from_numpy else xp.asarray(raw)  # copy arrays the caller owns


def constant(value, dtype=None, shape=None, name=None):
    """A Tensor holding ``value`` (Python numbers become float32 / int32).

    Args:
        value: a number, a nested list, a NumPy array, or a Tensor.
        dtype: the dtype to convert to (``tf.float64``...); inferred by default.
        shape: reshape to this shape, or fill it when ``value`` is one number.
        name: accepted for TensorFlow compatibility.

    Returns:
        An immutable Tensor.

    Raises:
        TypeError: a value of another shape than ``shape`` can fill.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.constant([[1, 2], [3, 4]], dtype=tf.float32))
        tf.Tensor(
        [[1. 2.]
         [3. 4.]], shape=(2, 2), dtype=float32)
        >>> print(tf.constant(0.0, shape=(3,)))
        tf.Tensor([0. 0. 0.], shape=(3,), dtype=float32)
    """
    if isinstance(value, (Tensor, Variable)):
        value = value.numpy()
    tensor = Tensor(_to_array(value, dtype))
    if shape is not None:
        shape = tuple(shape)
        array = tensor._value
        if array.size == 1:
            array = backend.xp.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape: value has {array.size} elements, shape={shape} needs {int(np.prod(shape))}."
            )
        if array.dtype.kind == "O":  # filled strings: keep them a StringArray
            array = array.view(string_array.StringArray)
        tensor = Tensor(array)
    if state.local.tracers:
        _tracing().literal_made(tensor)
    return tensor


def is_tensor(value):
    """True for a Tensor or a Variable (TF's ``tf.is_tensor``).

    Args:
        value: anything.

    Returns:
        A bool.
    """
    return isinstance(value, (Tensor, Variable))


def tensor_id(value):
    """A number naming a Tensor or Variable for the life of the process (ids
    are never reused); sketches of tensors (``core.history``) carry the same."""
    if isinstance(value, (Tensor, Variable)):
        return value._id
    return value.tensor_id


def to_array(value):
    """The backend array behind a Tensor or Variable (not a copy: never mutate it).

    The public way for code outside the core (tf.nn, tf.random, keras) to
    reach an array; anything else is converted as ``convert_to_tensor`` would.
    """
    if isinstance(value, (Tensor, Variable)):
        return value._value
    return convert_to_tensor(value)._value


def any_larger(tensors, nbytes):
    """True when a Tensor or Variable among ``tensors`` (None allowed) holds more than ``nbytes``.

    For listeners that weigh every op (the visualizer's recorder), so kept lean.
    """
    for tensor in tensors:
        if tensor is not None and tensor._value.nbytes > nbytes:
            return True
    return False


def total_nbytes(tensors, over=-1, extra=0):
    """Bytes of the arrays behind ``tensors`` (None skipped) that hold more than ``over``
    bytes, plus ``extra`` for each of them. One call per event for listeners that weigh
    every op (the visualizer's recorder); not a copy, nor a reduction of any array."""
    total = 0
    for tensor in tensors:
        if tensor is None:
            continue
        size = (tensor._value if type(tensor) is Tensor else to_array(tensor)).nbytes
        if size > over:
            total += size + extra
    return total


_SOLE_REFERENCES = _calibrate()


# -- the ops behind the operators ------------------------------------------------
# tensor.py imports no op: the primitive families build on Tensor, and each binds its ops
# here as it loads (primitives/math, primitives/linalg, primitives/array), before any
# operator can run (importing tapeviz.core loads them all).
_ops = types.SimpleNamespace()

# A Tensor's forward arithmetic operators are the ops themselves, not methods
# that call them: one Python call fewer on every `y * x + c` (the ops take
# (x, y) in the operator's order). Variables keep the methods (they read first).
_FORWARD_OPERATORS = {
    "add": "__add__",
    "subtract": "__sub__",
    "multiply": "__mul__",
    "true_divide_operator": "__truediv__",
}


def bind_ops(**ops):
    """Give Tensor and Variable the ops their operators and slices run, by name (``bind_ops(add=add)``).

    Called by the primitive families when they load: ``+`` runs ``add``,
    ``@`` ``matmul``, ``x[key]`` ``slice_tensor``; a variable's slice
    assignment also uses ``broadcast_to``, ``slice_grad`` and ``where``.
    """
    vars(_ops).update(ops)
    for name, method in _FORWARD_OPERATORS.items():
        if name in ops:
            setattr(Tensor, method, ops[name])
