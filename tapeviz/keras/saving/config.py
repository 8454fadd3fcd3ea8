"""How a model is described in a ``.keras`` file: every object by its class and the arguments it was made with.

Layers, initializers, losses, optimizers and schedules record the arguments
of their constructor (``RecordsInit``); ``serialize`` turns an object into
JSON data from those, and ``deserialize`` calls the class again with them.
A class or function is found only in ``custom_objects``, among those
registered with ``keras.saving.register_keras_serializable``, or among
tapeviz's own Keras layers, losses, metrics, optimizers, schedules,
initializers and activations (``registry.py``): never imported by a name
read from a file. A ``lambda`` is saved as its Python bytecode, which only
``safe_mode=False`` will run, as in Keras 3.

This is tapeviz's own format (``"format": "tapeviz-keras-model"`` in
config.json), documented in docs/saving.md; the weights beside it are in
Keras 3's layout (see ``weights.py``).
"""

import base64
import builtins
import marshal
import sys
import types
import warnings

import numpy as np

from tapeviz.core.records import RecordsInit, init_args
from tapeviz.core.tensor_shape import TensorShape
from tapeviz.keras.saving import registry
from tapeviz.keras.saving.registry import register_keras_serializable

__all__ = ["RecordsInit", "serialize", "deserialize", "register_keras_serializable", "FORMAT", "LAMBDA_REFUSED"]

FORMAT = "tapeviz-keras-model"
_ARRAY_KINDS = "biufc"  # numbers and booleans: an array in a config is never of objects or bytes
# keras.config.enable_unsafe_deserialization() sets this: saved lambdas then load without safe_mode=False.
_unsafe_deserialization = False


def allow_unsafe_deserialization():
    """Let saved lambdas (Python code in a .keras file) load without ``safe_mode=False`` (``keras.config``'s
    ``enable_unsafe_deserialization``)."""
    global _unsafe_deserialization
    _unsafe_deserialization = True


def unsafe_deserialization_allowed():
    """Whether ``allow_unsafe_deserialization`` was called."""
    return _unsafe_deserialization


LAMBDA_REFUSED = (
    "Requested the deserialization of a Python lambda. This carries a potential risk of arbitrary code execution "
    "and thus it is disallowed by default. If you trust the source of the artifact, you can override this error by "
    "passing `safe_mode=False` to the loading function."
)


def serialize(value):
    """JSON data describing ``value``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, tuple):
        return {"__tuple__": [serialize(v) for v in value]}
    if isinstance(value, TensorShape):  # an argument given as ``x.shape[1:]``: saved as the tuple of its sizes
        return {"__tuple__": value.as_list()}
    if isinstance(value, list):
        return [serialize(v) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[serialize(k), serialize(v)] for k, v in value.items()]}
    if isinstance(value, registry.part("KerasTensor")):
        raise TypeError("A symbolic tensor cannot be saved as an argument; functional models are saved as graphs.")
    recorded = init_args(value)
    if recorded is not None:
        args, kwargs = recorded
        return {
            **_named("__object__", type(value)),
            "args": [serialize(a) for a in args],
            "kwargs": {k: serialize(v) for k, v in kwargs.items()},
        }
    if isinstance(value, types.FunctionType) and value.__name__ == "<lambda>":
        warnings.warn(
            "The object being serialized includes a `lambda`. This is unsafe. In order to reload the object, you "
            "will have to pass `safe_mode=False` to the loading function. Please avoid using `lambda` in the future, "
            "and use named Python functions instead.",
            stacklevel=2,
        )
        return {"__lambda__": _lambda_data(value)}
    if callable(value):
        if getattr(value, "__name__", None) is None:
            raise TypeError(f"Cannot save {value!r}: it has no name.")
        return _named("__function__", value)
    raise TypeError(f"Cannot save {value!r} of type {type(value).__name__} in a .keras file.")


def _named(key, obj):
    name, family = registry.saved_name(obj)
    return {key: name} if family is None else {key: name, "family": family}


def _lambda_data(fn):
    """A lambda's bytecode, defaults and closure: code that only ``safe_mode=False`` will run again."""
    closure = [cell.cell_contents for cell in fn.__closure__ or ()]
    return {
        "code": base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii"),
        "defaults": serialize(fn.__defaults__),
        "closure": serialize(tuple(closure)),
    }


def deserialize(data, custom_objects=None, safe_mode=True):
    """The object ``data`` (from ``serialize``) describes; anything else raises ``ValueError``."""
    return _Reader(custom_objects, safe_mode).read(data)


class _Reader:
    def __init__(self, custom_objects, safe_mode):
        if custom_objects is not None and not isinstance(custom_objects, dict):
            raise TypeError(f"custom_objects must be a dict of name -> class or function, got {custom_objects!r}.")
        self.custom_objects = custom_objects
        self.safe_mode = bool(safe_mode)

    def read(self, data):
        if isinstance(data, list):
            return [self.read(v) for v in data]
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if not isinstance(data, dict):
            raise ValueError(f"Unrecognised entry in a .keras config: {data!r}")
        if "__tuple__" in data:
            return tuple(self.read(v) for v in _list(data["__tuple__"]))
        if "__dict__" in data:
            pairs = [self.read(pair) for pair in _list(data["__dict__"])]
            if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                raise ValueError("A dict in a .keras config must be a list of [key, value] pairs.")
            try:
                return {key: value for key, value in pairs}
            except TypeError as exc:
                raise ValueError(f"A dict key in a .keras config cannot be used as a key: {exc}") from None
        if "__array__" in data:
            return _array(data)
        if "__lambda__" in data:
            return self._lambda(data["__lambda__"])
        if "__function__" in data:
            fn = registry.lookup(data["__function__"], data.get("family"), self.custom_objects)
            if not callable(fn) or isinstance(fn, type):
                raise ValueError(f"{data['__function__']!r} names a class, not a function, in a .keras config.")
            return fn
        if "__object__" in data:
            cls = registry.lookup(data["__object__"], data.get("family"), self.custom_objects)
            if not isinstance(cls, type):
                raise ValueError(f"{data['__object__']!r} names a function, not a class, in a .keras config.")
            args = self.read(_list(data.get("args", [])))
            kwargs = data.get("kwargs", {})
            if not isinstance(kwargs, dict):
                raise ValueError("An object's kwargs in a .keras config must be a dict.")
            return cls(*args, **{str(k): self.read(v) for k, v in kwargs.items()})
        raise ValueError(f"Unrecognised entry in a .keras config: {sorted(data)}")

    def _lambda(self, data):
        if self.safe_mode and not _unsafe_deserialization:
            raise ValueError(LAMBDA_REFUSED)
        try:
            code = marshal.loads(base64.b64decode(data["code"]))
        except (KeyError, TypeError, ValueError, EOFError) as exc:
            raise ValueError(f"A lambda in the .keras config is not readable by this Python: {exc}") from None
        if not isinstance(code, types.CodeType):
            raise ValueError("A lambda in the .keras config does not hold Python code.")
        defaults = self.read(data.get("defaults"))
        closure = tuple(types.CellType(v) for v in self.read(data.get("closure")) or ())
        namespace = {"__builtins__": builtins, "np": np}
        if "tapeviz" in sys.modules:  # lambdas written in a notebook that did `import tapeviz as tf`
            namespace.update(tf=sys.modules["tapeviz"], keras=sys.modules["tapeviz"].keras)
        return types.FunctionType(code, namespace, code.co_name, defaults, closure or None)


def _list(value):
    if not isinstance(value, list):
        raise ValueError(f"Expected a list in the .keras config, got {value!r}.")
    return value


def _array(data):
    try:
        dtype = np.dtype(data["dtype"])
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"An array in the .keras config has an unknown dtype: {exc}") from None
    if dtype.kind not in _ARRAY_KINDS:
        raise ValueError(f"An array in a .keras config must hold numbers, not {dtype}.")
    try:
        return np.asarray(data["__array__"], dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"An array in the .keras config cannot be read: {exc}") from None
