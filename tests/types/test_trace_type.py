"""tf.types.experimental.TraceType: tf.function keys an argument by the TraceType it gives, as TF 2.21.

TF's values: tests/tf_reference/summary_values.json ("trace_types"), from
tests/tf_reference/summary_reference.py (the function guide's cell 15, with tracing counts).
"""

import json
import pathlib

import pytest

import tapeviz as tf

TF = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "summary_values.json").read_text())["trace_types"]


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


def test_equal_trace_types_share_a_trace_and_plain_objects_trace_per_instance():
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
    assert {"values": values, "tracing_counts": counts, "plain_object_counts": plain_counts} == TF


def test_trace_type_is_abstract_as_tfs():
    class Incomplete(tf.types.experimental.TraceType):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()
