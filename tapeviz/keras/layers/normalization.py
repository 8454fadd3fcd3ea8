"""BatchNormalization."""

import tapeviz as _tf
from tapeviz.keras import initializers
from tapeviz.keras.layers.base import Layer


class BatchNormalization(Layer):
    """Normalize over the batch (training) or with moving statistics (inference), as Keras.

    Training: ``y = gamma * (x - mean) / sqrt(var + epsilon) + beta`` with the
    batch's mean and (biased) variance, and the moving statistics updated as
    ``moving = moving * momentum + batch * (1 - momentum)``. Inference uses
    the moving statistics. Defaults: momentum 0.99, epsilon 1e-3.
    ``gamma``, ``beta`` are trainable; ``moving_mean``, ``moving_variance`` not.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon, self.center, self.scale = axis, momentum, epsilon, center, scale
        self._inits = [initializers.get(i) for i in (gamma_initializer, beta_initializer,
                                                     moving_mean_initializer, moving_variance_initializer)]

    def build(self, input_shape):
        size = (input_shape[self.axis],)
        gamma, beta, mean, var = self._inits
        self.gamma = self.add_weight("gamma", size, initializer=gamma) if self.scale else None
        self.beta = self.add_weight("beta", size, initializer=beta) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", size, initializer=mean, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", size, initializer=var, trainable=False)

    def call(self, inputs, training=None):
        inputs = self._as_float(inputs)
        axis = self.axis % inputs.ndim
        reduce_axes = [a for a in range(inputs.ndim) if a != axis]
        shape = [1] * inputs.ndim
        shape[axis] = inputs.shape[axis]

        def shaped(v):
            return None if v is None else _tf.reshape(v, shape)

        if training:
            mean, variance = _tf.nn.moments(inputs, axes=reduce_axes, keepdims=True)
            m = self.momentum
            # The moving statistics are state, not part of the gradient: assign plain values.
            self.moving_mean.assign(self.moving_mean.numpy() * m + _tf.reshape(mean, [-1]).numpy() * (1 - m))
            self.moving_variance.assign(self.moving_variance.numpy() * m + _tf.reshape(variance, [-1]).numpy() * (1 - m))
        else:
            mean, variance = shaped(self.moving_mean), shaped(self.moving_variance)
        return _tf.nn.batch_normalization(inputs, mean, variance, shaped(self.beta), shaped(self.gamma), self.epsilon)
