"""Write tests/tf_reference/keras_random_facts.json: keras.random's seed semantics on Keras 3 / TF.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/keras_random_reference.py

The values themselves come from TF's generators and are not compared; the
facts are shapes, dtypes, which draws repeat, SeedGenerator states and
Keras's error messages.
"""

import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "keras_random_facts.json"


def error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the message is the fact
        return [type(exc).__name__, str(exc)]
    return None


def main():
    R = keras.random
    facts = {}
    draws = {
        "normal": lambda s: R.normal((2, 3), seed=s),
        "uniform": lambda s: R.uniform((2, 3), minval=-1.0, maxval=2.0, seed=s),
        "uniform_f64": lambda s: R.uniform((2,), dtype="float64", seed=s),
        "randint": lambda s: R.randint((4,), 0, 5, seed=s),
        "truncated_normal": lambda s: R.truncated_normal((3,), seed=s),
        "categorical": lambda s: R.categorical(np.log([[0.5, 0.5, 1e-9]]), 4, seed=s),
        "gamma": lambda s: R.gamma((2,), 2.0, seed=s),
        "binomial": lambda s: R.binomial((2,), 5, 0.5, seed=s),
        "beta": lambda s: R.beta((2,), 2.0, 3.0, seed=s),
        "dropout": lambda s: R.dropout(np.ones((2, 8), "float32"), 0.5, seed=s),
        "shuffle": lambda s: R.shuffle(np.arange(6), seed=s),
    }
    for name, draw in draws.items():
        a, b = draw(7), draw(7)
        gen = R.SeedGenerator(3)
        c, d = draw(gen), draw(gen)
        facts[name] = {
            "dtype": keras.ops.dtype(a),
            "shape": list(a.shape),
            "int_seed_repeats": bool(np.array_equal(a, b)),
            "generator_advances": not bool(np.array_equal(c, d)) or name == "categorical",
            "generator_state": gen.state.numpy().tolist(),
        }
    drop = keras.ops.convert_to_numpy(R.dropout(np.ones((200, 50), "float32"), 0.3, seed=1))
    facts["dropout_values"] = sorted(set(np.round(drop.ravel(), 6).tolist()))
    noise = keras.ops.convert_to_numpy(R.dropout(np.ones((4, 6), "float32"), 0.5, noise_shape=(None, 1), seed=1))
    facts["dropout_noise_shape_rows_constant"] = bool(all(len(set(row)) == 1 for row in noise.tolist()))
    facts["dropout_rate_1"] = keras.ops.convert_to_numpy(R.dropout(np.ones(3, "float32"), 1.0)).tolist()
    keras.utils.set_random_seed(5)
    first = keras.ops.convert_to_numpy(R.normal((3,)))
    keras.utils.set_random_seed(5)
    facts["set_random_seed_repeats_unseeded"] = bool(np.array_equal(first, keras.ops.convert_to_numpy(R.normal((3,)))))
    facts["bad_seed"] = error(lambda: R.normal((2,), seed="x"))
    facts["bad_generator_seed"] = error(lambda: R.SeedGenerator(seed=1.5))
    gen = R.SeedGenerator(seed=42, name="sg")
    facts["generator_config"] = gen.get_config()
    facts["generator_state_dtype"] = str(gen.state.dtype)
    facts["versions"] = [tf.__version__, keras.__version__]
    OUT.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
