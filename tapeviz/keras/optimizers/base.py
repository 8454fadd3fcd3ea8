"""The optimizer base class: what every optimizer does around its own update rule.

``apply_gradients`` follows Keras 3 step by step (skip None gradients with
a warning, clip, decay weights, update each variable, count the step), and
the arithmetic runs in the variable's dtype in Keras's order, so a run here
and on TensorFlow gives the same float32 weights.

Updates are not differentiable (as in TF): they work on the variables'
arrays directly and ``assign`` the result, which the event bus reports.
"""

import threading
import warnings

import numpy as np

from tapeviz import backend as B
from tapeviz.core import events, nest, pending_restores, recording
from tapeviz.core.indexed_slices import IndexedSlices
from tapeviz.core.records import RecordsInit
from tapeviz.core.tape import GradientTape
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor, tensor_id, to_array, updating
from tapeviz.core.tracing import host_call
from tapeviz.distribute import replica_context as distributed
from tapeviz.keras.optimizers.repeated_rows import RepeatedRows, from_indexed_slices
from tapeviz.keras.optimizers.schedules import LearningRateSchedule
from tapeviz.keras.utils.naming import auto_name
from tapeviz.keras.variables import Variable as KerasVariable
from tapeviz.keras.variables import path_scope

_NO_GRADIENTS_HINT = (
    "The usual causes: the forward pass ran outside the `with tf.GradientTape() as tape:` block; "
    "the loss went through model.predict() (it returns a NumPy array, which breaks the tape: "
    "call model(x) instead) or through NumPy (.numpy(), np.* functions); "
    "or these variables are not used to compute the loss."
)


# Keras 3's names for the slots (tapeviz's get_slot keeps TF 2's short ones).
_KERAS_SLOT_NAMES = {"m": "momentum", "v": "velocity", "vhat": "velocity_hat"}


def _array(value, dtype):
    """A gradient (Tensor, Variable, array, number) as a backend array of ``dtype``; repeated rows stay rows."""
    if isinstance(value, RepeatedRows):
        return value.astype(dtype)
    if isinstance(value, (Tensor, Variable)):
        value = to_array(value)
    return B.xp.asarray(value, dtype=dtype)


def _sparse_or_dense(slices):
    """An IndexedSlices gradient: its rows when indices repeat (Keras 3 treats each occurrence), else dense."""
    rows = from_indexed_slices(slices)
    return convert_to_tensor(slices) if rows is None else rows


def _each_row(fn, gradient):
    """``fn`` on a gradient array, or on every occurrence's row of repeated rows."""
    return gradient.map(fn) if isinstance(gradient, RepeatedRows) else fn(gradient)


def _each_row_values(gradient):
    return gradient.values if isinstance(gradient, RepeatedRows) else gradient


def _dense(gradient):
    return gradient.dense() if isinstance(gradient, RepeatedRows) else gradient


def _slot_base(variable):
    """Keras 3 names a slot after its variable's path: 'dense/kernel' -> 'dense_kernel', 'x:0' -> 'x_0'."""
    return getattr(variable, "path", variable.name).replace("/", "_").replace(":", "_")


def _default_name(optimizer):
    return auto_name(type(optimizer).__name__)


class Optimizer(RecordsInit):
    """Base class of the optimizers, as ``tf.keras.optimizers.Optimizer``.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` (called with the
            step count) or a zero-argument callable.
        weight_decay: decoupled weight decay applied before each update
            (``v -= v * weight_decay * lr``), as Keras does.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to [-clipvalue, clipvalue].
        global_clipnorm: scale all gradients together so their joint L2 norm
            is at most this. Only one of the three clippings can be set.
        name: the optimizer's name.
        **kwargs: Keras options accepted for compatibility (``use_ema``,
            ``loss_scale_factor``...); any other name is refused.

    Keras 3's API: ``apply(grads, variables)`` (or ``apply_gradients(zip(grads,
    variables))``), ``build(variables)`` (done by the first ``apply``; an
    optimizer built on some variables refuses others, as in Keras 3),
    ``iterations`` (an int64 Variable), ``learning_rate`` (a Variable,
    settable with a float or a schedule), ``variables``.

    Subclasses list their per-variable state in ``slot_names`` (e.g. Adam's
    ``m`` and ``v``) and define ``update_step(gradient, variable, lr)``.
    Slots are ordinary non-trainable Variables: ``get_slot(var, "m")``, named
    as Keras 3 names them ('adam/dense_kernel_momentum').

    Raises:
        ValueError: an argument it does not know (``lr``: use ``learning_rate``), or more than one of the clipping arguments.
    """

    slot_names = ()  # the per-variable state this optimizer keeps
    _rows_behind = None  # during update_step: (dense gradient, its RepeatedRows) when its indices repeat

    def __init__(
        self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs
    ):
        if kwargs:
            hint = " Use `learning_rate` instead of `lr`." if "lr" in kwargs else ""
            raise ValueError(f"Argument(s) not recognized: {kwargs}.{hint}")
        if sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
                f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}"
            )
        self.name = name if name is not None else _default_name(self)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        with path_scope(self.name):
            self._iterations = KerasVariable(np.int64(0), trainable=False, dtype="int64", name="iteration")
        self._learning_rate = None
        self.learning_rate = learning_rate
        self._slots = {}  # variable id -> {slot name: Variable}
        self._tracked = []  # the variables with slots, in the order they were first seen
        self.built = False
        self._step_lock = threading.RLock()  # one step at a time: slots and iterations stay in step, as in TF

    # -- state --------------------------------------------------------------------------
    @property
    def iterations(self):
        """How many times ``apply_gradients`` has run (an int64 Variable)."""
        return self._iterations

    @property
    def learning_rate(self):
        """The learning rate: a Variable (settable), or a schedule's value at ``iterations``."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return lr(self._iterations)
        if callable(lr) and not isinstance(lr, Variable):
            return lr()
        return lr

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, LearningRateSchedule) or (callable(value) and not isinstance(value, (Variable, Tensor))):
            self._learning_rate = value
            return
        if self._learning_rate is not None and not isinstance(self._learning_rate, Variable):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` constructor "
                "argument, hence its learning rate is not settable. If you need the learning rate to be settable, "
                "you should instantiate the optimizer with a float `learning_rate` argument."
            )
        value = np.float32(to_array(value) if isinstance(value, (Tensor, Variable)) else value)
        if isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(value)
        else:
            with path_scope(self.name):
                self._learning_rate = KerasVariable(value, trainable=False, dtype="float32", name="learning_rate")

    lr = learning_rate  # TF 2's legacy alias

    def build(self, var_list):
        """Create the state (slots) of every variable in ``var_list``; the first ``apply`` does it otherwise.

        As in Keras 3, the optimizer then updates these variables only; a
        second ``build`` is ignored.

        Args:
            var_list: the variables it will update.
        """
        if self.built:
            return
        for variable in var_list:
            self._ensure_slots(variable)
        self.built = True

    def _ensure_slots(self, variable):
        if tensor_id(variable) in self._slots:
            return
        slots = {}
        base = _slot_base(variable)
        with path_scope(self.name):
            for slot in self.slot_names:
                initial = self.slot_initial_value(slot, variable)
                slots[slot] = KerasVariable(
                    initial,
                    trainable=False,
                    dtype=variable.dtype.name,
                    name=f"{base}_{_KERAS_SLOT_NAMES.get(slot, slot)}",
                )
        self._slots[tensor_id(variable)] = slots
        self._tracked.append(variable)
        pending_restores.notify(self)  # slots restored from a checkpoint before they existed

    def slot_initial_value(self, slot, variable):
        """A slot's initial value (zeros; Adagrad overrides it).

        Args:
            slot: the slot's name.
            variable: the variable it belongs to.

        Returns:
            A NumPy array of the variable's shape.
        """
        array = to_array(variable)
        return B.xp.zeros(array.shape, dtype=array.dtype)

    def get_slot_names(self):
        """The names of the per-variable state, e.g. ``['m', 'v']`` for Adam.

        Returns:
            A list of strings.
        """
        return list(self.slot_names)

    def get_slot(self, var, slot_name):
        """The slot Variable ``slot_name`` of ``var`` (e.g. Adam's first moment ``'m'``).

        Args:
            var: a variable the optimizer updates.
            slot_name: one of ``get_slot_names()``.

        Returns:
            The slot Variable.

        Raises:
            KeyError: a slot name it does not have, or a variable it has not updated.
        """
        if slot_name not in self.slot_names:
            raise KeyError(f"{type(self).__name__} has no slot {slot_name!r}; its slots are {list(self.slot_names)}.")
        slots = self._slots.get(tensor_id(var))
        if slots is None:
            raise KeyError(f"No slots for variable {var.name!r}: the optimizer has not updated it yet.")
        return slots[slot_name]

    @property
    def variables(self):
        """The optimizer's own state: iterations, learning rate, then every slot."""
        result = [self._iterations]
        if isinstance(self._learning_rate, Variable):
            result.append(self._learning_rate)
        for variable in self._tracked:
            result.extend(self._slots[tensor_id(variable)].values())
        return result

    # -- applying gradients --------------------------------------------------------------
    def apply_gradients(self, grads_and_vars, name=None):
        """Update each variable from its gradient: ``apply_gradients(zip(grads, vars))``.

        Pairs whose gradient is None are skipped with TF's warning; when every
        gradient is None this raises ValueError, with the usual causes.

        Args:
            grads_and_vars: (gradient, variable) pairs, e.g. ``zip(grads, model.trainable_variables)``.
            name: accepted for TensorFlow compatibility, unused.

        Returns:
            ``iterations``, the optimizer's step counter (a Variable), after the step.

        Raises:
            TypeError: an item that is not a (gradient, variable) pair, or a
                variable that is not a ``tf.Variable``.
            ValueError: every gradient None (the message lists the usual causes).

        Example:
            >>> import tapeviz as tf
            >>> opt = tf.keras.optimizers.SGD(learning_rate=0.1)
            >>> w = tf.Variable([1.0, 2.0])
            >>> with tf.GradientTape() as tape:
            ...     loss = tf.reduce_sum(w * w)
            >>> grads = tape.gradient(loss, [w])
            >>> int(opt.apply_gradients(zip(grads, [w])))
            1
            >>> w.numpy()  # w - 0.1 * 2w
            array([0.8, 1.6], dtype=float32)
        """
        pairs = list(grads_and_vars)
        for pair in pairs:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(
                    "apply_gradients takes (gradient, variable) pairs: "
                    "optimizer.apply_gradients(zip(gradients, variables))."
                )
        self.apply([g for g, _ in pairs], [v for _, v in pairs])
        return self._iterations

    @host_call(stateful=True)  # inside tf.function: the update runs on every call
    def apply(self, grads, trainable_variables=None):
        """Keras 3's form: ``optimizer.apply(grads, model.trainable_variables)``. Returns None.

        Without ``trainable_variables``, the variables the optimizer was built
        with (``build``) are updated, in that order.

        In ``strategy.run`` with several replicas, the replicas' gradients are summed and the step
        is applied once, as TF's.

        Args:
            grads: one gradient per variable (None skips it).
            trainable_variables: the variables; None updates those the optimizer was built with.

        Returns:
            None.

        Raises:
            ValueError: no variables given to an optimizer not built yet, or a number
                of gradients other than the number of variables.
            TypeError: a variable that is not a ``tf.Variable``.
        """
        grads = [_sparse_or_dense(g) if isinstance(g, IndexedSlices) else g for g in grads]
        if (replica := distributed.synchronizing_replica()) is not None:
            # In strategy.run: the replicas' gradients are summed and the step applied once, as TF's (merge_call).
            return replica.merge_call(
                lambda strategy, g, v: self.apply([distributed.sum_per_replica(x) for x in g], v),
                args=(list(grads), trainable_variables),
            )
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be built on a list of "
                    "variables. Call `optimizer.build(trainable_variables)` first. "
                )
            variables = list(self._tracked)
        else:
            variables = list(trainable_variables)
        if not variables and not grads:
            return None
        if len(grads) != len(variables):
            raise ValueError(
                f"Got {len(grads)} gradients for {len(variables)} variables: pass one gradient per variable."
            )
        for variable in variables:
            if not isinstance(variable, Variable):
                raise TypeError(
                    f"The optimizer can only update tf.Variable objects, got {type(variable).__name__}. "
                    "Pass model.trainable_variables (or your own tf.Variables)."
                )
        # One step at a time, under the step lock; listeners run outside it (events.held): the step is
        # announced between the checks and the update, and its assignments are heard once it is done.
        with events.held(self._step_lock):
            variables, gradients, arrays, lr, step = self._prepare_step(grads, variables)
        recording.announce_optimizer_step(self, variables, gradients, lr, step)
        with events.held(self._step_lock):
            self._apply_step(variables, gradients, arrays, lr)
        return None

    def _prepare_step(self, grads, variables):
        """Build or check the slots, clip the gradients.

        Returns ``(variables, dense gradients, gradients as clipped, learning rate, step number)``,
        the pairs without a gradient left out.
        """
        if not self.built:
            self.build(variables)
        else:
            for variable in variables:
                if tensor_id(variable) not in self._slots:
                    raise ValueError(
                        f"Unknown variable: {variable!r}. This optimizer can only be called for the variables it was "
                        "originally built with. When working with a new set of variables, you should recreate a new "
                        "optimizer instance."
                    )
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not kept:
            names = [v.name for v in variables]
            raise ValueError(f"No gradients provided for any variable: {names}. {_NO_GRADIENTS_HINT}")
        if len(kept) < len(variables):
            missing = [v.name for g, v in zip(grads, variables) if g is None]
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss. "
                "If using `model.compile()`, did you forget to provide a `loss` argument?",
                UserWarning,
                stacklevel=5,  # the caller of apply_gradients (apply_gradients -> apply -> _prepare_step)
            )
        variables = [v for _, v in kept]
        arrays = []
        for g, v in kept:
            value = to_array(v)
            g = _array(g, value.dtype)
            if g.shape != value.shape:
                raise ValueError(
                    f"Gradient of shape {tuple(g.shape)} does not match variable {v.name!r} of shape {tuple(v.shape)}."
                )
            arrays.append(g)
        # An inf or nan gradient gives nan weights silently, as in TF: no NumPy warning (or, under a
        # user's "error" filter, no exception halfway through a step with some slots updated).
        with B.xp.errstate(all="ignore"):
            arrays = self._clip_gradients(arrays)
        lr = self._current_lr_value()
        return variables, [_dense(g) for g in arrays], arrays, lr, int(to_array(self._iterations)) + 1

    def _apply_step(self, variables, dense, arrays, lr):
        """Update ``variables`` from their gradients: ``dense``, and ``arrays`` as clipped (RepeatedRows kept)."""
        with B.xp.errstate(all="ignore"):
            self._apply_weight_decay(variables, lr)
            for g, rows, v in zip(dense, arrays, variables):
                self._rows_behind = (g, rows) if isinstance(rows, RepeatedRows) else None
                try:
                    with updating(v):  # read, compute, assign: no other thread's assign* in between
                        self.update_step(g, v, to_array(v).dtype.type(lr))
                finally:
                    self._rows_behind = None
            for v in variables:  # add_weight(constraint=...): projected after the update, as Keras 3 does
                constraint = getattr(v, "constraint", None)
                if constraint is not None:
                    with updating(v):
                        v.assign(constraint(v))
            self._iterations.assign(to_array(self._iterations) + 1)

    def scale_loss(self, loss):
        """``loss`` unchanged: a ``LossScaleOptimizer`` scales it (``fit`` calls this inside its tape).

        Args:
            loss: a scalar tensor.

        Returns:
            ``loss``.
        """
        return loss

    def minimize(self, loss, var_list, tape=None):
        """Compute gradients of ``loss`` and apply them to ``var_list``.

        ``loss`` is a zero-argument callable (run under a new tape), or a
        Tensor computed under ``tape``. ``var_list`` may be a callable too.

        Args:
            loss: a zero-argument callable, or a Tensor computed under ``tape``.
            var_list: the variables (or a callable returning them).
            tape: the GradientTape ``loss`` was computed under.

        Returns:
            ``iterations``, as ``apply_gradients`` returns it.

        Raises:
            ValueError: a Tensor ``loss`` without ``tape``.
        """
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. Received: loss=<Tensor>, tape=None.")
        if callable(loss):
            with GradientTape() as tape:
                if callable(var_list):
                    var_list = var_list()
                tape.watch(var_list)
                loss = loss()
        elif callable(var_list):
            var_list = var_list()
        var_list = nest.flatten(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    # -- the pieces around the update ---------------------------------------------------------
    def _current_lr_value(self):
        lr = self.learning_rate
        if isinstance(lr, (Tensor, Variable)):
            lr = B.to_numpy(to_array(lr))
        return np.asarray(lr, dtype=np.float32)[()]

    def _clip_gradients(self, grads):
        """Keras 3's clipping. Repeated rows: the norms count every occurrence's row; clipnorm and clipvalue
        act row by row, while global_clipnorm's product is dense (the rows add up there)."""
        xp = B.xp
        if self.clipnorm and self.clipnorm > 0:
            return [_each_row(self._clip_by_norm, g) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            dtype = grads[0].dtype.type
            norm = xp.sqrt(sum(xp.sum(xp.square(_each_row_values(g))) for g in grads))
            # Keras's form: a NaN/inf norm makes the scale NaN instead of silently passing.
            scale = dtype(self.global_clipnorm) * xp.minimum(dtype(1.0) / norm, dtype(1.0 / self.global_clipnorm)) + (
                norm - norm
            )
            return [_dense(g) * scale.astype(g.dtype) for g in grads]  # TF's `IndexedSlices * x` is dense
        if self.clipvalue and self.clipvalue > 0:
            return [_each_row(lambda a: xp.clip(a, -self.clipvalue, self.clipvalue).astype(a.dtype), g) for g in grads]
        return grads

    def _has_repeated_rows(self, gradient):
        """Whether ``gradient`` (in update_step) came from an IndexedSlices whose indices repeat."""
        return self._rows_behind is not None and self._rows_behind[0] is gradient

    def _per_occurrence(self, fn, gradient):
        """``fn(gradient)`` as Keras 3 computes it for an elementwise op (square, abs) of the gradient.

        For an IndexedSlices gradient with repeated indices, Keras applies ``fn``
        to each occurrence's row and then adds the rows up per index (see
        repeated_rows.py); for any other gradient this is just ``fn(gradient)``.
        """
        if self._has_repeated_rows(gradient):
            return self._rows_behind[1].map(fn).dense()
        return fn(gradient)

    def _clip_by_norm(self, g):
        xp = B.xp
        l2sum = xp.sum(xp.square(g), keepdims=True)
        l2norm = xp.sqrt(l2sum)
        clip = g.dtype.type(self.clipnorm)
        return g * clip / xp.maximum(l2norm, clip)

    def _apply_weight_decay(self, variables, lr):
        if self.weight_decay is None:
            return
        for v in variables:
            if self._use_weight_decay(v):
                with updating(v):
                    value = to_array(v)
                    dtype = value.dtype.type
                    v.assign(value - value * dtype(self.weight_decay) * dtype(lr))

    def _use_weight_decay(self, variable):
        excluded = getattr(self, "_exclude_from_weight_decay", ())
        return not any(part in variable.name for part in excluded)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Skip weight decay for these variables (or variables whose names contain these strings).

        Args:
            var_list: variables to leave out.
            var_names: substrings of the names to leave out.
        """
        names = [v.name for v in (var_list or [])] + list(var_names or [])
        self._exclude_from_weight_decay = tuple(names)

    def update_step(self, gradient, variable, learning_rate):
        """Update ``variable`` from ``gradient`` (arrays of its dtype). Defined by each optimizer.

        Args:
            gradient: the variable's gradient.
            variable: the Variable to update.
            learning_rate: the learning rate of this step.
        """
        raise NotImplementedError

    def _slot(self, variable, name):
        return self._slots[tensor_id(variable)][name]

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        return {
            "name": self.name,
            "learning_rate": self._config_lr(),
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
        }

    def _config_lr(self):
        lr = self._learning_rate
        return float(lr.numpy()) if isinstance(lr, Variable) else lr

    def __repr__(self):
        return f"<{type(self).__name__} learning_rate={self._config_lr()!r} iterations={int(self._iterations.numpy())}>"
