"""``tf.keras.optimizers`` (also ``tf.optimizers``): Keras's optimizers, defaults and update formulas."""

from tapeviz.keras.optimizers import schedules
from tapeviz.keras.optimizers.adagrad import Adagrad
from tapeviz.keras.optimizers.adam import Adam, AdamW
from tapeviz.keras.optimizers.base import Optimizer
from tapeviz.keras.optimizers.loss_scale import LossScaleOptimizer
from tapeviz.keras.optimizers.more import Adadelta, Adamax, Lion, Nadam
from tapeviz.keras.optimizers.rmsprop import RMSprop
from tapeviz.keras.optimizers.sgd import SGD
from tapeviz.keras.saving.serialization_lib import resolve

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adamax",
    "Nadam",
    "Adadelta",
    "Lion",
    "LossScaleOptimizer",
    "schedules",
    "get",
]

_BY_NAME = {
    "sgd": SGD,
    "adam": Adam,
    "adamw": AdamW,
    "rmsprop": RMSprop,
    "adagrad": Adagrad,
    "adamax": Adamax,
    "nadam": Nadam,
    "adadelta": Adadelta,
    "lion": Lion,
}


def get(identifier):
    """An optimizer from a name ('adam', 'sgd'...) or an Optimizer (returned as is).

    Args:
        identifier: a name or an Optimizer.

    Returns:
        An Optimizer.
    """
    if isinstance(identifier, str):
        identifier = identifier.lower()
    return resolve(identifier, kind="optimizer", table=_BY_NAME, base=Optimizer, wrap_callable=_not_an_optimizer)


def _not_an_optimizer(identifier):
    raise ValueError(
        f"Could not interpret optimizer identifier: {identifier!r}. Use one of {sorted(_BY_NAME)} or an optimizer object."
    )
