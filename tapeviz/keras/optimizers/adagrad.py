"""Adagrad."""

from tapeviz import backend as B
from tapeviz.core.tensor import to_array
from tapeviz.keras.optimizers.base import Optimizer


class Adagrad(Optimizer):
    """Per-element step sizes shrinking with the sum of squared gradients::

        accumulator += g**2
        var -= lr * g / sqrt(accumulator + epsilon)

    Slot: ``'accumulator'``, starting at ``initial_accumulator_value`` (0.1).

    Args:
        learning_rate: the step size: a float, or a ``LearningRateSchedule``.
        initial_accumulator_value: the accumulators' starting value.
        epsilon: a small number added to the variance (or denominator) for stability.
        name: the object's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``).
    """

    slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def slot_initial_value(self, slot, variable):
        return B.xp.full(to_array(variable).shape, self.initial_accumulator_value, dtype=to_array(variable).dtype)

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        a_slot = self._slot(variable, "accumulator")
        accumulator = to_array(a_slot) + self._per_occurrence(xp.square, gradient)
        a_slot.assign(accumulator)
        variable.assign(to_array(variable) - (learning_rate * gradient) / xp.sqrt(accumulator + self.epsilon))

    def get_config(self):
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }
