"""Keras 3.15 on TF 2.21's values for tests/tf_reference/augment_more_cases.py:
python tests/tf_reference/augment_more_reference.py (with TF and Keras installed)."""

import json
import os
import pathlib
import sys

import keras

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from augment_more_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("augment_more_values.json")
values = {"meta": {"keras": keras.__version__}, **run_all(keras)}
tmp = out.with_suffix(".tmp")
tmp.write_text(json.dumps(values) + "\n")
os.replace(tmp, out)
print("wrote", out)
