"""Write tests/tf_reference/keras_layer_more_values.json: keras_layer_cases_more.py run on Keras 3 / TF.

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/keras_layer_more_reference.py
"""

import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import keras_layer_cases_more as cases  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "keras_layer_more_values.json"

if __name__ == "__main__":
    values = {name: cases.run(tf, keras, name) for name in cases.CASES}
    attention = {v: cases.attention(tf, keras, v) for v in cases.ATTENTION_VARIANTS}
    data = {
        "versions": [tf.__version__, keras.__version__],
        "cases": values,
        "facts": cases.facts(keras),
        "attention": attention,
        "masked": {name: cases.masked(tf, keras, name) for name in cases.MASK_MODELS},
    }
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True) + "\n")
    os.replace(tmp, OUT)
