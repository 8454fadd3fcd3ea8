"""Keras 3 (TF 2.21) semantics: variable names and reprs, tracking, the optimizer API, saving, keras.utils.

The quoted texts and numbers are TF 2.21.0 / Keras 3.15.1's, printed by
``python tests/tf_reference/keras_reference.py facts`` (its output is quoted
next to each test); the Keras-written weights file comes from
``... keras_reference.py weights``.
"""

import os
import re
import warnings

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import keras_cases

L = tf.keras.layers


# -- variables -------------------------------------------------------------------------------


def test_layer_weights_have_keras3_names_paths_and_repr():
    d = L.Dense(2, name="dense")
    d.build((None, 3))
    d.set_weights([np.arange(6, dtype=np.float32).reshape(3, 2) / 4, np.array([0.5, -1.0], np.float32)])
    # TF: dense repr: <Variable path=dense/kernel, shape=(3, 2), dtype=float32, value=[[0.   0.25]\n [0.5  0.75]\n [1.   1.25]]>
    assert repr(d.kernel) == (
        "<Variable path=dense/kernel, shape=(3, 2), dtype=float32, value=[[0.   0.25]\n [0.5  0.75]\n [1.   1.25]]>"
    )
    assert repr(d.bias) == "<Variable path=dense/bias, shape=(2,), dtype=float32, value=[ 0.5 -1. ]>"
    assert [(w.name, w.path) for w in d.weights] == [("kernel", "dense/kernel"), ("bias", "dense/bias")]
    assert repr(tf.keras.Variable(np.float32(3.5), name="s")) == "<Variable path=s, shape=(), dtype=float32, value=3.5>"


def test_paths_follow_the_layers_being_built():
    s = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(2, name="d1"), L.Dense(1, name="d2")], name="seq")
    # TF: sequential paths: ['seq/dense_1/kernel', ...] (the layers' own names)
    assert [w.path for w in s.weights] == ["seq/d1/kernel", "seq/d1/bias", "seq/d2/kernel", "seq/d2/bias"]
    lstm = L.LSTM(2, name="rnn")
    lstm.build((None, 3, 4))
    # TF: ['lstm_1/lstm_cell/kernel', 'lstm_1/lstm_cell/recurrent_kernel', 'lstm_1/lstm_cell/bias']
    for weight, name in zip(lstm.weights, ["kernel", "recurrent_kernel", "bias"]):
        assert re.fullmatch(rf"rnn/lstm_cell(_\d+)?/{name}", weight.path), weight.path


def test_a_raw_tf_variable_attribute_is_not_a_weight_and_is_warned_about():
    class M(tf.keras.Model):
        def __init__(self):
            super().__init__(name="m")
            self.w = tf.Variable(5.0)
            self.d = L.Dense(1, name="inner")

        def call(self, x):
            return self.d(x) * self.w

    with pytest.warns(UserWarning, match="does not track"):
        m = M()
    m(np.ones((1, 2), np.float32))
    # TF: subclass with tf.Variable: trainable paths ['m/dense_3/kernel', 'm/dense_3/bias']
    assert [v.path for v in m.trainable_variables] == ["m/inner/kernel", "m/inner/bias"]


def test_add_weight_takes_keras3_and_tf_keras_argument_orders():
    layer = L.Layer(name="lay")
    a = layer.add_weight((2,), "ones")  # Keras 3: shape first
    b = layer.add_weight("vv", (3,))  # tf.keras 2: name first
    c = layer.add_weight(shape=(1,), initializer="zeros", trainable=False)
    assert a.path == "lay/variable" and a.numpy().tolist() == [1.0, 1.0]
    assert (b.name, b.shape) == ("vv", (3,))
    assert not c.trainable and [w.name for w in layer.weights] == ["variable", "vv", "variable"]


def test_build_by_hand_then_call_builds_once():
    d = L.Dense(2)
    d.build((None, 3))
    d(np.ones((1, 3), np.float32))
    assert len(d.weights) == 2 and d.built


def test_reset_states_is_gone_from_metrics_as_in_keras3():
    # TF: has reset_states: metric False model False
    metric = tf.keras.metrics.Mean()
    assert not hasattr(metric, "reset_states")
    with pytest.raises(AttributeError, match="reset_state()"):
        metric.reset_states()
    assert not hasattr(tf.keras.Sequential(), "reset_states")
    assert hasattr(L.LSTM(2), "reset_states")  # stateful RNNs keep it in Keras 3


def test_leaky_relu_default_and_deprecated_alpha():
    assert L.LeakyReLU().negative_slope == 0.3  # TF: LeakyReLU default slope: 0.3
    with pytest.warns(UserWarning, match="`alpha` is deprecated"):
        assert L.LeakyReLU(alpha=0.2).negative_slope == 0.2


def test_orthogonal_initializer_is_orthogonal():
    for shape in [(4, 4), (3, 6), (6, 3), (2, 3, 4)]:
        q = np.asarray(tf.keras.initializers.Orthogonal(seed=1)(shape)).reshape(-1, shape[-1])
        small = min(q.shape)
        product = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
        np.testing.assert_allclose(product, np.eye(small), atol=1e-5)


# -- the optimizer ----------------------------------------------------------------------------


def test_optimizer_names_and_variables_as_keras3():
    # TF: optimizer names: adam sgd rm_sprop adam_w (the first of each; later ones get _1, _2...)
    names = [
        tf.keras.optimizers.Adam().name,
        tf.keras.optimizers.SGD().name,
        tf.keras.optimizers.RMSprop().name,
        tf.keras.optimizers.AdamW().name,
    ]
    assert [n.rsplit("_", 1)[0] if n[-1].isdigit() else n for n in names] == ["adam", "sgd", "rm_sprop", "adam_w"]
    opt = tf.keras.optimizers.Adam(0.1, name="adam")
    v = tf.keras.Variable(np.array([1.0, 2.0], np.float32), name="w")
    assert not opt.built
    opt.build([v])
    # TF: adam variables: ['adam/iteration', 'adam/learning_rate', 'adam/w_momentum', 'adam/w_velocity']
    assert [x.path for x in opt.variables] == [
        "adam/iteration",
        "adam/learning_rate",
        "adam/w_momentum",
        "adam/w_velocity",
    ]


def test_apply_build_iterations_and_learning_rate_as_keras3():
    opt = tf.keras.optimizers.Adam(0.1, name="adam")
    v = tf.keras.Variable(np.array([1.0, 2.0], np.float32), name="w")
    assert opt.apply([tf.constant([0.5, -0.5])], [v]) is None  # TF: apply returns: None
    opt.apply([tf.constant([0.5, -0.5])])  # the built variables
    # TF: after two Adam steps: [0.8000027537345886, 2.1999971866607666] iterations 2
    np.testing.assert_allclose(v.numpy(), [0.8000027537345886, 2.1999971866607666], rtol=1e-7)
    assert repr(opt.iterations) == "<Variable path=adam/iteration, shape=(), dtype=int64, value=2>"
    opt.learning_rate = 0.5
    assert repr(opt.learning_rate) == "<Variable path=adam/learning_rate, shape=(), dtype=float32, value=0.5>"
    assert opt.apply_gradients([(tf.constant([0.5, -0.5]), v)]) is opt.iterations


def test_optimizer_errors_quote_keras3():
    opt = tf.keras.optimizers.Adam(0.1)
    opt.build([tf.keras.Variable(np.ones(2, np.float32), name="w")])
    other = tf.keras.Variable(np.ones(2, np.float32), name="other")
    with pytest.raises(ValueError) as info:
        opt.apply([tf.constant([0.5, -0.5])], [other])
    assert str(info.value) == (
        "Unknown variable: <Variable path=other, shape=(2,), dtype=float32, value=[1. 1.]>. This optimizer can only "
        "be called for the variables it was originally built with. When working with a new set of variables, you "
        "should recreate a new optimizer instance."
    )
    scheduled = tf.keras.optimizers.SGD(tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match="hence its learning rate is not settable"):
        scheduled.learning_rate = 0.3
    with pytest.raises(ValueError, match=r"Call `optimizer.build\(trainable_variables\)` first"):
        tf.keras.optimizers.SGD().apply([tf.constant(1.0)])


def test_a_float_optimizer_takes_a_schedule_later():
    opt = tf.keras.optimizers.SGD(0.1)
    opt.learning_rate = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    v = tf.Variable([1.0])
    opt.apply([tf.constant([1.0])], [v])
    np.testing.assert_allclose(v.numpy(), [0.9])


# -- saving ------------------------------------------------------------------------------------


def test_save_weights_needs_the_keras3_suffix(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(1)])
    for name in ("ckpt", "ckpt.h5"):
        path = str(tmp_path / name)
        with pytest.raises(ValueError) as info:
            model.save_weights(path)
        # TF: save_weights('ckpt'): The filename must end in `.weights.h5`. Received: filepath=ckpt
        assert str(info.value) == f"The filename must end in `.weights.h5`. Received: filepath={path}"
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(str(tmp_path / "model_dir"))
    with pytest.raises(ValueError, match="File format not supported: filepath=missing.txt"):
        tf.keras.models.load_model("missing.txt")


def test_weights_round_trip_and_unbuilt_model_is_refused(tmp_path):
    pytest.importorskip("h5py")
    path = str(tmp_path / "m.weights.h5")
    a = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(4), L.BatchNormalization(), L.Dense(1)])
    a.save_weights(path)
    b = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(4), L.BatchNormalization(), L.Dense(1)])
    b.load_weights(path)
    for x, y in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(x, y)
    unbuilt = tf.keras.Sequential([L.Dense(4), L.BatchNormalization(), L.Dense(1)])
    with pytest.raises(ValueError, match="has not yet been built"):
        unbuilt.load_weights(path)
    wrong = tf.keras.Sequential([tf.keras.Input((5,)), L.Dense(4), L.BatchNormalization(), L.Dense(1)])
    with pytest.raises(ValueError, match="could not be loaded"):
        wrong.load_weights(path)


def test_a_weights_file_written_by_keras_loads():
    pytest.importorskip("h5py")
    i = tf.keras.Input((4, 2))
    o = L.Dense(1)(L.Concatenate()([L.LSTM(3)(i), L.GRU(3)(i)]))
    model = tf.keras.Model(i, o)
    model.load_weights(os.path.join(os.path.dirname(keras_cases.__file__), "keras_rnn.weights.h5"))
    x = keras_cases.input_arrays([(2, 4, 2)])[0]
    # TF: KERAS_RNN_OUTPUT = [[-0.624650776386261], [-0.437107652425766]]
    np.testing.assert_allclose(model(x).numpy(), [[-0.624650776386261], [-0.437107652425766]], rtol=1e-5)


def test_whole_model_round_trip_with_optimizer_state(tmp_path):
    pytest.importorskip("h5py")
    path = str(tmp_path / "model.keras")
    model = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(4, activation=tf.nn.relu), L.Dense(1)], name="seq")
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    model.fit(x, y, epochs=2, verbose=0)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert loaded.name == "seq" and int(loaded.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
    model.fit(x, y, epochs=1, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, verbose=0, shuffle=False)  # the same Adam state: the same next step
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_functional_and_subclassed_models_round_trip(tmp_path):
    pytest.importorskip("h5py")
    i = tf.keras.Input((5, 2))
    merged = L.Concatenate()([L.LSTM(3)(i), L.GRU(3, reset_after=False)(i)])
    functional = tf.keras.Model(i, L.Dense(1)(merged))
    x = np.linspace(-1, 1, 20, dtype=np.float32).reshape(2, 5, 2)
    functional.save(str(tmp_path / "f.keras"))
    np.testing.assert_array_equal(
        tf.keras.models.load_model(str(tmp_path / "f.keras"))(x).numpy(), functional(x).numpy()
    )

    class Net(tf.keras.Model):
        def __init__(self, width=3, **kwargs):
            super().__init__(**kwargs)
            self.hidden = L.Dense(width, activation="tanh")
            self.out = L.Dense(1)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    net = Net(width=4)
    net(np.ones((2, 3), np.float32))
    net.save(str(tmp_path / "n.keras"))
    with pytest.raises(ValueError, match="custom_objects"):
        tf.keras.models.load_model(str(tmp_path / "n.keras"))
    loaded = tf.keras.models.load_model(str(tmp_path / "n.keras"), custom_objects={"Net": Net})
    np.testing.assert_array_equal(loaded(np.ones((2, 3), np.float32)).numpy(), net(np.ones((2, 3), np.float32)).numpy())


# -- keras.utils ---------------------------------------------------------------------------------


def test_to_categorical_as_keras3():
    # TF: to_categorical: [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]] float64
    out = tf.keras.utils.to_categorical([0, 2, 1], 3)
    assert out.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]] and out.dtype == np.float64
    assert tf.keras.utils.to_categorical([0, 2]).shape == (2, 3)
    assert tf.keras.utils.to_categorical(np.array([[1], [0]]), 2).shape == (2, 2)  # TF: (2, 2)


def test_set_random_seed_makes_initial_weights_repeat():
    tf.keras.utils.set_random_seed(7)
    first = L.Dense(3)
    first.build((None, 2))
    tf.keras.utils.set_random_seed(7)
    second = L.Dense(3)
    second.build((None, 2))
    np.testing.assert_array_equal(first.kernel.numpy(), second.kernel.numpy())
    with pytest.raises(ValueError, match="integer"):
        tf.keras.utils.set_random_seed(1.5)


def test_warning_free_keras3_code():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layer = L.Dense(2)
        layer(np.ones((1, 3), np.float32))


def test_one_get_for_every_family():
    K = tf.keras
    assert isinstance(K.optimizers.get("Adam"), K.optimizers.Adam)
    # Keras 3: a function's name or alias gives the function, a class name an instance
    # (tests/tf_reference/keras_metric_facts.json, "loss_get:*").
    assert K.losses.get("mse") is K.losses.mean_squared_error
    assert isinstance(K.losses.get("MeanSquaredError"), K.losses.MeanSquaredError)
    with pytest.raises(ValueError, match="Could not interpret loss identifier: nope"):
        K.losses.get("nope")
    assert isinstance(K.initializers.get(K.initializers.Zeros), K.initializers.Zeros)
    assert K.activations.get(None) is K.activations.linear
    assert isinstance(K.metrics.get(lambda t, p: t), K.metrics.MeanMetricWrapper)
    for family, kind in (
        (K.activations, "activation function"),
        (K.initializers, "initializer"),
        (K.optimizers, "optimizer"),
        (K.metrics, "metric function"),
    ):
        with pytest.raises(ValueError, match=f"Unknown {kind}: 'nope'"):
            family.get("nope")
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        K.optimizers.get(len)


def test_train_step_gets_batches_packed_as_keras_3_packs_them():
    # Keras 3 hands train_step (x, y) when no sample weight is given, so the guides' `x, y = data` works;
    # (x, y, sample_weight) with one; x alone without targets (checked on Keras 3.15 / TF 2.21).
    seen = []

    class Recording(tf.keras.Sequential):
        def train_step(self, data):
            seen.append(len(data) if isinstance(data, tuple) else type(data).__name__)
            return {"loss": 0.0}

    model = Recording([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.zeros((4, 2), "float32"), np.zeros((4, 1), "float32")
    model.fit(x, y, batch_size=4, verbose=0)
    model.fit(x, y, sample_weight=np.ones(4), batch_size=4, verbose=0)
    model.fit(x, batch_size=4, verbose=0)
    model.train_on_batch(x, y)
    assert seen == [2, 3, "ndarray", 2]
    assert model.predict(x, batch_size=2, verbose=0).shape == (4, 1)  # predict still takes whole batches


def test_a_functional_model_is_named_functional_as_keras_3_names_it():
    """Keras 3 builds a `Functional` for `Model(inputs, outputs)`: its summary says Model: "functional"
    (tests/tf_reference/model_names_reference.py); a subclass keeps its own snake-cased name."""
    keras = tf.keras
    keras.backend.clear_session()
    inputs = keras.Input((3,))
    first = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    second = keras.Model(inputs=inputs, outputs=inputs)

    class MyModel(keras.Model):
        def call(self, x):
            return x

    names = [first.name, second.name, MyModel().name, keras.Sequential([keras.layers.Dense(1)]).name]
    assert names == ["functional", "functional_1", "my_model", "sequential"]
    assert keras.Model(inputs, inputs, name="mine").name == "mine"
