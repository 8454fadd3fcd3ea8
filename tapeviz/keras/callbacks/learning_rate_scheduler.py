"""``LearningRateScheduler``: set the learning rate from a function of the epoch."""

import numpy as np

from tapeviz.keras.callbacks.callback import Callback, learning_rate_of
from tapeviz.keras.utils.progbar import print_message


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch's start to ``schedule(epoch, lr)`` (or ``schedule(epoch)``).

    Args:
        schedule: a function of ``(epoch, lr)`` (or of ``epoch``) that returns the new learning rate.
        verbose: 1 prints each change.
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        """Set the optimizer's learning rate from ``schedule``.

        Args:
            epoch: the epoch's index.
            logs: unused.

        Raises:
            ValueError: an optimizer without a ``learning_rate``, or a schedule that returns no float.
        """
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, learning_rate_of(optimizer))
        except TypeError:  # the one-argument form
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        if self.verbose > 0:
            print_message(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {learning_rate}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = learning_rate_of(self.model.optimizer)
