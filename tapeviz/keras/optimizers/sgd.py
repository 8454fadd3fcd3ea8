"""Stochastic gradient descent, with optional (Nesterov) momentum."""

from tapeviz.core.tensor import to_array
from tapeviz.keras.optimizers.base import Optimizer


class SGD(Optimizer):
    """Gradient descent: ``v -= lr * g``, or with momentum (Keras's form)::

        m = momentum * m - lr * g
        v += m                              (nesterov=False)
        v += momentum * m - lr * g          (nesterov=True)

    Slot: ``'momentum'`` when momentum != 0.
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        if not isinstance(momentum, (int, float)) or momentum < 0 or momentum > 1:
            raise ValueError(f"`momentum` must be a float between [0, 1]. Received: momentum={momentum}")
        self.momentum = momentum
        self.nesterov = nesterov
        self.slot_names = ("momentum",) if momentum != 0 else ()

    def update_step(self, gradient, variable, learning_rate):
        value = to_array(variable)
        if self.momentum == 0:
            variable.assign(value - gradient * learning_rate)
            return
        m_slot = self._slot(variable, "momentum")
        momentum = value.dtype.type(self.momentum)
        m = to_array(m_slot) * momentum - gradient * learning_rate
        m_slot.assign(m)
        if self.nesterov:
            variable.assign(value + (m * momentum - gradient * learning_rate))
        else:
            variable.assign(value + m)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}
