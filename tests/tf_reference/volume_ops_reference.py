"""TF 2.21's values for tests/tf_reference/volume_ops_cases.py: python tests/tf_reference/volume_ops_reference.py"""

import json
import pathlib
import sys

import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from volume_ops_cases import CASES, run  # noqa: E402

values = {name: run(tf, name) for name in CASES}
out = pathlib.Path(__file__).with_name("volume_ops_values.json")
out.write_text(json.dumps(values) + "\n")
print("wrote", out)
