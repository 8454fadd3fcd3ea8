"""``keras.Model(...)`` arguments as Keras 3 (TF 2.21) sorts them, and a functional model's inputs, outputs and shapes.

Observed with TF 2.21 / Keras 3.15 (/tmp/tfenv): two positional arguments, or one with ``outputs=``, or
both keywords build a functional model; any other positional argument raises ``TypeError: Layer.__init__()
takes 1 positional argument but 2 were given`` (the effective_tf2 guide's ``super().__init__(self)`` cell
fails so on TF); ``inputs=`` or ``outputs=`` alone, and any unknown keyword, raise ``ValueError:
Unrecognized keyword arguments passed to Model: {...}`` (Dense(3, foo=1) too, naming Dense).
"""

import pytest

from tapeviz import keras


class PassesItself(keras.Model):
    def __init__(self, cell):
        super().__init__(self)  # effective_tf2's DynamicRNN does this
        self.cell = cell


def _io():
    x = keras.Input((3,))
    return x, keras.layers.Dense(2)(x)


def test_the_functional_forms():
    x, y = _io()
    for model in (keras.Model(x, y), keras.Model(x, outputs=y), keras.Model(inputs=x, outputs=y)):
        assert model.inputs and model.outputs and model(keras.ops.ones((1, 3))).shape == (1, 2)


@pytest.mark.parametrize("make, given", [(lambda: PassesItself(3), 2), (lambda: keras.Model(_io()[0]), 2)])
def test_a_stray_positional_argument_is_kerass_type_error(make, given):
    with pytest.raises(TypeError, match=rf"^Layer.__init__\(\) takes 1 positional argument but {given} were given"):
        make()


def test_three_positional_arguments_are_refused_not_ignored():
    x, y = _io()
    with pytest.raises(TypeError, match="takes 1 positional argument but 4 were given"):
        keras.Model(x, y, "name")


@pytest.mark.parametrize("key", ["inputs", "outputs"])
def test_inputs_or_outputs_alone_is_kerass_value_error(key):
    x, y = _io()
    with pytest.raises(ValueError, match=f"^Unrecognized keyword arguments passed to Model: {{'{key}'"):
        keras.Model(**{key: x if key == "inputs" else y})


def test_unknown_keywords_are_a_value_error_as_in_keras():
    with pytest.raises(ValueError, match=r"^Unrecognized keyword arguments passed to Model: \{'foo': 1\}"):
        keras.Model(foo=1)
    with pytest.raises(ValueError, match=r"^Unrecognized keyword arguments passed to Dense: \{'foo': 1\}"):
        keras.layers.Dense(3, foo=1)


# -- a functional model's symbolic ends (TF 2.21 / Keras 3.15, observed) ------------------------------------


def _two_branch():
    x, z = keras.Input((3,), name="a"), keras.Input((4,), name="b")
    hidden = keras.layers.Dense(4, name="h")
    return x, z, hidden, hidden(x), keras.layers.Dense(5, name="d2")(z)


def test_inputs_outputs_input_output_as_keras():
    x, z, _, y, w = _two_branch()
    single = keras.Model(x, y)
    assert single.inputs == [x] and single.outputs == [y] and single.input is x and single.output is y
    as_dict = keras.Model({"a": x, "b": z}, {"zz": y, "out": w})
    assert as_dict.input == {"a": x, "b": z} and as_dict.output == {"zz": y, "out": w}
    assert as_dict.inputs == [x, z] and as_dict.outputs == [w, y]  # flattened: sorted keys


def test_shapes_and_output_names_as_keras():
    x, z, _, y, w = _two_branch()
    assert keras.Model(x, y).output_names == ["h"]
    assert (keras.Model(x, y).input_shape, keras.Model(x, y).output_shape) == ((None, 3), (None, 4))
    assert keras.Model([x], y).input_shape == (None, 3)  # one Input: unpacked, as Keras
    both = keras.Model([x, z], [y, w])
    assert both.output_names == ["h", "d2"]
    assert both.input_shape == [(None, 3), (None, 4)] and both.output_shape == [(None, 4), (None, 5)]
    assert keras.Model({"a": x, "b": z}, {"zz": y, "out": w}).output_names == ["d2", "h"]


def test_a_layers_output_cuts_a_feature_extractor_out_of_a_model():
    x = keras.Input((3,))
    hidden = keras.layers.Dense(4, name="h")
    model = keras.Model(x, keras.layers.Dense(2)(hidden(x)))
    features = keras.Model(inputs=model.inputs, outputs=model.get_layer("h").output)
    batch = keras.ops.ones((2, 3))
    assert features(batch).shape == (2, 4)
    assert hidden.input is x
    assert keras.ops.all(features(batch) == hidden(batch))


def test_a_layer_or_model_never_called_symbolically_has_kerass_error():
    with pytest.raises(
        AttributeError, match="^The layer dense_never has never been called and thus has no defined output"
    ):
        keras.layers.Dense(2, name="dense_never").output
    sequential = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert sequential.input_shape == (None, 3) and sequential.output_shape == (None, 2)
    with pytest.raises(AttributeError, match="has never been called and thus has no defined input"):
        sequential.input  # Keras 3.15 says so too, even with an Input


def test_a_subclass_cannot_assign_output_as_in_keras():
    class Sets(keras.Model):
        def __init__(self):
            super().__init__()
            self.output = keras.layers.Dense(1)

    with pytest.raises(AttributeError):
        Sets()
