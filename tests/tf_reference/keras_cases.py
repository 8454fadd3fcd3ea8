"""The Keras layer cases compared with TF 2.21 / Keras 3.15: shared by the reference script and the tests.

Each case builds a layer from ``keras.layers`` (TensorFlow's or tapeviz's,
passed in), calls it on fixed inputs with fixed weights, and takes the
gradient of ``sum(output * cos(0.3 * arange))`` with respect to the inputs
and to the trainable weights. Nothing here imports TensorFlow or tapeviz.
"""

import numpy as np

# name -> (layer constructor source, input shapes). The constructor is evaluated with `L` = keras.layers.
CASES = {
    "leaky_relu_default": ("L.LeakyReLU()", [(2, 5)]),
    "leaky_relu_0.1": ("L.LeakyReLU(negative_slope=0.1)", [(2, 5)]),
    "relu_options": ("L.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.2)", [(2, 5)]),
    "relu6": ("L.ReLU(max_value=6.0)", [(2, 5)]),
    "softmax_axis1": ("L.Softmax(axis=1)", [(2, 3, 2)]),
    "global_max_pool": ("L.GlobalMaxPooling2D()", [(2, 3, 4, 2)]),
    "global_avg_pool_keepdims": ("L.GlobalAveragePooling2D(keepdims=True)", [(2, 3, 4, 2)]),
    "avg_pool_same_s1": ("L.AveragePooling2D(pool_size=2, strides=1, padding='same')", [(1, 3, 4, 2)]),
    "avg_pool_valid_3_2": ("L.AveragePooling2D(pool_size=3, strides=2)", [(1, 5, 6, 1)]),
    "avg_pool_same_3_2": ("L.AveragePooling2D(pool_size=3, strides=2, padding='same')", [(1, 5, 6, 1)]),
    "conv2d_transpose_same": ("L.Conv2DTranspose(2, 3, strides=2, padding='same')", [(1, 3, 3, 2)]),
    "conv2d_transpose_valid": ("L.Conv2DTranspose(2, (2, 3), strides=(2, 1))", [(1, 2, 3, 2)]),
    "conv2d_transpose_output_padding": (
        "L.Conv2DTranspose(1, 3, strides=2, padding='same', output_padding=1)",
        [(1, 2, 2, 2)],
    ),
    "conv2d_transpose_k2_s3": ("L.Conv2DTranspose(1, 2, strides=3)", [(1, 2, 2, 1)]),
    "conv1d_causal": ("L.Conv1D(3, 2, padding='causal')", [(2, 4, 2)]),
    "conv2d_dilated_same": ("L.Conv2D(2, 3, dilation_rate=2, padding='same')", [(1, 6, 5, 2)]),
    "conv2d_dilated_rect_valid": ("L.Conv2D(2, (2, 3), dilation_rate=(2, 1))", [(2, 5, 6, 2)]),
    "conv1d_dilated_causal": ("L.Conv1D(2, 3, dilation_rate=2, padding='causal')", [(2, 7, 2)]),
    "conv1d_same_s2": ("L.Conv1D(2, 3, strides=2, padding='same', activation='relu')", [(1, 5, 2)]),
    "max_pool_1d": ("L.MaxPooling1D()", [(2, 5, 2)]),
    "avg_pool_1d_same": ("L.AveragePooling1D(pool_size=3, strides=2, padding='same')", [(1, 5, 2)]),
    "global_avg_pool_1d": ("L.GlobalAveragePooling1D()", [(2, 5, 2)]),
    "layer_norm": ("L.LayerNormalization()", [(2, 4)]),
    "layer_norm_axes": ("L.LayerNormalization(axis=[1, 2], epsilon=1e-5)", [(2, 2, 3)]),
    "concatenate_axis1": ("L.Concatenate(axis=1)", [(2, 2, 3), (2, 1, 3)]),
    "add": ("L.Add()", [(2, 3), (2, 3)]),
    "simple_rnn": ("L.SimpleRNN(3)", [(2, 4, 2)]),
    "lstm_sequences": ("L.LSTM(3, return_sequences=True)", [(2, 4, 2)]),
    "lstm_state_backwards": ("L.LSTM(3, return_state=True, go_backwards=True)", [(2, 4, 2)]),
    "gru": ("L.GRU(3)", [(2, 4, 2)]),
    "gru_reset_before": ("L.GRU(3, reset_after=False, return_sequences=True)", [(2, 4, 2)]),
}


def input_arrays(shapes):
    """Fixed float32 inputs, different per input and spread over [-1.5, 1.5]."""
    arrays = []
    for k, shape in enumerate(shapes):
        n = int(np.prod(shape))
        arrays.append((np.sin(np.arange(n) * 1.7 + k) * 1.5).astype(np.float32).reshape(shape))
    return arrays


def weight_arrays(shapes):
    """Fixed float32 weights for a layer's weights of these shapes (in the layer's weights order)."""
    return [
        (np.cos(np.arange(int(np.prod(s))) * 0.61 + 0.3 * k) * 0.6).astype(np.float32).reshape(s)
        for k, s in enumerate(shapes)
    ]


def projection(shape):
    """What the outputs are multiplied by before summing: a fixed, non-uniform weighting."""
    n = int(np.prod(shape))
    return np.cos(np.arange(n) * 0.3).astype(np.float32).reshape(shape)


def run(tf, keras, name):
    """Build, call and differentiate case ``name``; returns plain lists (outputs, input grads, weight grads)."""
    source, shapes = CASES[name]
    layer = eval(source, {"L": keras.layers})
    inputs = [tf.constant(a) for a in input_arrays(shapes)]
    arg = inputs if len(inputs) > 1 else inputs[0]
    layer(arg)  # build
    layer.set_weights(weight_arrays([tuple(w.shape) for w in layer.weights]))
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out = layer(arg)
        outs = out if isinstance(out, (list, tuple)) else [out]
        loss = tf.add_n([tf.reduce_sum(o * projection(tuple(o.shape))) for o in outs])
    grads = tape.gradient(loss, inputs + list(layer.trainable_weights))
    return {
        "outputs": [np.asarray(o).tolist() for o in outs],
        "input_grads": [np.asarray(g).tolist() for g in grads[: len(inputs)]],
        "weight_grads": [np.asarray(g).tolist() for g in grads[len(inputs) :]],
        "weight_shapes": [list(w.shape) for w in layer.weights],
    }
