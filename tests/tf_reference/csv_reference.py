"""Write tests/tf_reference/csv_values.json: every case of csv_cases.py read by TF 2.21's CSV readers.

    /tmp/tfenv/bin/python tests/tf_reference/csv_reference.py

A case TF refuses is kept with the elements read before the error and the
error's type and message; any warning TF's Python leaks is recorded too.
"""

import json
import os
import pathlib
import sys
import tempfile
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import csv_cases  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "csv_values.json"


def main():
    values = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in csv_cases.CASES:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                values[name] = csv_cases.run(tf, name, folder)
            values[name]["warnings"] = sorted(
                {str(w.category.__name__) for w in caught if not issubclass(w.category, DeprecationWarning)}
            )
    data = {"tensorflow": tf.__version__, "cases": values}
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, OUT)


if __name__ == "__main__":
    main()
