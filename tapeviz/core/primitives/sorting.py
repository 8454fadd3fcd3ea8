"""Ordering ops: ``top_k`` (differentiable in its values) and the binary searches.

``tf.sort`` is a composition of ``top_k`` in ``tapeviz.array_ops``, as in
TF; ``tf.argsort``'s indices come from ``ARG_SORT`` (integers: no gradient,
so tapes skip it, but a trace keeps it and sorts each call's values).
"""

import collections

import numpy as np

from tapeviz import backend as B
from tapeviz.core import dtypes
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.ops import as_tensor, execute, same_dtype
from tapeviz.core.primitive import Primitive
from tapeviz.core.primitives.array.indexing import gather_grad
from tapeviz.core.rules import defgrad, described
from tapeviz.core.tensor import host_value

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def descending_order(x, axis=-1):
    """Indices that sort ``x`` (a backend array) from largest to smallest along ``axis``.

    Stable: equal values keep their order (lower index first), as TF's top_k
    does. Sorting the reversed array ascending and reversing the result gives
    that without negating (which overflows for the smallest integer).

    NaN comes last, below -inf: the order TF's argmax implies (it never picks
    a NaN), so ``top_k(x, 1)`` agrees with ``argmax(x)``. (TF's own top_k
    leaves a NaN wherever its comparisons, all false, happen to put it.)
    """
    xp = B.xp
    n = x.shape[axis]
    nan = xp.isnan(x) if x.dtype.kind == "f" else None
    if nan is not None:
        x = xp.where(nan, xp.asarray(-np.inf, dtype=x.dtype), x)
    flipped = xp.flip(x, axis=axis)
    order = n - 1 - xp.flip(xp.argsort(flipped, axis=axis, kind="stable"), axis=axis)
    if nan is not None:  # move the NaNs after the -infs, each group keeping its order
        order = xp.take_along_axis(
            order, xp.argsort(xp.take_along_axis(nan, order, axis=axis), axis=axis, kind="stable"), axis=axis
        )
    return order


def _arg_sort(x, axis, ascending):
    order = B.xp.argsort(x, axis=axis, kind="stable") if ascending else descending_order(x, axis)
    return order.astype(np.int32)


ARG_SORT = Primitive("ArgSort", _arg_sort, differentiable=None)


def arg_sort(x, axis, ascending):
    """The int32 positions that sort tensor ``x`` along ``axis`` (stable), as ``tf.argsort``'s result."""
    return execute(ARG_SORT, (x,), {"axis": axis, "ascending": ascending})


def _top_k(x, k, index_dtype):
    order = descending_order(x)[..., :k]
    return B.xp.take_along_axis(x, order, axis=-1), order.astype(index_dtype)


TOP_K = Primitive("TopKV2", _top_k, n_outputs=2)


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002 - TF's names
    """The ``k`` largest entries along the last axis and their indices, as ``tf.math.top_k``.

    Returns ``TopKV2(values, indices)``. Equal values come in index order.
    The gradient flows to the chosen entries (a scatter of the upstream).
    ``sorted=False`` still returns them sorted: TF leaves that order
    unspecified.

    Args:
        input: a Tensor, or anything ``tf.constant`` converts, of rank >= 1.
        k: how many entries (<= the last axis's length).
        sorted: return them largest first (True) or in their order.
        index_type: the dtype of the indices (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``TopKV2(values, indices)``, each of shape ``input.shape[:-1] + [k]``.

    Raises:
        tf.errors.InvalidArgumentError: a negative ``k``, or one larger than the last axis.

    Example:
        >>> import tapeviz as tf
        >>> values, indices = tf.math.top_k([1.0, 5.0, 3.0], k=2)
        >>> print(values.numpy(), indices.numpy())
        [5. 3.] [1 2]
    """
    x = as_tensor(input)
    k = int(host_value(k, "top_k's k")) if hasattr(k, "_value") else int(k)
    if x.ndim < 1:
        raise InvalidArgumentError(f"input must be >= 1-D, got shape {list(x._value.shape)} [Op:TopKV2]", "TopKV2")
    n = x._value.shape[-1]
    if k < 0:
        raise InvalidArgumentError(f"Need k >= 0, got {k} [Op:TopKV2]", "TopKV2")
    if k > n:
        raise InvalidArgumentError(
            f"input must have at least k columns. Had {n}, needed {k}: lower k or pad the input. [Op:TopKV2]", "TopKV2"
        )
    if x.dtype.name == "bool":
        raise TypeError("top_k takes numbers, not bool: cast first, e.g. tf.cast(x, tf.int32).")
    index_dtype = dtypes.as_dtype(index_type)
    if index_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"top_k: index_type must be int32 or int64, got {index_dtype.name}.")
    values, indices = execute(TOP_K, (x,), {"k": k, "index_dtype": index_dtype.as_numpy_dtype})
    return TopKV2(values, indices)


@defgrad(
    TOP_K,
    "scatter the upstream of the values back to where they were taken from",
    local=described("1 at each of the k largest entries, 0 elsewhere", None),
)
def _top_k_rule(op, needs, g_values, _g_indices):
    x = op.inputs[0]
    indices = op.outputs[1]
    last = x.ndim - 1
    # The values are x gathered along the last axis, batched over the others.
    return (gather_grad(g_values, indices, last, last, x._value.shape),)


# -- unique (no gradient rule: a gradient through it is TF's LookupError) -------------------------
Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique(x, index_dtype, counts=False):
    values, first, inverse, count = B.xp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = B.xp.argsort(first, kind="stable")  # TF keeps the order of first appearance, NumPy sorts
    rank = B.xp.empty_like(order)
    rank[order] = B.xp.arange(len(order))
    out = (values[order], rank[inverse.reshape(-1)].astype(index_dtype))
    return (*out, count[order].astype(index_dtype)) if counts else out


UNIQUE = Primitive("Unique", _unique, n_outputs=2)
UNIQUE_WITH_COUNTS = Primitive("UniqueWithCounts", lambda x, index_dtype: _unique(x, index_dtype, True), n_outputs=3)


def _unique_input(x, out_idx, op):
    x = as_tensor(x)
    if x.ndim != 1:
        raise InvalidArgumentError(f"unique expects a 1D vector, got shape {list(x._value.shape)} [Op:{op}]", op)
    return x, {"index_dtype": dtypes.as_dtype(out_idx).as_numpy_dtype}


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D ``x`` in order of first appearance, and each entry's position among them.

    Returns ``Unique(y, idx)``, ``x == tf.gather(y, idx)``. No gradient, as TF
    (a gradient through it raises ``LookupError``).

    Args:
        x: a 1-D tensor.
        out_idx: the dtype of ``idx`` (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``Unique(y, idx)``, the distinct values and each entry's position in ``y``.

    Example:
        >>> import tapeviz as tf
        >>> y, idx = tf.unique(tf.constant([3, 1, 3, 2, 1]))
        >>> print(y.numpy(), idx.numpy())
        [3 1 2] [0 1 0 2 1]
    """
    x, attrs = _unique_input(x, out_idx, "Unique")
    return Unique(*execute(UNIQUE, (x,), attrs))


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``unique`` and how often each distinct value occurs: ``UniqueWithCounts(y, idx, count)``.

    Args:
        x: a 1-D tensor.
        out_idx: the dtype of ``idx`` and ``count`` (int32 by default).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``UniqueWithCounts(y, idx, count)``.
    """
    x, attrs = _unique_input(x, out_idx, "UniqueWithCounts")
    return UniqueWithCounts(*execute(UNIQUE_WITH_COUNTS, (x,), attrs))


# -- binary search (integer results: not differentiable, not recorded) ------------------------


def _bound(sequence, values, side, out_dtype):
    """np.searchsorted row by row over the leading dimensions (flattened)."""
    n, m = sequence.shape[-1], values.shape[-1]
    pairs = zip(B.to_numpy(sequence).reshape(-1, n), B.to_numpy(values).reshape(-1, m))
    rows = [np.searchsorted(s, v, side=side) for s, v in pairs]
    return B.xp.asarray(np.asarray(rows, dtype=np.int64).reshape(values.shape), dtype=out_dtype)


LOWER_BOUND = Primitive("LowerBound", lambda s, v, out_dtype: _bound(s, v, "left", out_dtype), differentiable=None)
UPPER_BOUND = Primitive("UpperBound", lambda s, v, out_dtype: _bound(s, v, "right", out_dtype), differentiable=None)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Where each of ``values`` would go in ``sorted_sequence`` to keep it sorted, as ``tf.searchsorted``.

    ``sorted_sequence`` is [..., N] (sorted along the last axis), ``values``
    [..., M] with the same leading dimensions; the result is [..., M] indices
    in [0, N]. ``side='left'`` gives the first such place, ``'right'`` the last.

    Args:
        sorted_sequence: a tensor [..., N], sorted along its last axis.
        values: a tensor [..., M] with the same leading dimensions.
        side: ``"left"`` (the first place) or ``"right"`` (after equal values).
        out_type: int32 or int64.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor [..., M] of indices in [0, N].

    Raises:
        ValueError: a ``side`` other than ``"left"`` and ``"right"``.
        tf.errors.InvalidArgumentError: leading dimensions that differ.
        TypeError: an ``out_type`` other than int32 and int64.
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side!r}.")
    sequence, vals = as_tensor(sorted_sequence), as_tensor(values)
    primitive = LOWER_BOUND if side == "left" else UPPER_BOUND
    if sequence.ndim < 1 or vals.ndim < 1:
        raise InvalidArgumentError(
            f"searchsorted needs a sorted_sequence and values of rank >= 1, got shapes "
            f"{list(sequence._value.shape)} and {list(vals._value.shape)}: wrap a single value in a list. "
            f"[Op:{primitive.name}]",
            primitive.name,
        )
    same_dtype(sequence, vals, op=primitive.name)
    seq_rows = int(np.prod(sequence._value.shape[:-1], dtype=np.int64))
    val_rows = int(np.prod(vals._value.shape[:-1], dtype=np.int64))
    if seq_rows != val_rows:
        raise InvalidArgumentError(
            f"Leading dim_size of both tensors must match: sorted_sequence has shape "
            f"{list(sequence._value.shape)} and values {list(vals._value.shape)}. [Op:{primitive.name}]",
            primitive.name,
        )
    out_dtype = dtypes.as_dtype(out_type)
    if out_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"searchsorted: out_type must be int32 or int64, got {out_dtype.name}.")
    return execute(primitive, (sequence, vals), {"out_dtype": out_dtype.as_numpy_dtype})


__all__ = ["top_k", "searchsorted", "unique", "unique_with_counts"]
