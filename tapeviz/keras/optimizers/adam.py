"""Adam and AdamW."""

from tapeviz import backend as B
from tapeviz.core.tensor import Tensor, to_array
from tapeviz.keras.optimizers.base import Optimizer


def _update(variable, ufunc, delta):
    """variable = ufunc(variable, delta), announced as an assignment."""
    variable._apply(ufunc, delta)
    variable._assigned(read_value=False)


class Adam(Optimizer):
    """Adam, in Keras's form (bias correction folded into the step size)::

        alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m += (g - m) * (1 - beta_1)
        v += (g**2 - v) * (1 - beta_2)
        var -= m * alpha / (sqrt(v) + epsilon)

    With ``amsgrad=True`` the running maximum of ``v`` (slot ``'vhat'``) is
    used instead of ``v``. Slots: ``'m'`` (first moment), ``'v'`` (second).
    Note Keras's ``epsilon`` default is 1e-7 (PyTorch's is 1e-8).

    Args:
        learning_rate: a float, or a ``tf.keras.optimizers.schedules`` schedule.
        beta_1: decay of the first moment.
        beta_2: decay of the second moment.
        epsilon: added to ``sqrt(v)`` so that a step never divides by 0.
        amsgrad: use the running maximum of ``v``.
        name: the optimizer's name.
        **kwargs: ``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``...

    Returns:
        The optimizer; ``apply_gradients(zip(grads, variables))`` takes one step.

    Example:
        >>> import tapeviz as tf
        >>> w = tf.Variable(1.0)
        >>> opt = tf.keras.optimizers.Adam(learning_rate=0.1)
        >>> with tf.GradientTape() as tape:
        ...     loss = w * w
        >>> _ = opt.apply_gradients([(tape.gradient(loss, w), w)])
        >>> print(round(float(w.numpy()), 4))  # the first step moves by the learning rate
        0.9
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad
        self.slot_names = ("m", "v", "vhat") if amsgrad else ("m", "v")
        self._alpha_key = self._alpha = None

    @property
    def _momentums(self):
        """Keras 3's name for the first moments, one per variable, in order."""
        return [self._slot(v, "m") for v in self._tracked]

    @property
    def _velocities(self):
        """Keras 3's name for the second moments, one per variable, in order."""
        return [self._slot(v, "v") for v in self._tracked]

    def update_step(self, gradient, variable, learning_rate):
        xp = B.xp
        alpha = self._step_size(learning_rate, to_array(variable).dtype.type)
        m_slot, v_slot = self._slot(variable, "m"), self._slot(variable, "v")
        # Updates in place where nothing else holds the arrays (Variable._apply);
        # the deltas are fresh arrays of the right dtype, so no conversion.
        _update(m_slot, xp.add, (gradient - to_array(m_slot)) * (1 - self.beta_1))
        _update(v_slot, xp.add, (self._per_occurrence(xp.square, gradient) - to_array(v_slot)) * (1 - self.beta_2))
        m, v = to_array(m_slot), to_array(v_slot)
        if self.amsgrad:
            vhat_slot = self._slot(variable, "vhat")
            v = xp.maximum(to_array(vhat_slot), v)
            vhat_slot.assign(Tensor(v))
        _update(variable, xp.subtract, (m * alpha) / (xp.sqrt(v) + self.epsilon))

    def _step_size(self, learning_rate, dtype):
        """alpha, the bias-corrected step size: the same for every variable of a step, so computed once."""
        step = int(to_array(self._iterations)) + 1
        key = (step, dtype, learning_rate)
        if self._alpha_key != key:
            xp = B.xp
            t = dtype(step)
            beta_1_power = xp.power(dtype(self.beta_1), t)
            beta_2_power = xp.power(dtype(self.beta_2), t)
            self._alpha = learning_rate * xp.sqrt(dtype(1) - beta_2_power) / (dtype(1) - beta_1_power)
            self._alpha_key = key
        return self._alpha

    def get_config(self):
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


class AdamW(Adam):
    """Adam with decoupled weight decay: before each update, ``var -= var * weight_decay * lr``.

    Keras's default ``weight_decay`` is 0.004.

    Args:
        learning_rate: the step size: a float, or a ``LearningRateSchedule``.
        weight_decay: decoupled weight decay, per step.
        beta_1: the decay of the first-moment average.
        beta_2: the decay of the second-moment average.
        epsilon: a small number added to the variance (or denominator) for stability.
        amsgrad: use the AMSGrad variant (the maximum of past second moments).
        name: the object's name.
        **kwargs: the base Optimizer's (``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``weight_decay``).

    Raises:
        ValueError: a ``weight_decay`` of None.
    """

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=0.004,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name=None,
        **kwargs,
    ):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(
            learning_rate, beta_1, beta_2, epsilon, amsgrad, name=name, weight_decay=weight_decay, **kwargs
        )
