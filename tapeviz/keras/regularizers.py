"""``keras.regularizers``: penalties on weights (``kernel_regularizer=``) or outputs (``activity_regularizer=``).

A regularizer maps a tensor to a scalar loss; a layer's penalties are in
``layer.losses`` (and a model's in ``model.losses``), which ``fit`` adds to
the compiled loss. Formulas, defaults, names and errors are Keras 3's.
"""

import math

import numpy as np

from tapeviz.core.records import RecordsInit
from tapeviz.core.scopes import name_scope
from tapeviz.keras import ops
from tapeviz.keras.saving.serialization_lib import deserialize_object, resolve, serialize_object

__all__ = [
    "Regularizer",
    "L1",
    "L2",
    "L1L2",
    "OrthogonalRegularizer",
    "l1",
    "l2",
    "l1_l2",
    "orthogonal_regularizer",
    "get",
    "serialize",
    "deserialize",
]


def _factor(value, name):
    if (
        not isinstance(value, (float, int))
        or isinstance(value, bool)
        or math.isinf(value)
        or math.isnan(value)
        or value < 0
    ):
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}")
    return float(value)


class Regularizer(RecordsInit):
    """Base class: ``__call__(x)`` returns the penalty (a scalar tensor); ``get_config`` its arguments."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x**2); both default to 0."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _factor(0.0 if l1 is None else l1, "l1")
        self.l2 = _factor(0.0 if l2 is None else l2, "l2")

    def __call__(self, x):
        with name_scope("l1_l2"):
            x = ops.convert_to_tensor(x)
            penalty = ops.zeros((), dtype=x.dtype.name)
            if self.l1:
                penalty = penalty + ops.cast(self.l1, x.dtype.name) * ops.sum(ops.absolute(x))
            if self.l2:
                penalty = penalty + ops.cast(self.l2, x.dtype.name) * ops.sum(ops.square(x))
            return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """l1 * sum(|x|) (l1 defaults to 0.01)."""

    def __init__(self, l1=0.01):
        # Keras keeps this factor as a float32 tensor: its config reads back float32-rounded (0.3 -> 0.30000001...).
        self.l1 = float(np.float32(_factor(0.01 if l1 is None else l1, "l1")))

    def __call__(self, x):
        with name_scope("l1"):
            x = ops.convert_to_tensor(x)
            return ops.cast(self.l1, x.dtype.name) * ops.sum(ops.absolute(x))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """l2 * sum(x**2) (l2 defaults to 0.01)."""

    def __init__(self, l2=0.01):
        self.l2 = _factor(0.01 if l2 is None else l2, "l2")

    def __call__(self, x):
        with name_scope("l2"):
            x = ops.convert_to_tensor(x)
            return ops.cast(self.l2, x.dtype.name) * ops.sum(ops.square(x))

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """factor * mean |cosine| between distinct rows (``mode='rows'``) or columns of a rank-2 weight."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = float(np.float32(_factor(factor, "factor")))  # float32, as Keras keeps it
        if mode not in {"rows", "columns"}:
            raise ValueError(
                f'Invalid value for argument `mode`. Expected one of {{"rows", "columns"}}. Received: mode={mode}'
            )
        self.mode = mode

    def __call__(self, inputs):
        with name_scope("orthogonal_regularizer"):
            inputs = ops.convert_to_tensor(inputs)
            if len(inputs.shape) != 2:
                raise ValueError(
                    f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={inputs.shape}"
                )
            if self.mode == "rows":
                unit = ops.normalize(inputs, axis=1)
                product, size = ops.matmul(unit, ops.transpose(unit)), inputs.shape[0]
            else:
                unit = ops.normalize(inputs, axis=0)
                product, size = ops.matmul(ops.transpose(unit), unit), inputs.shape[1]
            off_diagonal = product * (1.0 - ops.eye(size, dtype=inputs.dtype.name))
            pairs = size * (size - 1.0) / 2.0
            return self.factor * 0.5 * ops.sum(ops.absolute(off_diagonal)) / pairs

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

_BY_NAME = {
    "l1": L1,
    "l2": L2,
    "l1l2": L1L2,  # Keras 3 snake-cases the class names: 'l1_l2' is not one of them
    "regularizer": Regularizer,
    "orthogonal_regularizer": OrthogonalRegularizer,
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "Regularizer": Regularizer,
}


def serialize(regularizer):
    """A regularizer as Keras's JSON-able dict: module, class_name, config, registered_name."""
    return serialize_object(regularizer, "keras.regularizers")


def deserialize(config, custom_objects=None):
    """A regularizer from ``serialize``'s dict (or a name); classes come from this module or ``custom_objects``."""
    return deserialize_object(config, kind="regularizer", table=_BY_NAME, get=get, custom_objects=custom_objects)


def get(identifier):
    """A regularizer from None, a name ('l1', 'l2', 'l1l2', 'L2'...), a serialized dict, a class, an instance or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
        return _BY_NAME[identifier]()
    return resolve(identifier, kind="regularizer", table=_BY_NAME, base=Regularizer)
