"""Convolution cases compared with TF 2.21: shared by conv_reference.py (TF) and tests/core/primitives/conv/test_convolution.py (tapeviz).

Each case is a conv2d (or conv2d_transpose) in NHWC with fixed inputs; the
reference records the output and the gradients of ``sum(out * weights)``
with respect to the input and the filter. Nothing here imports TensorFlow
or tapeviz.
"""

import numpy as np

# name -> (kind, input shape, filter shape, strides, padding, dilations, output shape for transposes)
CASES = {
    "conv_same_s2": ("conv2d", (1, 7, 6, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), None),
    "conv_valid_rect_s21": ("conv2d", (1, 6, 7, 2), (2, 3, 2, 3), (2, 1), "VALID", (1, 1), None),
    "conv_dilated_same": ("conv2d", (1, 7, 6, 3), (3, 2, 3, 2), (1, 1), "SAME", (2, 3), None),
    "conv_dilated_valid": ("conv2d", (1, 8, 7, 2), (3, 3, 2, 3), (1, 1), "VALID", (2, 2), None),
    # One output channel over 10: the narrow-output path.
    "conv_narrow_output": ("conv2d", (1, 6, 5, 10), (3, 3, 10, 1), (1, 1), "SAME", (1, 1), None),
    "conv_narrow_output_dilated": ("conv2d", (1, 6, 5, 10), (3, 3, 10, 1), (1, 1), "SAME", (2, 1), None),
    "transpose_same_s2": ("conv2d_transpose", (1, 3, 4, 3), (4, 4, 2, 3), (2, 2), "SAME", (1, 1), (1, 6, 8, 2)),
    "transpose_valid_s3": ("conv2d_transpose", (1, 2, 3, 2), (3, 2, 3, 2), (3, 2), "VALID", (1, 1), (1, 6, 6, 3)),
    "transpose_narrow_upstream": (
        "conv2d_transpose",
        (1, 4, 4, 1),
        (3, 3, 8, 1),
        (1, 1),
        "SAME",
        (1, 1),
        (1, 4, 4, 8),
    ),
}


def arrays(name):
    """Fixed float32 input and filter for a case (sin and cos of ranges, scaled)."""
    _, x_shape, w_shape, *_ = CASES[name]
    x = (np.sin(np.arange(int(np.prod(x_shape))) * 0.9 + 0.2) * 1.3).astype(np.float32).reshape(x_shape)
    w = (np.cos(np.arange(int(np.prod(w_shape))) * 0.7) * 0.5).astype(np.float32).reshape(w_shape)
    return x, w


def weights(shape):
    """The fixed projection of the output a gradient uses: cos(0.3 * k)."""
    return np.cos(0.3 * np.arange(int(np.prod(shape)))).astype(np.float32).reshape(shape)


def run(tf, name):
    """Output and (input, filter) gradients of one case, with ``tf`` TensorFlow or tapeviz, in NHWC."""
    kind, _, _, strides, padding, dilations, out_shape = CASES[name]
    x, w = (tf.constant(a) for a in arrays(name))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        if kind == "conv2d":
            out = tf.nn.convolution(x, w, strides=strides, padding=padding, dilations=dilations)
        else:
            out = tf.nn.conv2d_transpose(x, w, out_shape, strides=strides, padding=padding)
        loss = tf.reduce_sum(out * weights(tuple(out.shape)))
    gx, gw = tape.gradient(loss, [x, w])
    return {"output": out.numpy().tolist(), "input_grad": gx.numpy().tolist(), "filter_grad": gw.numpy().tolist()}
