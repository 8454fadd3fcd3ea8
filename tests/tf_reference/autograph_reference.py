"""TF 2.21's AutoGraph, tf.cond and tf.while_loop behind tests/test_autograph.py: each case of
autograph_cases.py run on TF.

Run with TensorFlow installed (writes tests/tf_reference/autograph_values.json):

    python tests/tf_reference/autograph_reference.py
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(__file__))

import tensorflow as tf  # noqa: E402
from autograph_cases import CASES, run  # noqa: E402

VALUES_FILE = os.path.join(os.path.dirname(__file__), "autograph_values.json")

if __name__ == "__main__":
    values = {name: run(tf, case) for name, case in CASES.items()}
    values["tf_version"] = tf.__version__
    text = json.dumps(values, indent=1, sort_keys=True) + "\n"  # all of it before the file is touched
    with open(VALUES_FILE + ".tmp", "w") as handle:
        handle.write(text)
    os.replace(VALUES_FILE + ".tmp", VALUES_FILE)
    print(json.dumps(values, indent=1))
