"""Write tests/tf_reference/dtype_rules_values.json: the dtype TF 2.21 gives each pair of dtype_rules_cases,
saturate_cast's results, each DType's facts, and the names in tf.dtypes and tf.config.

TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/dtype_rules_reference.py
"""

import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dtype_rules_cases  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "dtype_rules_values.json"

if __name__ == "__main__":
    data = {
        "versions": [tf.__version__],
        "facts": dtype_rules_cases.facts(tf),
        "saturate_cast": dtype_rules_cases.saturate_facts(tf),
        "dtypes": dtype_rules_cases.dtype_facts(tf),
        "dir(tf.dtypes)": sorted(n for n in dir(tf.dtypes) if not n.startswith("_")),
        "dir(tf.config)": sorted(n for n in dir(tf.config) if not n.startswith("_")),
    }
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    os.replace(tmp, OUT)
