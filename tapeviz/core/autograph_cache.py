"""The AutoGraph-converted version of each function, made once (tf.function asks for it on every trace)."""

import weakref

from tapeviz.core import autograph_converter, autograph_operators

_CONVERTED = weakref.WeakKeyDictionary()  # python function -> converted (itself when it cannot be converted)


def converted(function):
    """``function`` with its tensor-dependent control flow converted, or ``function`` when it has no source."""
    try:
        return _CONVERTED[function]
    except (KeyError, TypeError):
        pass
    if getattr(function, "_tapeviz_do_not_convert", False) or not hasattr(function, "__code__"):
        result = function
    else:
        try:
            result = autograph_converter.convert(function, autograph_operators)
        except (autograph_converter.ConversionError, SyntaxError, ValueError, KeyError):
            result = function  # what cannot be converted runs as written (its tensor decisions fall back)
    try:
        _CONVERTED[function] = result
    except TypeError:
        pass
    return result
