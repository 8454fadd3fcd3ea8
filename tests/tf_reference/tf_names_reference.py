"""Write tests/tf_reference/tf_names_values.json: TF 2.21's answers to tf_names_cases.facts, and its top-level names.

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/tf_names_reference.py
"""

import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorflow as tf  # noqa: E402
import tf_names_cases  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "tf_names_values.json"

if __name__ == "__main__":
    data = {
        "versions": [tf.__version__],
        "facts": tf_names_cases.facts(tf),
        "dir(tf)": sorted(n for n in dir(tf) if not n.startswith("_")),
    }
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True) + "\n")
    os.replace(tmp, OUT)
