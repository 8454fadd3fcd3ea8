"""tapeviz's own Keras classes and functions, registered with saving's registry: all a saved file may name.

Registered by family, so a loss and a metric of one name (``MeanSquaredError``)
stay apart. keras's package imports this module; saving's own modules
(model_file, weights, registry) never do, so saving never imports the models
it saves (models -> saving, one way).
"""

import types

from tapeviz.keras import activations, constraints, initializers, layers, losses, metrics, optimizers, regularizers
from tapeviz.keras.layers.base import KerasTensor, Layer
from tapeviz.keras.losses import Loss
from tapeviz.keras.metrics import Metric
from tapeviz.keras.models import Model, Sequential
from tapeviz.keras.optimizers import schedules
from tapeviz.keras.optimizers.base import Optimizer
from tapeviz.keras.saving import registry

__all__ = []

_NOT_SAVED = frozenset(("get", "serialize", "deserialize"))  # the family's lookup helpers, not members


def _defined_in(value, module):
    """Whether ``value`` is defined in ``module`` or, for a package (losses/, metrics/), in one of its modules."""
    return value.__module__ == module.__name__ or value.__module__.startswith(module.__name__ + ".")


def _classes(module, base):
    listed = getattr(module, "__all__", None)  # a package's public classes; helpers it imports stay out
    return [
        value
        for name, value in sorted(vars(module).items())
        if not name.startswith("_")
        and isinstance(value, type)
        and issubclass(value, base)
        and (listed is None or name in listed)
    ]


def _functions(module):
    return [
        value
        for name, value in sorted(vars(module).items())
        if not name.startswith("_")
        and name not in _NOT_SAVED
        and isinstance(value, types.FunctionType)
        and _defined_in(value, module)  # not a helper it imports
    ]


registry.register_builtin("layers", _classes(layers, Layer))
registry.register_builtin("models", [Model, Sequential])
registry.register_builtin("losses", _classes(losses, Loss) + _functions(losses))
registry.register_builtin("metrics", _classes(metrics, Metric) + _functions(metrics))
registry.register_builtin("optimizers", _classes(optimizers, Optimizer))
registry.register_builtin("schedules", _classes(schedules, schedules.LearningRateSchedule))
registry.register_builtin("initializers", _classes(initializers, initializers.Initializer))
registry.register_builtin("activations", _functions(activations))
registry.register_builtin("regularizers", _classes(regularizers, regularizers.Regularizer))
registry.register_builtin("constraints", _classes(constraints, constraints.Constraint))
registry.register_part(
    Layer=Layer, Optimizer=Optimizer, Model=Model, Sequential=Sequential, Input=layers.Input, KerasTensor=KerasTensor
)
