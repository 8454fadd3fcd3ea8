"""TF 2.21 values for tf.summary, TraceType keys and GraphDef sizes: tests/tf_reference/summary_values.json.

Run with TensorFlow (and its tensorboard) installed (never a dependency of tapeviz):

    python tests/tf_reference/summary_reference.py

The event files TF writes are read back with TensorBoard's own reader, as
tests/summary/test_summary.py reads tapeviz's.
"""

import json
import pathlib
import tempfile

import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.util import tensor_util

OUT = pathlib.Path(__file__).with_name("summary_values.json")
IMAGES_FLOAT = (np.arange(2 * 3 * 4 * 3).reshape(2, 3, 4, 3) / 71.0).astype(np.float32)
IMAGES_UINT8 = (np.arange(3 * 2 * 2 * 1).reshape(3, 2, 2, 1) * 20).astype(np.uint8)


def _events(folder):
    accumulator = EventAccumulator(str(folder), size_guidance={"tensors": 0})
    accumulator.Reload()
    facts = {}
    for tag in accumulator.Tags()["tensors"]:
        events = accumulator.Tensors(tag)
        metadata = accumulator.SummaryMetadata(tag)
        rows = []
        for event in events:
            array = tensor_util.make_ndarray(event.tensor_proto)
            if array.dtype == object:
                if tag.startswith("image"):  # width, height, then the decoded pixels of each PNG
                    value = [array[0].decode(), array[1].decode()] + [
                        tf.io.decode_png(png).numpy().tolist() for png in array[2:]
                    ]
                elif tag == "graph":
                    value = None
                else:
                    value = [v.decode() for v in array.reshape(-1)]
            else:
                value = array.tolist()
            rows.append({"step": event.step, "dtype": str(array.dtype), "shape": list(array.shape), "value": value})
        facts[tag] = {"plugin": metadata.plugin_data.plugin_name, "content": metadata.plugin_data.content.decode(),
                      "events": rows}  # fmt: skip
    return facts


def summaries():
    folder = pathlib.Path(tempfile.mkdtemp())
    facts = {"scalar_without_writer": bool(tf.summary.scalar("a", 1.0, step=0).numpy())}
    writer = tf.summary.create_file_writer(str(folder))
    facts["step_outside"] = tf.summary.experimental.get_step()
    with writer.as_default(step=3):
        facts["step_inside_as_default_3"] = int(tf.summary.experimental.get_step())
        facts["scalar_returns"] = bool(tf.summary.scalar("loss", 0.5).numpy())
        tf.summary.scalar("loss", 0.25, step=7)
        tf.summary.scalar("int_scalar", 4, step=1)
        tf.summary.histogram("hist", tf.constant([1.0, 2.0, 2.0, 5.0]), step=1)
        tf.summary.histogram("hist_3", [1.0, 2.0, 2.0, 5.0], step=1, buckets=3)
        tf.summary.histogram("hist_one_value", [4.0, 4.0, 4.0], step=1)
        tf.summary.text("text", "hello", step=2)
        tf.summary.text("text_list", ["a", "bc"], step=2)
        tf.summary.image("image_float", IMAGES_FLOAT, step=0)
        tf.summary.image("image_uint8", IMAGES_UINT8, step=0, max_outputs=2)
        with tf.summary.record_if(False):
            facts["record_if_false_returns"] = bool(tf.summary.scalar("never", 1.0).numpy())
            facts["should_record_inside_record_if_false"] = bool(tf.summary.should_record_summaries().numpy())
        facts["should_record_inside_as_default"] = bool(tf.summary.should_record_summaries().numpy())
    facts["step_after_as_default"] = tf.summary.experimental.get_step()
    facts["should_record_without_writer"] = bool(tf.summary.should_record_summaries().numpy())
    try:
        with writer.as_default():
            tf.summary.scalar("x", 1.0)
    except ValueError as error:
        facts["no_step_error"] = str(error)

    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train_step(x):
        with tf.summary.record_if(lambda: step % 2 == 0):
            tf.summary.scalar("in_function", x, step=step)
        step.assign_add(1)

    with writer.as_default():
        for i in range(5):
            train_step(tf.constant(float(i)))

    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0) + 1.0

    tf.summary.trace_on(graph=True)
    f(tf.constant([1.0, -1.0]))
    with writer.as_default():
        tf.summary.trace_export("graph", step=0)
    writer.close()
    facts["events"] = _events(folder)
    return facts


def trace_types():
    """function guide, cell 15: traces of TraceType-keyed arguments."""

    class FruitTraceType(tf.types.experimental.TraceType):
        def __init__(self, fruit):
            self.fruit_type = type(fruit)
            self.fruit_value = fruit

        def is_subtype_of(self, other):
            return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

        def most_specific_common_supertype(self, others):
            return self if all(self == other for other in others) else None

        def placeholder_value(self, placeholder_context=None):
            return self.fruit_value

        def __eq__(self, other):
            return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

        def __hash__(self):
            return hash(self.fruit_type)

    class Fruit:
        def __tf_tracing_type__(self, context):
            return FruitTraceType(self)

    class Apple(Fruit):
        flavor = tf.constant([1, 2])

    class Mango(Fruit):
        flavor = tf.constant([3, 4])

    class Plain:
        flavor = tf.constant([5, 6])

    @tf.function
    def mixed(a, b):
        return a.flavor + b.flavor

    counts, values = [], []
    for a, b in [(Apple(), Mango()), (Apple(), Mango()), (Mango(), Apple()), (Apple(), Apple())]:
        values.append(mixed(a, b).numpy().tolist())
        counts.append(mixed.experimental_get_tracing_count())
    plain_counts = []
    for _ in range(2):
        mixed(Plain(), Plain())
        plain_counts.append(mixed.experimental_get_tracing_count())
    return {"values": values, "tracing_counts": counts, "plain_object_counts": plain_counts}


def graph_sizes():
    """function guide, cell 28: nodes in the GraphDef of a loop over a Python list."""

    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss

    sizes = {n: len(train.get_concrete_function([(1, 1)] * n).graph.as_graph_def().node) for n in (3, 10)}

    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0) + 1.0

    nodes = f.get_concrete_function(tf.constant([1.0, -1.0])).graph.as_graph_def().node
    return {"python_list_sizes": sizes, "relu_ops": [n.op for n in nodes]}


def main():
    values = {
        "tensorflow": tf.__version__,
        "summary": summaries(),
        "trace_types": trace_types(),
        "graph_def": graph_sizes(),
        "leaked_tensor": leaked_tensor(),
    }
    OUT.write_text(json.dumps(values, indent=1) + "\n")
    print(f"wrote {OUT}")


def leaked_tensor():
    """function guide, cells 39 and 40: a tensor leaked out of a trace, captured by another trace."""
    x = []

    @tf.function
    def leaky_function(a):
        x.append(a + 1)
        return x[-1]

    correct_a = leaky_function(tf.constant(1))

    @tf.function
    def captures_leaked_tensor(b):
        return b + x[0]

    try:
        captures_leaked_tensor(tf.constant(2))
        error = None
    except TypeError as caught:
        error = str(caught).splitlines()[0]
    return {"returned": int(correct_a.numpy()), "capture_error_first_line": error}


if __name__ == "__main__":
    main()
