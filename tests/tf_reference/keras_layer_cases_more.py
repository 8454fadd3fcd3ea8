"""More Keras layer cases (reshaping, depthwise/separable convolutions, preprocessing, wrappers).

Run exactly as keras_cases.py's (fixed inputs and weights, the gradient of a
fixed projection of the outputs), by the reference script and by the tests.
Nothing here imports TensorFlow or tapeviz.
"""

import numpy as np

try:  # as tests.tf_reference.keras_cases in the tests, as keras_cases in the reference script
    from tests.tf_reference.keras_cases import input_arrays, projection, weight_arrays
except ImportError:
    from keras_cases import input_arrays, projection, weight_arrays

CASES = {
    "upsampling1d": ("L.UpSampling1D(3)", [(2, 3, 2)]),
    "upsampling2d": ("L.UpSampling2D((2, 3))", [(1, 2, 2, 2)]),
    "zeropadding1d": ("L.ZeroPadding1D((1, 2))", [(2, 3, 2)]),
    "zeropadding2d": ("L.ZeroPadding2D(((1, 0), (2, 1)))", [(1, 2, 3, 2)]),
    "zeropadding2d_int": ("L.ZeroPadding2D(1)", [(1, 2, 2, 1)]),
    "cropping1d": ("L.Cropping1D((1, 2))", [(2, 5, 2)]),
    "cropping2d": ("L.Cropping2D(((1, 0), (0, 2)))", [(1, 4, 5, 2)]),
    "depthwise_conv2d": ("L.DepthwiseConv2D(3, depth_multiplier=2, padding='same')", [(1, 4, 4, 2)]),
    "depthwise_conv2d_strided": ("L.DepthwiseConv2D((2, 3), strides=2, activation='relu')", [(1, 5, 6, 3)]),
    "depthwise_conv2d_dilated": ("L.DepthwiseConv2D(2, dilation_rate=2)", [(1, 5, 5, 2)]),
    "separable_conv2d": ("L.SeparableConv2D(3, 2, depth_multiplier=2)", [(1, 4, 4, 2)]),
    "separable_conv2d_same": ("L.SeparableConv2D(2, 3, padding='same', use_bias=False)", [(1, 3, 4, 2)]),
    "rescaling": ("L.Rescaling(0.5, offset=-1.0)", [(2, 3)]),
    "normalization_given": ("L.Normalization(mean=[0.5, -0.2, 0.1], variance=[2.0, 0.5, 1.5])", [(2, 3)]),
    "normalization_invert": ("L.Normalization(mean=[0.5, -0.2], variance=[2.0, 0.5], invert=True)", [(3, 2)]),
    "lambda": ("L.Lambda(lambda t: t * t + 1.0)", [(2, 3)]),
    "masking": ("L.Masking(mask_value=0.0)", [(2, 3, 2)]),
    "time_distributed_dense": ("L.TimeDistributed(L.Dense(2))", [(2, 3, 4)]),
    "time_distributed_conv": ("L.TimeDistributed(L.Conv2D(2, 2))", [(1, 2, 3, 3, 1)]),
    "bidirectional_lstm_concat": ("L.Bidirectional(L.LSTM(3, return_sequences=True))", [(2, 4, 2)]),
    "bidirectional_gru_sum": ("L.Bidirectional(L.GRU(2), merge_mode='sum')", [(2, 3, 2)]),
    "bidirectional_rnn_ave": ("L.Bidirectional(L.SimpleRNN(2, return_sequences=True), merge_mode='ave')", [(1, 3, 2)]),
    "identity": ("L.Identity()", [(2, 3)]),
    "permute": ("L.Permute((2, 1))", [(2, 3, 4)]),
    "repeat_vector": ("L.RepeatVector(3)", [(2, 4)]),
    "unit_normalization": ("L.UnitNormalization(axis=1)", [(2, 3, 2)]),
    "rms_normalization": ("L.RMSNormalization()", [(2, 3, 4)]),
    "prelu": ("L.PReLU()", [(2, 3, 2)]),
    "prelu_shared": ("L.PReLU(shared_axes=[1])", [(2, 3, 2)]),
    "dot_axes": ("L.Dot(axes=(2, 2))", [(2, 3, 4), (2, 5, 4)]),
    "dot_normalize": ("L.Dot(axes=1, normalize=True)", [(2, 4), (2, 4)]),
    "gaussian_noise_inference": ("L.GaussianNoise(0.3)", [(2, 3)]),
    "gaussian_dropout_inference": ("L.GaussianDropout(0.3)", [(2, 3)]),
    "spatial_dropout_inference": ("L.SpatialDropout1D(0.5)", [(2, 3, 4)]),
    "activity_regularization": ("L.ActivityRegularization(l1=0.1, l2=0.2)", [(2, 3)]),
    "attention_dot": ("L.Attention()", [(2, 3, 4), (2, 5, 4)]),
    "attention_scaled_concat": ("L.Attention(use_scale=True, score_mode='concat')", [(2, 3, 4), (2, 5, 4)]),
    "attention_query_value_key": ("L.Attention(use_scale=True)", [(2, 3, 4), (2, 5, 2), (2, 5, 4)]),
    "additive_attention": ("L.AdditiveAttention()", [(2, 3, 4), (2, 5, 4)]),
    "resizing": ("L.Resizing(5, 3)", [(1, 3, 4, 2)]),
    "resizing_nearest": ("L.Resizing(2, 6, interpolation='nearest')", [(1, 3, 4, 2)]),
    "center_crop": ("L.CenterCrop(2, 3)", [(1, 4, 5, 2)]),
    "group_normalization": ("L.GroupNormalization(groups=2)", [(2, 3, 4)]),
    "group_normalization_instance": ("L.GroupNormalization(groups=-1, center=False)", [(2, 3, 3, 2)]),
    "group_normalization_axis1": ("L.GroupNormalization(groups=3, axis=1, epsilon=0.1)", [(2, 6, 2)]),
    "einsum_dense": ("L.EinsumDense('ab,bc->ac', output_shape=5, bias_axes='c')", [(2, 3)]),
    "einsum_dense_3d": ("L.EinsumDense('abc,cde->abde', output_shape=(None, 4, 2), bias_axes='de')", [(2, 3, 6)]),
    "conv3d": ("L.Conv3D(3, (2, 3, 2), activation='relu')", [(1, 4, 5, 4, 2)]),
    "conv3d_same_strided": ("L.Conv3D(2, 3, strides=(2, 1, 2), padding='same')", [(1, 5, 4, 5, 1)]),
    "max_pooling3d": ("L.MaxPooling3D((2, 2, 2))", [(1, 4, 4, 5, 2)]),
    "average_pooling3d_same": ("L.AveragePooling3D(3, strides=2, padding='same')", [(1, 5, 4, 5, 2)]),
    "global_average_pooling3d": ("L.GlobalAveragePooling3D()", [(2, 3, 2, 2, 3)]),
    "global_max_pooling3d": ("L.GlobalMaxPooling3D(keepdims=True)", [(2, 3, 2, 2, 3)]),
    "upsampling3d": ("L.UpSampling3D((1, 2, 2))", [(1, 2, 2, 2, 1)]),
    "zeropadding3d": ("L.ZeroPadding3D(((1, 0), (0, 1), (1, 1)))", [(1, 2, 2, 2, 1)]),
    "cropping3d": ("L.Cropping3D(((1, 0), (0, 1), (1, 1)))", [(1, 3, 3, 4, 1)]),
    "conv_lstm2d_same_sequences": ("L.ConvLSTM2D(3, (2, 2), padding='same', return_sequences=True)", [(1, 3, 4, 4, 2)]),
    "conv_lstm2d_strided_state": ("L.ConvLSTM2D(2, 3, strides=2, return_state=True)", [(2, 3, 5, 5, 1)]),
    "conv_lstm1d": ("L.ConvLSTM1D(2, 3, activation='relu')", [(2, 4, 6, 2)]),
    "conv_lstm3d": ("L.ConvLSTM3D(2, 2, go_backwards=True)", [(1, 2, 3, 3, 3, 1)]),
    "einsum_dense_ellipsis": ("L.EinsumDense('...b,bc->...c', output_shape=4, activation='tanh')", [(2, 5, 3)]),
}

# Masking's fixed input gets one all-zero timestep so that the mask does something.
ZEROED = {"masking": (0, 1)}


def run(tf, keras, name):
    """Build, call and differentiate case ``name``; returns plain lists (outputs, input grads, weight grads)."""
    source, shapes = CASES[name]
    layer = eval(source, {"L": keras.layers})  # noqa: S307 - the table above, never data
    arrays = input_arrays(shapes)
    if name in ZEROED:
        arrays[0][ZEROED[name]] = 0.0
    inputs = [tf.constant(a) for a in arrays]
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
        "input_grads": [None if g is None else np.asarray(g).tolist() for g in grads[: len(inputs)]],
        "weight_grads": [np.asarray(g).tolist() for g in grads[len(inputs) :]],
        "weight_paths": [w.path.split("/", 1)[-1] for w in layer.weights],
        "weight_shapes": [list(w.shape) for w in layer.weights],
    }


def facts(keras):
    """Behaviours beyond one call: Normalization.adapt, configs, errors."""
    L = keras.layers
    out = {}
    data = (np.sin(np.arange(30) * 0.9) * 2 + np.arange(30) * 0.1).reshape(10, 3).astype("float32")
    norm = L.Normalization()
    norm.adapt(data)
    out["normalization_adapt"] = np.round(np.asarray(norm(data[:2])), 5).tolist()
    out["normalization_weights"] = [np.round(np.asarray(w), 5).tolist() for w in norm.get_weights()]
    norm_axis = L.Normalization(axis=None)
    norm_axis.adapt(data)
    out["normalization_axis_none"] = np.round(np.asarray(norm_axis(data[:1])), 5).tolist()
    out["bidirectional_names"] = [
        w.path for w in _built(L.Bidirectional(L.SimpleRNN(2, name="rnn"), name="bi"), (1, 3, 2)).weights
    ]
    ids = np.array([[0, 1, 1], [3, 2, 0]], "int32")
    out["category_encoding"] = {
        mode: np.asarray(
            L.CategoryEncoding(num_tokens=4, output_mode=mode)(ids if mode != "one_hot" else ids[:, :1])
        ).tolist()
        for mode in ("multi_hot", "count", "one_hot")
    }
    reg = L.ActivityRegularization(l1=0.1, l2=0.2)
    reg(data[:4])
    out["activity_regularization_losses"] = [round(float(np.asarray(v)), 5) for v in reg.losses]
    drop = np.asarray(L.SpatialDropout2D(0.5, seed=3)(np.ones((8, 3, 3, 4), "float32"), training=True))
    out["spatial_dropout_whole_maps"] = bool(
        all(len(set(drop[i, :, :, c].ravel().tolist())) == 1 for i in range(8) for c in range(4))
    )
    out["spatial_dropout_values"] = sorted(set(np.round(drop.ravel(), 5).tolist()))
    out["errors"] = [
        _error(lambda: L.Bidirectional(L.LSTM(2), merge_mode="max")),
        _error(lambda: L.Normalization(mean=[1.0])),
        _error(lambda: L.TimeDistributed("dense")),
        _error(lambda: L.Permute((2, 3))),
        _error(lambda: L.Dot(axes=1)(np.ones((2, 3), "float32"))),
    ]
    return out


def attention(tf, keras, variant):
    """MultiHeadAttention's outputs, scores and gradients on fixed inputs and weights (plain lists)."""
    L = keras.layers
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2 if variant == "value_dim" else None)
    q_array, v_array = input_arrays([(2, 4, 5), (2, 3, 5)])
    q, v = tf.constant(q_array), tf.constant(v_array)
    kwargs = {}
    if variant == "causal":
        v, kwargs = q, {"use_causal_mask": True}
    if variant == "mask":
        kwargs = {"attention_mask": np.array([[[1, 1, 0]] * 4, [[1, 0, 1]] * 4], dtype=bool)}
    layer(q, v, **kwargs)
    layer.set_weights(weight_arrays([tuple(w.shape) for w in layer.weights]))
    with tf.GradientTape() as tape:
        tape.watch([q, v])
        out, scores = layer(q, v, return_attention_scores=True, **kwargs)
        loss = tf.reduce_sum(out * projection(tuple(out.shape))) + tf.reduce_sum(
            scores * projection(tuple(scores.shape))
        )
    grads = tape.gradient(loss, [q, v] + list(layer.trainable_weights))
    return {
        "output": np.asarray(out).tolist(),
        "scores": np.asarray(scores).tolist(),
        "grads": [np.asarray(g).tolist() for g in grads],
        "paths": [w.path for w in layer.weights],
        "shapes": [list(w.shape) for w in layer.weights],
    }


ATTENTION_VARIANTS = ["plain", "value_dim", "causal", "mask"]

MASK_MODELS = {
    "embedding_lstm_sequences": "[L.Embedding(6, 3, mask_zero=True), L.LSTM(2, return_sequences=True)]",
    "embedding_gru_last": "[L.Embedding(6, 3, mask_zero=True), L.GRU(2)]",
    "embedding_rnn_backwards": "[L.Embedding(6, 3, mask_zero=True), L.SimpleRNN(2, go_backwards=True, return_sequences=True)]",
    "embedding_dense_lstm": "[L.Embedding(6, 3, mask_zero=True), L.Dense(3), L.LSTM(2)]",
    "embedding_bidirectional": "[L.Embedding(6, 3, mask_zero=True), L.Bidirectional(L.LSTM(2, return_sequences=True))]",
    "masking_lstm": "[L.Masking(), L.LSTM(2, return_sequences=True)]",
}
MASK_IDS = np.array([[1, 2, 0, 0, 3], [4, 0, 5, 0, 0]], "int32")


def masked(tf, keras, name):
    """A Sequential model whose first layer makes a mask: outputs and gradients, on fixed ids and weights."""
    L = keras.layers
    layers = eval(MASK_MODELS[name], {"L": L})  # noqa: S307 - the table above
    if name.startswith("masking"):
        values = input_arrays([(2, 5, 3)])[0]
        values[0, 2:4] = 0.0
        values[1, 1] = 0.0
        start, data = keras.Input((5, 3)), tf.constant(values)
    else:
        start, data = keras.Input((5,), dtype="int32"), tf.constant(MASK_IDS)
    model = keras.Sequential([start] + layers)
    model.set_weights(weight_arrays([tuple(w.shape) for w in model.weights]))
    with tf.GradientTape() as tape:
        out = model(data)
        loss = tf.reduce_sum(out * projection(tuple(out.shape)))
    grads = tape.gradient(loss, model.trainable_weights)
    return {"output": np.asarray(out).tolist(), "grads": [np.asarray(tf.convert_to_tensor(g)).tolist() for g in grads]}


def _built(layer, shape):
    layer(np.zeros(shape, "float32"))
    return layer


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the message is the fact
        return [type(exc).__name__, str(exc)]
    return None
