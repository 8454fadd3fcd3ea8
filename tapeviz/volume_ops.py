"""``tf.nn.conv3d``, ``conv3d_transpose``, ``max_pool3d`` and ``avg_pool3d``, composed from the 2-D ops (NDHWC only).

A 3-D window is a stack of 2-D windows along the depth axis: for each depth
offset ``k`` of the window, the slices ``x[:, k :: stride]`` of the (padded)
input go through the 2-D op with that offset's filter (or pool), and the
results are summed (or maxed, or averaged) over ``k``. So every 3-D op is a
few recorded 2-D ops and slices: the tape, the gradients and the pictures
come from rules written once, for the 2-D ops.
"""

import math

from tapeviz.core.ops import as_tensor
from tapeviz.core.primitives.array import concat, pad, reshape, stack, zeros
from tapeviz.core.primitives.conv import avg_pool2d, conv2d, conv2d_backprop_input, max_pool2d
from tapeviz.core.primitives.math import add_n, reduce_max

__all__ = ["conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d"]


def _triple(value, name):
    """(depth, height, width) from an int, three ints, or TF's five (1, d, h, w, 1)."""
    values = [value] * 3 if isinstance(value, int) else list(value)
    if len(values) == 5:
        values = values[1:4]
    if len(values) != 3:
        raise ValueError(f"`{name}` must be an int, 3 ints or 5 ints (1, depth, height, width, 1); got {value!r}.")
    return tuple(int(v) for v in values)


def _check(x, data_format, what):
    if data_format not in (None, "NDHWC"):
        raise ValueError(f"tapeviz's tf.nn.{what} supports data_format='NDHWC' only; got {data_format!r}.")
    if x.ndim != 5:
        raise ValueError(f"tf.nn.{what} needs a 5-D input (batch, depth, height, width, channels); got rank {x.ndim}.")


def _depth_plan(depth, size, stride, dilation, padding):
    """(outputs along depth, padding before, padding after) as TF computes them for VALID or SAME."""
    span = (size - 1) * dilation + 1
    if padding == "VALID":
        return max((depth - span) // stride + 1, 0), 0, 0
    out = math.ceil(depth / stride)
    total = max((out - 1) * stride + span - depth, 0)
    return out, total // 2, total - total // 2


def _slices(x, out, stride, dilation, size):
    """For each depth offset of the window: the (batch * out, h, w, c) stack of the input slices it sees."""
    batch, _, height, width, channels = x.shape
    for k in range(size):
        start = k * dilation
        piece = x[:, start : start + (out - 1) * stride + 1 : stride]
        yield reshape(piece, (batch * out, height, width, channels))


def _unstack_depth(y, batch, out):
    return reshape(y, (batch, out) + tuple(y.shape[1:]))


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of ``input`` (batch, depth, height, width, in) with ``filters`` (kd, kh, kw, in, out).

    ``strides`` and ``dilations``: TF's five (1, d, h, w, 1) or three; ``padding`` "VALID" or "SAME".
    Raises ValueError for another layout than NDHWC, a non-5-D input, or a filter whose input channels differ.

    Args:
        input: a (batch, depth, height, width, in) tensor.
        filters: a (kd, kh, kw, in, out) tensor.
        strides: the step per axis: TF's 5-entry list (1 for batch and channels).
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NDHWC"`` only.
        dilations: the spacing of the filter's taps (1s when None).
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A (batch, depth', height', width', out) Tensor.

    Raises:
        ValueError: another data format, or inputs of the wrong ranks.
    """
    x, w = as_tensor(input), as_tensor(filters)
    _check(x, data_format, "conv3d")
    sd, sh, sw = _triple(strides, "strides")
    dd, dh, dw = _triple(dilations if dilations is not None else 1, "dilations")
    padding = str(padding).upper()
    size = w.shape[0]
    if w.ndim != 5 or w.shape[3] != x.shape[4]:
        raise ValueError(
            f"conv3d's filters must be (depth, height, width, {x.shape[4]} in channels, out channels); "
            f"got shape {tuple(w.shape)}."
        )
    out, before, after = _depth_plan(x.shape[1], size, sd, dd, padding)
    if before or after:
        x = pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]])
    batch = x.shape[0]
    terms = [
        conv2d(piece, w[k], strides=(sh, sw), padding=padding, dilations=(dh, dw))
        for k, piece in enumerate(_slices(x, out, sd, dd, size))
    ]
    return _unstack_depth(add_n(terms) if len(terms) > 1 else terms[0], batch, out)


def _pool3d(x, ksize, strides, padding, data_format, what, pool2d, reduce_rows):
    """Pool each depth offset of the window with the 2-D ``pool2d``, then ``reduce_rows`` the pooled rows
    that lie inside the input (never the depth padding) into each output row."""
    x = as_tensor(x)
    _check(x, data_format, what)
    kd, kh, kw = _triple(ksize, "ksize")
    sd, sh, sw = _triple(strides, "strides")
    padding = str(padding).upper()
    out, before, _ = _depth_plan(x.shape[1], kd, sd, 1, padding)
    pooled = []
    for k in range(kd):  # each depth offset: the rows of the window it sees, in the unpadded input
        rows = [d * sd + k - before for d in range(out)]
        valid = [0 <= r < x.shape[1] for r in rows]
        pooled.append((_rows_2d(x, rows, valid, pool2d, (kh, kw), (sh, sw), padding), valid))
    columns = []
    for d in range(out):
        seen = [y[:, d] for y, valid in pooled if valid[d]]
        columns.append(reduce_rows(seen) if len(seen) > 1 else seen[0])
    return stack(columns, axis=1)


def _rows_2d(x, rows, valid, pool, ksize, strides, padding):
    """The 2-D pool of the input rows ``rows`` (a stand-in row where a row is padding), (batch, out, h', w', c)."""
    batch, _, height, width, channels = x.shape
    safe = [r if ok else 0 for r, ok in zip(rows, valid)]
    picked = stack([x[:, r] for r in safe], axis=1)  # (batch, out, h, w, c)
    y = pool(reshape(picked, (batch * len(rows), height, width, channels)), ksize, strides, padding)
    return reshape(y, (batch, len(rows)) + tuple(y.shape[1:]))


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Max over (kd, kh, kw) windows of a (batch, depth, height, width, channels) input; padding is never
    the maximum (as TF). ``ksize``, ``strides``: TF's five or three; ``padding`` "VALID" or "SAME".

    Args:
        input: a (batch, depth, height, width, channels) tensor.
        ksize: the window's size (an int, or one per spatial axis, or TF's full list).
        strides: the window's step, likewise.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NDHWC"`` only.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the pooled spatial sizes.
    """

    def largest(rows):
        return reduce_max(stack(rows, axis=0), axis=0)

    return _pool3d(input, ksize, strides, padding, data_format, "max_pool3d", max_pool2d, largest)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Mean over (kd, kh, kw) windows of a (batch, depth, height, width, channels) input; with "SAME", the
    mean of the window's elements inside the input (padding does not count, as TF).

    Args:
        input: a (batch, depth, height, width, channels) tensor.
        ksize: the window's size (an int, or one per spatial axis, or TF's full list).
        strides: the window's step, likewise.
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NDHWC"`` only.
        name: TensorFlow's op name; accepted for compatibility, unused.

    Returns:
        A Tensor with the pooled spatial sizes.
    """

    def mean(rows):  # each 2-D mean covers the same in-input (h, w) cells, so the rows weigh alike
        return add_n(rows) / float(len(rows))

    return _pool3d(input, ksize, strides, padding, data_format, "avg_pool3d", avg_pool2d, mean)


# -- conv3d_transpose ------------------------------------------------------------------------------------
# The transpose of conv3d spreads each input depth row i through each depth offset k of the filter into
# output row i * stride + k * dilation - padding: a 2-D transposed convolution of the row with the filter's
# slice k, placed every `stride` rows (a reshape with zero rows between, then a pad or crop); the slices are
# summed, so the gradients come from the 2-D op's rules.


def _spread(rows, stride, offset, depth):
    """``rows`` (batch, n, ...) placed at output rows offset, offset + stride, ... of a depth-``depth`` volume."""
    batch, count = rows.shape[0], rows.shape[1]
    rest = tuple(rows.shape[2:])
    if stride > 1:  # zero rows between: (batch, n, stride, ...) -> (batch, n * stride, ...)
        gaps = zeros((batch, count, stride - 1) + rest, dtype=rows.dtype)
        rows = reshape(concat([reshape(rows, (batch, count, 1) + rest), gaps], axis=2), (batch, count * stride) + rest)
    if offset < 0:
        rows = rows[:, -offset:]
        offset = 0
    rows = rows[:, : max(depth - offset, 0)]
    after = depth - offset - rows.shape[1]
    return pad(rows, [[0, 0], [offset, after]] + [[0, 0]] * len(rest))


def conv3d_transpose(
    input, filters, output_shape, strides, padding="SAME", data_format="NDHWC", dilations=None, name=None
):
    """The transpose of ``conv3d`` (the gradient of a conv3d with respect to its input).

    Args:
        input: (batch, depth, height, width, in_channels).
        filters: (kd, kh, kw, out_channels, in_channels), as TF.
        output_shape: the full output shape (batch, depth, height, width, out_channels).
        strides: TF's five (1, d, h, w, 1), three, or one int.
        padding: "VALID" or "SAME", as the conv3d this transposes.
        data_format: "NDHWC" (tapeviz has no other).
        dilations: as strides (TF's kernel needs 1 where the stride is not 1).
        name: ignored.

    Returns:
        A tensor of ``output_shape``.

    Raises:
        ValueError: for another layout, wrong ranks, or a filter whose in/out channels do not fit.
    """
    x, w = as_tensor(input), as_tensor(filters)
    if data_format not in (None, "NDHWC"):
        raise ValueError(f"tapeviz's tf.nn.conv3d_transpose supports data_format='NDHWC' only; got {data_format!r}.")
    shape = [int(n) for n in (output_shape.numpy() if hasattr(output_shape, "numpy") else output_shape)]
    if x.ndim != 5 or w.ndim != 5 or len(shape) != 5:
        raise ValueError(
            "conv3d_transpose needs a 5-D input, a 5-D filter and a 5-D output_shape; "
            f"got ranks {x.ndim}, {w.ndim} and {len(shape)}."
        )
    if w.shape[4] != x.shape[4] or w.shape[3] != shape[4]:
        raise ValueError(
            f"conv3d_transpose filters are (depth, height, width, output_channels, input_channels): "
            f"got {tuple(w.shape)} for {x.shape[4]} input and {shape[4]} output channels."
        )
    sd, sh, sw = _triple(strides, "strides")
    dd, dh, dw = _triple(dilations if dilations is not None else 1, "dilations")
    padding = str(padding).upper()
    batch, depth_in = x.shape[0], x.shape[1]
    depth_out = shape[1]
    expected, before, _ = _depth_plan(depth_out, w.shape[0], sd, dd, padding)
    if expected != depth_in:
        raise ValueError(
            f"conv3d_transpose: a conv3d of output_shape {shape} would have depth {expected}, "
            f"but the input has depth {depth_in}."
        )
    rows = reshape(x, (batch * depth_in,) + tuple(x.shape[2:]))
    sizes = (batch * depth_in, shape[2], shape[3], shape[4])
    terms = []
    for k in range(w.shape[0]):
        plane = conv2d_backprop_input(sizes, w[k], rows, (sh, sw), padding, (dh, dw))
        plane = reshape(plane, (batch, depth_in) + tuple(plane.shape[1:]))
        terms.append(_spread(plane, sd, k * dd - before, depth_out))
    return add_n(terms) if len(terms) > 1 else terms[0]
