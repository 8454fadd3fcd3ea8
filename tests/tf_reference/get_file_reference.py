"""Keras 3 (on TF 2.21) facts for keras.utils.get_file on a cached file: tests/tf_reference/get_file_values.json.

Run with TensorFlow installed (never a dependency of tapeviz):

    python tests/tf_reference/get_file_reference.py

Paths are stored relative to the cache folder each case made; the network is never reached
(every file is in the cache), except where Keras tries to download (recorded as "download").
"""

import hashlib
import json
import os
import pathlib
import tempfile

OUT = pathlib.Path(__file__).with_name("get_file_values.json")


def main():
    home = tempfile.mkdtemp()
    os.environ["KERAS_HOME"] = home
    import keras

    os.makedirs(os.path.join(home, "datasets"))
    with open(os.path.join(home, "datasets", "a.npz"), "wb") as f:
        f.write(b"abc")
    other = tempfile.mkdtemp()
    os.makedirs(os.path.join(other, "sub"))
    with open(os.path.join(other, "sub", "b.txt"), "w") as f:
        f.write("b")
    url = "https://example.invalid/a.npz"
    facts = {
        "named": os.path.relpath(keras.utils.get_file("a.npz", url), home),
        "from_origin": os.path.relpath(keras.utils.get_file(origin=url), home),
        "sha256_matches": os.path.relpath(
            keras.utils.get_file("a.npz", url, file_hash=hashlib.sha256(b"abc").hexdigest()), home
        ),
        "md5_matches": os.path.relpath(
            keras.utils.get_file("a.npz", url, file_hash=hashlib.md5(b"abc").hexdigest()), home
        ),
        "cache_dir_and_subdir": os.path.relpath(
            keras.utils.get_file("b.txt", "https://example.invalid/b.txt", cache_dir=other, cache_subdir="sub"), other
        ),
    }
    try:
        keras.utils.get_file()
    except ValueError as error:
        facts["no_origin_error"] = str(error)
    facts["keras"] = keras.__version__
    OUT.write_text(json.dumps(facts, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
