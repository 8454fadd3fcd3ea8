"""Keras 3 (on TF 2.21) values for keras.config and keras.backend: tests/tf_reference/keras_config_values.json.

Run with TensorFlow installed (never a dependency of tapeviz):

    python tests/tf_reference/keras_config_reference.py
"""

import itertools
import json
import pathlib
import subprocess
import sys

DTYPES = ["bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip

FRESH = r"""
import json, warnings, numpy as np, keras
keras.config.set_floatx("float64")
dense = keras.layers.Dense(2)
keras.config.set_floatx("float32")
facts = {"dense_dtype_after_set_floatx_float64": dense.dtype}
keras.config.set_epsilon(1e-3)
facts["bce_of_1_0_with_epsilon_1e-3"] = float(keras.losses.binary_crossentropy(np.array([1.0]), np.array([0.0])))
keras.config.set_epsilon(1e-7)
keras.config.set_max_epochs(2)
model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    history = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=5, verbose=0)
facts["epochs_run_with_max_epochs_2"] = len(history.history["loss"])
facts["max_epochs_warning"] = [str(w.message) for w in caught if "Limiting" in str(w.message)]
keras.config.set_max_epochs(None)
names = [keras.layers.Dense(1).name, keras.layers.Dense(1).name]
keras.backend.clear_session()
names.append(keras.layers.Dense(1).name)
facts["dense_names_around_clear_session"] = names
print(json.dumps(facts))
"""


def main():
    import keras

    backend, config = keras.backend, keras.config
    values = {
        "defaults": {
            "floatx": config.floatx(),
            "epsilon": config.epsilon(),
            "image_data_format": config.image_data_format(),
            "backend": config.backend(),
            "is_flash_attention_enabled": config.is_flash_attention_enabled(),
            "is_interactive_logging_enabled": config.is_interactive_logging_enabled(),
            "is_traceback_filtering_enabled": config.is_traceback_filtering_enabled(),
            "max_epochs": config.max_epochs(),
            "max_steps_per_epoch": config.max_steps_per_epoch(),
            "is_nnx_enabled": config.is_nnx_enabled(),
        },
        "result_type": {f"{a},{b}": backend.result_type(a, b) for a, b in itertools.product(DTYPES, DTYPES)},
        "standardize_dtype": {
            repr(d): backend.standardize_dtype(d) for d in [None, "float32", "float64", "int32", "uint8", "bool"]
        },
        "standardize_python": {
            "float": backend.standardize_dtype(float),
            "int": backend.standardize_dtype(int),
            "bool": backend.standardize_dtype(bool),
        },
        "is_float_dtype": {d: backend.is_float_dtype(d) for d in DTYPES},
        "is_int_dtype": {d: backend.is_int_dtype(d) for d in DTYPES},
        "uids": [backend.get_uid("a"), backend.get_uid("a"), backend.get_uid("b")],
    }
    errors = {}
    for name, call in [
        ("set_floatx_int32", lambda: config.set_floatx("int32")),
        ("set_image_data_format_nhwc", lambda: config.set_image_data_format("nhwc")),
        ("standardize_dtype_foo", lambda: backend.standardize_dtype("foo")),
    ]:
        try:
            call()
        except Exception as exc:  # the type and text are what is stored
            errors[name] = [type(exc).__name__, str(exc)]
    values["errors"] = errors
    fresh = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, check=True)
    values["fresh_process"] = json.loads(fresh.stdout.strip().splitlines()[-1])
    out = pathlib.Path(__file__).with_name("keras_config_values.json")
    out.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
