"""Keras 3.15 on TF 2.21's values for tests/tf_reference/augment_cases.py: python tests/tf_reference/augment_reference.py"""

import json
import pathlib
import sys

import keras

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from augment_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("augment_values.json")
out.write_text(json.dumps(run_all(keras)) + "\n")
print("wrote", out)
