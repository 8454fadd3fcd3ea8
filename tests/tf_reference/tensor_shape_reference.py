"""TF 2.21's values for tests/tf_reference/tensor_shape_cases.py:

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/tensor_shape_reference.py
"""

import json
import pathlib
import sys

import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from tensor_shape_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("tensor_shape_values.json")
out.write_text(json.dumps(run_all(tf), indent=0, sort_keys=True) + "\n")
print("wrote", out)
