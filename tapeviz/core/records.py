"""``RecordsInit``: objects that remember the arguments they were constructed with.

Saving describes a layer, an optimizer or a ``tf.Module`` by its class and
these arguments (``keras.saving`` and ``tf.saved_model`` both read them), so
the mixin lives below both.
"""

import functools

__all__ = ["RecordsInit", "init_args"]


class RecordsInit:
    """Mixin: remember the arguments of the outermost constructor call, in ``_init_args``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_records_args", False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            if "_init_args" not in self.__dict__:
                self.__dict__["_init_args"] = (args, dict(kw))
            init(self, *args, **kw)

        __init__._records_args = True
        cls.__init__ = __init__


def init_args(obj):
    """``(args, kwargs)`` ``obj`` was constructed with, or None if it does not record them."""
    return getattr(obj, "__dict__", {}).get("_init_args")
