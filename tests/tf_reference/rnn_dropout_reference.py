"""TF 2.21 / Keras 3.15's values for tests/tf_reference/rnn_dropout_cases.py:

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/rnn_dropout_reference.py
"""

import json
import pathlib
import sys

import keras
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from rnn_dropout_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("rnn_dropout_values.json")
out.write_text(json.dumps(run_all(tf, keras)) + "\n")
print("wrote", out)
