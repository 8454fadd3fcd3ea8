"""How ``tf.print`` writes values, as TF 2.21's PrintV2 kernel does.

A tensor prints as nested brackets of its elements, the first and last
``summarize`` of each axis with ``...`` between (``[0 1 2 ... 7 8 9]``);
float32 and float16 elements with 6 significant digits or 9, float64 with 15 or 17
(``%g``, fewer when they read back exactly: ``1``, ``0.333333343``, ``1e-08``), booleans as 1 and 0. Python
values print as Python prints them, with the tensors inside formatted so.
"""

import numpy as np

from tapeviz.core.tensor_shape import TensorShape

__all__ = ["format_value"]


def _element(value, dtype):
    if dtype == np.bool_:
        return "1" if value else "0"
    if np.issubdtype(dtype, np.floating):  # TF's FloatToBuffer: 6 (15) digits when they read back exactly
        exact = np.float64 if dtype == np.float64 else np.float32
        short, long = (15, 17) if dtype == np.float64 else (6, 9)
        text = f"{float(value):.{short}g}"
        return text if np.isnan(value) or exact(float(text)) == exact(value) else f"{float(value):.{long}g}"
    if np.issubdtype(dtype, np.complexfloating):
        return "?"  # TF's kernel has no format for complex elements
    return str(value)


def _spacing(axis, rank):
    """What goes between two entries along ``axis``: a space on the last axis, else newlines and an indent."""
    if axis == rank - 1:
        return " "
    return "\n" * (rank - axis - 1) + " " * (axis + 1)


def _format_array(array, limit):
    rank = array.ndim
    if rank == 0:
        return _element(array.item(), array.dtype)
    if array.size == 0:
        return "[]"

    def one_axis(block, axis):
        if axis == rank:
            return _element(block.item(), array.dtype)
        count = block.shape[0]
        start_of_end = max(count - limit, limit)
        parts = []
        for i in range(count):
            if i < limit or i >= start_of_end:
                if i > 0:
                    parts.append(_spacing(axis, rank))
                parts.append(one_axis(block[i], axis + 1))
            elif i == limit:
                parts.append(_spacing(axis, rank) + "...")
        return "[" + "".join(parts) + "]"

    return one_axis(array, 0)


def format_value(value, summarize=None, to_array=None):
    """``value`` as tf.print writes it; ``to_array(value)`` gives a tensor's array, or None for other values."""
    limit = 3 if summarize is None else (np.inf if summarize < 0 else int(summarize))
    array = to_array(value) if to_array is not None else None
    if array is not None:
        return _format_array(np.asarray(array), limit)
    if isinstance(value, TensorShape):
        return repr(value)  # as TF's tf.print: TensorShape([2, 3])
    if isinstance(value, dict):
        items = ", ".join(f"{key!r}: {format_value(item, summarize, to_array)}" for key, item in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(format_value(item, summarize, to_array) for item in value)
        return f"({inner}{',' if len(value) == 1 else ''})" if isinstance(value, tuple) else f"[{inner}]"
    return str(value)
