"""tf.summary: event files read back with TensorBoard's own reader hold what TF 2.21 writes for the same calls.

TF's values: tests/tf_reference/summary_values.json, from tests/tf_reference/summary_reference.py
(which reads TF's files with the same reader). Each test makes the same calls as the reference.
"""

import io
import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf

pytest.importorskip("tensorboard", reason="tf.summary writes with the tensorboard package (tapeviz[tensorboard])")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.compat.proto import config_pb2  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

TF = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "summary_values.json").read_text())["summary"]
IMAGES_FLOAT = (np.arange(2 * 3 * 4 * 3).reshape(2, 3, 4, 3) / 71.0).astype(np.float32)
IMAGES_UINT8 = (np.arange(3 * 2 * 2 * 1).reshape(3, 2, 2, 1) * 20).astype(np.uint8)


def _read(folder):
    accumulator = EventAccumulator(str(folder), size_guidance={"tensors": 0})
    accumulator.Reload()
    return accumulator


def _decoded(array, tag):
    """The event's value as the reference stores it (PNGs decoded by Pillow, an independent decoder)."""
    if array.dtype != object:
        return array.tolist()
    if tag.startswith("image"):
        image_module = pytest.importorskip("PIL.Image", reason="Pillow decodes the PNGs to compare pixels")
        pixels = []
        for png in array[2:]:
            decoded = np.asarray(image_module.open(io.BytesIO(png)))
            pixels.append((decoded[..., None] if decoded.ndim == 2 else decoded).tolist())
        return [array[0].decode(), array[1].decode()] + pixels
    return [v.decode() for v in array.reshape(-1)]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The reference's calls, made on tapeviz: (facts, folder)."""
    folder = tmp_path_factory.mktemp("summary")
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
    with pytest.raises(ValueError) as caught:
        with writer.as_default():
            tf.summary.scalar("x", 1.0)
    facts["no_step_error"] = str(caught.value)

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
    return facts, folder


def test_return_values_steps_and_conditions_are_tfs(written):
    facts, _ = written
    expected = {k: v for k, v in TF.items() if k != "events"}
    assert facts == expected


@pytest.mark.parametrize(
    "tag",
    [
        "loss",
        "int_scalar",
        "hist",
        "hist_3",
        "hist_one_value",
        "text",
        "text_list",
        "image_float",
        "image_uint8",
        "in_function",
    ],
)
def test_each_summary_reads_back_as_tfs(written, tag):
    _, folder = written
    accumulator = _read(folder)
    expected = TF["events"][tag]
    assert accumulator.SummaryMetadata(tag).plugin_data.plugin_name == expected["plugin"]
    events = accumulator.Tensors(tag)
    assert [e.step for e in events] == [row["step"] for row in expected["events"]]
    for event, row in zip(events, expected["events"]):
        array = tensor_util.make_ndarray(event.tensor_proto)
        assert (str(array.dtype), list(array.shape)) == (row["dtype"], row["shape"])
        value = _decoded(array, tag)
        if array.dtype.kind == "f":
            np.testing.assert_allclose(value, row["value"], rtol=1e-12)
        else:
            assert value == row["value"]


def test_the_traced_graph_is_run_metadata_tensorboards_graph_dashboard_reads(written):
    _, folder = written
    accumulator = _read(folder)
    metadata = accumulator.SummaryMetadata("graph").plugin_data
    assert (metadata.plugin_name, metadata.content.decode()) == (
        "graph_run_metadata_graph",
        TF["events"]["graph"]["content"],
    )
    (event,) = accumulator.Tensors("graph")
    run = config_pb2.RunMetadata.FromString(tensor_util.make_ndarray(event.tensor_proto).item())
    (function_graph,) = run.function_graphs
    ops = sorted(node.op for node in function_graph.pre_optimization_graph.node)
    tf_ops = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "summary_values.json").read_text())
    assert ops == sorted(tf_ops["graph_def"]["relu_ops"])
    mul = next(n for n in function_graph.pre_optimization_graph.node if n.op == "Mul")
    assert len(mul.input) == 2 and "x" in mul.input


def test_a_closed_writer_cannot_become_the_default_again(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.close()
    with pytest.raises(RuntimeError, match="already closed"):
        writer.set_as_default()


def test_a_noop_writer_writes_nothing_and_says_so(tmp_path):
    with tf.summary.create_noop_writer().as_default(step=0):
        assert not bool(tf.summary.scalar("x", 1.0).numpy())


def test_trace_export_without_trace_on_warns_and_writes_nothing(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(), pytest.warns(UserWarning, match="trace_on"):
        tf.summary.trace_export("nothing", step=0)
    writer.close()
    assert "nothing" not in _read(tmp_path).Tags()["tensors"]


def test_a_non_scalar_is_refused_with_what_to_pass(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0), pytest.raises(ValueError, match="takes a scalar"):
        tf.summary.scalar("x", [1.0, 2.0])
    writer.close()


def test_intro_to_modules_cell_16_writes_the_models_graph(tmp_path):
    # guide/intro_to_modules cell 16 (without its tf.profiler call: tapeviz has no profiler)
    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    class MySequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        @tf.function
        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    writer = tf.summary.create_file_writer(str(tmp_path / "func"))
    model = MySequentialModule()
    tf.summary.trace_on(graph=True)
    model(tf.constant([[2.0, 2.0, 2.0]]))
    with writer.as_default():
        tf.summary.trace_export(name="my_func_trace", step=0, profiler_outdir=str(tmp_path))
    writer.close()
    (event,) = _read(tmp_path / "func").Tensors("my_func_trace")
    run = config_pb2.RunMetadata.FromString(tensor_util.make_ndarray(event.tensor_proto).item())
    ops = [node.op for node in run.function_graphs[0].pre_optimization_graph.node]
    assert ops.count("MatMul") == 2 and ops.count("Relu") == 2
