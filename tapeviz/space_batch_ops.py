"""``tf.space_to_batch_nd`` (``tf.space_to_batch``), ``tf.batch_to_space`` and
``tf.required_space_to_batch_paddings``: blocks of the spatial axes moved into the batch and back.

Each is a pad or crop, a reshape and a transpose, as TF describes the ops,
so the gradients are those ops' (the inverse rearrangement), as TF's.
"""

import numpy as _np

from tapeviz.core.ops import as_tensor as _as_tensor
from tapeviz.core.primitives.array import pad as _pad
from tapeviz.core.primitives.array import reshape as _reshape
from tapeviz.core.primitives.array import transpose as _transpose
from tapeviz.core.tensor import constant as _constant
from tapeviz.core.tensor import host_value as _host_value

__all__ = ["batch_to_space", "required_space_to_batch_paddings", "space_to_batch", "space_to_batch_nd"]


def _ints(value):
    # Read on the host: a trace that cannot keep the read runs eagerly (core.tensor.host_value).
    array = _np.asarray(_host_value(value, "a block shape, paddings or crops") if hasattr(value, "dtype") else value)
    if array.dtype.kind not in "iu":
        raise TypeError(f"block shapes, paddings and crops are integers, got {array.dtype}")
    return array.astype(_np.int64)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """Zero-pad the ``M`` spatial axes after the batch, cut them into ``block_shape`` blocks, and move each
    position within a block into the batch: shape ``[batch * prod(block_shape), padded / block_shape..., rest...]``.

    Args:
        input: a tensor ``[batch, spatial..., rest...]``.
        block_shape: the block size per spatial axis (>= 1).
        paddings: ``[M, 2]`` zeros to add before and after each spatial axis (>= 0).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor of the shape above.

    Raises:
        ValueError: a block size below 1, paddings of another shape or negative, or a
            padded size that the block does not divide.

    Example:
        >>> import tapeviz as tf
        >>> x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
        >>> print(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])[:, :, :, 0].numpy()[0])
        [[ 0.  2.]
         [ 8. 10.]]
    """
    x = _as_tensor(input)
    blocks, pads = _ints(block_shape).reshape(-1), _ints(paddings).reshape(-1, 2)
    m = blocks.size
    if pads.shape[0] != m or (blocks < 1).any() or (pads < 0).any():
        raise ValueError("block_shape must be >= 1 and paddings of shape [M, 2], >= 0, for the M spatial axes")
    x = _pad(x, [[0, 0], *pads.tolist(), *[[0, 0]] * (x.ndim - 1 - m)])
    batch, spatial, rest = x.shape[0], list(x.shape[1 : 1 + m]), list(x.shape[1 + m :])
    if any(size % block for size, block in zip(spatial, blocks.tolist())):
        raise ValueError(f"padded spatial shape {spatial} must be divisible by block_shape {blocks.tolist()}")
    split = [batch] + [n for size, block in zip(spatial, blocks.tolist()) for n in (size // block, block)] + rest
    x = _reshape(x, split)
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, len(split)))
    x = _transpose(x, order)
    return _reshape(x, [batch * int(blocks.prod())] + [s // b for s, b in zip(spatial, blocks.tolist())] + rest)


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """TF 2's ``tf.space_to_batch``: the same as ``space_to_batch_nd``.

    Args:
        input: a tensor ``[batch, spatial..., rest...]``.
        block_shape: the block size per spatial axis.
        paddings: ``[M, 2]`` zeros to add before and after each spatial axis.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        What ``space_to_batch_nd`` returns.
    """
    return space_to_batch_nd(input, block_shape, paddings, name)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002 - TF's name
    """The inverse of ``space_to_batch_nd``: batch entries back into blocks of the spatial axes, then ``crops``
    (``[M, 2]``: start and end) cut off.

    Args:
        input: a tensor ``[batch * prod(block_shape), spatial..., rest...]``.
        block_shape: the block size per spatial axis.
        crops: ``[M, 2]``: what to cut from the start and end of each spatial axis.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor ``[batch, spatial * block_shape - crops, rest...]``.

    Raises:
        ValueError: a batch that ``prod(block_shape)`` does not divide.
    """
    x = _as_tensor(input)
    blocks, cuts = _ints(block_shape).reshape(-1), _ints(crops).reshape(-1, 2)
    m = blocks.size
    total = int(blocks.prod())
    if cuts.shape[0] != m or x.shape[0] % total:
        raise ValueError(f"the batch ({x.shape[0]}) must be divisible by prod(block_shape) ({total}), crops [M, 2]")
    batch, spatial, rest = x.shape[0] // total, list(x.shape[1 : 1 + m]), list(x.shape[1 + m :])
    x = _reshape(x, blocks.tolist() + [batch] + spatial + rest)
    order = [m] + [n for i in range(m) for n in (m + 1 + i, i)] + list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = _transpose(x, order)
    grown = [s * b for s, b in zip(spatial, blocks.tolist())]
    x = _reshape(x, [batch] + grown + rest)
    key = (slice(None),) + tuple(slice(int(a), size - int(b)) for (a, b), size in zip(cuts.tolist(), grown))
    return x[key]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)`` that make ``input_shape`` (the spatial sizes) plus ``base_paddings`` divisible by
    ``block_shape``: the extra padding goes at the end, and ``crops`` removes it again.

    Args:
        input_shape: the spatial sizes.
        block_shape: the block size per spatial axis.
        base_paddings: ``[M, 2]`` paddings to add at least (zeros when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        ``(paddings, crops)``, two int32 Tensors ``[M, 2]``.
    """
    shape, blocks = _ints(input_shape).reshape(-1), _ints(block_shape).reshape(-1)
    base = _np.zeros((blocks.size, 2), _np.int64) if base_paddings is None else _ints(base_paddings).reshape(-1, 2)
    full = shape + base[:, 0] + base[:, 1]
    extra = (blocks - full % blocks) % blocks
    paddings = _np.stack([base[:, 0], base[:, 1] + extra], axis=1)
    crops = _np.stack([_np.zeros_like(extra), extra], axis=1)
    return _constant(paddings.astype(_np.int32)), _constant(crops.astype(_np.int32))
