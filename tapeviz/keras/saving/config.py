"""How a model is described in a ``.keras`` file: every object by its class and the arguments it was made with.

Layers, initializers, losses, optimizers and schedules record the arguments
of their constructor (``RecordsInit``); ``serialize`` turns an object into
JSON data from those, and ``deserialize`` calls the class again with them.
Classes are found among tapeviz's own, in ``custom_objects``, or registered
with ``keras.saving.register_keras_serializable``, never imported by a name
read from a file.

This is tapeviz's own format (``"format": "tapeviz-keras-model"`` in
config.json), documented in docs/tf-map.md; the weights beside it are in
Keras 3's layout (see ``weights.py``).
"""

import functools

import numpy as np

__all__ = ["RecordsInit", "serialize", "deserialize", "register_keras_serializable", "FORMAT"]

FORMAT = "tapeviz-keras-model"
_REGISTERED = {}


class RecordsInit:
    """Mixin: remember the arguments of the outermost constructor call, in ``_init_args``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_records_args", False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            if "_init_args" not in self.__dict__:
                self.__dict__["_init_args"] = (args, dict(kw))
            init(self, *args, **kw)

        __init__._records_args = True
        cls.__init__ = __init__


def register_keras_serializable(package="Custom", name=None):
    """Decorator: make a class (or function) loadable by ``load_model`` without ``custom_objects``."""

    def register(obj):
        key = name or obj.__name__
        _REGISTERED[key] = obj
        _REGISTERED[f"{package}>{key}"] = obj
        return obj

    return register


def _tapeviz_namespace():
    from tapeviz import keras as K
    from tapeviz.keras import activations, initializers, layers, losses, metrics, optimizers
    from tapeviz.keras.optimizers import schedules

    found = {}
    for module in (activations, losses, metrics, schedules, optimizers, initializers, layers, K):
        for key in dir(module):
            if not key.startswith("_"):
                found.setdefault(key, getattr(module, key))
    from tapeviz.keras.models import Model, Sequential

    found.update(Model=Model, Sequential=Sequential)
    return found


def _lookup(name, custom_objects):
    for table in (custom_objects or {}, _REGISTERED, _tapeviz_namespace()):
        if name in table:
            return table[name]
    raise ValueError(
        f"Could not locate class or function {name!r}. Make sure custom classes and functions are passed to "
        "`load_model(..., custom_objects={...})` or decorated with "
        "`@keras.saving.register_keras_serializable()`."
    )


def _function_name(fn):
    """The name under which ``fn`` can be found again (tapeviz's own functions, or a registered one)."""
    name = getattr(fn, "__name__", None)
    if name is None:
        raise TypeError(f"Cannot save {fn!r}: it has no name.")
    return name


def serialize(value):
    """JSON data describing ``value``."""
    from tapeviz.keras.layers.base import KerasTensor

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, tuple):
        return {"__tuple__": [serialize(v) for v in value]}
    if isinstance(value, list):
        return [serialize(v) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[serialize(k), serialize(v)] for k, v in value.items()]}
    if isinstance(value, KerasTensor):
        raise TypeError("A symbolic tensor cannot be saved as an argument; functional models are saved as graphs.")
    if "_init_args" in getattr(value, "__dict__", {}):
        args, kwargs = value.__dict__["_init_args"]
        return {
            "__object__": type(value).__name__,
            "args": [serialize(a) for a in args],
            "kwargs": {k: serialize(v) for k, v in kwargs.items()},
        }
    if callable(value):
        return {"__function__": _function_name(value)}
    raise TypeError(f"Cannot save {value!r} of type {type(value).__name__} in a .keras file.")


def deserialize(data, custom_objects=None):
    """The object ``data`` (from ``serialize``) describes."""
    if isinstance(data, list):
        return [deserialize(v, custom_objects) for v in data]
    if not isinstance(data, dict):
        return data
    if "__tuple__" in data:
        return tuple(deserialize(v, custom_objects) for v in data["__tuple__"])
    if "__dict__" in data:
        return {deserialize(k, custom_objects): deserialize(v, custom_objects) for k, v in data["__dict__"]}
    if "__array__" in data:
        return np.asarray(data["__array__"], dtype=data["dtype"])
    if "__function__" in data:
        return _lookup(data["__function__"], custom_objects)
    if "__object__" in data:
        cls = _lookup(data["__object__"], custom_objects)
        args = [deserialize(a, custom_objects) for a in data["args"]]
        kwargs = {k: deserialize(v, custom_objects) for k, v in data["kwargs"].items()}
        return cls(*args, **kwargs)
    raise ValueError(f"Unrecognised entry in a .keras config: {sorted(data)}")
