"""tf.data readers and transformations against TensorFlow 2.21 (tests/tf_reference/data_reference.py).

The reference scenario runs unchanged on tapeviz and every element, dtype,
cardinality and message agrees (TF's messages carry a graph-function prefix
that tapeviz's, raised eagerly, do not).
"""

import json
import os

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference.data_reference import VALUES_FILE, elements, scenario

REFERENCE = json.loads(open(VALUES_FILE).read())
PREFIXED_MESSAGES = {"csv_missing_required", "generator_bad_shape", "get_next_end"}
NOT_COMPARED = {"tensorflow_version", "cpu_count"}


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """The scenario on tapeviz, with TF's reference machine's core count (the default interleave cycle)."""
    real = os.cpu_count
    os.cpu_count = lambda: REFERENCE["cpu_count"]
    try:
        return json.loads(json.dumps(scenario(tf, str(tmp_path_factory.mktemp("data")))))
    finally:
        os.cpu_count = real


@pytest.mark.parametrize("key", sorted(set(REFERENCE) - PREFIXED_MESSAGES - NOT_COMPARED))
def test_agrees_with_tensorflow(observed, key):
    assert observed[key] == REFERENCE[key]


@pytest.mark.parametrize("key", sorted(PREFIXED_MESSAGES))
def test_error_agrees_with_tensorflow(observed, key):
    kind, message = observed[key]
    assert kind == REFERENCE[key][0]
    assert message and message in REFERENCE[key][1]


def test_error_types_are_tfs():
    assert issubclass(tf.errors.OutOfRangeError, tf.errors.OpError)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        iter(tf.data.Dataset.range(0)).get_next()


def test_text_lines_print_as_string_tensors(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("alpha\nbeta\n")
    first = next(iter(tf.data.TextLineDataset(str(path))))
    assert first.numpy() == b"alpha" and first == b"alpha"
    assert str(first) == "tf.Tensor(b'alpha', shape=(), dtype=string)"
    assert repr(first) == "<tf.Tensor: shape=(), dtype=string, numpy=b'alpha'>"
    batch = next(iter(tf.data.TextLineDataset(str(path)).batch(2)))
    assert batch.dtype == tf.string and batch.numpy().tolist() == [b"alpha", b"beta"]  # a string tensor, as TF's
    assert repr(tf.data.TextLineDataset(str(path)).element_spec) == "TensorSpec(shape=(), dtype=tf.string, name=None)"


def test_cache_runs_the_pipeline_once_and_not_after_an_early_stop():
    calls = []

    def record(x):
        calls.append(int(x))
        return x

    cached = tf.data.Dataset.range(4).map(record).cache()
    assert elements(cached.take(2)) == [["int64", 0], ["int64", 1]]  # stopped early: nothing kept
    list(cached)
    list(cached)
    assert calls == [0, 1, 0, 1, 2, 3]


def test_window_on_an_infinite_dataset_streams():
    windows = tf.data.Dataset.range(10**9).repeat().window(3, shift=2)
    assert windows.cardinality() == tf.data.INFINITE_CARDINALITY
    first = [elements(w) for w in windows.take(2)]
    assert first == [[["int64", 0], ["int64", 1], ["int64", 2]], [["int64", 2], ["int64", 3], ["int64", 4]]]


def test_padded_batch_rejects_a_smaller_padded_shape():
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(3, padded_shapes=[2])
    with pytest.raises(ValueError, match="Attempted to pad to a smaller size than the input element"):
        list(ds)


def test_batch_of_ragged_elements_points_to_padded_batch():
    ds = tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x)).batch(2)
    with pytest.raises(ValueError, match="padded_batch"):
        list(ds)


def test_generator_runs_afresh_each_pass_with_args():
    def gen(n):
        yield from range(int(n))

    ds = tf.data.Dataset.from_generator(gen, args=(3,), output_signature=tf.TensorSpec((), tf.int64))
    assert [elements(ds), elements(ds)] == [[["int64", 0], ["int64", 1], ["int64", 2]]] * 2


def test_make_csv_dataset_repeats_and_shuffles_by_default(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n" + "".join(f"{i},{i * 0.5}\n" for i in range(6)))
    ds = tf.data.experimental.make_csv_dataset(str(path), batch_size=4, shuffle_seed=1)
    assert int(ds.cardinality()) == tf.data.INFINITE_CARDINALITY
    batches = [b for _, b in zip(range(3), ds.as_numpy_iterator())]
    seen = np.concatenate([b["a"] for b in batches])
    assert len(seen) == 12 and set(seen.tolist()) == set(range(6))
    assert batches[0]["a"].dtype == np.int32 and batches[0]["b"].dtype == np.float32


def test_shuffle_seed_rules():
    def order(seed):
        return elements(tf.data.Dataset.range(20).shuffle(20, seed=seed))

    assert order(5) == order(5)
    assert order(5) != order(6)
    tf.random.set_seed(1)
    first = order(None)
    tf.random.set_seed(1)
    assert order(None) == first
    tf.random.set_seed(None)


def test_streamed_shuffle_matches_the_indexed_one():
    """A mapped dataset shuffles on a stream; with one seed it gives the order the index fast path gives."""
    for buffer in (3, 10, 25):
        fast = elements(tf.data.Dataset.from_tensor_slices(np.arange(10)).shuffle(buffer, seed=4))
        streamed = elements(tf.data.Dataset.from_tensor_slices(np.arange(10)).map(lambda x: x).shuffle(buffer, seed=4))
        assert streamed == fast
