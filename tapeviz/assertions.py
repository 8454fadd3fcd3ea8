"""TF's top-level checks: ``tf.Assert``, ``tf.assert_equal``, ``tf.assert_greater``, ``tf.assert_less``,
``tf.assert_rank``.

A failed check raises TF's ``InvalidArgumentError`` (``assert_rank``: its
``ValueError``, a fact about shapes) with TF's message; a passing one returns
None, as TF 2 does eagerly. Inside ``tf.function`` the value checks run on
every call (host calls of the trace), as TF's Assert ops do.
"""

import numpy as _np

from tapeviz.core.errors import InvalidArgumentError as _InvalidArgumentError
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.core.tracing import host_call as _host_call

__all__ = ["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"]


def _values(array, summarize):
    flat = _np.asarray(array).reshape(-1)
    return f"First {min(flat.size, summarize)} elements of", flat[:summarize]


def _compare(x, y, holds, symbol, message, summarize):
    x = _as_tensor(x)
    y = _as_tensor(y, x.dtype)
    a, b = _to_array(x), _to_array(y)
    if _np.all(holds(a, b)):
        return None
    summarize = 3 if summarize is None else int(summarize)
    head_x, shown_x = _values(a, summarize)
    head_y, shown_y = _values(b, summarize)
    text = f"Condition x {symbol} y did not hold.\n{head_x} x:\n{shown_x}\n{head_y} y:\n{shown_y}"
    raise _InvalidArgumentError(f"{message}\n{text}" if message else text, "Assert")


@_host_call("assert_equal", stateful=True)
def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x == y`` everywhere (broadcasting), as TF."""
    return _compare(x, y, _np.equal, "==", message, summarize)


@_host_call("assert_greater", stateful=True)
def assert_greater(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x > y`` everywhere (broadcasting), as TF."""
    return _compare(x, y, _np.greater, ">", message, summarize)


@_host_call("assert_less", stateful=True)
def assert_less(x, y, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x < y`` everywhere (broadcasting), as TF."""
    return _compare(x, y, _np.less, "<", message, summarize)


def assert_rank(x, rank, message=None, name=None):
    """Raise ``ValueError`` unless ``x`` has rank ``rank`` (the shape is known, so TF checks it at once)."""
    x = _as_tensor(x)
    rank = int(_to_array(_as_tensor(rank))) if not isinstance(rank, int) else rank
    if x.ndim != rank:
        prefix = f"{message}. " if message else ""
        raise ValueError(
            f"{prefix}Tensor {name or ''} must have rank {rank}.  Received rank {x.ndim}, shape {tuple(x.shape)}"
        )
    return None


@_host_call("Assert", stateful=True)
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Raise ``InvalidArgumentError`` showing ``data`` unless ``condition`` (a bool scalar) is true, as ``tf.Assert``."""
    if bool(_np.all(_to_array(_as_tensor(condition)))):
        return None
    summarize = 3 if summarize is None else int(summarize)
    shown = [
        str(_np.asarray(_to_array(item)).reshape(-1)[:summarize]) if hasattr(item, "dtype") else str(item)
        for item in data
    ]
    raise _InvalidArgumentError("assertion failed: [" + "] [".join(shown) + "]", "Assert")
