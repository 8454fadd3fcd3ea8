"""TF 2.21's tf.debugging behind tests/test_debugging.py: each case of debugging_cases.py run on TF.

Run with TensorFlow installed (writes tests/tf_reference/debugging_values.json):

    python tests/tf_reference/debugging_reference.py
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from debugging_cases import CASES, NUMERICS_CASES, run  # noqa: E402

VALUES_FILE = os.path.join(os.path.dirname(__file__), "debugging_values.json")


def numerics_errors():
    """What enable_check_numerics raises: forward (log(0)), backward (sqrt at 0), an op of two outputs."""
    out = {}
    tf.debugging.enable_check_numerics()
    try:
        for name, code in NUMERICS_CASES.items():
            out[name] = run(tf, code)
    finally:
        tf.debugging.disable_check_numerics()
    out["after_disable"] = run(tf, "tf.math.log(tf.constant(0.0)).numpy().tolist()")
    return out


def main():
    values = {name: run(tf, code) for name, code in CASES.items()}
    result = {
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "cases": values,
        "check_numerics_mode": numerics_errors(),
        "public_names": sorted(n for n in dir(tf.debugging) if not n.startswith("_")),
    }
    with open(VALUES_FILE + ".tmp", "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(VALUES_FILE + ".tmp", VALUES_FILE)


if __name__ == "__main__":
    main()
