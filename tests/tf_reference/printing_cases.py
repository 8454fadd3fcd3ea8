"""What TF 2.21 prints: tf.print's formatting (through output_stream="file://...", which both TF and tapeviz
write to), shapes and devices. Run the same way by TF (printing_reference.py) and by tapeviz
(tests/core/test_print_format.py). Nothing here imports TensorFlow or tapeviz."""

import os
import sys
import tempfile

# name: a function of tf returning (inputs, keyword arguments) for one tf.print call
PRINT_CASES = {
    "float32_scalars": lambda tf: ([tf.constant(1.0), tf.constant(1 / 3), tf.constant(1e-8), tf.constant(123456789.0)], {}),
    "float64_scalars": lambda tf: ([tf.constant(0.1, tf.float64), tf.constant(1 / 3, tf.float64), tf.constant(2.0, tf.float64)], {}),
    "special_floats": lambda tf: ([tf.constant([1.0, float("nan"), float("inf"), -float("inf")]), tf.constant(1e20), tf.constant(-0.0)], {}),
    "ints_and_bools": lambda tf: ([tf.range(10), tf.constant(True), tf.constant([True, False]), tf.constant(7, tf.int64)], {}),
    "matrix": lambda tf: ([tf.constant([[1.5, 2.0], [3.0, 4.25]])], {}),
    "summarized_matrix": lambda tf: ([tf.reshape(tf.range(100), (10, 10))], {}),
    "summarized_3d": lambda tf: ([tf.reshape(tf.range(2 * 7 * 8), (2, 7, 8))], {}),
    "python_values": lambda tf: (["a", 1, 2.5, [1, 2], {"k": tf.constant(2)}, (tf.constant(1.5),)], {}),
    "summarize_all": lambda tf: ([tf.range(10)], {"summarize": -1}),
    "summarize_two_sep_end": lambda tf: ([tf.range(10), tf.range(3)], {"summarize": 2, "sep": ",", "end": "!\n"}),
    "variable_and_half": lambda tf: ([tf.Variable([0.5, 0.25]), tf.constant(1 / 3, tf.float16), tf.constant(255, tf.uint8)], {}),
}  # fmt: skip


def run_print(tf, name):
    inputs, kwargs = PRINT_CASES[name](tf)
    handle, path = tempfile.mkstemp(suffix=".txt")
    os.close(handle)
    try:
        tf.print(*inputs, output_stream=f"file://{path}", **kwargs)
        with open(path, encoding="utf-8") as file:
            return file.read()
    finally:
        os.remove(path)


def run_facts(tf):
    t, m = tf.zeros([15]), tf.zeros([2, 3])
    percent = "%s" % (m.shape,)  # noqa: UP031 - the guides print shapes so
    return {
        "shapes": [str(t.shape), repr(t.shape), percent, f"{m.shape}", str(tf.TensorShape([None, 3]))],
        "logical_devices": repr(tf.config.list_logical_devices()),
        "logical_cpu": repr(tf.config.list_logical_devices("CPU")),
        "physical_devices": repr(tf.config.list_physical_devices("CPU")),
        "default_stream_is_stderr": run_default_stream(tf),
    }


def run_default_stream(tf):
    """Where tf.print writes without output_stream: TF writes to the process's stderr (file descriptor 2)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(2), os.dup(1)
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        os.dup2(err.fileno(), 2)
        os.dup2(out.fileno(), 1)
        try:
            tf.print("where am I")
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os.dup2(saved[0], 2)
            os.dup2(saved[1], 1)
            os.close(saved[0])
            os.close(saved[1])
        err.seek(0)
        out.seek(0)
        return b"where am I" in err.read() and b"where am I" not in out.read()


def run_all(tf):
    values = {f"print/{name}": run_print(tf, name) for name in PRINT_CASES}
    values.update(run_facts(tf))
    return values
