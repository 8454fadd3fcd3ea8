"""TF 2.21 / Keras 3's values for tests/tf_reference/volume_transpose_cases.py:
TF_ENABLE_ONEDNN_OPTS=0 python tests/tf_reference/volume_transpose_reference.py
(oneDNN's Conv3DBackpropInput refuses some of these shapes; TF's own kernel takes them)."""

import json
import pathlib
import sys

import keras
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from volume_transpose_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("volume_transpose_values.json")
out.write_text(json.dumps(run_all(tf, keras)) + "\n")
print("wrote", out)
