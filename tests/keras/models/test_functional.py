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


def test_a_model_fits_an_input_one_axis_short_or_long_and_normalization_shows_its_mean():
    """The regression tutorial's `horsepower_model.predict(horsepower[:10])` (1-D data, Input (None, 1)) and
    `normalizer.mean.numpy()`; values from tests/tf_reference/input_rank_and_normalization_reference.py."""
    keras = tf.keras
    normalizer = keras.layers.Normalization(axis=-1)
    assert normalizer.mean is None  # not built yet
    normalizer.adapt(np.arange(12.0).reshape(4, 3))
    assert normalizer.mean.numpy().tolist() == [[4.5, 5.5, 6.5]]
    assert normalizer.variance.numpy().tolist() == [[11.25, 11.25, 11.25]]
    normalizer.adapt(np.ones((2, 3)))  # read from the weights: a new adapt shows at once
    assert normalizer.mean.numpy().tolist() == [[1.0, 1.0, 1.0]]

    scalar = keras.layers.Normalization(input_shape=[1], axis=None)
    scalar.adapt(np.array([1.0, 2.0, 3.0, 4.0]))
    model = keras.Sequential([scalar, keras.layers.Dense(1, kernel_initializer="ones")])
    np.testing.assert_allclose(
        model.predict(np.array([1.0, 2.0, 3.0]), verbose=0),
        [[-1.3416407108306885], [-0.4472135901451111], [0.4472135901451111]],
        rtol=1e-6,
    )
    wide = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones")])
    assert wide(np.ones((3, 2, 1))).shape == (3, 1)
    inputs = keras.Input((1,))
    functional = keras.Model(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    assert functional(np.array([1.0, 2.0])).numpy().tolist() == [[1.0], [2.0]]
    with pytest.raises(ValueError):  # two axes short is no fit: the layer still refuses it
        wide(np.ones(3))
