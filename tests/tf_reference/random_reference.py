"""Write tests/tf_reference/random_values.json: TF 2.21's numbers for the seeded programs of random_programs.py.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tests/tf_reference/random_reference.py

Each array is stored with its dtype, shape and the integers behind its bits
(floats as their unsigned bit patterns), so the comparison is exact.
Produced on Linux x86-64 (glibc 2.36, FMA), TensorFlow 2.21 CPU, Keras 3.15.
"""

import hashlib
import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from random_programs import PROGRAMS  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "random_values.json"


BIG = 4096  # larger arrays are stored as a SHA-256 of their bytes and their first values


def encode(array):
    """An array as {dtype, shape, bits}: floats by their bit patterns, so JSON keeps them exactly."""
    array = np.ascontiguousarray(array)
    bits = array.view(f"u{array.itemsize}") if array.dtype.kind == "f" else array
    record = {"dtype": array.dtype.name, "shape": list(array.shape)}
    if array.size > BIG:
        return {**record, "sha256": hashlib.sha256(array.tobytes()).hexdigest(), "bits": bits.ravel()[:16].tolist()}
    return {**record, "bits": bits.ravel().tolist()}


def main():
    values = {}
    for name, program in PROGRAMS.items():
        tf.random.set_seed(None)
        values[name] = [encode(a) for a in program(tf)]
    meta = {"tensorflow": tf.__version__, "keras": tf.keras.__version__}
    text = json.dumps({"meta": meta, "programs": values}, separators=(",", ":"))
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, OUT)
    print(f"wrote {OUT} ({len(text)} bytes, {len(values)} programs)")


if __name__ == "__main__":
    main()
