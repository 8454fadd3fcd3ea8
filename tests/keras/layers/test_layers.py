"""Keras layers, losses and metrics: TF's values where they are deterministic, and behaviour.

``TF_VALUES`` were recorded from real TensorFlow 2.21.0 / Keras 3.15.1
(``pip install tensorflow-cpu`` in a scratch venv, Linux x86-64 CPU) by
running ``TF_SCRIPT`` verbatim. Random initializers cannot match TF's
numbers (different generators), so the comparisons use Constant ones.
"""

import numpy as np
import pytest

import tapeviz as tf

L = tf.keras.layers

TF_SCRIPT = r"""
import numpy as np, tensorflow as tf, keras
L = keras.layers
r = lambda: print
x = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4
d = L.Dense(2, activation="relu", kernel_initializer=keras.initializers.Constant(0.3), bias_initializer=keras.initializers.Constant(-0.5))
print("DENSE_OUT =", d(x).numpy().tolist())
img = (np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2) % 7 - 3) / 3
k = (np.arange(3 * 3 * 2 * 3, dtype=np.float32).reshape(3, 3, 2, 3) % 5 - 2) / 5
print("CONV_SAME_S2 =", tf.nn.conv2d(img, k, strides=2, padding="SAME").numpy().round(6).tolist())
print("MAXPOOL_SAME =", tf.nn.max_pool2d(img, 2, 2, "SAME").numpy().tolist())
yt = np.array([1, 0, 3]); logits = np.array([[1.0, 2.0, 0.5, -1.0], [0.1, 0.2, 0.3, 0.4], [3.0, -2.0, 0.0, 1.0]], np.float32)
probs = tf.nn.softmax(logits).numpy()
print("SPARSE_CE_LOGITS =", float(keras.losses.SparseCategoricalCrossentropy(from_logits=True)(yt, logits)))
print("SPARSE_CE_PROBS =", float(keras.losses.SparseCategoricalCrossentropy()(yt, probs)))
print("CAT_CE_PROBS =", float(keras.losses.CategoricalCrossentropy()(np.eye(4)[yt], probs)))
bt = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32); bp = np.array([[0.9, 0.2], [0.4, 0.6], [0.99, 0.3]], np.float32)
print("BCE =", float(keras.losses.BinaryCrossentropy()(bt, bp)))
print("BCE_LOGITS =", float(keras.losses.BinaryCrossentropy(from_logits=True)(bt, bp)))
print("HUBER =", float(keras.losses.Huber(delta=0.5)(bt * 2, bp)))
print("MSE =", float(keras.losses.MeanSquaredError()(bt, bp)), "MAE =", float(keras.losses.MeanAbsoluteError()(bt, bp)))
bn = L.BatchNormalization()
out = bn(x, training=True)
print("BN_TRAIN =", out.numpy().tolist())
print("BN_MOVING =", [bn.moving_mean.numpy().tolist(), bn.moving_variance.numpy().tolist()])
print("BN_INFER =", bn(x, training=False).numpy().tolist())
acc = keras.metrics.SparseCategoricalAccuracy(); acc.update_state(yt, probs); print("SPARSE_ACC =", float(acc.result()))
"""

# Output of TF_SCRIPT:
DENSE_OUT = [[0.0, 0.0], [0.0, 0.0], [0.8500000238418579, 0.8500000238418579]]
CONV_SAME_S2 = [
    [
        [
            [-0.4666669964790344, 0.5333330035209656, -0.1333329975605011],
            [-0.06666699796915054, -1.3333330154418945, 0.4000000059604645],
            [-0.06666699796915054, 0.5333330035209656, -0.5333330035209656],
        ],
        [
            [0.2666670083999634, -0.7333329916000366, -0.4000000059604645],
            [0.2666670083999634, 0.4000000059604645, -0.1333329975605011],
            [-0.2666670083999634, 0.4000000059604645, -0.2666670083999634],
        ],
        [
            [0.33333298563957214, -0.20000000298023224, 0.6000000238418579],
            [-0.6666669845581055, 0.4666669964790344, -0.06666699796915054],
            [0.6666669845581055, -0.6000000238418579, -0.5333330035209656],
        ],
    ],
    [
        [
            [-0.06666699796915054, 0.6666669845581055, -0.6000000238418579],
            [-0.06666699796915054, 0.20000000298023224, 0.800000011920929],
            [-0.4666669964790344, -0.4666669964790344, 0.5333330035209656],
        ],
        [
            [0.1333329975605011, 0.6666669845581055, 0.20000000298023224],
            [-0.800000011920929, -1.8666670322418213, 0.7333329916000366],
            [0.2666670083999634, 0.2666670083999634, -0.7333329916000366],
        ],
        [
            [0.33333298563957214, -0.800000011920929, -0.2666670083999634],
            [-0.2666670083999634, 0.5333330035209656, -0.6666669845581055],
            [-0.1333329975605011, 0.33333298563957214, -0.20000000298023224],
        ],
    ],
]
MAXPOOL_SAME = [
    [
        [[0.6666666865348816, 1.0], [1.0, 0.6666666865348816], [0.3333333432674408, 0.6666666865348816]],
        [[1.0, 0.6666666865348816], [1.0, 1.0], [0.0, 0.3333333432674408]],
        [[0.6666666865348816, 1.0], [0.3333333432674408, 0.6666666865348816], [1.0, -1.0]],
    ],
    [
        [[1.0, 0.6666666865348816], [0.6666666865348816, 1.0], [0.6666666865348816, 1.0]],
        [[0.6666666865348816, 1.0], [1.0, 0.6666666865348816], [0.3333333432674408, 0.6666666865348816]],
        [[1.0, -0.3333333432674408], [0.6666666865348816, 1.0], [-1.0, -0.6666666865348816]],
    ],
]
SPARSE_CE_LOGITS = 1.4044109582901
SPARSE_CE_PROBS = 1.4044109582901
CAT_CE_PROBS = 1.4044109582901
BCE = 0.4273630678653717
BCE_LOGITS = 0.5600187182426453
HUBER = 0.367499977350235
MSE = 0.14334999024868011
MAE = 0.30166664719581604
BN_TRAIN = [
    [-1.2238273620605469, -1.2238273620605469, -1.2238273620605469, -1.2238273620605469],
    [0.0, 0.0, 0.0, 0.0],
    [1.2238273620605469, 1.2238273620605469, 1.2238273620605469, 1.2238273620605469],
]
BN_MOVING = [
    [-0.0024999999441206455, 0.0, 0.0024999999441206455, 0.004999999888241291],
    [0.996666669845581, 0.996666669845581, 0.996666669845581, 0.996666669845581],
]
BN_INFER = [
    [-1.2489579916000366, -1.0011687278747559, -0.7533794641494751, -0.5055902004241943],
    [-0.24778926372528076, 0.0, 0.24778926372528076, 0.4955785274505615],
    [0.7533794641494751, 1.0011687278747559, 1.2489579916000366, 1.4967472553253174],
]
SPARSE_ACC = 0.3333333432674408

X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4
IMG = (np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2) % 7 - 3) / 3
KERNEL = (np.arange(3 * 3 * 2 * 3, dtype=np.float32).reshape(3, 3, 2, 3) % 5 - 2) / 5
YT = np.array([1, 0, 3])
LOGITS = np.array([[1.0, 2.0, 0.5, -1.0], [0.1, 0.2, 0.3, 0.4], [3.0, -2.0, 0.0, 1.0]], np.float32)
BT = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
BP = np.array([[0.9, 0.2], [0.4, 0.6], [0.99, 0.3]], np.float32)


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


# -- against TensorFlow ------------------------------------------------------------------------


def test_dense_with_constant_initializers_matches_tf():
    d = L.Dense(
        2,
        activation="relu",
        kernel_initializer=tf.keras.initializers.Constant(0.3),
        bias_initializer=tf.keras.initializers.Constant(-0.5),
    )
    close(d(X).numpy(), DENSE_OUT)


def test_conv2d_same_stride_2_matches_tf():
    from tapeviz.core.primitives.conv import conv2d

    close(conv2d(IMG, KERNEL, 2, "SAME").numpy(), CONV_SAME_S2, 1e-5)


def test_max_pool_same_matches_tf():
    from tapeviz.core.primitives.conv import max_pool2d

    close(max_pool2d(IMG, 2, 2, "SAME").numpy(), MAXPOOL_SAME)


def test_losses_match_tf():
    probs = tf.nn.softmax(tf.constant(LOGITS)).numpy()
    K = tf.keras.losses
    close(K.SparseCategoricalCrossentropy(from_logits=True)(YT, LOGITS).numpy(), SPARSE_CE_LOGITS)
    close(K.SparseCategoricalCrossentropy()(YT, probs).numpy(), SPARSE_CE_PROBS)
    close(K.CategoricalCrossentropy()(np.eye(4, dtype=np.float32)[YT], probs).numpy(), CAT_CE_PROBS)
    close(K.BinaryCrossentropy()(BT, BP).numpy(), BCE)
    close(K.BinaryCrossentropy(from_logits=True)(BT, BP).numpy(), BCE_LOGITS)
    close(K.Huber(delta=0.5)(BT * 2, BP).numpy(), HUBER)
    close(K.MeanSquaredError()(BT, BP).numpy(), MSE)
    close(K.MeanAbsoluteError()(BT, BP).numpy(), MAE)


def test_batch_normalization_matches_tf():
    bn = L.BatchNormalization()
    close(bn(X, training=True).numpy(), BN_TRAIN, 1e-5)
    close([bn.moving_mean.numpy(), bn.moving_variance.numpy()], BN_MOVING)
    close(bn(X, training=False).numpy(), BN_INFER, 1e-5)
    assert [w.name for w in bn.trainable_variables] == [
        "gamma",
        "beta",
    ]  # Keras 3 names (path: batch_normalization/gamma)
    assert len(bn.non_trainable_variables) == 2


def test_sparse_categorical_accuracy_matches_tf():
    m = tf.keras.metrics.SparseCategoricalAccuracy()
    m.update_state(YT, tf.nn.softmax(tf.constant(LOGITS)))
    close(m.result().numpy(), SPARSE_ACC)


# -- building, tracking, weights ---------------------------------------------------------------


def test_layer_builds_on_first_call_with_keras_defaults():
    d = L.Dense(3)
    assert not d.built and d.weights == []
    d(np.ones((2, 5), np.float32))
    assert d.built
    assert d.kernel.shape == (5, 3) and d.bias.shape == (3,)
    assert np.all(d.bias.numpy() == 0)
    limit = np.sqrt(6 / (5 + 3))  # glorot_uniform
    assert np.all(np.abs(d.kernel.numpy()) <= limit)
    assert d.kernel.dtype == tf.float32


def test_float64_inputs_are_cast_to_float32_as_keras_does():
    out = L.Dense(2)(np.ones((1, 3)))
    assert out.dtype == tf.float32


def test_seeded_initializers_are_reproducible():
    a = tf.keras.initializers.GlorotUniform(seed=3)((4, 4))
    b = tf.keras.initializers.GlorotUniform(seed=3)((4, 4))
    np.testing.assert_array_equal(a, b)
    tf.random.set_seed(5)
    first = L.Dense(4, kernel_initializer="he_normal")
    first(np.ones((1, 4), np.float32))
    tf.random.set_seed(5)
    second = L.Dense(4, kernel_initializer="he_normal")
    second(np.ones((1, 4), np.float32))
    np.testing.assert_array_equal(first.kernel.numpy(), second.kernel.numpy())


def test_initializers_by_name():
    for name in ("zeros", "ones", "glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "random_normal"):
        values = tf.keras.initializers.get(name)((3, 2))
        assert values.shape == (3, 2)
    assert np.all(tf.keras.initializers.get("ones")((2,)) == 1)


class _TwoTowers(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [L.Dense(4, activation="relu"), L.Dense(4, activation="relu")]
        self.head = L.Dense(1)

    def call(self, x, training=None):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def test_subclassed_model_tracks_nested_layers_and_lists():
    model = _TwoTowers()
    model(np.ones((2, 3), np.float32))
    assert len(model.trainable_variables) == 6
    assert len(model.layers) == 3
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(np.ones((2, 3), np.float32)))
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)


def test_trainable_false_freezes_weights():
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), L.Dense(2), L.Dense(1)])
    model.layers[0].trainable = False
    assert len(model.trainable_variables) == 2
    assert len(model.non_trainable_variables) == 2
    model.trainable = False
    assert model.trainable_variables == []


def test_get_and_set_weights_round_trip():
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), L.Dense(2)])
    weights = [np.full((3, 2), 0.5, np.float32), np.array([1.0, -1.0], np.float32)]
    model.set_weights(weights)
    for got, want in zip(model.get_weights(), weights):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="expecting 2 weights"):
        model.set_weights(weights[:1])


def test_summary_lists_layers_and_params(capsys):
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(8, 8, 1)),
            L.Conv2D(4, 3, activation="relu"),
            L.MaxPooling2D(),
            L.Flatten(),
            L.Dense(10),
        ],
        name="digits_cnn",
    )
    pytest.importorskip("rich", reason='model.summary() draws with rich: pip install "tapeviz[keras]"')
    model.summary()
    text = capsys.readouterr().out
    assert 'Model: "digits_cnn"' in text
    assert "(None, 6, 6, 4)" in text and "(None, 3, 3, 4)" in text and "(None, 36)" in text
    assert "Total params: 410" in text  # 3*3*1*4 + 4 + 36*10 + 10


def test_summary_before_build_shows_unbuilt_layers_as_keras_3_does(capsys):
    pytest.importorskip("rich", reason='model.summary() draws with rich: pip install "tapeviz[keras]"')
    tf.keras.Sequential([L.Dense(2)]).summary()  # Keras 3 prints "?" and "0 (unbuilt)" rather than raising
    text = capsys.readouterr().out
    assert "?" in text and "0 (unbuilt)" in text and " Total params: 0 (0.00 B)" in text


def test_functional_model():
    inputs = tf.keras.Input(shape=(4,))
    hidden = L.Dense(8, activation="relu")(inputs)
    outputs = L.Dense(2)(hidden)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    assert model(np.ones((3, 4), np.float32)).shape == (3, 2)
    assert len(model.trainable_variables) == 4


def test_dropout_only_in_training():
    layer = L.Dropout(0.5)
    x = np.ones((100, 10), np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    dropped = layer(x, training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and 0.3 < np.mean(dropped == 0) < 0.7


def test_embedding_gradient_flows_to_the_rows_used():
    emb = L.Embedding(5, 3)
    with tf.GradientTape() as tape:
        out = emb(np.array([[0, 2], [2, 4]]))
        loss = tf.reduce_sum(out)
    assert out.shape == (2, 2, 3)
    grad = np.asarray(tape.gradient(loss, emb.embeddings))
    np.testing.assert_array_equal(grad[:, 0], [1, 0, 2, 0, 1])


# -- errors ----------------------------------------------------------------------------------------


def test_dense_rank_mismatch_is_tf_shaped():
    with pytest.raises(
        ValueError,
        match=r'Input 0 of layer "dense\w*" is incompatible with the layer: expected min_ndim=2, found ndim=1',
    ):
        L.Dense(2)(np.ones(3, np.float32))


def test_dense_last_axis_mismatch_is_tf_shaped():
    d = L.Dense(2)
    d(np.ones((1, 4), np.float32))
    with pytest.raises(
        ValueError, match="expected axis -1 of input shape to have value 4, but received input with shape \\(1, 3\\)"
    ):
        d(np.ones((1, 3), np.float32))


def test_conv2d_needs_rank_4():
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        L.Conv2D(2, 3)(np.ones((8, 8, 1), np.float32))


def test_fit_before_compile():
    model = tf.keras.Sequential([L.Dense(1)])
    with pytest.raises(ValueError, match="You must call `compile\\(\\)` before using the model"):
        model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32))


def test_unknown_names_are_clear():
    with pytest.raises(ValueError, match="Unknown activation"):
        L.Dense(2, activation="relu2")
    with pytest.raises(ValueError, match="Unknown loss"):
        tf.keras.losses.get("cross_entropy")


# -- predict breaks the tape; model(x) keeps it ---------------------------------------------------


def test_predict_returns_numpy_and_breaks_the_tape():
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), L.Dense(1)])
    x = np.ones((2, 3), np.float32)
    with tf.GradientTape() as tape:
        predicted = model.predict(x, verbose=0)
        loss = tf.reduce_sum(tf.constant(predicted))
    assert isinstance(predicted, np.ndarray)
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is None for g in grads)
    with pytest.raises(ValueError, match="model.predict"):
        tf.keras.optimizers.SGD().apply_gradients(zip(grads, model.trainable_variables))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x))
    assert all(g is not None for g in tape.gradient(loss, model.trainable_variables))


def test_metrics_stream_and_reset():
    m = tf.keras.metrics.Mean()
    m.update_state([1.0, 2.0])
    m.update_state([6.0])
    assert float(m.result().numpy()) == pytest.approx(3.0)
    m.reset_state()
    assert float(m.result().numpy()) == 0.0
    acc = tf.keras.metrics.Accuracy()
    acc.update_state([1, 2, 3], [1, 2, 0])
    assert float(acc.result().numpy()) == pytest.approx(2 / 3)


def test_loss_reductions_and_functional_forms():
    per_example = tf.keras.losses.mean_squared_error(BT, BP)
    assert per_example.shape == (3,)
    total = tf.keras.losses.MeanSquaredError(reduction="sum")(BT, BP)
    close(total.numpy(), float(np.sum(per_example.numpy())))
    none = tf.keras.losses.MeanSquaredError(reduction="none")(BT, BP)
    assert none.shape == (3,)


def test_a_layer_keeps_only_the_losses_of_its_last_call():
    layer = L.Dense(2, kernel_regularizer=lambda w: tf.reduce_sum(w * w))
    x = np.ones((3, 4), np.float32)
    layer(x)
    layer(x)
    assert len(layer.losses) == 1
    assert layer.output_shape == (None, 2)


def test_ops_in_a_layer_call_carry_its_scope_and_a_failing_call_leaves_none_behind():
    class Broken(L.Layer):
        def call(self, inputs):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        Broken(name="broken")(tf.constant([[1.0]]))
    dense = L.Dense(1, name="head")
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        dense(x)
        y = x * 2.0
    scopes = [entry.scope for entry in tape._entries]
    assert scopes[:-1] and all(scope == "head" for scope in scopes[:-1])
    assert scopes[-1] == ""
    assert tape.gradient(y, x) is not None


def test_dense_and_batch_norm_take_int_and_bool_inputs_as_keras_does():
    # Keras 3 (checked on 2.21/3.15): float32 out; pooling and flatten keep the int dtype.
    assert L.Dense(2)(np.arange(8).reshape(2, 4)).dtype == tf.float32
    assert L.Dense(2)(np.ones((2, 4), bool)).dtype == tf.float32
    assert L.BatchNormalization()(np.ones((2, 4), np.int32)).dtype == tf.float32
    assert L.Flatten()(np.ones((2, 2, 2), np.int64)).dtype == tf.int64
    x = tf.constant(np.arange(8).reshape(2, 4))
    dense = L.Dense(1)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(dense(x))
    assert tape.gradient(y, dense.kernel).numpy().ravel().tolist() == [4.0, 6.0, 8.0, 10.0]
