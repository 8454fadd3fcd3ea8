"""Graph.as_graph_def: the nodes TF's GraphDef lists for the same trace (TF 2.21's counts and ops).

TF's values: tests/tf_reference/summary_values.json ("graph_def"), from tests/tf_reference/summary_reference.py
(guide/function cell 28: a loop over a Python list is unrolled into the graph).
"""

import json
import pathlib

import tapeviz as tf

TF = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "summary_values.json").read_text())["graph_def"]


def test_an_unrolled_python_loop_has_tfs_node_count():
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss

    sizes = {str(n): len(train.get_concrete_function([(1, 1)] * n).graph.as_graph_def().node) for n in (3, 10)}
    assert sizes == TF["python_list_sizes"]


def test_nodes_name_their_op_and_read_their_inputs_by_name():
    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0) + 1.0

    nodes = f.get_concrete_function(tf.constant([1.0, -1.0])).graph.as_graph_def().node
    assert sorted(n.op for n in nodes) == sorted(TF["relu_ops"])
    by_name = {n.name: n for n in nodes}
    assert by_name["Relu"].input == ["Mul"]
    assert "x" in by_name["Mul"].input and by_name["x"].op == "Placeholder"
    (identity,) = [n for n in nodes if n.op == "Identity"]
    assert identity.input == ["AddV2"]
