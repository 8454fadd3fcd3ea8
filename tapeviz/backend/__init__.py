"""The backend seam: the only place that picks an array library.

Everything that computes goes through ``xp`` (NumPy by default, CuPy when
``TAPEVIZ_BACKEND=cupy`` is set before import or ``use("cupy")`` is called),
plus the few helpers NumPy's array API leaves out (scatter-add, erf, host copies).

``TAPEVIZ_BACKEND=strict`` is the checking backend (``tapeviz.backend.strict``):
NumPy whose arrays refuse to meet NumPy outside this seam, as CuPy's do, so
the test suite finds code that would break on a GPU without one.
"""

import math
import os

import numpy as _np

from tapeviz.backend import strict as _strict
from tapeviz.backend import threads as _threads

_NAME = "numpy"
xp = _np


def use(name):
    """Switch the array library: ``"numpy"``, ``"cupy"`` or ``"strict"`` (the checking one).

    Switch before creating tensors: existing tensors keep the arrays they hold.

    Args:
        name: ``"numpy"``, ``"cupy"`` or ``"strict"``.

    Raises:
        ValueError: another name.
        ImportError: ``"cupy"`` without CuPy installed.
    """
    global xp, _NAME
    if name == "numpy":
        xp = _np
    elif name == "cupy":
        try:
            import cupy
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise ImportError(
                "The CuPy backend needs CuPy and a CUDA GPU: pip install 'tapeviz[gpu]' (cupy-cuda12x)."
            ) from exc
        xp = cupy
    elif name == "strict":
        xp = _strict.xp
    else:
        raise ValueError(f"Unknown backend {name!r}: use 'numpy', 'cupy' or 'strict'.")
    _NAME = name
    # Modules that did `from tapeviz.backend import xp` must see the switch,
    # so they read it through this module instead; see `namespace()`.


def name():
    """The active backend's name.

    Returns:
        ``"numpy"``, ``"cupy"`` or ``"strict"``.
    """
    return _NAME


def namespace():
    """The active array namespace (numpy or cupy).

    Returns:
        A module.
    """
    return xp


def asarray(value, dtype=None):
    """An array of the active backend holding ``value``.

    Args:
        value: a number, list or array.
        dtype: the array's dtype.

    Returns:
        An array.
    """
    return xp.asarray(value, dtype=dtype)


def is_array(value):
    """True for an array of NumPy or of the active backend: what tensors hold.

    Args:
        value: anything.

    Returns:
        A bool.
    """
    return isinstance(value, (_np.ndarray, xp.ndarray))


def to_numpy(array):
    """A host NumPy copy (a view when already on the host); host values pass through.

    Args:
        array: an array of any backend, or a host value.

    Returns:
        A NumPy array.
    """
    if xp is _np or not isinstance(array, xp.ndarray):
        return _np.asarray(array)
    if _NAME == "strict":
        return _strict.to_numpy(array)
    return array.get()


def data_pointer(array):
    """The address of an array's first element (host or device memory).

    Args:
        array: an array.

    Returns:
        An int.
    """
    if _NAME == "cupy" and isinstance(array, xp.ndarray):  # pragma: no cover - GPU only
        return array.data.ptr
    if _NAME == "strict":
        array = _strict.unwrap(array)
    return array.__array_interface__["data"][0]


def device_of(array):
    """A TF-style device string for an array.

    Args:
        array: an array.

    Returns:
        A string such as ``"/job:localhost/replica:0/task:0/device:CPU:0"``.
    """
    if _NAME != "cupy" or isinstance(array, _np.ndarray) or _np.isscalar(array):
        return "/job:localhost/replica:0/task:0/device:CPU:0"
    return f"/job:localhost/replica:0/task:0/device:GPU:{array.device.id}"


def scatter_add(shape, indices, updates, dtype):
    """zeros(shape) with ``updates`` added at ``indices`` (any NumPy index; repeats add up).

    NumPy spells this ``np.add.at`` and CuPy ``cupyx.scatter_add``.

    Args:
        shape: the result's shape.
        indices: a NumPy index.
        updates: the values to add.
        dtype: the result's dtype.

    Returns:
        An array.
    """
    out = xp.zeros(shape, dtype=dtype)
    if xp is _np:
        _np.add.at(out, indices, updates)
    elif _NAME == "strict":
        _strict.scatter_add(out, indices, updates)
    else:  # pragma: no cover - GPU only
        import cupyx

        cupyx.scatter_add(out, indices, updates)
    return out


def sum(x, axis=None, keepdims=False, dtype=None):  # noqa: A001 - the backend's twin of xp.sum
    """``xp.sum``. On NumPy through ``np.add.reduce``: np.sum's Python wrapper reports
    inf - inf from NumPy's own module, where tapeviz's warning filter cannot tell it from
    the user's code; the ufunc reports it from the calling kernel, which the filter silences.

    Args:
        x: an array of the active backend (or NumPy).
        axis: the axes (all when None).
        keepdims: keep reduced axes with size 1.
        dtype: the result's dtype.

    Returns:
        An array.
    """
    if xp is _np:
        return _np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return xp.sum(x, axis=axis, keepdims=keepdims, dtype=dtype)


def prod(x, axis=None, keepdims=False, dtype=None):
    """``xp.prod``, on NumPy through ``np.multiply.reduce`` (see ``sum``).

    Args:
        x: an array of the active backend (or NumPy).
        axis: the axes (all when None).
        keepdims: keep reduced axes with size 1.
        dtype: the result's dtype.

    Returns:
        An array.
    """
    if xp is _np:
        return _np.multiply.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return xp.prod(x, axis=axis, keepdims=keepdims, dtype=dtype)


def cumsum(x, axis, dtype=None):
    """``xp.cumsum``, on NumPy through ``np.add.accumulate`` (see ``sum``).

    Args:
        x: an array of the active backend (or NumPy).
        axis: the axis.
        dtype: the result's dtype.

    Returns:
        An array.
    """
    if xp is _np:
        return _np.add.accumulate(x, axis=axis, dtype=dtype)
    return xp.cumsum(x, axis=axis, dtype=dtype)


def cumprod(x, axis, dtype=None):
    """``xp.cumprod``, on NumPy through ``np.multiply.accumulate`` (see ``sum``).

    Args:
        x: an array of the active backend (or NumPy).
        axis: the axis.
        dtype: the result's dtype.

    Returns:
        An array.
    """
    if xp is _np:
        return _np.multiply.accumulate(x, axis=axis, dtype=dtype)
    return xp.cumprod(x, axis=axis, dtype=dtype)


def erf(x):
    """The error function of an array (NumPy has none: SciPy's, else math.erf per element).

    Args:
        x: an array of the active backend (or NumPy).

    Returns:
        An array.
    """
    if _NAME == "cupy":  # pragma: no cover - GPU only
        import cupyx.scipy.special

        return cupyx.scipy.special.erf(x)
    if _NAME == "strict":
        return xp.asarray(_host_erf(_strict.unwrap(x)))
    return _host_erf(x)


def _host_erf(x):
    try:
        from scipy.special import erf as scipy_erf  # fast path when SciPy is there
    except ImportError:
        scipy_erf = _np.vectorize(math.erf, otypes=[x.dtype])
    return _np.asarray(scipy_erf(x), dtype=x.dtype)


if os.environ.get("TAPEVIZ_BACKEND", "numpy") != "numpy":  # pragma: no cover
    use(os.environ["TAPEVIZ_BACKEND"])


def matmul(a, b, out=None):
    """``a @ b`` (stacked), on one BLAS thread when the product is small (see backend/threads.py).

    Args:
        a: an array.
        b: another.
        out: an array to write into.

    Returns:
        An array.
    """
    if _NAME != "cupy":  # NumPy's BLAS (the strict backend is NumPy too)
        _threads.for_product(2 * a.size * b.shape[-1])
    return xp.matmul(a, b) if out is None else xp.matmul(a, b, out=out)


def dot(a, b):
    """``np.dot`` of two matrices, under the same thread policy as ``matmul``.

    Args:
        a: a matrix.
        b: another.

    Returns:
        An array.
    """
    if _NAME != "cupy":  # NumPy's BLAS (the strict backend is NumPy too)
        _threads.for_product(2 * a.size * b.shape[-1])
    return xp.dot(a, b)
