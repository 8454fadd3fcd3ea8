"""Write tests/tf_reference/keras_ops_edge_values.json: every case of keras_ops_edge_cases.py run on Keras 3 / TF 2.21.

    /tmp/tfenv/bin/python tests/tf_reference/keras_ops_edge_reference.py

A case Keras refuses is kept with its error type and message.
"""

import json
import os
import pathlib
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import keras_ops_edge_cases  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import ops  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "keras_ops_edge_values.json"


def main():
    values = {}
    for name in keras_ops_edge_cases.CASES:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values[name] = keras_ops_edge_cases.run(tf, ops, name)
        except Exception as exc:  # noqa: BLE001 - Keras's refusal is a reference value too
            values[name] = {"error": type(exc).__name__, "message": str(exc).strip().splitlines()[0][:200]}
    data = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "backend": keras.backend.backend(),
        "cases": values,
    }
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    os.replace(tmp, OUT)
    print(f"{len(values)} cases, {sum('error' in v for v in values.values())} refused by Keras")


if __name__ == "__main__":
    main()
