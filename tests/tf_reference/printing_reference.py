"""TF 2.21's values for tests/tf_reference/printing_cases.py: python tests/tf_reference/printing_reference.py"""

import json
import pathlib
import sys

import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from printing_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("printing_values.json")
out.write_text(json.dumps(run_all(tf), indent=1) + "\n")
print("wrote", out)
