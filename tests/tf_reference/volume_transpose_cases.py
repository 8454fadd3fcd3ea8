"""Cases of tf.nn.conv3d_transpose and keras.layers.Conv3DTranspose, run the same way by TF 2.21 / Keras 3
(volume_transpose_reference.py) and by tapeviz (tests/test_volume_transpose.py): fixed inputs and weights,
and the gradients of a fixed projection of the output. Nothing here imports TensorFlow, Keras or tapeviz."""

import numpy as np

# name: (input shape, filter shape (kd, kh, kw, out, in), output_shape, kwargs)
OP_CASES = {
    "same_stride1": ((1, 3, 4, 4, 2), (2, 3, 2, 3, 2), (1, 3, 4, 4, 3), {"strides": [1, 1, 1, 1, 1], "padding": "SAME"}),
    "same_strided": ((2, 3, 2, 3, 2), (3, 2, 3, 2, 2), (2, 6, 4, 6, 2), {"strides": [1, 2, 2, 2, 1], "padding": "SAME"}),
    "valid_strided": ((1, 2, 3, 2, 3), (3, 3, 2, 2, 3), (1, 5, 7, 3, 2), {"strides": [1, 2, 2, 1, 1], "padding": "VALID"}),
    "valid_odd_output": ((1, 2, 2, 2, 1), (2, 2, 2, 2, 1), (1, 5, 5, 4, 2), {"strides": [1, 3, 3, 2, 1], "padding": "VALID"}),
    "same_odd_output": ((1, 2, 3, 2, 1), (3, 3, 3, 1, 1), (1, 3, 5, 4, 1), {"strides": 2, "padding": "SAME"}),
}  # fmt: skip

# name: (input shape, layer kwargs)
LAYER_CASES = {
    "layer_valid": ((2, 3, 3, 2, 2), {"filters": 3, "kernel_size": 2, "strides": 2, "padding": "valid"}),
    "layer_same": ((1, 2, 3, 4, 3), {"filters": 2, "kernel_size": (3, 2, 3), "strides": (1, 2, 2), "padding": "same"}),
    "layer_output_padding": ((1, 2, 2, 2, 1), {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1}),
    "layer_activation": ((1, 3, 2, 2, 2), {"filters": 2, "kernel_size": (2, 1, 3), "padding": "valid", "activation": "relu"}),
}  # fmt: skip


def _rng(name):
    return np.random.default_rng(sum(map(ord, name)))


def _weights(shape):
    return np.linspace(-1.0, 1.0, int(np.prod(shape)), dtype="float32").reshape(shape)


def run_op(tf, name):
    """{"output", "input_grad", "filter_grad"} of op case ``name`` on ``tf`` (TensorFlow or tapeviz)."""
    shape, filter_shape, output_shape, kwargs = OP_CASES[name]
    rng = _rng(name)
    x = tf.constant(rng.normal(size=shape).astype("float32"))
    w = tf.Variable(rng.normal(size=filter_shape).astype("float32"))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.conv3d_transpose(x, w, output_shape, **kwargs)
        loss = tf.reduce_sum(y * _weights(tuple(y.shape)))
    return {
        "output": y.numpy().tolist(),
        "input_grad": tape.gradient(loss, x).numpy().tolist(),
        "filter_grad": tape.gradient(loss, w).numpy().tolist(),
    }


def run_layer(tf, keras, name):
    """{"output", "input_grad", "kernel_grad", "bias_grad"} of layer case ``name`` with fixed weights."""
    shape, kwargs = LAYER_CASES[name]
    rng = _rng(name)
    layer = keras.layers.Conv3DTranspose(**kwargs)
    x = tf.constant(rng.normal(size=shape).astype("float32"))
    layer.build(shape)
    layer.set_weights([rng.normal(size=tuple(v.shape)).astype("float32") for v in layer.weights])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y * _weights(tuple(y.shape)))
    kernel_grad, bias_grad = tape.gradient(loss, [layer.kernel, layer.bias])
    return {
        "output": np.asarray(y).tolist(),
        "input_grad": np.asarray(tape.gradient(loss, x)).tolist(),
        "kernel_grad": np.asarray(kernel_grad).tolist(),
        "bias_grad": np.asarray(bias_grad).tolist(),
        "output_shape": list(layer.compute_output_shape((None,) + shape[1:])),
    }


def run_all(tf, keras):
    values = {name: run_op(tf, name) for name in OP_CASES}
    values.update({name: run_layer(tf, keras, name) for name in LAYER_CASES})
    return values
