"""Window geometry (output sizes, SAME padding), padding and window views, and the NHWC/NCHW layout
the convolution and pooling ops share.
"""

from tapeviz import backend as B
from tapeviz.core.primitives import array as _array

# -- geometry ------------------------------------------------------------------------


def hw_pair(value, name):
    """An int or a pair (or TF's 4-element NHWC list) as a (height, width) pair."""
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return (value[0], value[0])
    if len(value) == 2:
        return value
    if len(value) == 4:  # TF's [1, h, w, 1]
        if value[0] != 1 or value[3] != 1:
            raise ValueError(f"{name} over the batch or channel axis is not supported, got {list(value)}.")
        return value[1:3]
    raise ValueError(f"{name} must be an int or a list of 1, 2 or 4 ints, got {value!r}.")


def padding_mode(padding):
    padding = str(padding).upper()
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}.")
    return padding


def _out_and_pads(size, k, s, padding):
    """Output length and (before, after) padding along one axis, by TF's rule.

    'SAME': out = ceil(size / s), padded so the windows cover the input, the
    odd pixel of padding going after (bottom/right), as TF does.
    """
    if padding == "VALID":
        if size < k:
            raise ValueError(f"The window ({k}) is larger than the input ({size}) with padding 'VALID'.")
        return (size - k) // s + 1, (0, 0)
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, (total // 2, total - total // 2)


def geometry(x_shape, k_hw, strides, padding, dilations=(1, 1)):
    """(out_h, out_w, pad_h, pad_w) for an NHWC input shape.

    A dilated kernel spans (k - 1) * d + 1 pixels, and that span is what the
    output size and the padding see.
    """
    span_h, span_w = (k_hw[0] - 1) * dilations[0] + 1, (k_hw[1] - 1) * dilations[1] + 1
    oh, ph = _out_and_pads(x_shape[1], span_h, strides[0], padding)
    ow, pw = _out_and_pads(x_shape[2], span_w, strides[1], padding)
    return oh, ow, ph, pw


def pad_spatial(x, ph, pw, value=0):
    if ph == (0, 0) and pw == (0, 0):
        return x
    # A filled buffer and one slice assignment: ten times faster than xp.pad here.
    n, h, w, c = x.shape
    shape = (n, h + ph[0] + ph[1], w + pw[0] + pw[1], c)
    # zeros (calloc) is measurably cheaper than full(shape, 0).
    out = B.xp.zeros(shape, dtype=x.dtype) if value == 0 else B.xp.full(shape, value, dtype=x.dtype)
    out[:, ph[0] : ph[0] + h, pw[0] : pw[0] + w, :] = x
    return out


def window_view(array, i, j, oh, ow, strides):
    """The (n, oh, ow, c) slice of the padded input seen by kernel offset (i, j)."""
    sh, sw = strides
    return array[:, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw, :]


def _spatial(value, name, data_format="NHWC"):
    """strides or dilations as a (height, width) pair; TF's 4-element form follows ``data_format``."""
    if value is None:
        return (1, 1)
    if data_format == "NCHW" and not isinstance(value, int) and len(value) == 4:
        value = [value[0], value[2], value[3], value[1]]  # as NHWC
    return hw_pair(value, name)


def checked_data_format(data_format, what):
    if data_format not in ("NHWC", "NCHW", None):
        raise ValueError(f"{what}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}.")
    return data_format or "NHWC"


def conv_attrs(strides, padding, dilations, data_format="NHWC"):
    attrs = {"strides": _spatial(strides, "strides", data_format), "padding": padding_mode(padding)}
    dilations = _spatial(dilations, "dilations", data_format)
    if min(dilations) < 1 or min(attrs["strides"]) < 1:
        raise ValueError(f"strides and dilations must be positive, got {attrs['strides']} and {dilations}.")
    if dilations != (1, 1):  # recorded only when used, so undilated ops read as before
        attrs["dilations"] = dilations
    return attrs


def to_nhwc(x, data_format):
    """An NCHW tensor viewed as NHWC (a recorded transpose, so gradients flow through it)."""
    return x if data_format == "NHWC" else _array.transpose(x, (0, 2, 3, 1))


def from_nhwc(y, data_format):
    return y if data_format == "NHWC" else _array.transpose(y, (0, 3, 1, 2))


def nhwc_shape(shape, data_format):
    shape = tuple(int(n) for n in shape)
    return shape if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])
