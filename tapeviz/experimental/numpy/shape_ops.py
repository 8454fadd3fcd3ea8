"""Reshaping and joining as NumPy: ``reshape``, ``transpose``, ``expand_dims``, ``concatenate``..."""

from tapeviz.core.primitives import array as _array
from tapeviz.experimental.numpy._args import promoted, tensor


def reshape(a, newshape, order="C"):
    """``a`` with shape ``newshape`` (one ``-1`` is inferred); only C order."""
    if order != "C":
        raise ValueError(f"tnp.reshape supports order='C' only, got order={order!r}.")
    shape = [int(newshape)] if isinstance(newshape, int) else [int(n) for n in newshape]
    return _array.reshape(tensor(a), shape)


def ravel(a):
    """``a`` flattened to one dimension."""
    return _array.reshape(tensor(a), [-1])


def transpose(a, axes=None):
    """``a`` with its axes reversed, or permuted by ``axes``."""
    return _array.transpose(tensor(a), perm=None if axes is None else list(axes))


def swapaxes(a, axis1, axis2):
    """``a`` with two axes exchanged."""
    a = tensor(a)
    perm = list(range(a.ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _array.transpose(a, perm=perm)


def expand_dims(a, axis):
    """``a`` with a new axis of size 1 at ``axis``."""
    return _array.expand_dims(tensor(a), axis)


def squeeze(a, axis=None):
    """``a`` without its axes of size 1 (or only ``axis``)."""
    return _array.squeeze(tensor(a), axis=axis)


def concatenate(arys, axis=0):
    """The arrays joined along an existing ``axis`` (promoted to one dtype)."""
    return _array.concat(promoted(*arys), axis=axis)


def stack(arrays, axis=0):
    """The arrays joined along a new ``axis`` (promoted to one dtype)."""
    return _array.stack(promoted(*arrays), axis=axis)


def take(a, indices, axis=None):
    """Elements of ``a`` (flattened when ``axis`` is None) at ``indices``."""
    a = tensor(a)
    if axis is None:
        a, axis = _array.reshape(a, [-1]), 0
    return _array.gather(a, tensor(indices), axis=axis)


def broadcast_to(array, shape):
    """``array`` repeated to ``shape`` by broadcasting."""
    return _array.broadcast_to(tensor(array), list(shape))


def shape(a):
    """The shape of ``a`` as a tuple of ints."""
    return tuple(tensor(a).shape)


def ndim(a):
    """The number of dimensions of ``a``."""
    return tensor(a).ndim


def size(a):
    """The number of elements of ``a``."""
    return int(_array.size(tensor(a)))
