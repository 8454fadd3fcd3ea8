"""keras.config and keras.backend against Keras 3 on TF 2.21 (tests/tf_reference/keras_config_reference.py)."""

import json
import logging
import pathlib
import re
import warnings

import numpy as np
import pytest

import tapeviz as tf

keras = tf.keras
REFERENCE = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "keras_config_values.json").read_text())


@pytest.fixture(autouse=True)
def restore_settings():
    """Every test leaves keras.config as Keras starts."""
    yield
    keras.config.set_floatx("float32")
    keras.config.set_epsilon(1e-7)
    keras.config.set_image_data_format("channels_last")
    keras.config.set_max_epochs(None)
    keras.config.set_max_steps_per_epoch(None)
    keras.config.enable_interactive_logging()


def test_the_defaults_are_keras_on_tensorflow():
    for name, want in REFERENCE["defaults"].items():
        assert getattr(keras.config, name)() == want, name


@pytest.mark.parametrize("pair", sorted(REFERENCE["result_type"]))
def test_result_type_promotes_as_keras(pair):
    a, b = pair.split(",")
    assert keras.backend.result_type(a, b) == REFERENCE["result_type"][pair]


def test_dtype_names_as_keras_writes_them():
    for given, want in REFERENCE["standardize_dtype"].items():
        value = None if given == "None" else given.strip("'")
        assert keras.backend.standardize_dtype(value) == want
    for given, want in REFERENCE["standardize_python"].items():
        assert keras.backend.standardize_dtype({"float": float, "int": int, "bool": bool}[given]) == want
    assert keras.backend.standardize_dtype(tf.float64) == "float64"
    assert {d: keras.backend.is_float_dtype(d) for d in REFERENCE["is_float_dtype"]} == REFERENCE["is_float_dtype"]
    assert {d: keras.backend.is_int_dtype(d) for d in REFERENCE["is_int_dtype"]} == REFERENCE["is_int_dtype"]


@pytest.mark.parametrize(
    "name, call",
    [
        ("set_floatx_int32", lambda: keras.config.set_floatx("int32")),
        ("set_image_data_format_nhwc", lambda: keras.config.set_image_data_format("nhwc")),
        ("standardize_dtype_foo", lambda: keras.backend.standardize_dtype("foo")),
    ],
)
def test_bad_settings_raise_keras_errors(name, call):
    kind, message = REFERENCE["errors"][name]
    with pytest.raises(getattr(__builtins__, kind, ValueError)) as raised:
        call()
    # a set's order differs between runs: compare the words, and the names inside the braces as sets
    words = lambda text: re.sub(r"\{[^}]*\}", "{}", text)  # noqa: E731
    names = lambda text: set(re.findall(r"'(\w+)'", text))  # noqa: E731
    assert words(str(raised.value)) == words(message)
    assert names(str(raised.value)) == names(message)


def test_floatx_is_the_dtype_of_new_layers():
    keras.config.set_floatx("float64")
    dense = keras.layers.Dense(2)
    assert dense.dtype == REFERENCE["fresh_process"]["dense_dtype_after_set_floatx_float64"]
    assert dense(tf.ones([1, 3], tf.float64)).dtype == tf.float64
    assert dense.kernel.dtype == tf.float64


def test_epsilon_is_what_the_losses_clip_with():
    keras.config.set_epsilon(1e-3)
    loss = keras.losses.binary_crossentropy(np.array([1.0]), np.array([0.0]))
    np.testing.assert_allclose(float(loss), REFERENCE["fresh_process"]["bce_of_1_0_with_epsilon_1e-3"], rtol=1e-6)


def test_image_data_format_is_the_default_of_convolutions():
    keras.config.set_image_data_format("channels_first")
    conv = keras.layers.Conv2D(4, 3)
    assert conv(tf.ones([1, 2, 8, 8])).shape == (1, 4, 6, 6)  # channels first: 2 in, 4 out
    with pytest.raises(ValueError, match="channels_last"):
        keras.layers.MaxPooling2D()


def test_max_epochs_caps_fit_with_keras_warning():
    keras.config.set_max_epochs(2)
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=5, verbose=0)
    assert len(history.history["loss"]) == REFERENCE["fresh_process"]["epochs_run_with_max_epochs_2"]
    assert [str(w.message) for w in caught if "Limiting" in str(w.message)] == REFERENCE["fresh_process"][
        "max_epochs_warning"
    ]


def test_max_steps_per_epoch_caps_each_epoch():
    keras.config.set_max_steps_per_epoch(1)
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    seen = []
    callback = keras.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(batch))
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 1"):
        model.fit(np.ones((64, 1)), np.ones((64, 1)), batch_size=8, epochs=1, verbose=0, callbacks=[callback])
    assert seen == [0]


def test_clear_session_restarts_names_and_uids():
    first = keras.layers.Dense(1).name
    keras.layers.Dense(1)
    keras.backend.clear_session()
    assert keras.layers.Dense(1).name == "dense" and first.startswith("dense")
    assert [keras.backend.get_uid("a"), keras.backend.get_uid("a"), keras.backend.get_uid("b")] == REFERENCE["uids"]


def test_is_keras_tensor_tells_symbolic_inputs_from_values():
    assert keras.backend.is_keras_tensor(keras.Input((3,)))
    assert not keras.backend.is_keras_tensor(tf.ones([2]))


def test_without_interactive_logging_fit_logs_instead_of_printing(capsys, caplog):
    keras.config.disable_interactive_logging()
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    with caplog.at_level(logging.INFO, logger="keras"):
        model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=1, verbose=2)
    assert capsys.readouterr().out == ""
    assert [r.getMessage() for r in caplog.records][0] == "Epoch 1/1"


def test_the_backend_is_tensorflows_and_cannot_switch():
    keras.config.set_backend("tensorflow")
    with pytest.raises(ValueError, match="cannot switch to 'jax'"):
        keras.config.set_backend("jax")


def test_mixed_bfloat16_is_refused_with_what_to_do():
    # NumPy has no bfloat16; mixed_float16 works (tests/keras/test_mixed_precision.py)
    with pytest.raises(ValueError, match="Use 'mixed_float16'"):
        keras.config.set_dtype_policy("mixed_bfloat16")
    assert keras.config.dtype_policy().name == "float32"


def test_enable_unsafe_deserialization_lets_a_saved_lambda_load(tmp_path):
    """In a process of its own: the switch cannot be turned off again (as in Keras)."""
    import subprocess
    import sys

    script = f"""
import tapeviz as tf
model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Lambda(lambda t: t * 2.0)])
path = {str(tmp_path / "m.keras")!r}
model.save(path)
try:
    tf.keras.models.load_model(path)
    print("loaded without the switch")
except ValueError:
    print("refused")
tf.keras.config.enable_unsafe_deserialization()
loaded = tf.keras.models.load_model(path)
print(float(loaded(tf.ones((1, 2)))[0, 0]))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["refused", "2.0"]
