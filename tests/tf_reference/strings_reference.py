"""TF 2.21's string tensors and tf.strings behind tests/core/test_strings.py: each case of
strings_cases.py run on TF.

Run with TensorFlow installed (writes tests/tf_reference/strings_values.json):

    python tests/tf_reference/strings_reference.py
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from strings_cases import CASES, run  # noqa: E402

VALUES_FILE = os.path.join(os.path.dirname(__file__), "strings_values.json")


def main():
    result = {
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "cases": {name: run(tf, code) for name, code in CASES.items()},
    }
    temporary = VALUES_FILE + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")
    os.replace(temporary, VALUES_FILE)


if __name__ == "__main__":
    main()
