"""RMSprop."""

from tapeviz import backend as B
from tapeviz.core.tensor import to_array
from tapeviz.keras.optimizers.base import Optimizer


class RMSprop(Optimizer):
    """Divide the gradient by a running root-mean-square of recent gradients (Keras's form)::

        velocity = rho * velocity + (1 - rho) * g**2
        increment = lr * g / sqrt(velocity + epsilon)      (centered: velocity - avg_g**2 + epsilon)
        var -= increment                                   (or via a momentum slot)

    Slots: ``'velocity'``, plus ``'momentum'`` and ``'average_gradient'`` when used.

    Args:
        learning_rate: the step size, or a schedule.
        rho: the decay of the running mean of squared gradients.
        momentum: the momentum (0: none).
        epsilon: added to the denominator for stability.
        centered: divide by the variance estimate instead of the raw second moment.
        name: the optimizer's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``weight_decay``...).
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        self.slot_names = (
            ("velocity",) + (("momentum",) if momentum > 0 else ()) + (("average_gradient",) if centered else ())
        )

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        rho = self.rho
        v_slot = self._slot(variable, "velocity")
        velocity = rho * to_array(v_slot) + (1 - rho) * self._per_occurrence(xp.square, gradient)
        v_slot.assign(velocity)
        if self.centered:
            a_slot = self._slot(variable, "average_gradient")
            average = rho * to_array(a_slot) + (1 - rho) * gradient
            a_slot.assign(average)
            denominator = velocity - xp.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = (learning_rate * gradient) / xp.sqrt(denominator)
        if self.momentum > 0:
            m_slot = self._slot(variable, "momentum")
            m = self.momentum * to_array(m_slot) + increment
            m_slot.assign(m)
            variable.assign(to_array(variable) - m)
        else:
            variable.assign(to_array(variable) - increment)

    def get_config(self):
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }
