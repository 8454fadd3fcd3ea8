"""``keras.ops`` core and math functions: conversion, dtype, control flow, slicing, segments, top-k.

Control flow (``cond``, ``while_loop``, ``fori_loop``, ``scan``, ``map``) runs
eagerly in Python, as Keras's eager backends do: every step is recorded, so
gradients flow through the iterations that ran.
"""

import numpy as np

from tapeviz import backend as _backend
from tapeviz import math as _tm
from tapeviz.core.custom_gradient import custom_gradient as _custom_gradient
from tapeviz.core.primitives import array as _pa
from tapeviz.core.primitives import scatter as _scatter
from tapeviz.core.primitives.math import stop_gradient as _stop_gradient
from tapeviz.core.tensor import Tensor as _Tensor
from tapeviz.core.tensor import Variable as _Variable
from tapeviz.core.tensor import constant as _constant
from tapeviz.core.tensor import to_array as _to_array
from tapeviz.keras.ops._common import dtype_name, floating, keras_op, real_floating, standardize_dtype, tensor


def cast(x, dtype):
    """``x`` as ``dtype`` (a name, a tapeviz dtype or a NumPy dtype)."""
    with _scope("cast"):
        return tensor(x, standardize_dtype(dtype))


def _scope(name):
    from tapeviz.core.scopes import name_scope

    return name_scope(name)


def saturate_cast(x, dtype):
    """``x`` as ``dtype``, clipped to its range first (no wrap-around)."""
    with _scope("saturate_cast"):
        x = tensor(x)
        target = standardize_dtype(dtype)
        info = np.iinfo(target) if np.issubdtype(np.dtype(target), np.integer) else np.finfo(target)
        if x.dtype.is_floating or np.dtype(x.dtype.as_numpy_dtype).itemsize > np.dtype(target).itemsize:
            lo = max(float(info.min), float(np.finfo(x.dtype.as_numpy_dtype).min) if x.dtype.is_floating else -np.inf)
            hi = min(float(info.max), float(np.finfo(x.dtype.as_numpy_dtype).max) if x.dtype.is_floating else np.inf)
            x = _tm.clip_by_value(x, tensor(lo, x.dtype.name), tensor(hi, x.dtype.name))
        return tensor(x, target)


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a tensor: Python floats become float32 and ints int32; NumPy arrays keep their dtype."""
    if sparse or ragged:
        raise ValueError("tapeviz has no sparse or ragged tensors: call convert_to_tensor without sparse=/ragged=.")
    return tensor(x, standardize_dtype(dtype))


def convert_to_numpy(x):
    """``x`` as a NumPy array (a copy on the host)."""
    if isinstance(x, (_Tensor, _Variable)):
        return np.array(_backend.to_numpy(_to_array(tensor(x))))
    return np.asarray(x)


def is_tensor(x):
    """Whether ``x`` is a tapeviz tensor (a Variable is not one, as in Keras)."""
    return isinstance(x, _Tensor)


def dtype(x):
    """The dtype of ``x`` as Keras spells it: a string such as ``'float32'``."""
    return dtype_name(x)


def shape(x):
    """The static shape of ``x``, a tuple of ints (as Keras returns it)."""
    return tuple(tensor(x).shape)


def stop_gradient(variable):
    """``variable``'s value, with no gradient flowing back through it."""
    return _stop_gradient(tensor(variable))


def custom_gradient(f):
    """Keras's ``@custom_gradient``: ``f(*args)`` returns ``(y, grad_fn)``, ``grad_fn(upstream)`` the input gradients.

    Keras's portable spelling ``def grad(*args, upstream=None)`` (upstream a
    keyword on JAX and torch, positional on TF) works too: the upstream
    gradient is passed by keyword when ``grad_fn`` takes it keyword-only.
    """
    import inspect

    def adapted(*args, **kwargs):
        y, grad_fn = f(*args, **kwargs)
        parameter = inspect.signature(grad_fn).parameters.get("upstream")
        if parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            return y, lambda *upstream: grad_fn(upstream=upstream[0] if len(upstream) == 1 else upstream)
        return y, grad_fn

    adapted.__name__ = getattr(f, "__name__", "custom_gradient")
    return _custom_gradient(adapted)


def _truth(value):
    return bool(convert_to_numpy(value)) if isinstance(value, (_Tensor, _Variable)) else bool(value)


def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()``, decided eagerly."""
    return true_fn() if _truth(pred) else false_fn()


def switch(index, branches, *operands):
    """``branches[index](*operands)``, ``index`` clamped to the branches' range (as Keras)."""
    i = int(convert_to_numpy(index)) if isinstance(index, (_Tensor, _Variable)) else int(index)
    i = min(max(i, 0), len(branches) - 1)
    return branches[i](*operands)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Run ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``, eagerly (at most ``maximum_iterations``)."""
    single = not isinstance(loop_vars, (list, tuple))
    state = (loop_vars,) if single else tuple(loop_vars)
    steps = 0
    while _truth(cond(*state)) and (maximum_iterations is None or steps < maximum_iterations):
        state = body(*state)
        state = (state,) if single or not isinstance(state, (list, tuple)) else tuple(state)
        steps += 1
    return state[0] if single else state


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for i in range(lower, upper), eagerly."""
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def _leading(xs):
    from tapeviz.core import nest

    flat = [tensor(x) for x in nest.flatten(xs)]
    return flat, nest


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns (final carry, stacked ys)."""
    if xs is None:
        steps, flat, nest = int(length), [], None
    else:
        flat, nest = _leading(xs)
        steps = flat[0].shape[0]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    carry, ys = init, []
    for i in order:
        x = None if xs is None else nest.pack_sequence_as(xs, [t[i] for t in flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys or ys[0] is None:
        return carry, None
    return carry, _pa.stack([tensor(y) for y in ys])


def map(f, xs):  # noqa: A001 - Keras's name
    """``f`` applied to each entry along the leading axis of ``xs``, the results stacked."""
    return _pa.stack([tensor(f(x)) for x in _pa.unstack(tensor(xs))])


def vectorized_map(function, elements):
    """``function`` mapped over the leading axis of ``elements`` (a loop, then a stack)."""
    return map(function, elements)


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of ``elems`` along ``axis`` with the associative ``f`` (run sequentially)."""
    x = _pa.unstack(tensor(elems), axis=axis)
    if reverse:
        x = x[::-1]
    out = [x[0]]
    for item in x[1:]:
        out.append(f(out[-1], item))
    if reverse:
        out = out[::-1]
    return _pa.stack(out, axis=axis)


def unstack(x, num=None, axis=0):
    """``x`` split along ``axis`` into a list of tensors one rank lower."""
    return _pa.unstack(tensor(x), num=num, axis=axis)


@keras_op("slice")
def slice(inputs, start_indices, shape):  # noqa: A001 - Keras's name
    """The block of ``inputs`` of ``shape`` starting at ``start_indices``."""
    start = [
        int(s)
        for s in (convert_to_numpy(start_indices) if not isinstance(start_indices, (list, tuple)) else start_indices)
    ]
    return _pa.slice(tensor(inputs), start, list(shape))


@keras_op("slice_update")
def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block at ``start_indices`` replaced by ``updates``."""
    inputs, updates = tensor(inputs), tensor(updates)
    start = [
        int(s)
        for s in (convert_to_numpy(start_indices) if not isinstance(start_indices, (list, tuple)) else start_indices)
    ]
    grid = np.indices(updates.shape).reshape(len(updates.shape), -1).T + np.asarray(start)
    return _scatter.tensor_scatter_nd_update(
        inputs, _constant(grid.astype(np.int32)), _pa.reshape(tensor(updates, inputs.dtype.name), [-1])
    )


@keras_op("scatter")
def scatter(indices, values, shape):
    """A zeros tensor of ``shape`` with ``values`` added at ``indices`` (duplicates sum)."""
    return _scatter.scatter_nd(tensor(indices), tensor(values), list(shape))


@keras_op("scatter_update")
def scatter_update(inputs, indices, updates):
    """``inputs`` with the entries at ``indices`` replaced by ``updates``."""
    inputs = tensor(inputs)
    return _scatter.tensor_scatter_nd_update(inputs, tensor(indices), tensor(updates, inputs.dtype.name))


# -- math ------------------------------------------------------------------------------


@keras_op("erf")
def erf(x):
    """The error function."""
    return _tm.erf(floating(x))


@keras_op("erfc")
def erfc(x):
    """1 - erf(x)."""
    return 1.0 - _tm.erf(floating(x))


@keras_op("rsqrt")
def rsqrt(x):
    """1 / sqrt(x)."""
    return _tm.rsqrt(floating(x))


@keras_op("logsumexp")
def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x), axis)), stable."""
    return _tm.reduce_logsumexp(floating(x), axis=axis, keepdims=keepdims)


@keras_op("top_k")
def top_k(x, k, sorted=True):  # noqa: A002 - Keras's name
    """(values, int32 indices) of the ``k`` largest entries along the last axis."""
    values, indices = _tm.top_k(tensor(x), k=k, sorted=sorted)
    return values, indices


@keras_op("in_top_k")
def in_top_k(targets, predictions, k):
    """Whether each target class is among the ``k`` highest predictions of its row (ties count, as TF)."""
    predictions = tensor(predictions)
    targets = convert_to_numpy(targets).astype(np.int64)
    scores = convert_to_numpy(predictions)
    own = scores[np.arange(len(targets)), targets]
    better = (scores > own[:, None]).sum(axis=1)
    return _constant((better < k) & np.isfinite(own))


def _segment(name, reduce, empty):
    @keras_op(name)
    def op(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 - Keras's name
        data = tensor(data)
        ids = convert_to_numpy(segment_ids).astype(np.int64)
        count = int(ids.max()) + 1 if num_segments is None else int(num_segments)
        rows = []
        for s in range(count):
            members = np.nonzero(ids == s)[0]
            if members.size:
                rows.append(reduce(_pa.gather(data, _constant(members.astype(np.int32))), axis=0))
            else:
                rows.append(_pa.zeros(list(data.shape[1:]), dtype=data.dtype) + empty(data.dtype))
        return _pa.stack(rows)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``keras.ops.{name}(data, segment_ids, num_segments=None)``: one row per segment."
    return op


def _lowest(dtype):
    return np.finfo(dtype.as_numpy_dtype).min if dtype.is_floating else np.iinfo(dtype.as_numpy_dtype).min


def _highest(dtype):
    return np.finfo(dtype.as_numpy_dtype).max if dtype.is_floating else np.iinfo(dtype.as_numpy_dtype).max


segment_sum = _segment("segment_sum", _tm.reduce_sum, lambda d: 0)
segment_max = _segment("segment_max", _tm.reduce_max, _lowest)
segment_min = _segment("segment_min", _tm.reduce_min, _highest)
segment_prod = _segment("segment_prod", _tm.reduce_prod, lambda d: 1)


@keras_op("extract_sequences")
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` taken every ``sequence_stride`` along the last axis."""
    x = tensor(x)
    n = x.shape[-1]
    starts = np.arange(0, n - sequence_length + 1, sequence_stride)
    index = (starts[:, None] + np.arange(sequence_length)[None, :]).astype(np.int32)
    return _pa.gather(x, _constant(index), axis=len(x.shape) - 1)


@keras_op("logdet")
def logdet(x):
    """log(det(x)) of a symmetric positive definite matrix."""
    from tapeviz import linalg

    return linalg.logdet(floating(x))


__all__ = [
    "associative_scan",
    "cast",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "custom_gradient",
    "dtype",
    "erf",
    "erfc",
    "erfinv",
    "cdist",
    "extract_sequences",
    "fori_loop",
    "in_top_k",
    "is_tensor",
    "logdet",
    "logsumexp",
    "map",
    "rsqrt",
    "saturate_cast",
    "scan",
    "scatter",
    "scatter_update",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "shape",
    "slice",
    "slice_update",
    "stop_gradient",
    "switch",
    "top_k",
    "unstack",
    "vectorized_map",
    "while_loop",
]


def _erfinv_host(values):
    """erfinv: Winitzki's approximation, then Newton steps on erf (NumPy has no erfinv; SciPy is no dependency)."""
    from tapeviz import backend

    y = values.astype(np.float64)
    inside = np.abs(y) < 1
    safe = np.where(inside, y, 0.0)
    a = 0.147
    log_term = np.log1p(-safe * safe)
    first = 2.0 / (np.pi * a) + log_term / 2.0
    x = np.sign(safe) * np.sqrt(np.sqrt(first * first - log_term / a) - first)
    for _ in range(8):
        step = (backend.erf(x) - safe) / (2.0 / np.sqrt(np.pi) * np.exp(-x * x))
        x = x - step
    edge = np.where(np.abs(y) == 1, np.copysign(np.inf, y), np.nan)  # erfinv(+-1) = +-inf, nan outside [-1, 1]
    return np.where(inside, x, edge)


@keras_op("erfinv")
def erfinv(x):
    """The inverse error function; its gradient is sqrt(pi)/2 * exp(erfinv(x)**2)."""
    x = real_floating(x, "erfinv")

    @_custom_gradient
    def _erfinv(value):
        result = _constant(_erfinv_host(convert_to_numpy(value)).astype(value.dtype.as_numpy_dtype))

        def grad(upstream):
            return upstream * (float(np.sqrt(np.pi)) / 2.0) * _tm.exp(_tm.square(result))

        return result, grad

    return _erfinv(x)


@keras_op("cdist")
def cdist(x, y):
    """Euclidean distances between every row of ``x`` (..., n, d) and every row of ``y`` (..., m, d)."""
    a, b = floating(x), floating(y)
    diff = _pa.expand_dims(a, -2) - _pa.expand_dims(b, -3)
    return _tm.sqrt(_tm.reduce_sum(_tm.square(diff), axis=-1))
