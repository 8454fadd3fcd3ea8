"""TF 2.21 / Keras 3's values for tests/tf_reference/conv_lstm_dropout_cases.py:
python tests/tf_reference/conv_lstm_dropout_reference.py"""

import json
import pathlib
import sys

import keras
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conv_lstm_dropout_cases import run_all  # noqa: E402

out = pathlib.Path(__file__).with_name("conv_lstm_dropout_values.json")
out.write_text(json.dumps(run_all(tf, keras)) + "\n")
print("wrote", out)
