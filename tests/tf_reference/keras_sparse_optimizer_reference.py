"""Write tests/tf_reference/keras_sparse_optimizer_facts.json from Keras 3 / TF.

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/keras_sparse_optimizer_reference.py
"""

import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import keras_sparse_optimizer_cases  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "keras_sparse_optimizer_facts.json"

if __name__ == "__main__":
    data = {"versions": [tf.__version__, keras.__version__], "facts": keras_sparse_optimizer_cases.facts(tf, keras)}
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, OUT)
