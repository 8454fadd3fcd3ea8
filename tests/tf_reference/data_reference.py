"""TF 2.21 behaviour of tf.data readers and transformations behind tests/data/test_data_pipeline.py.

``scenario(tf, folder)`` runs the same code on TensorFlow or on tapeviz and
returns what it observed as plain data (``as_numpy_iterator`` values,
cardinalities, messages). Run with TensorFlow installed to refresh:

    python tests/tf_reference/data_reference.py   # writes data_values.json
"""

import json
import os

import numpy as np

VALUES_FILE = os.path.join(os.path.dirname(__file__), "data_values.json")


def plain(value):
    """NumPy values, bytes and structures as JSON-ready data: (dtype name, nested list)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return ["bytes", value.decode("utf-8")]
    array = np.asarray(value)
    if array.dtype.kind in "SO":
        return ["bytes", [v.decode("utf-8") for v in array.reshape(-1)]]
    return [array.dtype.name, array.tolist()]


def elements(ds):
    return [plain(e) for e in ds.as_numpy_iterator()]


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the reference records whatever TF raises)
        return [type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""]
    return None


def _sources(tf, folder, out):
    def gen():
        for i in range(1, 5):
            yield np.arange(i, dtype=np.int32), float(i) / 2

    signature = (tf.TensorSpec(shape=(None,), dtype=tf.int32), tf.TensorSpec(shape=(), dtype=tf.float32))
    ds = tf.data.Dataset.from_generator(gen, output_signature=signature)
    out["generator"] = elements(ds)
    out["generator_cardinality"] = int(ds.cardinality())
    out["generator_padded"] = elements(ds.padded_batch(2))
    out["generator_padded_values"] = elements(
        ds.padded_batch(3, padded_shapes=([5], []), padding_values=(-1, 0.0), drop_remainder=False)
    )

    def bad():
        yield np.zeros([2, 2], np.int32), 1.0

    out["generator_bad_shape"] = _error(
        lambda: list(tf.data.Dataset.from_generator(bad, output_signature=signature).as_numpy_iterator())
    )
    out["generator_twice"] = [len(elements(ds)), len(elements(ds))]

    lines_a = os.path.join(folder, "a.txt")
    lines_b = os.path.join(folder, "b.txt")
    with open(lines_a, "w") as f:
        f.write("header\nthe first line\nsecond\n\nlast without newline")
    with open(lines_b, "w") as f:
        f.write("b1\nb2\r\nb3\n")
    out["text_lines"] = elements(tf.data.TextLineDataset(lines_a))
    out["text_lines_skip"] = elements(tf.data.TextLineDataset([lines_a, lines_b]).skip(1).take(6))
    out["text_interleave"] = elements(
        tf.data.Dataset.from_tensor_slices([lines_a, lines_b]).interleave(
            lambda path: tf.data.TextLineDataset(path), cycle_length=2, block_length=1
        )
    )
    out["text_cardinality"] = int(tf.data.TextLineDataset(lines_a).cardinality())

    csv = os.path.join(folder, "data.csv")
    with open(csv, "w") as f:
        f.write("x,n,y\n1.5,1,0\n2.5,2,1\n3.5,3,0\n4.5,4,1\n5.5,5,1\n")
    gaps = os.path.join(folder, "gaps.csv")
    with open(gaps, "w") as f:
        f.write("x,n,y\n1.5,1,0\n,2,1\n3.5,,0\n")
    made = tf.data.experimental.make_csv_dataset(csv, batch_size=2, label_name="y", shuffle=False, num_epochs=1)
    out["make_csv"] = elements(made)
    made_cols = tf.data.experimental.make_csv_dataset(
        csv, batch_size=3, select_columns=["n", "y"], shuffle=False, num_epochs=1, column_defaults=[0, 0]
    )
    out["make_csv_select"] = elements(made_cols)
    records = tf.data.experimental.CsvDataset(csv, record_defaults=[tf.float32, tf.int64, 0.0], header=True)
    out["csv_dataset"] = elements(records)
    out["csv_dataset_default"] = elements(
        tf.data.experimental.CsvDataset(gaps, record_defaults=[-1.0, 0], header=True, select_cols=[0, 1])
    )
    out["csv_missing_required"] = _error(
        lambda: elements(
            tf.data.experimental.CsvDataset(gaps, record_defaults=[tf.float32, tf.int32, 0.0], header=True)
        )
    )


def _transformations(tf, out):
    D = tf.data.Dataset
    out["interleave"] = elements(
        D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    )
    out["interleave_default"] = elements(D.range(1, 4).interleave(lambda x: D.range(x)))
    out["flat_map"] = elements(D.range(1, 4).flat_map(lambda x: D.range(x)))
    out["concatenate"] = elements(D.range(3).concatenate(D.range(10, 12)))
    out["concatenate_card"] = int(D.range(3).concatenate(D.range(10, 12)).cardinality())
    out["window"] = [elements(w) for w in D.range(7).window(3, shift=2)]
    out["window_drop"] = [elements(w) for w in D.range(7).window(3, shift=1, stride=2, drop_remainder=True)]
    out["window_batch"] = elements(D.range(7).window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3)))
    out["window_card"] = int(D.range(7).window(3, shift=2).cardinality())
    out["window_tuple"] = [[elements(a), elements(b)] for a, b in D.zip((D.range(4), D.range(4, 8))).window(2)]
    out["unbatch"] = elements(D.from_tensor_slices(np.arange(12).reshape(3, 2, 2)).unbatch())
    out["unbatch_card"] = int(D.from_tensor_slices(np.arange(12).reshape(3, 2, 2)).unbatch().cardinality())
    out["zip_nested"] = elements(D.zip((D.range(3), {"a": D.range(5, 9), "b": D.range(2)})))
    out["zip_card"] = int(D.zip((D.range(3), D.range(5))).cardinality())
    out["take_skip_repeat"] = elements(D.range(5).skip(1).take(3).repeat(2))
    out["repeat_zero"] = elements(D.range(5).repeat(0))
    out["take_all"] = elements(D.range(3).take(-1))
    out["skip_all"] = elements(D.range(3).skip(-1))
    out["batch_remainder"] = elements(D.range(7).batch(3))
    out["padded_batch_2d"] = elements(
        D.range(1, 4).map(lambda x: tf.fill([x, x], x)).padded_batch(2, padded_shapes=[None, 4])
    )
    out["cardinality"] = {
        "range": int(D.range(10).cardinality()),
        "repeat": int(D.range(10).repeat().cardinality()),
        "repeat_take": int(D.range(10).repeat().take(4).cardinality()),
        "filter": int(D.range(10).filter(lambda x: x > 3).cardinality()),
        "batch_inf": int(D.range(10).repeat().batch(3).cardinality()),
        "batch_drop": int(D.range(10).batch(3, drop_remainder=True).cardinality()),
        "skip_more": int(D.range(10).skip(20).cardinality()),
        "repeat_3": int(D.range(10).repeat(3).cardinality()),
        "empty_repeat": int(D.range(0).repeat().cardinality()),
        "constants": [int(tf.data.INFINITE_CARDINALITY), int(tf.data.UNKNOWN_CARDINALITY)],
        "experimental": [int(tf.data.experimental.INFINITE_CARDINALITY), int(tf.data.experimental.UNKNOWN_CARDINALITY)],
        "exp_cardinality": int(tf.data.experimental.cardinality(D.range(4))),
    }
    counter = []

    def record(x):
        counter.append(1)
        return x * 2

    cached = (
        D.range(4)
        .map(lambda x: tf.py_function(record, [x], tf.int64) if hasattr(tf, "py_function") else record(x))
        .cache()
    )
    out["cache_epochs"] = [elements(cached), elements(cached)]
    out["cache_calls"] = len(counter)
    out["prefetch"] = elements(D.range(4).prefetch(tf.data.AUTOTUNE))

    it = iter(D.range(2))
    got = [int(next(it)), int(next(it))]
    out["end_of_data"] = [got, _error(lambda: next(it)), _error(lambda: next(it))]
    it2 = iter(D.range(1))
    it2.get_next()
    out["get_next_end"] = _error(it2.get_next)
    out["len_infinite"] = _error(lambda: len(D.range(3).repeat()))
    out["len_unknown"] = _error(lambda: len(D.range(3).filter(lambda x: x > 0)))
    out["len"] = len(D.range(3).batch(2))
    out["element_spec"] = repr(D.from_tensor_slices((np.zeros([4, 2], np.float32), np.arange(4))).batch(2).element_spec)

    seeded = [elements(D.range(8).shuffle(8, seed=3, reshuffle_each_iteration=False)) for _ in range(2)]
    out["shuffle_fixed_same"] = seeded[0] == seeded[1]
    s = D.range(8).shuffle(8, seed=3)
    out["shuffle_reshuffles"] = elements(s) != elements(s)


def _strings(tf, out):
    """String elements (the timeline of TF's guide "Better performance with the tf.data API")."""
    D = tf.data.Dataset

    def facts(element):
        leaves = element if isinstance(element, (tuple, list)) else (element,)
        return [type(element).__name__ if isinstance(element, (tuple, list)) else "tensor"] + [
            [bool(tf.is_tensor(t)), t.dtype.name, list(t.shape), plain(t.numpy())] for t in leaves
        ]

    def gen(n):
        for i in range(n):
            yield [("Open",), ("Read",)], [(i, -1), (i, 1)]

    timeline = D.from_generator(gen, output_types=(tf.string, tf.int32), output_shapes=((2, 1), (2, 2)), args=(2,))
    out["strings_generator"] = [facts(e) for e in timeline]
    out["strings_batch_unbatch"] = [facts(e) for e in timeline.batch(2).unbatch()]
    out["strings_text_from_slices"] = [facts(e) for e in D.from_tensor_slices(["a", "bc"]).batch(2)]

    def map_decorator(func):
        def wrapper(steps, values):
            return tf.py_function(func, inp=(steps, values), Tout=(steps.dtype, values.dtype))

        return wrapper

    @map_decorator
    def naive_map(steps, values):
        return tf.concat((steps, [["Map"]]), axis=0), tf.concat((values, [values[-1]]), axis=0)

    @map_decorator
    def batch_map(steps, values):
        return (
            tf.concat((steps, tf.tile([[["2nd map"]]], [steps.shape[0], 1, 1])), axis=1),
            tf.concat((values, tf.tile([[values[:][-1][0]]], [values.shape[0], 1, 1])), axis=1),
        )

    out["strings_py_function_map"] = [facts(e) for e in D.range(2).flat_map(lambda _: timeline).map(naive_map)]
    out["strings_map_after_map"] = [facts(e) for e in timeline.batch(2).map(batch_map).map(batch_map).unbatch()]
    steps = tf.zeros([0, 1], dtype=tf.string)
    for element_steps, _ in timeline:
        steps = tf.concat((tf.concat((steps, element_steps), axis=0), [["Train"]]), axis=0)
    out["strings_accumulated"] = facts(steps)
    out["map_returns_list"] = type(next(iter(D.range(1).map(lambda x: [x, x + 1])))).__name__


def scenario(tf, folder):
    out = {}
    _sources(tf, folder, out)
    _transformations(tf, out)
    _strings(tf, out)
    return out


if __name__ == "__main__":
    import tempfile

    import tensorflow

    with tempfile.TemporaryDirectory() as folder:
        result = scenario(tensorflow, folder)
    result["tensorflow_version"] = tensorflow.__version__
    result["cpu_count"] = os.cpu_count()  # the default interleave cycle_length
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(result, sort_keys=True))
