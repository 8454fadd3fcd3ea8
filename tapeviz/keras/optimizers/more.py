"""Adamax, Nadam, Adadelta and Lion, with Keras 3's defaults and update formulas (host arithmetic on the slots)."""

from tapeviz import backend as B
from tapeviz.core.tensor import to_array
from tapeviz.keras.optimizers.base import Optimizer

__all__ = ["Adamax", "Nadam", "Adadelta", "Lion"]


def _step(optimizer, dtype):
    return dtype(int(to_array(optimizer.iterations)) + 1)


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(beta_2 * u, |g|)``, ``var -= lr * m / ((1 - beta_1**t) * (u + eps))``.

    Args:
        learning_rate: the step size: a float, or a ``LearningRateSchedule``.
        beta_1: the decay of the first-moment average.
        beta_2: the decay of the second-moment average.
        epsilon: a small number added to the variance (or denominator) for stability.
        name: the object's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.slot_names = ("m", "u")

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        dtype = to_array(variable).dtype.type
        m_slot, u_slot = self._slot(variable, "m"), self._slot(variable, "u")
        m = to_array(m_slot) + (gradient - to_array(m_slot)) * dtype(1 - self.beta_1)
        u = xp.maximum(dtype(self.beta_2) * to_array(u_slot), self._per_occurrence(xp.abs, gradient))
        m_slot.assign(m)
        u_slot.assign(u)
        correction = dtype(1) - xp.power(dtype(self.beta_1), _step(self, dtype))
        variable.assign(to_array(variable) - (learning_rate * m) / (correction * (u + dtype(self.epsilon))))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


class Nadam(Optimizer):
    """Adam with Nesterov momentum and Keras 3's momentum schedule ``u_t = beta_1 (1 - 0.5 * 0.96**t)``.

    Args:
        learning_rate: the step size: a float, or a ``LearningRateSchedule``.
        beta_1: the decay of the first-moment average.
        beta_2: the decay of the second-moment average.
        epsilon: a small number added to the variance (or denominator) for stability.
        name: the object's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.slot_names = ("m", "v")
        self._u_product = 1.0
        self._u_product_step = 0

    def _momentum(self, step, dtype):
        return dtype(self.beta_1) * (dtype(1) - dtype(0.5) * B.xp.power(dtype(0.96), dtype(step)))

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        dtype = to_array(variable).dtype.type
        step = int(to_array(self._iterations)) + 1
        if self._u_product_step != step:  # the product of the schedule, advanced once per step
            self._u_product = self._u_product * float(self._momentum(step, xp.float32))
            self._u_product_step = step
        u_t, u_t_1 = self._momentum(step, dtype), self._momentum(step + 1, dtype)
        u_product_t = dtype(self._u_product)
        u_product_t_1 = u_product_t * u_t_1
        m_slot, v_slot = self._slot(variable, "m"), self._slot(variable, "v")
        m = to_array(m_slot) + (gradient - to_array(m_slot)) * dtype(1 - self.beta_1)
        v = to_array(v_slot) + (self._per_occurrence(xp.square, gradient) - to_array(v_slot)) * dtype(1 - self.beta_2)
        m_slot.assign(m)
        v_slot.assign(v)
        m_hat = u_t_1 * m / (dtype(1) - u_product_t_1) + (dtype(1) - u_t) * gradient / (dtype(1) - u_product_t)
        v_hat = v / (dtype(1) - xp.power(dtype(self.beta_2), dtype(step)))
        variable.assign(to_array(variable) - (m_hat * learning_rate) / (xp.sqrt(v_hat) + dtype(self.epsilon)))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


class Adadelta(Optimizer):
    """Adadelta: steps scaled by sqrt(accumulated updates + eps) / sqrt(accumulated gradients + eps).

    Args:
        learning_rate: the step size: a float, or a ``LearningRateSchedule``.
        rho: the decay of the running averages.
        epsilon: a small number added to the variance (or denominator) for stability.
        name: the object's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``).
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon
        self.slot_names = ("accumulated_grad", "accumulated_delta_var")

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        dtype = to_array(variable).dtype.type
        rho, eps = dtype(self.rho), dtype(self.epsilon)
        grad_slot, delta_slot = self._slot(variable, "accumulated_grad"), self._slot(variable, "accumulated_delta_var")
        accumulated_grad = rho * to_array(grad_slot) + (dtype(1) - rho) * self._per_occurrence(xp.square, gradient)
        grad_slot.assign(accumulated_grad)
        delta = -xp.sqrt(to_array(delta_slot) + eps) / xp.sqrt(accumulated_grad + eps) * gradient
        squared_delta = xp.square(delta)
        if self._has_repeated_rows(gradient):  # Keras keeps delta as rows, one per occurrence: their squares add up
            scale = xp.sqrt(to_array(delta_slot) + eps) / xp.sqrt(accumulated_grad + eps)
            squared_delta = xp.square(scale) * self._per_occurrence(xp.square, gradient)
        delta_slot.assign(rho * to_array(delta_slot) + (dtype(1) - rho) * squared_delta)
        variable.assign(to_array(variable) + learning_rate * delta)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


class Lion(Optimizer):
    """Lion: ``var -= lr * sign(beta_1 m + (1 - beta_1) g)``, then ``m = beta_2 m + (1 - beta_2) g``.

    Args:
        learning_rate: the step size: a float, or a ``LearningRateSchedule``.
        beta_1: the decay of the first-moment average.
        beta_2: the decay of the second-moment average.
        name: the object's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``).

    Raises:
        ValueError: a ``beta_1`` outside [0, 1].
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(f"Argument for `beta_1` must be in range [0, 1]. Received: beta_1={beta_1}.")
        self.beta_1, self.beta_2 = beta_1, beta_2
        self.slot_names = ("m",)

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        dtype = to_array(variable).dtype.type
        m_slot = self._slot(variable, "m")
        m = to_array(m_slot)
        direction = xp.sign(dtype(self.beta_1) * m + dtype(1 - self.beta_1) * gradient)
        variable.assign(to_array(variable) - learning_rate * direction)
        m_slot.assign(dtype(self.beta_2) * m + dtype(1 - self.beta_2) * gradient)

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}
