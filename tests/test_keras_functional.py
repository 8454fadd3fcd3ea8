"""The functional API as Keras 3 builds it: unknown sizes in Input, batch_shape, Sequential.inputs/outputs,
add_loss on symbolic tensors refused, multi-input/multi-output models with named outputs, nested models.

Keras 3.15's results, printed by /tmp/tfenv's Keras, are quoted next to each check.
"""

import numpy as np
import pytest

import tapeviz as tf

K = tf.keras
L = K.layers


def test_input_with_an_unknown_size_gives_none_in_the_output_shapes():
    i = K.Input(shape=(None, 3))
    # Keras: (None, None, 3) (None, None, 2) (None, None, 4)
    assert i.shape == (None, None, 3)
    assert L.Dense(2)(i).shape == (None, None, 2)
    assert L.LSTM(4, return_sequences=True)(i).shape == (None, None, 4)
    assert L.LSTM(4)(i).shape == (None, 4)
    model = K.Model(i, L.Dense(2)(i))
    assert model(np.ones((2, 5, 3), np.float32)).shape == (2, 5, 2)
    assert model(np.ones((1, 7, 3), np.float32)).shape == (1, 7, 2)
    seq = K.Sequential([K.Input((None, 3)), L.Dense(2)])
    assert seq(np.ones((1, 4, 3), np.float32)).shape == (1, 4, 2)


def test_batch_shape():
    # Keras: Input(batch_shape=(4, 3)).shape == (4, 3)
    assert K.Input(batch_shape=(4, 3)).shape == (4, 3)
    with pytest.raises(ValueError, match="both `shape` and `batch_shape`"):
        K.Input(shape=(3,), batch_shape=(4, 3))


def test_sequential_has_inputs_and_outputs():
    s = K.Sequential([K.Input((3,)), L.Dense(2)])
    # Keras: [<KerasTensor shape=(None, 3)...>] [<KerasTensor shape=(None, 2)...>]
    assert [x.shape for x in s.inputs] == [(None, 3)] and [x.shape for x in s.outputs] == [(None, 2)]
    with pytest.raises(AttributeError, match="no defined inputs"):
        K.Sequential([L.Dense(2)]).inputs


def test_add_loss_on_a_symbolic_tensor_is_refused_and_ops_on_one_say_to_use_lambda():
    i = K.Input((3,))
    x = L.Dense(2)(i)
    model = K.Model(i, x)
    with pytest.raises(NotImplementedError, match="add_loss"):  # Keras 3.15: NotImplementedError
        model.add_loss(x)
    with pytest.raises(TypeError, match="Lambda"):
        K.ops.sum(x)
    y = L.Lambda(lambda t: K.ops.sum(t, axis=-1, keepdims=True))(x)
    assert K.Model(i, y)(np.ones((2, 3), np.float32)).shape == (2, 1)


def test_multi_input_multi_output_with_named_outputs_and_nested_models():
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    x = L.Concatenate()([a, b])
    inner = K.Sequential([K.Input((5,)), L.Dense(4, name="inner_dense")], name="inner")
    h = inner(x)
    model = K.Model([a, b], {"o1": L.Dense(1, name="o1")(h), "o2": L.Dense(2, name="o2")(h)})
    out = model([np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)])
    assert {k: tuple(v.shape) for k, v in out.items()} == {"o1": (2, 1), "o2": (2, 2)}
    assert len(model.weights) == 6
