"""Cases of tf.nn.conv3d / max_pool3d / avg_pool3d, run the same way by TF (volume_ops_reference.py) and by
tapeviz (tests/test_volume_ops.py): fixed inputs, and the gradient of a fixed projection of the output.
Nothing here imports TensorFlow or tapeviz."""

import numpy as np

CASES = {
    "conv_valid": ("conv3d", (2, 5, 6, 7, 3), (2, 3, 2, 3, 4), {"strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
    "conv_same_strided": ("conv3d", (1, 5, 6, 5, 2), (3, 2, 3, 2, 3), {"strides": [1, 2, 1, 2, 1], "padding": "SAME"}),
    "conv_dilated": ("conv3d", (1, 7, 5, 5, 2), (2, 2, 2, 2, 2), {"strides": [1, 1, 1, 1, 1], "padding": "VALID", "dilations": [1, 2, 1, 2, 1]}),
    "conv_same_even_kernel": ("conv3d", (1, 4, 4, 4, 1), (2, 2, 2, 1, 2), {"strides": [1, 1, 1, 1, 1], "padding": "SAME"}),
    "max_valid": ("max_pool3d", (2, 5, 6, 7, 3), None, {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}),
    "max_same": ("max_pool3d", (1, 5, 5, 4, 2), None, {"ksize": [1, 3, 3, 2, 1], "strides": [1, 2, 2, 1, 1], "padding": "SAME"}),
    "avg_valid": ("avg_pool3d", (2, 4, 6, 5, 2), None, {"ksize": [1, 2, 3, 2, 1], "strides": [1, 1, 2, 1, 1], "padding": "VALID"}),
    "avg_same": ("avg_pool3d", (1, 5, 5, 4, 2), None, {"ksize": [1, 3, 3, 3, 1], "strides": [1, 2, 2, 2, 1], "padding": "SAME"}),
}  # fmt: skip


def arrays(name):
    """(input, filters or None, projection) for case ``name``, from a generator seeded by the name."""
    op, shape, filter_shape, kwargs = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    x = rng.normal(size=shape).astype("float32")
    w = rng.normal(size=filter_shape).astype("float32") if filter_shape else None
    return x, w


def run(tf, name):
    """{"output", "input_grad", "filter_grad"} of case ``name`` on ``tf`` (TensorFlow or tapeviz)."""
    op, _, _, kwargs = CASES[name]
    x, w = arrays(name)
    x = tf.constant(x)
    w = None if w is None else tf.Variable(w)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = getattr(tf.nn, op)(x, w, **kwargs) if w is not None else getattr(tf.nn, op)(x, **kwargs)
        weights = np.linspace(-1.0, 1.0, int(np.prod(y.shape)), dtype="float32").reshape(tuple(y.shape))
        loss = tf.reduce_sum(y * weights)
    out = {"output": y.numpy().tolist(), "input_grad": tape.gradient(loss, x).numpy().tolist()}
    if w is not None:
        out["filter_grad"] = tape.gradient(loss, w).numpy().tolist()
    return out
