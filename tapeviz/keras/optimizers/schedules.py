"""Learning-rate schedules: ``lr = schedule(step)``, ``step`` = the optimizer's iterations.

Computed in float32 with Keras's formulas, so a schedule gives the same
learning rates (and so the same weights) as on TensorFlow.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.records import RecordsInit
from tapeviz.core.tensor import Tensor, is_tensor, to_array

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "InverseTimeDecay"]


def _step(step):
    """The step (an int, a Variable or a Tensor) as a host NumPy number."""
    return B.to_numpy(to_array(step)) if is_tensor(step) else np.asarray(step)


class LearningRateSchedule(RecordsInit):
    """Base class: subclass and define ``__call__(self, step)`` and ``get_config``."""

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `__call__(self, step)`."
        )

    def get_config(self):
        """The constructor's arguments, as Keras saves them: ``type(self).from_config(config)`` makes it again.

        Returns:
            A dict, JSON-serializable.
        """
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override `get_config()`.")

    @classmethod
    def from_config(cls, config):
        """A new schedule from ``get_config()``'s dict.

        Args:
            config: the dict.

        Returns:
            The new schedule.
        """
        return cls(**config)


class _Decay(LearningRateSchedule):
    """What the decays share: a rate that falls with ``step / decay_steps`` (floored with staircase)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name or type(self).__name__

    def __call__(self, step):
        f = np.float32
        progress = f(_step(step)) / f(self.decay_steps)
        if self.staircase:
            progress = np.floor(progress)
        return Tensor(
            B.asarray(np.asarray(self._rate(f(self.initial_learning_rate), f(self.decay_rate), progress), dtype=f))
        )

    def _rate(self, initial, decay_rate, progress):
        raise NotImplementedError

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class ExponentialDecay(_Decay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``.

    With ``staircase=True`` the exponent is floored: the rate drops every
    ``decay_steps`` steps instead of continuously.

    Args:
        initial_learning_rate: the learning rate at step 0.
        decay_steps: the steps of one decay period (> 0).
        decay_rate: the factor per period.
        staircase: decay in steps (integer periods) rather than smoothly.
        name: the object's name.

    Raises:
        ValueError: ``decay_steps`` of 0 or less.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def _rate(self, initial, decay_rate, progress):
        return initial * np.power(decay_rate, progress)


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while step <= boundaries[0], ``values[1]`` while step <= boundaries[1], ...

    ``values`` has one more entry than ``boundaries``.

    Args:
        boundaries: the steps where the value changes.
        values: the value before, between and after the boundaries (one more than the boundaries).
        name: the object's name.

    Raises:
        ValueError: not one value more than boundaries.
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. "
                f"Received: boundaries={boundaries} of length {len(boundaries)}, and values={values} of length {len(values)}."
            )
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        s = _step(step)
        value = self.values[-1]
        for boundary, v in zip(self.boundaries, self.values):
            if s <= boundary:
                value = v
                break
        return Tensor(B.asarray(np.asarray(value, dtype=np.float32)))

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class InverseTimeDecay(_Decay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (floored with staircase).

    Args:
        initial_learning_rate: the learning rate at step 0.
        decay_steps: the number of steps of one decay period.
        decay_rate: how fast the rate falls: ``lr / (1 + decay_rate * step / decay_steps)``.
        staircase: decay in steps (integer periods) rather than smoothly.
        name: the object's name.
    """

    def _rate(self, initial, decay_rate, progress):
        return initial / (np.float32(1) + decay_rate * progress)
