"""TF 2.21's tf.distribute and logical devices behind tests/distribute/test_strategy_matches_tf.py: the
setup and each case of distribute_cases.py run on TF (three logical CPUs, as the random-numbers guide),
each case in a process of its own (TF's collectives can abort when one process runs several strategies).

Run with TensorFlow installed (writes tests/tf_reference/distribute_values.json):

    python tests/tf_reference/distribute_reference.py
"""

import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(__file__))

import tensorflow as tf  # noqa: E402
from distribute_cases import CASES, run, setup  # noqa: E402

VALUES_FILE = os.path.join(os.path.dirname(__file__), "distribute_values.json")


def _case_in_a_process(name):
    out = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--case"]:
        seen = setup(tf)  # first: TF refuses logical devices once its runtime started
        name = sys.argv[2]
        print(json.dumps(seen if name == "setup" else run(tf, CASES[name])))
        sys.exit(0)
    values = {name: _case_in_a_process(name) for name in ["setup", *CASES]}
    values["tf_version"] = tf.__version__
    text = json.dumps(values, indent=1, sort_keys=True) + "\n"  # all of it before the file is touched
    with open(VALUES_FILE + ".tmp", "w") as handle:
        handle.write(text)
    os.replace(VALUES_FILE + ".tmp", VALUES_FILE)
    print(json.dumps(values, indent=1))
