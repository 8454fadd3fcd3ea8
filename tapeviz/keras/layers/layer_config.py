"""A built-in layer's config from the arguments it was made with, and the layer again from that config.

Keras 3's ``layer.get_config()`` lists the constructor arguments, and
``Layer.from_config(config)`` calls the class with them. tapeviz records the
arguments of every layer's constructor (``RecordsInit``), so one function
serves every built-in: objects become Keras's ``{"module", "class_name",
"config", "registered_name"}`` dicts, activations their names, and
``from_config`` turns them back, finding classes only among tapeviz's own.
"""

import inspect

import numpy as np

from tapeviz.core.records import init_args
from tapeviz.core.tensor_shape import TensorShape
from tapeviz.keras import constraints, initializers, regularizers
from tapeviz.keras.saving import registry

__all__ = ["constructor_config", "revive_config"]

_FAMILIES = ("keras.initializers", "keras.regularizers", "keras.constraints", "keras.layers")


def constructor_config(layer):
    """The recorded constructor arguments of ``layer`` by parameter name, as config values."""
    args, kwargs = init_args(layer) or ((), {})
    try:
        bound = inspect.signature(type(layer).__init__).bind_partial(layer, *args, **kwargs)
    except TypeError:
        return {}
    bound.apply_defaults()  # every argument, as Keras's configs list them
    config = {}
    for name, value in list(bound.arguments.items())[1:]:
        kind = inspect.signature(type(layer).__init__).parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            config.update({k: _config_value(v) for k, v in value.items()})
        elif kind is not inspect.Parameter.VAR_POSITIONAL:
            config[name] = _config_value(value)
    for weight in type(layer)._weight_names:  # kernel_regularizer=... are Keras arguments even when not given
        for kind in ("regularizer", "constraint"):
            config.setdefault(f"{weight}_{kind}", _config_value(getattr(layer, f"{weight}_{kind}", None)))
    return config


def _config_value(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(_config_value(v) for v in value)
    if isinstance(value, TensorShape):  # a shape given as ``x.shape[1:]``: a tuple, as Keras keeps shapes
        return tuple(value.as_list())
    if isinstance(value, dict):
        return {k: _config_value(v) for k, v in value.items()}
    for module, base in (
        ("keras.initializers", initializers.Initializer),
        ("keras.regularizers", regularizers.Regularizer),
        ("keras.constraints", constraints.Constraint),
    ):
        if isinstance(value, base):
            return {
                "module": module,
                "class_name": type(value).__name__,
                "config": value.get_config(),
                "registered_name": None,
            }
    if isinstance(value, registry.part("Layer")):  # a nested layer (Bidirectional's); base.py imports this module
        return {
            "module": "keras.layers",
            "class_name": type(value).__name__,
            "config": value.get_config(),
            "registered_name": None,
        }
    if callable(value) and getattr(value, "__name__", "<lambda>") != "<lambda>":
        return value.__name__  # an activation (or other function) by its name, as Keras writes it
    return value  # a lambda or other object: kept as it is (in memory; it cannot be written to a file)


def revive_config(config):
    """``config`` with the object dicts ``constructor_config`` wrote turned back into objects."""
    return {k: _revive(v) for k, v in config.items()}


def _revive(value):
    if isinstance(value, dict) and value.get("module") in _FAMILIES and "class_name" in value:
        if value["module"] == "keras.layers":  # the layers tapeviz registered: this module sits below them
            cls = registry.lookup(value["class_name"], "layers")
        else:
            module = {
                "keras.initializers": initializers,
                "keras.regularizers": regularizers,
                "keras.constraints": constraints,
            }[value["module"]]
            cls = getattr(module, value["class_name"], None)
        if not isinstance(cls, type):
            raise ValueError(f"Unknown {value['module']} class {value['class_name']!r} in a layer config.")
        config = value.get("config", {})
        if issubclass(cls, registry.part("Layer")):
            return cls.from_config(config)
        parameters = inspect.signature(cls.__init__).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        return cls(**{k: v for k, v in config.items() if takes_any or k in parameters})
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value
