"""``tf.histogram_fixed_width`` and ``tf.histogram_fixed_width_bins``: counts over equal bins, as TF.

Values below the range count in the first bin, values above it in the last,
as TF's kernels do. Integer results: not differentiable.
"""

import numpy as _np

from tapeviz.core import dtypes as _dtypes
from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.tensor import constant as _constant
from tapeviz.core.tensor import to_array as _to_array

__all__ = ["histogram_fixed_width", "histogram_fixed_width_bins"]


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """The bin (0 .. ``nbins``-1) of each value, ``value_range = [low, high]`` cut into ``nbins`` equal bins.

    Args:
        values: a numeric tensor.
        value_range: ``[low, high]``.
        nbins: the number of bins (> 0).
        dtype: the result's dtype (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of ``values``'s shape, each value's bin.

    Raises:
        ValueError: ``nbins`` of 0 or less.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.histogram_fixed_width_bins(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), [0.0, 5.0], 5).numpy())
        [0 0 1 2 4 4]
    """
    values = _as_tensor(values)
    low, high = (
        _np.asarray(v, dtype=_to_array(values).dtype) for v in _to_array(_as_tensor(value_range, values.dtype))
    )
    nbins = int(_to_array(_as_tensor(nbins))) if not isinstance(nbins, int) else nbins
    if nbins <= 0:
        raise ValueError("nbins must be > 0")
    scaled = (_to_array(values) - low) / (high - low)
    index = _np.floor(scaled * nbins)
    return _constant(_np.clip(index, 0, nbins - 1).astype(_dtypes.as_dtype(dtype).as_numpy_dtype), dtype=dtype)


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """How many ``values`` fall in each of ``nbins`` equal bins of ``value_range`` (out-of-range ones in the end bins).

    Args:
        values: a numeric tensor.
        value_range: ``[low, high]``.
        nbins: the number of bins.
        dtype: the counts' dtype (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A 1-D Tensor of ``nbins`` counts.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), [0.0, 5.0], nbins=5).numpy())
        [2 1 1 0 2]
    """
    bins = _to_array(histogram_fixed_width_bins(values, value_range, nbins, _dtypes.int64))
    nbins = int(nbins) if isinstance(nbins, int) else int(_to_array(_as_tensor(nbins)))
    counts = _np.bincount(bins.reshape(-1), minlength=nbins)
    return _constant(counts.astype(_dtypes.as_dtype(dtype).as_numpy_dtype), dtype=dtype)
