"""``experimental_enable_numpy_behavior``: tensors that promote and have NumPy's methods, as TF.

TF adds methods to ``tf.Tensor`` (``.reshape``, ``.T``, ``.astype``...) and
switches its operators to NumPy's type promotion; tapeviz does the same to
``Tensor`` and ``Variable``. The methods are tnp functions, so they stay ops.
"""

from tapeviz.core import numpy_promotion
from tapeviz.core.primitives.math import cast
from tapeviz.core.tensor import Tensor, Variable
from tapeviz.experimental.numpy import math_ops, shape_ops


def _shape_args(args):
    return args[0] if len(args) == 1 and not isinstance(args[0], int) else args


def _reshape(self, *shape, order="C"):
    return shape_ops.reshape(self, _shape_args(shape), order=order)


def _transpose(self, *axes):
    return shape_ops.transpose(self, _shape_args(axes) if axes else None)


def _astype(self, dtype):
    return cast(self, dtype)


def _tolist(self):
    return self.numpy().tolist()


def _max(self, axis=None, keepdims=False):
    return math_ops.amax(self, axis=axis, keepdims=keepdims)


def _min(self, axis=None, keepdims=False):
    return math_ops.amin(self, axis=axis, keepdims=keepdims)


def _mean(self, axis=None, dtype=None, keepdims=False):
    return math_ops.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)


def _clip(self, a_min, a_max):
    return math_ops.clip(self, a_min, a_max)


# The methods TF 2.21 adds to tf.Tensor, by name.
_METHODS = {
    "reshape": _reshape,
    "ravel": shape_ops.ravel,
    "flatten": shape_ops.ravel,
    "transpose": _transpose,
    "T": property(shape_ops.transpose),
    "astype": _astype,
    "tolist": _tolist,
    "clip": _clip,
    "max": _max,
    "min": _min,
    "mean": _mean,
    "size": property(shape_ops.size),
    "data": property(lambda self: self),
}


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Give tensors NumPy's methods (``.reshape``, ``.T``, ``.astype``, ``.ravel``...) and NumPy's
    type promotion in their operators (``int32 + float32 -> float64``), as TF.

    ``prefer_float32=True`` makes Python floats (and ``tnp`` arrays made from them) float32.
    Only ``dtype_conversion_mode="legacy"`` (TF's default) is available.
    """
    if dtype_conversion_mode != "legacy":
        raise ValueError(
            f"tapeviz has NumPy's legacy promotion only (dtype_conversion_mode='legacy'), got {dtype_conversion_mode!r}."
        )
    numpy_promotion.settings.enabled = True
    numpy_promotion.settings.prefer_float32 = bool(prefer_float32)
    for cls in (Tensor, Variable):
        for name, method in _METHODS.items():
            setattr(cls, name, method)


def disable_numpy_behavior():
    """Undo ``experimental_enable_numpy_behavior`` (tapeviz's own; TF has no undo): tensors lose
    the NumPy methods and their operators go back to TF's rule (mismatched dtypes are an error)."""
    numpy_promotion.settings.enabled = False
    numpy_promotion.settings.prefer_float32 = False
    for cls in (Tensor, Variable):
        for name in _METHODS:
            if name in vars(cls):
                delattr(cls, name)
