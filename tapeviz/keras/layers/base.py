"""``Layer``: weights, building on first call, and tracking of nested layers.

A layer creates its weights in ``build(input_shape)`` the first time it is
called, as in Keras. Assigning a layer, a list of layers or a Variable to an
attribute tracks it, so ``trainable_variables`` of a model finds every weight
of every nested layer, in creation order.

Each call runs inside ``tf.name_scope(layer.name)``, so the visualizer can
fold a layer's ops into one box.
"""

import functools
import inspect
import threading

import numpy as np

from tapeviz import backend as B
from tapeviz.core import nest, pending_restores, state
from tapeviz.core.primitives.math import cast
from tapeviz.core.records import RecordsInit
from tapeviz.core.scopes import name_scope
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor, tensor_id, to_array
from tapeviz.keras import config, constraints, initializers, masking, regularizers
from tapeviz.keras import random as keras_random
from tapeviz.keras.layers.layer_config import constructor_config, revive_config
from tapeviz.keras.utils.naming import auto_name
from tapeviz.keras.variables import Variable as KerasVariable
from tapeviz.keras.variables import autocast_scope_enter, autocast_scope_exit, path_entries, path_scope

__all__ = ["Layer", "InputSpec", "KerasTensor"]

_ADD_WEIGHT_KERAS3 = ("shape", "initializer", "dtype", "trainable", "autocast", "regularizer", "constraint")
_ADD_WEIGHT_TF2 = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "constraint")
_warned_untracked = set()
_FLOAT32 = np.dtype(np.float32)


class _CallContext(threading.local):
    """The ``training`` flag of the outermost call, passed down to nested layers as Keras does."""

    def __init__(self):
        self.training = None


_context = _CallContext()


class InputSpec:
    """What a layer accepts: ``ndim``, ``min_ndim``, and fixed sizes of some ``axes``.

    Args:
        ndim: the exact rank inputs must have.
        min_ndim: the smallest rank allowed.
        axes: ``{axis: size}`` the inputs must have.
    """

    def __init__(self, ndim=None, min_ndim=None, axes=None):
        self.ndim, self.min_ndim, self.axes = ndim, min_ndim, axes or {}

    def check(self, layer, shape):
        """Raise unless inputs of ``shape`` fit this spec.

        Args:
            layer: the layer (named in the message).
            shape: the inputs' shape.

        Raises:
            ValueError: a rank other than ``ndim``, below ``min_ndim``, or a size other than ``axes`` asks.
        """
        prefix = f'Input 0 of layer "{layer.name}" is incompatible with the layer: '
        full = tuple(shape)
        if self.ndim is not None and len(full) != self.ndim:
            raise ValueError(f"{prefix}expected ndim={self.ndim}, found ndim={len(full)}. Full shape received: {full}")
        if self.min_ndim is not None and len(full) < self.min_ndim:
            raise ValueError(
                f"{prefix}expected min_ndim={self.min_ndim}, found ndim={len(full)}. Full shape received: {full}"
            )
        for axis, size in self.axes.items():
            if full[axis] != size:
                raise ValueError(
                    f"{prefix}expected axis {axis} of input shape to have value {size}, "
                    f"but received input with shape {full}"
                )


class KerasTensor:
    """A symbolic input (from ``tf.keras.Input``) or a layer's output on one: a shape, no values.

    Calling layers on KerasTensors records a graph; ``Model(inputs, outputs)``
    replays it on real tensors (the functional API).
    """

    def __init__(self, shape, dtype="float32", layer=None, parents=(), name=None):
        self.shape = tuple(shape)  # with None for the batch
        self.dtype = dtype
        self.layer = layer  # the layer that produced it (None for an Input)
        self.parents = tuple(parents)
        self.name = name

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, name={self.name}>"


_ACCEPTS = {}


def _accepts(fn, argument):
    """Whether ``fn`` takes ``argument`` (cached per function: inspect is slow)."""
    key = (getattr(fn, "__func__", fn), argument)
    if key not in _ACCEPTS:
        try:
            _ACCEPTS[key] = argument in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            _ACCEPTS[key] = False
    return _ACCEPTS[key]


def _autocast(value, dtype=_FLOAT32):
    """Inputs as Tensors; floating ones in the layer's float ``dtype`` (a NumPy dtype), as Keras casts them."""
    if isinstance(value, Tensor):
        if to_array(value).dtype != dtype and value.dtype.is_floating:
            return cast(value, dtype.name)
        return value
    if isinstance(value, Variable):
        value = value.read_value()
        return _autocast(value, dtype)
    array = value if B.is_array(value) else np.asarray(value)  # a device array stays on the device
    if array.dtype.kind == "f":
        return convert_to_tensor(array.astype(dtype, copy=False))
    return convert_to_tensor(value)


def _float_dtype(name):
    """The NumPy dtype floating inputs are cast to for a layer of dtype ``name`` (float32 for non-floats)."""
    dtype = np.dtype(name) if name in ("float16", "float64") else _FLOAT32
    return dtype


class Layer(RecordsInit):
    """Base class of layers and models, as ``tf.keras.layers.Layer``.

    Subclass it and define ``build(input_shape)`` (create weights with
    ``add_weight``) and ``call(inputs)``. ``trainable=False`` freezes every
    weight of the layer (and its nested layers).

    Args:
        trainable: whether its weights are trained.
        name: the layer's name (made from the class name when None).
        dtype: its variables' dtype, or a ``DTypePolicy`` (``"mixed_float16"``).
        input_shape: one example's shape, to build the layer at once (Keras 2's argument).
        input_dim: the same as ``input_shape=(input_dim,)``.
        activity_regularizer: a penalty on the layer's outputs, added to ``losses``.
        **kwargs: nothing else is accepted (as Keras 3).

    Raises:
        ValueError: a keyword argument Keras does not know.

    Example:
        >>> import tapeviz as tf
        >>> class Scale(tf.keras.layers.Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        ...     def call(self, inputs):
        ...         return inputs * self.w
        >>> layer = Scale()
        >>> print(layer(tf.constant([[1.0, 2.0]])))
        tf.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)
        >>> [v.shape for v in layer.trainable_weights]
        [TensorShape([2])]
    """

    # The weights that take `<name>_regularizer=` and `<name>_constraint=` arguments (Dense: kernel, bias);
    # add_weight(name=<name>) then applies them.
    _weight_names = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_marks_built", False):
            cls.build = _marking_built(build)

    def __init__(
        self,
        trainable=True,
        name=None,
        dtype=None,
        input_shape=None,
        input_dim=None,
        activity_regularizer=None,
        **kwargs,
    ):
        if "batch_input_shape" in kwargs:
            input_shape = tuple(kwargs.pop("batch_input_shape"))[1:]
        for weight in type(self)._weight_names:  # kernel_regularizer=, bias_constraint=... of the subclass's weights
            setattr(self, f"{weight}_regularizer", regularizers.get(kwargs.pop(f"{weight}_regularizer", None)))
            setattr(self, f"{weight}_constraint", constraints.get(kwargs.pop(f"{weight}_constraint", None)))
        unknown = set(kwargs) - {"autocast", "dynamic", "input_length"}
        if unknown:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")  # as Keras 3
        object.__setattr__(self, "_layers", [])
        object.__setattr__(self, "_own_weights", [])
        self.name = name if name is not None else auto_name(type(self).__name__)  # "" stays "", as Keras
        self._trainable = bool(trainable)
        self.built = False
        self.input_spec = None
        self._set_dtype_policy(dtype)
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        self._input_shape_arg = tuple(input_shape) if input_shape is not None else None
        self._output_shape = None
        self._losses = []
        self.activity_regularizer = regularizers.get(activity_regularizer)

    # -- tracking -------------------------------------------------------------------------
    def __setattr__(self, name, value):
        if not name.startswith("__") and "_layers" in self.__dict__:
            self._track(value, name)
        object.__setattr__(self, name, value)
        pending_restores.notify(self)  # a checkpoint restored before this weight existed fills it now

    def _track(self, value, attribute=None):
        if isinstance(value, Layer):
            if value is not self and all(value is not layer for layer in self._layers):
                self._layers.append(value)
        elif isinstance(value, KerasVariable):
            if all(value is not w for w in self._own_weights):
                self._own_weights.append(value)
        elif isinstance(value, Variable):
            _warn_untracked(self, attribute)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, (Layer, Variable, list, tuple, dict)):
                    self._track(item)
        elif isinstance(value, dict):
            for item in value.values():
                if isinstance(item, (Layer, Variable, list, tuple, dict)):
                    self._track(item)

    # -- weights --------------------------------------------------------------------------
    def add_weight(self, *args, **kwargs):
        """Create a weight: a ``keras.Variable`` filled by ``initializer``, tracked by this layer.

        Keras 3's signature, ``add_weight(shape=None, initializer=None,
        dtype=None, trainable=True, regularizer=None, constraint=None,
        name=None)``; tf.keras 2's, with ``name`` first, is accepted too
        (``add_weight("kernel", shape, ...)``). The default initializer is
        'glorot_uniform' for float weights, 'zeros' otherwise. The weight's
        ``name`` is ``name`` (default 'variable') and its ``path``
        '<layers>/<name>'.

        Args:
            *args: ``shape, initializer, ...`` by position (or ``name`` first, tf.keras 2's order).
            **kwargs: ``shape``, ``initializer``, ``dtype``, ``trainable``, ``regularizer``, ``constraint``, ``name``.

        Returns:
            The ``keras.Variable``.

        Raises:
            TypeError: too many positional arguments, or one given twice.
        """
        order = _ADD_WEIGHT_TF2 if args and isinstance(args[0], str) else _ADD_WEIGHT_KERAS3
        if len(args) > len(order):
            raise TypeError(f"add_weight() takes at most {len(order)} positional arguments ({len(args)} given).")
        for key, value in zip(order, args):
            if key in kwargs:
                raise TypeError(f"add_weight() got multiple values for argument '{key}'")
            kwargs[key] = value
        return self._add_weight(**kwargs)

    def _add_weight(
        self,
        shape=None,
        initializer=None,
        dtype=None,
        trainable=True,
        autocast=True,
        regularizer=None,
        constraint=None,
        aggregation="none",
        name=None,
        **ignored,
    ):
        shape = () if shape is None else tuple(int(n) for n in shape)
        dtype = getattr(dtype, "name", dtype) or self._dtype
        if initializer is None:
            initializer = "glorot_uniform" if np.dtype(dtype).kind == "f" else "zeros"
        init = initializers.get(initializer)
        with own_path(self):
            variable = KerasVariable(
                init(shape, dtype=dtype),
                trainable=trainable if trainable is not None else True,
                dtype=dtype,
                name=name or "variable",
            )
        self._own_weights.append(variable)
        if name in type(self)._weight_names:
            regularizer = regularizer or getattr(self, f"{name}_regularizer", None)
            constraint = constraint or getattr(self, f"{name}_constraint", None)
        variable.regularizer = regularizers.get(regularizer)
        variable.constraint = constraints.get(constraint)
        return variable

    def _set_dtype_policy(self, dtype):
        policy = config.policy_of(dtype)
        self.__dict__["_dtype_policy"] = policy
        self.__dict__["_dtype"] = policy.variable_dtype  # weights are made in it
        self.__dict__["_compute_dtype"] = policy.compute_dtype  # inputs are cast to it

    @property
    def dtype(self):
        """The dtype of the layer's weights, as a string (``"float32"``; the global policy's by default)."""
        return self._dtype

    @property
    def variable_dtype(self):
        """The dtype weights are kept in (float32 under ``mixed_float16``)."""
        return self._dtype

    @property
    def compute_dtype(self):
        """The dtype the layer computes in (float16 under ``mixed_float16``, else its weights')."""
        return self._compute_dtype

    @property
    def dtype_policy(self):
        """The layer's ``DTypePolicy`` (the global one, ``keras.mixed_precision.global_policy()``, by default)."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._set_dtype_policy(value)

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Freeze (False) or unfreeze the layer and every nested layer."""
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def weights(self):
        """Every weight: this layer's own (trainable first), then nested layers', without repeats."""
        own = [w for w in self._own_weights if w.trainable] + [w for w in self._own_weights if not w.trainable]
        return _unique(own + [w for layer in self._layers for w in layer.weights])

    @property
    def trainable_weights(self):
        found = []
        self._collect_weights(True, found)
        return _unique(found)

    @property
    def non_trainable_weights(self):
        found = []
        self._collect_weights(False, found)
        return _unique(found)

    def _collect_weights(self, trainable, found):
        """Append to ``found`` the weights that are (or are not) trained: own first, then nested layers'.

        A frozen layer's weights are all non-trainable, nested ones included.
        """
        if not self._trainable:
            if not trainable:
                found.extend(self.weights)
            return
        found.extend([w for w in self._own_weights if w.trainable == trainable])
        for layer in self._layers:
            layer._collect_weights(trainable, found)

    @property
    def variables(self):
        return self.weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def submodules(self):
        return [m for layer in self._layers for m in [layer] + layer.submodules]

    def get_weights(self):
        """The weights' values as a list of NumPy arrays (in ``weights`` order).

        Returns:
            A list of NumPy arrays.
        """
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights):
        """Set the weights from NumPy arrays, in ``weights`` order, shapes checked.

        Args:
            weights: NumPy arrays, one per weight, in ``weights`` order.

        Raises:
            ValueError: another number of arrays, or an array of another shape.
        """
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(
                f"Layer {self.name} weight shape mismatch: you called `set_weights(weights)` on layer "
                f"'{self.name}' with a weight list of length {len(weights)}, but the layer was expecting "
                f"{len(mine)} weights."
            )
        for variable, value in zip(mine, weights):
            value = np.asarray(value)
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(variable.shape)} is not compatible with provided "
                    f"weight shape {tuple(value.shape)}."
                )
            variable.assign(value.astype(variable.dtype.as_numpy_dtype))

    def count_params(self):
        """The number of scalars in all weights.

        Returns:
            An int.

        Raises:
            ValueError: a layer not built yet.
        """
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                "Call the layer on data (or `build(input_shape)`) first."
            )
        return int(sum(int(np.prod(w.shape)) for w in self.weights))

    @property
    def losses(self):
        """The ``add_loss`` losses of the last call (this layer's, then nested ones'), then the penalties of the
        trainable weights that have a regularizer, in Keras 3's order."""
        added, seen, stack = [], set(), [self]
        while stack:  # depth first, each layer once (a shared layer is nested twice)
            layer = stack.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            added.extend(layer._losses)
            stack[:0] = layer._layers
        penalties = [w.regularizer(w) for w in self.trainable_weights if getattr(w, "regularizer", None) is not None]
        return added + penalties

    def add_loss(self, loss):
        """Add a loss term (e.g. a regularization penalty) that ``fit`` adds to the main loss.

        Args:
            loss: a scalar tensor (or a function of no arguments returning one).
        """
        if any(isinstance(t, KerasTensor) for t in nest.flatten(loss)):
            raise NotImplementedError(
                "Keras 3 does not support add_loss() on symbolic tensors of a functional model. "
                "Add the loss inside a layer's call(): self.add_loss(...), and use that layer in the model."
            )
        self._losses.append(loss)

    # -- calling ------------------------------------------------------------------------------
    def build(self, input_shape):
        """Create the weights for inputs of ``input_shape``. Called once, by the first call.

        Args:
            input_shape: the shape of the first inputs, a tuple (batch None).
        """
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The computation. Subclasses define it.

        Args:
            inputs: the input tensor(s).
            training: (for a layer whose ``call`` takes it) True inside ``fit``:
                layers such as Dropout and BatchNormalization behave differently then.
            mask: (likewise) which time steps to skip, from an Embedding or Masking layer.
            states, initial_state: (recurrent layers and cells) the state to start from.
            *args: what a layer's own ``call`` adds, by position.
            **kwargs: likewise, by keyword.

        Returns:
            The output tensor(s).
        """
        return inputs

    def _as_float(self, inputs):
        """Int or bool inputs in the layer's dtype, for layers that do arithmetic with float weights.

        Keras's Dense and BatchNormalization take them (its ops promote
        int x float to float); TF's own ops would refuse the mix.
        """
        if inputs.dtype.is_floating:
            return inputs
        return cast(inputs, self._compute_dtype)

    def __call__(self, inputs, *args, **kwargs):
        dtype = _FLOAT32 if self._compute_dtype == "float32" else _float_dtype(self._compute_dtype)
        if type(inputs) is Tensor:  # the common case: no structure to walk
            inputs = first = _autocast(inputs, dtype)
        else:
            if _is_symbolic(inputs):
                return self._call_symbolic(inputs, *args, **kwargs)
            inputs = nest.map_structure(lambda value: _autocast(value, dtype), inputs)
            first = nest.flatten(inputs)[0]
        paths = path_entries()  # nested layers built inside this call live under its name
        paths.append((self.name, self))
        try:
            return self._call_built(inputs, first, args, kwargs)
        finally:
            paths.pop()

    def _call_built(self, inputs, first, args, kwargs):
        if not self.built:
            self._build_from(inputs)
        if self.input_spec is not None:
            self.input_spec.check(self, first.shape)
        training = kwargs.pop("training", None)
        outer = _context.training
        if training is None:
            training = outer
        if _accepts(self.call, "training"):
            kwargs["training"] = training
        input_mask = masking.mask_of(first) if "mask" not in kwargs else kwargs["mask"]
        if input_mask is not None and "mask" not in kwargs and _accepts(self.call, "mask"):
            kwargs["mask"] = input_mask
        if self._losses:
            self._losses.clear()  # losses are those of the last call
        _context.training = training
        # name_scope(self.name), without building a context manager per call.
        scopes = state.local.scopes
        scopes.append(self.name)
        # mixed: float weights are read in the compute dtype; any other layer reads them as they are,
        # also inside a mixed model (a float32 Dense at the end of a mixed_float16 model)
        outer_autocast = autocast_scope_enter(self._compute_dtype if self._compute_dtype != self._dtype else None)
        try:
            outputs = self.call(inputs, *args, **kwargs)
        except (ValueError, TypeError, NotImplementedError, RuntimeError) as exc:
            raise _with_call_info(exc, self, inputs, args, kwargs).with_traceback(exc.__traceback__) from None
        finally:
            scopes.pop()
            _context.training = outer
            autocast_scope_exit(outer_autocast)
        if self.activity_regularizer is not None:
            self._add_activity_losses(outputs)
        output_mask = self.compute_mask(inputs, input_mask)
        if output_mask is not None or input_mask is not None:
            for output in nest.flatten(outputs)[:1]:
                masking.attach(output, output_mask)
        last = outputs if type(outputs) is Tensor else next(iter(nest.flatten(outputs)), None)
        if hasattr(last, "dtype"):
            self.__dict__["_last_output_dtype"] = last.dtype.name
        if hasattr(last, "shape"):
            # Set directly: attribute tracking has nothing to find in a shape.
            self.__dict__["_output_shape"] = (None,) + tuple(last.shape)[1:]
        return outputs

    def _add_activity_losses(self, outputs):
        """The activity penalty of each output, divided by the batch size (Keras 3's rule)."""
        for output in nest.flatten(outputs):
            if isinstance(output, Tensor):
                with name_scope(self.name):
                    loss = self.activity_regularizer(output)
                    if output.ndim > 0:
                        loss = loss / float(output.shape[0]) if output.shape[0] else loss * 0.0
                self.add_loss(loss)

    def _build_from(self, inputs):
        shapes = nest.map_structure(lambda t: tuple(t.shape), inputs)
        if self.input_spec is not None and not isinstance(shapes, (list, dict)):
            self.input_spec.check(self, shapes)
        self.__dict__["_build_input_shape"] = batchless(shapes)  # what a saved model is rebuilt with
        with name_scope(self.name), own_path(self), keras_random.seed_generators_held(False):
            self.build(shapes)
        self.built = True

    def _call_symbolic(self, inputs, *args, **kwargs):
        """Functional API: run on a zero batch of one to learn the output shape, return a KerasTensor."""
        flat = nest.flatten(inputs)
        kwargs.setdefault("training", False)
        out_shape, _ = probe_output_shape(lambda probe: self(probe, *args, **kwargs), inputs)
        output = KerasTensor(out_shape, self._last_output_dtype, layer=(self, args, kwargs), parents=flat)
        self.__dict__.setdefault("_first_symbolic_call", (inputs, output))  # what `input` / `output` give
        return output

    @property
    def input(self):
        """The Keras input(s) of this layer's first functional-API call, as Keras 3's ``layer.input``."""
        return self._first_symbolic("input")[0]

    @property
    def output(self):
        """This layer's output from its first functional-API call (``Model(inputs, layer.output)`` cuts a model)."""
        return self._first_symbolic("output")[1]

    def _first_symbolic(self, what):
        first = self.__dict__.get("_first_symbolic_call")
        if first is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        return first

    supports_masking = False  # True: an input mask passes through to the output unchanged

    def compute_mask(self, inputs, mask=None):
        """The output's mask: the input's if the layer ``supports_masking``, else None.

        Args:
            inputs: the layer's inputs.
            mask: the inputs' mask, or None.

        Returns:
            The output's mask, or None.
        """
        return mask if self.supports_masking else None

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (the batch may be None), by running a batch of one.

        Args:
            input_shape: a shape tuple (the batch may be None).

        Returns:
            The output's shape, a tuple.
        """
        shape, _ = probe_output_shape(lambda probe: self(probe, training=False), KerasTensor(tuple(input_shape)))
        return (input_shape[0],) + shape[1:]

    @property
    def output_shape(self):
        if self._output_shape is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined output shape.")
        return self._output_shape

    def get_config(self):
        """The layer's name, trainable, dtype and constructor arguments (objects as Keras's config dicts).

        Returns:
            A dict, JSON-serializable, that ``from_config`` takes back.
        """
        dtype = self._dtype
        if self._dtype_policy.name != dtype:  # a mixed policy, saved as Keras 3 saves it
            dtype = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": self._dtype_policy.name}}
        return {**constructor_config(self), "name": self.name, "trainable": self.trainable, "dtype": dtype}

    @classmethod
    def from_config(cls, config):
        """The layer again from ``get_config()``'s dict: ``cls(**config)``, objects revived (tapeviz's classes only).

        Args:
            config: a dict from ``get_config``.

        Returns:
            A new layer.
        """
        return cls(**revive_config(config))

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


# Sizes a dimension left unknown (None) takes in a probe: two runs tell which output sizes follow it.
_PROBE_SIZES = (32, 45)


def probe_output_shape(run, inputs):
    """``(output shape with None where unknown, output of the last run)``: ``run`` on zero batches of one.

    An input dimension that is None beyond the batch (``input_shape=(None, None, 3)``) is tried at two
    sizes; an output dimension that changes between them is unknown (None), as Keras infers symbolically.
    """
    specs = nest.flatten(inputs)
    unknown = any(n is None for k in specs for n in tuple(k.shape)[1:])
    shapes = []
    for size in _PROBE_SIZES if unknown else _PROBE_SIZES[:1]:
        probe = nest.map_structure(
            lambda k, size=size: np.zeros(
                (1,) + tuple(size if n is None else n for n in tuple(k.shape)[1:]), dtype=getattr(k, "dtype", "float32")
            ),
            inputs,
        )
        with state.no_tapes(), keras_random.seed_generators_held():  # a symbolic call in Keras: no state moves
            out = run(probe)
        shapes.append(tuple(next(iter(nest.flatten(out))).shape))
    merged = tuple(a if a == b else None for a, b in zip(shapes[0], shapes[-1]))
    return (None,) + merged[1:], out


def _describe_argument(value):
    if isinstance(value, Tensor):
        return f"tf.Tensor(shape={tuple(value.shape)}, dtype={value.dtype.name})"
    if isinstance(value, np.ndarray):
        return f"np.ndarray(shape={value.shape}, dtype={value.dtype})"
    return repr(value)


def _with_call_info(exc, layer, inputs, args, kwargs):
    """Keras 3's message for an error inside ``call``: the layer's name first, the arguments it got last."""
    if getattr(exc, "_keras_call_info_injected", False) or len(exc.args) != 1 or not isinstance(exc.args[0], str):
        return exc
    name = type(layer).__name__
    try:
        bound = inspect.signature(layer.call).bind(inputs, *args, **kwargs)
        received = list(bound.arguments.items())
    except (TypeError, ValueError):
        received = [("inputs", inputs)]
    lines = "\n".join(f"  \u2022 {key}={_describe_argument(value)}" for key, value in received)
    message = (
        f"Exception encountered when calling {name}.call().\n\n{exc.args[0]}\n\n"
        f"Arguments received by {name}.call():\n{lines}"
    )
    try:
        wrapped = type(exc)(message)
    except Exception:  # noqa: BLE001  (an exception type that takes other arguments keeps its own message)
        return exc
    wrapped._keras_call_info_injected = True
    for attribute in ("op",):  # tf.errors keep the op that failed
        if hasattr(exc, attribute):
            setattr(wrapped, attribute, getattr(exc, attribute))
    return wrapped


def _marking_built(build):
    """Wrap a layer's ``build``, as Keras does: its weights live under the layer's path, and it is then built.

    So ``layer.build(shape)`` called by hand, then ``layer(x)``, builds once.
    """

    @functools.wraps(build)
    def wrapped(self, *args, **kwargs):
        with own_path(self):
            result = build(self, *args, **kwargs)
        self.built = True
        return result

    wrapped._marks_built = True
    return wrapped


def batchless(shapes):
    """A shape (or structure of shapes) with the batch size replaced by None."""
    if isinstance(shapes, tuple) and all(isinstance(n, (int, type(None))) for n in shapes):
        return (None,) + shapes[1:] if shapes else shapes
    if isinstance(shapes, (list, tuple)):
        return type(shapes)(batchless(s) for s in shapes)
    if isinstance(shapes, dict):
        return {k: batchless(v) for k, v in shapes.items()}
    return shapes


def own_path(layer):
    """The weights a layer creates live under its name (once, however deep its build goes)."""
    return path_scope(layer.name, owner=layer)


def _warn_untracked(layer, attribute):
    """Keras 3 tracks keras.Variable only: a raw tf.Variable attribute is not a weight. Say so once per class."""
    key = (type(layer), attribute)
    if key in _warned_untracked:
        return
    _warned_untracked.add(key)
    import warnings

    warnings.warn(
        f"{type(layer).__name__}.{attribute or '<attribute>'} is a tf.Variable: Keras 3 (TF 2.16+) does not track "
        "tf.Variable attributes of a Layer or Model, so it is not in `trainable_variables`, `weights` or saved "
        "weights (TF 2.21 gives [] too). Create it with `self.add_weight(...)` or `keras.Variable(...)` to make it a "
        "weight, or keep it and differentiate with respect to it directly.",
        UserWarning,
        stacklevel=4,
    )


def _is_symbolic(inputs):
    return any(isinstance(t, KerasTensor) for t in nest.flatten(inputs))


def _unique(variables):
    seen, result = set(), []
    for v in variables:
        key = tensor_id(v)
        if key not in seen:
            seen.add(key)
            result.append(v)
    return result
