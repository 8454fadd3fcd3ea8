"""``LambdaCallback``: a callback from plain functions."""

from tapeviz.keras.callbacks.callback import Callback


class LambdaCallback(Callback):
    """A callback from plain functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``.

    Any other ``on_*`` hook may be given by keyword too (``on_test_end=...``).

    Args:
        on_epoch_begin: a function of ``(epoch, logs)``.
        on_epoch_end: a function of ``(epoch, logs)``.
        on_train_begin: a function of ``(logs)``.
        on_train_end: a function of ``(logs)``.
        on_train_batch_begin: a function of ``(batch, logs)``.
        on_train_batch_end: a function of ``(batch, logs)``.
        **kwargs: other hooks by name (``on_test_begin``...), each a function.
    """

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_train_begin=None,
        on_train_end=None,
        on_train_batch_begin=None,
        on_train_batch_end=None,
        **kwargs,
    ):
        super().__init__()
        self.__dict__.update(kwargs)
        given = dict(
            on_epoch_begin=on_epoch_begin,
            on_epoch_end=on_epoch_end,
            on_train_begin=on_train_begin,
            on_train_end=on_train_end,
            on_train_batch_begin=on_train_batch_begin,
            on_train_batch_end=on_train_batch_end,
        )
        for name, fn in given.items():
            if fn is not None:
                setattr(self, name, fn)
