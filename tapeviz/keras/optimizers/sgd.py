"""Stochastic gradient descent, with optional (Nesterov) momentum."""

from tapeviz.core.tensor import to_array
from tapeviz.keras.optimizers.base import Optimizer


class SGD(Optimizer):
    """Gradient descent: ``v -= lr * g``, or with momentum (Keras's form)::

        m = momentum * m - lr * g
        v += m                              (nesterov=False)
        v += momentum * m - lr * g          (nesterov=True)

    Slot: ``'momentum'`` when momentum != 0.

    Args:
        learning_rate: a float, or a ``tf.keras.optimizers.schedules`` schedule.
        momentum: between 0 and 1; 0 is plain gradient descent.
        nesterov: use Nesterov momentum.
        name: the optimizer's name.
        **kwargs: ``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``...

    Returns:
        The optimizer; ``apply_gradients(zip(grads, variables))`` takes one step.

    Raises:
        ValueError: a momentum outside [0, 1].

    Example:
        >>> import tapeviz as tf
        >>> w = tf.Variable(1.0)
        >>> opt = tf.keras.optimizers.SGD(learning_rate=0.1)
        >>> with tf.GradientTape() as tape:
        ...     loss = w * w
        >>> _ = opt.apply_gradients([(tape.gradient(loss, w), w)])
        >>> print(round(float(w.numpy()), 4))  # 1 - 0.1 * 2
        0.8
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
