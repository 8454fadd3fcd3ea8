"""``tf.nn.conv3d_transpose``, composed from the 2-D transposed convolution (NDHWC only).

The transpose of ``conv3d`` spreads each input depth row ``i`` through each
depth offset ``k`` of the filter into output row ``i * stride + k *
dilation - padding``: a 2-D transposed convolution of the row with the
filter's slice ``k``, placed every ``stride`` rows. Placing is a reshape with
zero rows between, then a pad or crop; the slices are summed. So the
gradients come from the 2-D op's rules.
"""

from tapeviz.core.ops import as_tensor
from tapeviz.core.primitives.array import concat, pad, reshape, zeros
from tapeviz.core.primitives.conv import conv2d_backprop_input
from tapeviz.core.primitives.math import add_n
from tapeviz.volume_ops import _depth_plan, _triple

__all__ = ["conv3d_transpose"]


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
