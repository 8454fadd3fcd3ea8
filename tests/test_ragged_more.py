"""Ragged slicing and nested ragged dimensions against TF 2.21 (tests/tf_reference/ragged_more_reference.py)."""

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf

TF = json.loads((Path(__file__).parent / "tf_reference" / "ragged_more_values.json").read_text())


def _plain(value):
    if isinstance(value, tf.RaggedTensor):
        return {"ragged": value.to_list(), "ragged_rank": value.ragged_rank, "dtype": value.dtype.name}
    if isinstance(value, tf.Tensor):
        return {"dense": value.numpy().tolist(), "dtype": value.dtype.name}
    return value


def _scope():
    scope = {"tf": tf}
    exec(TF["setup"], scope)  # the same four ragged tensors the reference script built
    return scope


@pytest.mark.parametrize("case", sorted(TF["cases"]))
def test_each_case_gives_what_tf_gives(case):
    want = TF["cases"][case]
    scope = _scope()
    if isinstance(want, list) and want[:1] == ["error"]:
        with pytest.raises(getattr(builtins, want[1], Exception)) as raised:
            eval(case, scope)
        assert type(raised.value).__name__ == want[1]
        return
    assert _plain(eval(case, scope)) == want


def test_an_int_on_a_ragged_dimension_after_a_slice_gets_tfs_words():
    rt = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        rt[:, 0]


def test_gradients_flow_through_slices_and_nested_rows():
    v = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])

    def loss_of(v):
        r = tf.RaggedTensor.from_row_splits(v, [0, 3, 4, 4, 6])
        n = tf.RaggedTensor.from_nested_row_splits(v, ([0, 2, 3], [0, 1, 3, 6]))
        return (
            tf.reduce_sum(r[:, 1:].flat_values ** 2)
            + tf.reduce_sum(r[1:3].to_tensor() * 3.0)
            + tf.reduce_sum(r[0] * r[0])
            + tf.reduce_sum(n[1, 0] * 10.0)
            + tf.reduce_sum(n.to_tensor(default_value=-1.0) * 0.5)
        )

    with tf.GradientTape() as tape:
        tape.watch(v)
        loss = loss_of(v)
    grad = tape.gradient(loss, v)
    np.testing.assert_allclose(float(loss), TF["gradient"]["loss"], rtol=1e-6)
    np.testing.assert_allclose(grad.numpy(), TF["gradient"]["grad"], rtol=1e-6)
    # and central differences in float64
    v64 = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    for i in range(6):
        up, down = v64.copy(), v64.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        numeric = (float(loss_of(tf.constant(up))) - float(loss_of(tf.constant(down)))) / 2e-6
        np.testing.assert_allclose(grad.numpy()[i], numeric, rtol=1e-5)


def test_bad_nested_splits_and_ragged_ranks_are_refused():
    with pytest.raises(tf.errors.InvalidArgumentError, match="end at the number of values"):
        tf.RaggedTensor.from_nested_row_splits([1, 2, 3], ([0, 1, 2], [0, 1, 2]))
    with pytest.raises(ValueError, match="ragged_rank"):
        tf.ragged.constant([[[1], [2, 3]], [[4]]], ragged_rank=1)
    with pytest.raises(NotImplementedError, match="to_tensor"):
        tf.reduce_sum(tf.ragged.constant([[[1.0], [2.0, 3.0]], [[4.0]]]), axis=1)
