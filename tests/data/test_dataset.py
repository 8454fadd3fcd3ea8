"""tf.data.Dataset: slicing, shuffling, batching, and the digits loader."""

import numpy as np
import pytest

import tapeviz as tf


def test_from_tensor_slices_tuple_batches():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.arange(5)
    batches = list(tf.data.Dataset.from_tensor_slices((x, y)).batch(2))
    assert [tuple(b[0].shape) for b in batches] == [(2, 2), (2, 2), (1, 2)]
    np.testing.assert_array_equal(batches[2][1].numpy(), [4])
    assert isinstance(batches[0][0], tf.Tensor)
    assert len(tf.data.Dataset.from_tensor_slices((x, y)).batch(2)) == 3
    assert len(tf.data.Dataset.from_tensor_slices((x, y)).batch(2, drop_remainder=True)) == 2


def test_elements_and_dicts():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1.0, 2.0], "b": [3, 4]})
    first = next(iter(ds))
    assert first["a"].dtype == tf.float32 and first["b"].dtype == tf.int32
    assert float(first["a"]) == 1.0


def test_shuffle_is_a_permutation_and_reshuffles_each_epoch():
    tf.random.set_seed(0)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(100)).shuffle(100)
    first = [int(v) for v in ds]
    second = [int(v) for v in ds]
    assert sorted(first) == list(range(100)) and first != list(range(100))
    assert first != second


def test_shuffle_with_a_fixed_order():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(20)).shuffle(20, seed=1, reshuffle_each_iteration=False)
    assert [int(v) for v in ds] == [int(v) for v in ds]


def test_small_buffer_only_mixes_nearby_elements():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(50)).shuffle(2, seed=3)
    order = [int(v) for v in ds]
    assert sorted(order) == list(range(50))
    assert order[0] in (0, 1)  # the first element comes from a buffer of the first two


def test_seeded_shuffles_repeat_under_set_seed():
    def orders():
        tf.random.set_seed(7)
        return [int(v) for v in tf.data.Dataset.from_tensor_slices(np.arange(30)).shuffle(30)]

    assert orders() == orders()


def test_map_filter_take_skip_repeat():
    ds = tf.data.Dataset.range(10).map(lambda v: v * 2).filter(lambda v: v > 4).take(3)
    assert [int(v) for v in ds] == [6, 8, 10]
    assert [int(v) for v in tf.data.Dataset.range(5).skip(3).repeat(2)] == [3, 4, 3, 4]
    assert len(tf.data.Dataset.range(5).skip(3).repeat(2)) == 4
    with pytest.raises(TypeError, match="infinite"):
        len(tf.data.Dataset.range(3).repeat())


def test_generic_batch_after_map():
    ds = (
        tf.data.Dataset.from_tensor_slices((np.ones((5, 3), np.float32), np.arange(5)))
        .map(lambda x, y: (x * 2, y))
        .batch(4)
    )
    shapes = [tuple(x.shape) for x, _ in ds]
    assert shapes == [(4, 3), (1, 3)]


def test_mismatched_sizes():
    with pytest.raises(ValueError, match="must match along axis 0"):
        tf.data.Dataset.from_tensor_slices((np.ones(3), np.ones(4)))


def test_as_numpy_iterator_and_prefetch():
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).batch(2).prefetch(tf.data.AUTOTUNE)
    parts = list(ds.as_numpy_iterator())
    assert isinstance(parts[0], np.ndarray) and parts[1].tolist() == [3]


def test_load_digits_is_a_stratified_split():
    from tapeviz import datasets as old_home
    from tapeviz.keras.datasets import load_digits

    assert tf.keras.datasets.load_digits is load_digits is old_home.load_digits  # lesson 09's path still works

    (x_train, y_train), (x_test, y_test) = load_digits()
    assert x_train.shape[1:] == (8, 8) and x_train.dtype == np.float32
    assert len(x_train) + len(x_test) == 1797
    assert 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert set(np.unique(y_test)) == set(range(10))
    (again, _), _ = load_digits()
    np.testing.assert_array_equal(again, x_train)  # the same split every time
    (flat, _), _ = load_digits(flatten=True)
    assert flat.shape[1] == 64


def test_load_digits_explains_a_missing_scikit_learn(monkeypatch):
    import builtins

    from tapeviz.keras import datasets

    real_import = builtins.__import__

    def no_sklearn(name, *args, **kwargs):
        if name.startswith("sklearn"):
            raise ImportError("No module named 'sklearn'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        datasets.load_digits()
