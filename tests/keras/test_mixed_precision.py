"""keras.mixed_precision against Keras 3 on TF 2.21 (tests/tf_reference/mixed_precision_reference.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference import mixed_precision_reference as R

keras = tf.keras
mp = keras.mixed_precision
KERAS = json.loads((Path(__file__).parents[1] / "tf_reference" / "mixed_precision_values.json").read_text())


@pytest.fixture
def mixed():
    mp.set_global_policy("mixed_float16")
    yield
    mp.set_global_policy(None)  # back to floatx()'s, so later tests' set_floatx applies


def test_policies_name_their_compute_and_variable_dtypes():
    for name, want in KERAS["policies"].items():
        p = mp.Policy(name)
        assert [repr(p), p.name, p.compute_dtype, p.variable_dtype] == want
    with pytest.raises(ValueError) as caught:
        mp.Policy("mixed_int8")
    assert str(caught.value) == KERAS["bad_policy_message"]
    assert repr(mp.global_policy()) == KERAS["default_global"]


def test_mixed_bfloat16_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="mixed_float16"):
        mp.set_global_policy("mixed_bfloat16")
    assert mp.global_policy().name == "float32"


def test_layers_compute_in_float16_with_float32_weights(mixed):
    want = KERAS["layers"]
    dense = keras.layers.Dense(2)
    out = dense(np.ones((1, 3), "float32"))
    softmax = keras.layers.Activation("softmax", dtype="float32")
    assert repr(mp.global_policy()) == want["global"]
    assert repr(keras.config.dtype_policy()) == want["config_dtype_policy"]
    assert [dense.dtype, dense.compute_dtype, dense.variable_dtype, repr(dense.dtype_policy)] == want["dense"]
    assert dense.kernel.dtype.name == want["dense_kernel"]
    assert out.dtype.name == want["dense_output"]
    assert softmax(out).dtype.name == want["softmax_output"]
    assert repr(softmax.dtype_policy) == want["softmax_policy"]
    assert repr(keras.layers.Dense(2, dtype="float64").dtype_policy) == want["float64_layer"]


def test_the_gradient_of_a_float16_layer_reaches_its_float32_weights(mixed):
    dense = keras.layers.Dense(1, use_bias=False)
    dense.build((None, 2))
    dense.set_weights([np.array([[0.5], [-0.25]], "float32")])
    x = np.array([[1.0, 2.0], [3.0, -1.0]], "float32")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.cast(dense(x), "float32") ** 2)
    grad = tape.gradient(loss, dense.kernel)
    assert grad.dtype == tf.float32
    y = x @ np.array([[0.5], [-0.25]])
    np.testing.assert_allclose(grad.numpy(), 2 * x.T @ y, rtol=1e-3)


def test_a_mixed_layer_saves_its_policy_and_comes_back(mixed):
    dense = keras.layers.Dense(2)
    config = dense.get_config()
    assert config["dtype"]["config"] == {"name": "mixed_float16"}
    mp.set_global_policy(None)
    again = keras.layers.Dense.from_config(config)
    assert (again.compute_dtype, again.variable_dtype) == ("float16", "float32")


def test_fit_scales_the_loss_as_keras(mixed):
    want = KERAS["fit"]
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
    model.layers[0].set_weights([R.K1, R.B1])
    model.layers[1].set_weights([R.K2, R.B2])
    model.compile(keras.optimizers.SGD(0.05), "mse")
    history = model.fit(R.X, R.Y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    assert (type(model.optimizer).__name__, model.optimizer.name) == (want["optimizer"], want["optimizer_name"])
    np.testing.assert_allclose(history.history["loss"], want["loss"], rtol=1e-6)
    assert float(model.optimizer.dynamic_scale.numpy()) == want["dynamic_scale"]
    assert int(model.optimizer.step_counter.numpy()) == want["step_counter"]
    assert int(model.optimizer.iterations.numpy()) == want["iterations"]
    weights = model.get_weights()
    assert [str(w.dtype) for w in weights] == want["weight_dtypes"]
    for got, expected in zip(weights, want["weights"]):
        # float16 products: NumPy and TF's kernels round a few of them differently (a float16 ulp)
        np.testing.assert_allclose(got, expected, atol=1e-4)
    assert str(model.predict(R.X[:2], verbose=0).dtype) == want["predict_dtype"]


def test_overflowing_steps_are_skipped_and_halve_the_scale(mixed):
    big = keras.layers.Dense(1, use_bias=False)
    big.build((None, 2))
    big.set_weights([R.BIG_K])
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.001))
    mse = keras.losses.MeanSquaredError()
    for want in KERAS["overflow_loop"]:
        with tf.GradientTape() as tape:
            pred = big(R.BIG_X)
            loss = mse(np.zeros((4, 1), "float32"), pred)
            scaled = opt.scale_loss(loss)
        grads = tape.gradient(scaled, big.trainable_variables)
        opt.apply(grads, big.trainable_variables)
        assert (loss.dtype.name, pred.dtype.name, grads[0].dtype.name) == (
            want["loss_dtype"],
            want["pred_dtype"],
            want["grad_dtype"],
        )
        assert bool(np.all(np.isfinite(grads[0].numpy()))) == want["grad_finite"]
        assert float(opt.dynamic_scale.numpy()) == want["scale"]
        assert int(opt.iterations.numpy()) == want["iterations"]
        np.testing.assert_allclose(float(loss), want["loss"], rtol=1e-6)
        np.testing.assert_allclose(big.kernel.numpy(), want["kernel"], rtol=1e-6)


def test_hand_made_gradients_unscale_skip_and_grow():
    want = KERAS["hand"]
    var = keras.Variable(np.array([1.0, 2.0], "float32"))
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=8.0, dynamic_growth_steps=2)
    assert float(opt.scale_loss(3.0)) == want["scale_loss_3"]
    for grad, step in zip(R.HAND_GRADS, want["steps"]):
        opt.apply_gradients([(np.array(grad, "float32"), var)])
        assert var.numpy().tolist() == step["var"]
        assert float(opt.dynamic_scale.numpy()) == step["scale"]
        assert int(opt.step_counter.numpy()) == step["step_counter"]
        assert int(opt.iterations.numpy()) == step["iterations"]


def test_loss_scale_optimizer_is_in_both_namespaces_and_forwards_the_learning_rate():
    assert keras.optimizers.LossScaleOptimizer is mp.LossScaleOptimizer
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.5))
    opt.learning_rate = 0.25
    assert float(opt.inner_optimizer.learning_rate.numpy()) == 0.25
    with pytest.raises(ValueError, match="wraps an optimizer object"):
        mp.LossScaleOptimizer("sgd")


def test_without_a_mixed_policy_compile_keeps_the_optimizer():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    assert type(model.optimizer).__name__ == "SGD"


def test_a_float32_layer_inside_a_mixed_model_keeps_float32(mixed):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(1, dtype="float32")])
    y = model(np.ones((2, 3), "float32"))
    assert y.dtype.name == KERAS["layers"]["float32_last_layer_output"]
    assert model.layers[0](np.ones((1, 3), "float32")).dtype.name == KERAS["layers"]["dense_output"]
    assert repr(model.dtype_policy) == '<DTypePolicy "mixed_float16">'
