"""``TerminateOnNaN``: stop training when the loss is NaN or infinite."""

import math

from tapeviz.keras.callbacks.callback import Callback
from tapeviz.keras.utils.progbar import print_message


class TerminateOnNaN(Callback):
    """Stop training (or raise, with ``raise_error=True``) at the first NaN or infinite batch loss.

    Args:
        raise_error: raise instead of only stopping.
    """

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        """Stop training when the batch's loss is NaN or inf.

        Args:
            batch: the batch's index.
            logs: the running logs (``loss``).

        Raises:
            RuntimeError: a NaN or inf loss, with ``raise_error=True``.
        """
        loss = (logs or {}).get("loss")
        if loss is not None and (math.isnan(loss) or math.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. Terminating training immediately."
                )
            print_message(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
