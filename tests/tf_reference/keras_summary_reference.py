"""Write tests/tf_reference/keras_summary_texts.json: Keras 3's ``model.summary()`` text.

TF_CPP_MIN_LOG_LEVEL=3 COLUMNS=200 /tmp/tfenv/bin/python tests/tf_reference/keras_summary_reference.py

Keras narrows the table to the terminal (``shutil.get_terminal_size() - 4``);
COLUMNS=200 keeps its default widths, which tapeviz always uses.
"""

import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("COLUMNS", "200")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import keras_summary_cases  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "keras_summary_texts.json"


def summary_text(model, kwargs):
    chunks = []
    model.summary(print_fn=chunks.append, **kwargs)
    return chunks


if __name__ == "__main__":
    texts = {}
    for name, (build, kwargs) in keras_summary_cases.CASES.items():
        keras.utils.clear_session()
        texts[name] = summary_text(build(keras), kwargs)
    data = {"versions": [tf.__version__, keras.__version__], "texts": texts}
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    os.replace(tmp, OUT)
