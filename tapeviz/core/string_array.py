"""What a ``tf.string`` tensor holds: a NumPy object array of ``bytes`` that stays an array.

NumPy hands back the bare Python object where a number array would give a NumPy scalar
(``a[0]``, ``a + b`` at rank 0, ``np.take`` of one element): ``StringArray`` keeps every
such result a 0-d array, so the ops written for numbers (reshape, gather, concat, slicing,
where, tile...) work on strings unchanged. Its ufuncs are TF's: ``+`` joins, ``==`` and
``!=`` compare, anything else is TF's error. ``np.asarray`` gives the plain object array
back, which is what ``Tensor.numpy()`` returns, as TF does.
"""

import numpy as np

from tapeviz.core.errors import InvalidArgumentError

_OBJECT = np.dtype(object)
_COMPARISONS = (np.equal, np.not_equal)
_JOIN = np.frompyfunc(bytes.__add__, 2, 1)  # elementwise b"a" + b"b", broadcasting


def _plain(value):
    """``value`` with every StringArray in it (nested lists and tuples too) as a plain ndarray."""
    if isinstance(value, StringArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    return value


def _wrapped(result):
    """A NumPy result as string arrays: object arrays and bare bytes become StringArrays."""
    if isinstance(result, np.ndarray):
        return result.view(StringArray) if result.dtype == _OBJECT and type(result) is not StringArray else result
    if isinstance(result, bytes):
        return scalar(result)
    if isinstance(result, (list, tuple)):
        return type(result)(_wrapped(item) for item in result)
    return result


class StringArray(np.ndarray):
    """A NumPy object array of ``bytes`` whose results stay arrays (see the module's note)."""

    def __getitem__(self, key):
        return _wrapped(np.ndarray.__getitem__(self, key))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs and (ufunc is np.add or ufunc in _COMPARISONS):
            arrays = [_as_bytes_operand(value, ufunc) for value in inputs]
            if ufunc is np.add:
                return _wrapped(_JOIN(*arrays))
            # == and != of bytes: a bool array (a NumPy bool for rank 0), as for numbers
            return np.asarray(ufunc(*arrays), dtype=bool)[()]
        what = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        raise InvalidArgumentError(
            f"Value for attr 'T' of string is not in the list of allowed values ({what} of a string "
            "tensor): string tensors take +, ==, != and the tf.strings ops; convert them first, "
            "e.g. tf.strings.to_number(s)",
            what,
        )

    def __array_function__(self, func, types, args, kwargs):
        if func is np.zeros_like:  # TF's zeros of a string tensor are empty strings
            return empty_strings(np.shape(args[0]))
        return _wrapped(func(*_plain(args), **_plain(kwargs)))


def _as_bytes_operand(value, ufunc):
    value = np.asarray(value)
    if value.dtype != _OBJECT:
        raise InvalidArgumentError(
            f"cannot compute {ufunc.__name__} of a string tensor and a {value.dtype} value: "
            "convert the number first, e.g. tf.strings.as_string(x)",
            ufunc.__name__,
        )
    return value


def scalar(value):
    """A 0-d StringArray holding one ``bytes``."""
    array = np.empty((), dtype=object).view(StringArray)
    np.ndarray.__setitem__(array, (), value)
    return array


def of_bytes(items, shape):
    """A StringArray of ``shape`` filled, in order, from the iterable of bytes ``items``."""
    array = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
    array[:] = list(items) if array.size else []
    return array.reshape(shape).view(StringArray)


def map_bytes(function, array):
    """A StringArray of ``array``'s shape: ``function`` applied to each ``bytes``."""
    flat = np.asarray(array).reshape(-1)
    return of_bytes((function(item) for item in flat), np.shape(array))


def empty_strings(shape):
    """A StringArray of ``shape`` holding ``b''`` everywhere (what a string spec is traced on, and zeros_like)."""
    return of_bytes((b"" for _ in range(int(np.prod(shape, dtype=np.int64)))), shape)


def is_strings(array):
    """True when ``array`` is an array of a string tensor."""
    return getattr(array, "dtype", None) == _OBJECT


def _text_of(item):
    """``item``'s ``bytes`` or ``str`` when it is one string: itself, or a 0-d string array or string
    tensor nested in a list (``[[t1], [t2]]`` packs as TF's ``convert_to_tensor`` does); else None."""
    if isinstance(item, (str, bytes)):
        return item
    if isinstance(item, (np.bytes_, bytearray)):
        return bytes(item)
    if hasattr(item, "__array__"):  # an ndarray or a tensor, without importing Tensor here
        array = np.asarray(item)
        if array.ndim == 0 and array.dtype.kind in "USO":
            text = array.item()
            return text if isinstance(text, (str, bytes)) else None
    return None


def from_python(value, mixed_error=TypeError):
    """A StringArray from a Python or NumPy value of strings: ``str`` encoded as UTF-8, ``bytes`` kept.

    Args:
        value: a ``str`` or ``bytes``, a nested list of them (or of string tensors), or a NumPy array
            of kind ``U``, ``S`` or ``O``.

    Returns:
        A StringArray.

    Raises:
        TypeError: an element that is not a ``str`` or ``bytes`` (``mixed_error`` instead: TF's
            ValueError for a list that mixes strings and numbers).
    """
    if isinstance(value, np.ndarray) and value.dtype.kind in "US":
        value = value.astype(object)
    try:
        array = np.array(value, dtype=object)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    flat = array.reshape(-1)
    # A list holding tensors is packed, as TF's auto-packing: a number in it is a TypeError, not ValueError.
    packed = any(hasattr(item, "__array__") for item in flat)
    for i, item in enumerate(flat):
        text = _text_of(item)
        if text is None:
            _refuse(value, item, TypeError if packed else mixed_error)
        flat[i] = text.encode("utf-8") if isinstance(text, str) else text
    return np.asarray(flat).reshape(array.shape).view(StringArray)


def _refuse(value, item, error):
    """TF's error for a non-string ``item`` in a string value: a number tensor fails Pack's dtype check."""
    kind = np.asarray(item).dtype if hasattr(item, "__array__") else None
    if kind is not None and kind != _OBJECT:
        raise InvalidArgumentError(
            f"cannot compute Pack as input was expected to be a string tensor but is a {getattr(item.dtype, 'name', kind)} "
            "tensor: convert numbers first, e.g. tf.strings.as_string(x)",
            "Pack",
        )
    raise error(
        f"Cannot convert {value!r} to EagerTensor of dtype string: {item!r} is not a str or bytes. "
        "Convert numbers yourself first, e.g. tf.strings.as_string(x)."
    )


def holds_strings(value):
    """True when a Python or NumPy value is made of strings (so it becomes a ``tf.string`` tensor):
    ``str``/``bytes``, arrays of them, nested lists of them or of string tensors."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return True
    if not hasattr(value, "__array__"):
        return False
    array = np.asarray(value)
    if array.dtype.kind in "US":
        return array.size > 0
    return array.dtype == _OBJECT and array.size > 0 and _text_of(array.reshape(-1)[0]) is not None
