"""Models whose ``summary()`` text tapeviz must print exactly as Keras 3 does.

Each case takes the ``keras`` module (Keras 3 or ``tapeviz.keras``) and
returns a model; tests/tf_reference/keras_summary_reference.py records
Keras's text and tests/keras/utils/test_summary.py compares tapeviz's.
"""


def sequential_dense(keras):
    return keras.Sequential(
        [keras.Input(shape=(20,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)],
        name="dense_stack",
    )


def cnn(keras):
    L = keras.layers
    return keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            L.Conv2D(32, 3, activation="relu"),
            L.MaxPooling2D(),
            L.Conv2D(64, 3, activation="relu"),
            L.MaxPooling2D(),
            L.Flatten(),
            L.Dense(10, activation="softmax"),
        ],
        name="digits_cnn",
    )


def two_inputs(keras):
    L = keras.layers
    left = keras.Input(shape=(8,), name="left")
    right = keras.Input(shape=(4,), name="right")
    a = L.Dense(16, activation="relu", name="left_dense")(left)
    b = L.Dense(16, activation="relu", name="right_dense")(right)
    merged = L.Concatenate(name="merge")([a, b])
    out = L.Dense(1, name="score")(merged)
    return keras.Model(inputs=[left, right], outputs=out, name="two_towers")


def batch_norm(keras):
    L = keras.layers
    return keras.Sequential(
        [keras.Input(shape=(12,)), L.Dense(32), L.BatchNormalization(), L.Activation("relu"), L.Dense(3)],
        name="with_batch_norm",
    )


def functional_chain(keras):
    inputs = keras.Input(shape=(5,), name="features")
    hidden = keras.layers.Dense(7, activation="tanh", name="hidden")(inputs)
    out = keras.layers.Dense(2, name="logits")(hidden)
    return keras.Model(inputs, out, name="chain")


def subclassed(keras):
    class TwoLayer(keras.Model):
        def __init__(self):
            super().__init__(name="two_layer")
            self.first = keras.layers.Dense(6, activation="relu", name="first")
            self.second = keras.layers.Dense(1, name="second")

        def call(self, x):
            return self.second(self.first(x))

    model = TwoLayer()
    model(keras.Input(shape=(3,)))
    return model


def compiled_adam(keras):
    model = sequential_dense(keras)
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.build(model.trainable_variables)
    return model


def long_names(keras):
    L = keras.layers
    return keras.Sequential(
        [
            keras.Input(shape=(3,)),
            L.Dense(4, name="a_rather_long_layer_name_that_does_not_fit_in_the_column"),
            L.Dense(2, name="short"),
        ],
        name="long_names",
    )


def unbuilt(keras):
    return keras.Sequential([keras.layers.Dense(2, name="later")], name="not_built")


def nested(keras):
    L = keras.layers
    inner = keras.Sequential([keras.Input(shape=(3,)), L.Dense(2, name="inner_dense")], name="inner")
    return keras.Sequential([keras.Input(shape=(3,)), inner, L.Dense(1, name="head")], name="outer")


def empty(keras):
    return keras.Sequential(name="empty")


# name -> (builder, summary() keyword arguments)
CASES = {
    "sequential_dense": (sequential_dense, {}),
    "cnn": (cnn, {}),
    "two_inputs": (two_inputs, {}),
    "batch_norm": (batch_norm, {}),
    "functional_chain": (functional_chain, {}),
    "subclassed": (subclassed, {}),
    "compiled_adam": (compiled_adam, {}),
    "long_names": (long_names, {}),
    "unbuilt": (unbuilt, {}),
    "empty": (empty, {}),
    "nested": (nested, {}),
    "nested_expanded": (nested, {"expand_nested": True}),
    "nested_expanded_show_trainable": (nested, {"expand_nested": True, "show_trainable": True}),
    "cnn_layer_range": (cnn, {"layer_range": ["max_pooling2d", "conv2d_1"]}),
    "two_inputs_layer_range": (two_inputs, {"layer_range": ["right.*", "merge"]}),
    "cnn_line_length_60": (cnn, {"line_length": 60}),
    "cnn_positions": (cnn, {"line_length": 70, "positions": [0.5, 0.8, 1.0]}),
    "batch_norm_show_trainable": (batch_norm, {"show_trainable": True}),
    "two_inputs_show_trainable": (two_inputs, {"show_trainable": True}),
}
