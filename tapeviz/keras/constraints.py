"""``keras.constraints``: projections applied to a weight after each optimizer step (``kernel_constraint=``).

``add_weight(constraint=...)`` stores the constraint on the variable; the
optimizer assigns ``constraint(variable)`` after updating it, as Keras 3 does.
"""

from tapeviz.core.records import RecordsInit
from tapeviz.core.scopes import name_scope
from tapeviz.keras import ops
from tapeviz.keras.saving.serialization_lib import deserialize_object, resolve, serialize_object

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "unit_norm",
    "get",
    "serialize",
    "deserialize",
]

EPSILON = 1e-7


def _norms(w, axis):
    return ops.sqrt(ops.sum(ops.square(w), axis=axis, keepdims=True))


class Constraint(RecordsInit):
    """Base class: ``__call__(w)`` returns the projected weight."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class MaxNorm(Constraint):
    """Rescale the weights along ``axis`` whose L2 norm exceeds ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        with name_scope("max_norm"):
            w = ops.convert_to_tensor(w)
            norms = _norms(w, self.axis)
            desired = ops.clip(norms, 0, self.max_value)
            return w * (desired / (EPSILON + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Negative weights become 0."""

    def __call__(self, w):
        with name_scope("non_neg"):
            return ops.maximum(ops.convert_to_tensor(w), 0)


class UnitNorm(Constraint):
    """Weights scaled to unit L2 norm along ``axis``."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        with name_scope("unit_norm"):
            w = ops.convert_to_tensor(w)
            return w / (EPSILON + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Norms along ``axis`` moved into [min_value, max_value]: rate * clipped + (1 - rate) * norm."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        with name_scope("min_max_norm"):
            w = ops.convert_to_tensor(w)
            norms = _norms(w, self.axis)
            desired = self.rate * ops.clip(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
            return w * (desired / (EPSILON + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

_BY_NAME = {
    "max_norm": MaxNorm,
    "min_max_norm": MinMaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
    "MaxNorm": MaxNorm,
    "MinMaxNorm": MinMaxNorm,
    "NonNeg": NonNeg,
    "UnitNorm": UnitNorm,
    "Constraint": Constraint,
    "constraint": Constraint,
}


def serialize(constraint):
    """A constraint as Keras's JSON-able dict: module, class_name, config, registered_name."""
    return serialize_object(constraint, "keras.constraints")


def deserialize(config, custom_objects=None):
    """A constraint from ``serialize``'s dict (or a name); classes come from this module or ``custom_objects``."""
    return deserialize_object(config, kind="constraint", table=_BY_NAME, get=get, custom_objects=custom_objects)


def get(identifier):
    """A constraint from None, a name ('max_norm', 'non_neg'...), a serialized dict, a class, an instance or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier not in _BY_NAME:
        raise ValueError(f"Could not interpret constraint identifier: {identifier}")
    return resolve(identifier, kind="constraint", table=_BY_NAME, base=Constraint)
