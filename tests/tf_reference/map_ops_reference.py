"""TF 2.21's values for tests/tf_reference/map_ops_cases.py: python tests/tf_reference/map_ops_reference.py"""

import json
import pathlib
import sys

import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from map_ops_cases import run  # noqa: E402

out = pathlib.Path(__file__).with_name("map_ops_values.json")
out.write_text(json.dumps(run(tf)) + "\n")
print("wrote", out)
