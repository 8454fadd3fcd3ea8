"""dtype printing, common error messages and unknown-size Keras builds against TF 2.21 (tests/tf_reference/messages_reference.py)."""

import json
import re

import pytest

import tapeviz as tf
from tests.tf_reference.messages_reference import VALUES_FILE, scenario

REFERENCE = json.loads(open(VALUES_FILE, encoding="utf-8").read())
EXACT = [
    "dtype_repr",
    "dtype_str",
    "dtype_format",
    "dtype_in_list",
    "tensor_dtype_str",
    "assign",
    "assign_named",
    "conv_unknown_output_shape",
    "conv_unknown_calls",
    "input_unknown_output_shape",
    "functional_unknown",
]


@pytest.fixture(scope="module")
def observed():
    return json.loads(json.dumps(scenario(tf)))


@pytest.mark.parametrize("key", EXACT)
def test_agrees_with_tensorflow(observed, key):
    assert observed[key] == REFERENCE[key]


def tf_words(message):
    """TF's message without its graph-function prefix, op suffix and terminal bold codes."""
    message = re.sub(r"\x1b\[\d+m", "", message)
    message = re.sub(r"\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" \[Op:MatMul\] name: ", "", message)


def test_matmul_size_mismatch_in_tfs_words(observed):
    kind, message = observed["matmul"]
    assert kind == REFERENCE["matmul"][0] == "InvalidArgumentError"
    assert message.startswith(tf_words(REFERENCE["matmul"][1]))  # then a hint: which side to transpose


def test_matmul_mismatch_inside_a_layer_call_in_keras_words(observed):
    kind, message = observed["matmul_in_layer"]
    assert kind == REFERENCE["matmul_in_layer"][0]
    head, middle, tail = tf_words(REFERENCE["matmul_in_layer"][1]).split("\n\n")
    ours = message.split("\n\n")
    assert ours[0] == head and ours[2] == tail
    assert ours[1].startswith(middle)


def test_call_info_is_added_once_for_nested_layers():
    class Inner(tf.keras.layers.Layer):
        def call(self, x):
            raise ValueError("inner failed")

    class Outer(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def call(self, x):
            return self.inner(x)

    with pytest.raises(ValueError) as info:
        Outer()(tf.ones([1, 2]))
    assert str(info.value).count("Exception encountered when calling") == 1
    assert "Inner.call()" in str(info.value)


def test_unknown_spatial_model_trains_on_two_image_sizes():
    layers = tf.keras.layers
    model = tf.keras.Sequential(
        [layers.Conv2D(2, 3, input_shape=(None, None, 3)), layers.GlobalAveragePooling2D(), layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    for size in (6, 9):
        x = tf.ones([2, size, size, 3])
        history = model.fit(x, tf.zeros([2, 1]), epochs=1, verbose=0)
        assert len(history.history["loss"]) == 1
