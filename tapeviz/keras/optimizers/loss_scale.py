"""``LossScaleOptimizer``: dynamic loss scaling for float16 training, as Keras 3's.

float16 gradients underflow to zero when small. The loss is multiplied by a
large scale before the gradient (``scale_loss``); ``apply`` divides the
gradients back and lets the inner optimizer update. When a gradient holds inf
or nan (the scale was too large: float16 overflowed), the step is skipped and
the scale halved; after ``dynamic_growth_steps`` good steps in a row it doubles.
"""

import numpy as np

from tapeviz import backend as B
from tapeviz.core.indexed_slices import IndexedSlices
from tapeviz.core.primitives.math import cast
from tapeviz.core.tensor import convert_to_tensor, to_array
from tapeviz.core.tracing import host_call
from tapeviz.keras.optimizers.base import Optimizer
from tapeviz.keras.variables import Variable as KerasVariable
from tapeviz.keras.variables import path_scope


class LossScaleOptimizer(Optimizer):
    """Wrap ``inner_optimizer`` with dynamic loss scaling (``keras.optimizers.LossScaleOptimizer``).

    Args:
        inner_optimizer: the optimizer that updates the weights.
        initial_scale: the first loss scale (``2**15``).
        dynamic_growth_steps: good steps in a row after which the scale doubles (2000).
        name: the optimizer's name.
        **kwargs: accepted for compatibility.

    ``fit`` scales the loss itself; a custom loop calls ``scale_loss(loss)``
    inside the tape and ``apply`` / ``apply_gradients`` with those gradients.
    ``dynamic_scale`` and ``step_counter`` are Variables; ``iterations`` and
    ``learning_rate`` are the inner optimizer's (a skipped step is not counted).

    Raises:
        ValueError: an ``inner_optimizer`` that is not an optimizer.
    """

    def __init__(self, inner_optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000, name=None, **kwargs):
        if not isinstance(inner_optimizer, Optimizer):
            raise ValueError(
                "LossScaleOptimizer wraps an optimizer object, e.g. "
                f"LossScaleOptimizer(keras.optimizers.SGD(0.1)); got {inner_optimizer!r}."
            )
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        super().__init__(learning_rate=inner_optimizer.learning_rate, name=name, **kwargs)
        with path_scope(self.name):
            self.step_counter = KerasVariable(np.int64(0), trainable=False, dtype="int64", name="step_counter")
            self.dynamic_scale = KerasVariable(
                np.float32(self.initial_scale), trainable=False, dtype="float32", name="dynamic_scale"
            )

    @property
    def iterations(self):
        """The inner optimizer's step count (skipped steps are not counted)."""
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self):
        """The inner optimizer's learning rate (settable)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if "inner_optimizer" in self.__dict__ and value is not self.inner_optimizer.learning_rate:
            self.inner_optimizer.learning_rate = value

    @property
    def variables(self):
        """Its own iteration count, ``step_counter`` and ``dynamic_scale``, then the inner optimizer's."""
        return [self._iterations, self.step_counter, self.dynamic_scale, *self.inner_optimizer.variables]

    def build(self, var_list):
        """Build the inner optimizer on ``var_list``.

        Args:
            var_list: the variables it will update.
        """
        self.inner_optimizer.build(var_list)
        self.built = True

    def scale_loss(self, loss):
        """``loss * dynamic_scale``: differentiate this, then pass the gradients to ``apply``.

        Args:
            loss: a scalar tensor.

        Returns:
            The scaled loss.
        """
        loss = convert_to_tensor(loss)
        return loss * cast(self.dynamic_scale, loss.dtype)

    def check_finite(self, grads):
        """Whether every gradient is free of inf and nan.

        Args:
            grads: the gradients (None entries allowed).

        Returns:
            A bool.
        """
        xp = B.xp
        for g in grads:
            if g is None:
                continue
            values = g.values if isinstance(g, IndexedSlices) else g
            if not bool(xp.all(xp.isfinite(to_array(values)))):
                return False
        return True

    @host_call(stateful=True)  # inside tf.function: the check and the update run on every call
    def apply(self, grads, trainable_variables=None):
        """Unscale ``grads`` and let the inner optimizer apply them, or skip the step and halve the
        scale when one holds inf or nan; double the scale after ``dynamic_growth_steps`` good steps.

        Args:
            grads: the scaled gradients.
            trainable_variables: the variables (those it was built with when None).
        """
        grads = list(grads)
        if not self.check_finite(grads):
            self.step_counter.assign(np.int64(0))
            self.dynamic_scale.assign(to_array(self.dynamic_scale) / np.float32(2.0))
            return None
        scale = to_array(self.dynamic_scale)
        unscaled = [None if g is None else self._unscale(g, scale) for g in grads]
        self.inner_optimizer.apply(unscaled, trainable_variables)
        if int(to_array(self.step_counter)) < self.dynamic_growth_steps - 1:
            self.step_counter.assign(to_array(self.step_counter) + 1)
        else:
            self.step_counter.assign(np.int64(0))
            self.dynamic_scale.assign(scale * np.float32(2.0))
        return None

    @staticmethod
    def _unscale(gradient, scale):
        if isinstance(gradient, IndexedSlices):
            return IndexedSlices(
                gradient.values / cast(scale, gradient.values.dtype), gradient.indices, gradient.dense_shape
            )
        gradient = convert_to_tensor(gradient)
        return gradient / cast(scale, gradient.dtype)

    def get_config(self):
        return {
            "name": self.name,
            "inner_optimizer": {
                "class_name": type(self.inner_optimizer).__name__,
                "config": self.inner_optimizer.get_config(),
            },
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    def __repr__(self):
        return (
            f"<LossScaleOptimizer inner={self.inner_optimizer!r} dynamic_scale={float(to_array(self.dynamic_scale))}>"
        )
