"""``tf.autograph``: the source AutoGraph makes of a function (``to_code``), the converted function
(``to_graph``), and ``experimental.do_not_convert``. tf.function converts on its own (core.autograph_cache)."""

import types

from tapeviz.core import autograph_cache, autograph_converter


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The Python source AutoGraph converts ``entity`` (a function or a ``tf.function``) into."""
    function = getattr(entity, "python_function", entity)
    try:
        return autograph_converter.to_source(function) + "\n"
    except autograph_converter.ConversionError as exc:
        raise ValueError(f"AutoGraph cannot convert {getattr(function, '__name__', entity)!r}: {exc}") from None


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``entity`` with its tensor-dependent ``if``/``while``/``for`` converted to ``tf.cond``/``tf.while_loop``."""
    return autograph_cache.converted(getattr(entity, "python_function", entity))


def _do_not_convert(func=None):
    """Decorate a function that tf.function must run as written (no AutoGraph conversion)."""
    if func is None:
        return _do_not_convert
    func._tapeviz_do_not_convert = True
    return func


experimental = types.SimpleNamespace(do_not_convert=_do_not_convert)
