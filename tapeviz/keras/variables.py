"""``keras.Variable``: the Variable that layers and optimizers create, named as Keras 3 names it.

A layer's weight has a short ``name`` ('kernel') and a ``path`` that says
where it lives ('sequential/dense/kernel'): the names of the layers being
built when it was created, then its name. It prints as Keras 3 prints it::

    <Variable path=dense/kernel, shape=(3, 2), dtype=float32, value=[[...]]>

It is a tapeviz ``tf.Variable`` underneath (tapes record its reads,
optimizers update it), unlike Keras 3 where ``isinstance(v, tf.Variable)`` is
False: a difference that only an ``isinstance`` check can see.
"""

import threading

import numpy as np

from tapeviz.core import tensor as _tensor
from tapeviz.keras.utils.naming import unique_name

__all__ = ["Variable", "autocast_scope_enter", "autocast_scope_exit", "current_path", "path_entries", "path_scope"]


class _PathStack(threading.local):
    def __init__(self):
        self.entries = []  # (name, owner) of the layers (and optimizers) being built or called, outermost first
        self.autocast = None  # inside a mixed-precision layer's call: the dtype float weights are read in


_stack = _PathStack()

# keras.initializers.get, handed over when keras.initializers loads: initializers draw through
# keras.random, whose SeedGenerator keeps its state in a Variable, so this module cannot import them.
_initializers_get = None


def use_initializers(get):
    """Resolve a Variable's initializer given by name ('zeros', 'glorot_uniform') with ``get``."""
    global _initializers_get
    _initializers_get = get


def _initializer(identifier):
    if _initializers_get is None:
        raise RuntimeError("keras.initializers has not loaded: import tapeviz.keras first.")
    return _initializers_get(identifier)


class path_scope:  # noqa: N801 - a context manager, named like name_scope
    """Prefix ``name`` to the path of the Variables created inside the block.

    With an ``owner`` (a layer) already innermost, nothing is added: a
    layer's ``add_weight`` inside its own ``build`` does not repeat its name.
    """

    def __init__(self, name, owner=None):
        self.name, self.owner = name, owner
        self._pushed = False

    def __enter__(self):
        entries = _stack.entries
        if self.owner is None or not entries or entries[-1][1] is not self.owner:
            entries.append((self.name, self.owner))
            self._pushed = True
        return self

    def __exit__(self, *exc_info):
        if self._pushed:
            _stack.entries.pop()
            self._pushed = False
        return False


def path_entries():
    """This thread's (name, owner) path list, outermost first, to push and pop directly where
    ``path_scope`` would cost too much (every layer call)."""
    return _stack.entries


def autocast_scope_enter(dtype):
    """From now on (this thread), float Variables with ``autocast`` read as ``dtype`` (a cast, so
    gradients reach the float32 weight), as Keras 3 inside a mixed-precision layer's ``call``.
    Returns what to hand to ``autocast_scope_exit``."""
    outer, _stack.autocast = _stack.autocast, dtype
    return outer


def autocast_scope_exit(outer):
    """End the scope ``autocast_scope_enter`` began, restoring ``outer`` (its return value)."""
    _stack.autocast = outer


def current_path():
    return "/".join(name for name, _ in _stack.entries if name)  # a layer named "" adds no level, as Keras


class Variable(_tensor.Variable):
    """A Keras Variable: ``keras.Variable(initializer, shape=None, dtype=None, trainable=True, name=None)``.

    ``initializer`` is a value (array, number, tensor) or an initializer
    (a name such as 'zeros' or a callable ``(shape, dtype)``), in which case
    ``shape`` is required. ``name`` defaults to 'variable' (then
    'variable_1'...), as in Keras.

    Args:
        initializer: the initial value, or an initializer (a name or callable) to call with ``shape``.
        shape: the shape (needed with an initializer).
        dtype: the dtype of its variables and computations (floatx when None).
        trainable: watched by tapes and trained by optimizers.
        autocast: read in the compute dtype inside a mixed-precision layer.
        aggregation: TensorFlow's distribution setting, kept.
        synchronization: TensorFlow's distribution setting, kept.
        name: a name without ``/``.
        **kwargs: accepted for compatibility.

    Raises:
        ValueError: a ``name`` that is not a string or contains ``/``.

    Raises:
        ValueError: a ``name`` that is not a string or contains ``/``.
    """

    def __init__(
        self,
        initializer,
        shape=None,
        dtype=None,
        trainable=True,
        autocast=True,
        aggregation="none",
        synchronization="auto",
        name=None,
        **kwargs,
    ):
        if name is None:
            name = unique_name("variable")
        if not isinstance(name, str) or "/" in name:
            raise ValueError(
                f"Argument `name` must be a string and cannot contain character `/`. Received: name={name}"
            )
        value = self._initial_value(initializer, shape, dtype)
        super().__init__(value, trainable=trainable, name=name, dtype=dtype)
        prefix = current_path()
        self._path = f"{prefix}/{name}" if prefix else name
        self._short_name = name
        self.autocast = autocast
        self.regularizer = None  # set by Layer.add_weight; its penalty is in the layer's losses
        self.constraint = None  # set by Layer.add_weight; the optimizer applies it after each update

    @staticmethod
    def _initial_value(initializer, shape, dtype):
        if isinstance(initializer, str) or (callable(initializer) and not _tensor.is_tensor(initializer)):
            if shape is None:
                raise ValueError(
                    "When creating a Variable from an initializer, the `shape` argument should be specified. "
                    f"Received: initializer={initializer} and shape={shape}"
                )
            return _initializer(initializer)(tuple(shape), dtype=dtype or "float32")
        if dtype is None and not _tensor.is_tensor(initializer):
            array = np.asarray(initializer)
            if array.dtype.kind == "f":  # Keras's default float type
                return array.astype(np.float32)
        return initializer

    def read_value(self):
        """The current value as a Tensor (a recorded read); inside a mixed-precision layer's call a
        float weight reads in the layer's compute dtype (float16), as Keras 3 autocasts it.

        Returns:
            A Tensor.
        """
        tensor = super().read_value()
        target = _stack.autocast
        if target is not None and self.autocast and tensor.dtype.is_floating and tensor.dtype.name != target:
            from tapeviz.core.primitives.math import cast

            return cast(tensor, target)
        return tensor

    @property
    def name(self):
        """The short name given at creation ('kernel'), as Keras 3."""
        return self._short_name

    @property
    def path(self):
        """Where the variable lives: the enclosing layers' names, then its name ('dense/kernel')."""
        return self._path

    @property
    def value(self):
        """The current value as a Tensor (a read, recorded by tapes), as Keras 3's ``variable.value``."""
        return self.read_value()

    def __repr__(self):
        host = self.numpy()
        return f"<Variable path={self._path}, shape={tuple(self.shape)}, dtype={self.dtype.name}, value={host}>"

    __str__ = __repr__
