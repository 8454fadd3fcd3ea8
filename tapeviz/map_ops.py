"""``tf.map_fn``, ``tf.vectorized_map``, ``tf.scan``, ``tf.foldl``, ``tf.foldr``: functions over the rows of tensors.

TF runs these as a graph ``while_loop`` over a ``TensorArray`` (``vectorized_map``
rewrites the function to work on the whole batch at once). tapeviz runs the
function once per row, in order, and stacks the results: the values are TF's,
tapes record every row's ops (so gradients flow to ``elems``, the
initializer and captured variables), and inside a ``tf.function`` the rows
are traced one after the other (the number of rows is known when tracing).
"""

from tapeviz.core import nest
from tapeviz.core.primitives import array as _pa
from tapeviz.core.tensor import convert_to_tensor

__all__ = ["map_fn", "vectorized_map", "scan", "foldl", "foldr"]


def _rows(elems, what):
    """The leaves of ``elems`` as tensors, and their common number of rows."""
    leaves = [convert_to_tensor(leaf) for leaf in nest.flatten(elems)]
    if not leaves:
        raise ValueError(f"{what}: elems must be a tensor or a (nested) sequence of tensors, got {elems!r}.")
    counts = set()
    for leaf in leaves:
        if leaf.ndim == 0:
            raise ValueError(
                f"{what}: elements in elems must be 1+ dimensional Tensors, not scalars (got {leaf.numpy()!r})."
            )
        counts.add(leaf.shape[0])
    if len(counts) > 1:
        raise ValueError(
            f"{what}: elements in elems must have the same first dimension; got first dimensions {sorted(counts)}."
        )
    count = counts.pop()
    if count is None:
        raise NotImplementedError(
            f"tapeviz's {what} needs the number of rows when tracing; trace with a known batch size "
            "(no None first dimension in the input_signature)."
        )
    return leaves, count


def _row(elems, leaves, index):
    return nest.pack_sequence_as(elems, [leaf[index] for leaf in leaves])


def _stack(results, what):
    """Each leaf of the per-row results stacked along a new first axis (the structure of the first result)."""
    first = results[0]
    flat = [nest.flatten(result) for result in results]
    stacked = [_pa.stack([convert_to_tensor(row[i]) for row in flat], axis=0) for i in range(len(flat[0]))]
    return nest.pack_sequence_as(first, stacked)


def _empty(fn_output_signature, what):
    shape = getattr(fn_output_signature, "shape", None)
    dtype = getattr(fn_output_signature, "dtype", fn_output_signature)
    if shape is None or any(n is None for n in shape):
        raise ValueError(
            f"tapeviz's {what} over zero rows needs fn_output_signature=tf.TensorSpec(shape, dtype) with a known "
            "shape (there is no row to call fn on)."
        )
    return _pa.zeros((0,) + tuple(shape), dtype=dtype or "float32")


def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
    fn_output_signature=None,
):
    """``fn`` applied to each row of ``elems`` (unstacked along axis 0), the results stacked.

    Args:
        fn: a function of one row (the nesting of ``elems``, each leaf without its first axis).
        elems: a tensor, or a nested list/tuple/dict of tensors with the same first dimension.
        dtype: TF's older name for ``fn_output_signature``.
        parallel_iterations, back_prop, swap_memory, infer_shape, name: accepted for TF's signature.
        fn_output_signature: the output's dtype or TensorSpec (needed only for zero rows here).

    Returns:
        The stacked results, in the nesting ``fn`` returns.

    Raises:
        ValueError: for scalar elems, leaves with different first dimensions, or zero rows without a signature.
    """
    leaves, count = _rows(elems, "map_fn")
    if count == 0:
        return _empty(fn_output_signature if fn_output_signature is not None else dtype, "map_fn")
    return _stack([fn(_row(elems, leaves, i)) for i in range(count)], "map_fn")


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``map_fn(fn, elems)``: the same values (TF vectorizes ``fn`` over the batch; tapeviz runs it per row).

    Args:
        fn: a function of one row of ``elems``.
        elems: a tensor or nested structure of tensors with the same first dimension.
        fallback_to_while_loop, warn: accepted for TF's signature.

    Returns:
        The stacked results of ``fn``.
    """
    return map_fn(fn, elems)


def _accumulate(fn, elems, initializer, reverse, what):
    """The accumulators after each row (in row order) for ``a = fn(a, row)``, starting at ``initializer``."""
    leaves, count = _rows(elems, what)
    order = list(range(count))[::-1] if reverse else list(range(count))
    if initializer is None:
        if count == 0:
            raise ValueError(f"{what}: elems must have at least one row when no initializer is given.")
        accumulator = _row(elems, leaves, order[0])
        states = {order[0]: accumulator}
        order = order[1:]
    else:
        accumulator, states = initializer, {}
    for i in order:
        accumulator = fn(accumulator, _row(elems, leaves, i))
        states[i] = accumulator
    return accumulator, [states[i] for i in range(count)]


def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """Every accumulator of ``a = fn(a, row)`` over the rows of ``elems``, stacked (``reverse``: from the end).

    Without ``initializer`` the first row (the last with ``reverse``) starts the scan and is the first output.

    Args:
        fn: a function of ``(accumulator, row)`` that returns the new accumulator.
        elems: a tensor (or a nested structure of tensors) whose rows are scanned.
        initializer: the first accumulator (the first row, when None).
        parallel_iterations: accepted for TensorFlow compatibility.
        back_prop: accepted for TensorFlow compatibility (gradients flow).
        swap_memory: accepted for TensorFlow compatibility.
        infer_shape: accepted for TensorFlow compatibility.
        reverse: scan from the last row.
        name: accepted for TensorFlow compatibility, unused.

    Returns:
        Every accumulator, stacked along a new first axis.

    Raises:
        ValueError: zero rows.

    Example:
        >>> import tapeviz as tf
        >>> print(tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4])))
        tf.Tensor([ 1  3  6 10], shape=(4,), dtype=int32)
    """
    _, states = _accumulate(fn, elems, initializer, reverse, "scan")
    if not states:
        raise ValueError("tapeviz's scan over zero rows has nothing to stack.")
    return _stack(states, "scan")


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """The last accumulator of ``a = fn(a, row)`` over the rows of ``elems``, first to last.

    Args:
        fn: a function of ``(accumulator, row)`` that returns the new accumulator.
        elems: a tensor (or a nested structure of tensors) whose rows are folded.
        initializer: the first accumulator (the first row, when None).
        parallel_iterations: accepted for TensorFlow compatibility.
        back_prop: accepted for TensorFlow compatibility (gradients flow).
        swap_memory: accepted for TensorFlow compatibility.
        name: accepted for TensorFlow compatibility, unused.

    Returns:
        The last accumulator.
    """
    accumulator, _ = _accumulate(fn, elems, initializer, False, "foldl")
    return accumulator


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """The last accumulator of ``a = fn(a, row)`` over the rows of ``elems``, last to first.

    Args:
        fn: a function of ``(accumulator, row)`` that returns the new accumulator.
        elems: a tensor (or a nested structure of tensors) whose rows are folded.
        initializer: the first accumulator (the first row, when None).
        parallel_iterations: accepted for TensorFlow compatibility.
        back_prop: accepted for TensorFlow compatibility (gradients flow).
        swap_memory: accepted for TensorFlow compatibility.
        name: accepted for TensorFlow compatibility, unused.

    Returns:
        The last accumulator.
    """
    accumulator, _ = _accumulate(fn, elems, initializer, True, "foldr")
    return accumulator
