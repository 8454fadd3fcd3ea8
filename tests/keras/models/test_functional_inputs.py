"""Dict inputs to a functional model are matched by name, as Keras 3 (TF 2.21) does, never by position.

TF 2.21's behaviour, observed with /tmp/tfenv (keras 3.15): the names are each Input's ``name`` (or the
keys of the dict the model was built on); a missing name raises ``ValueError: Missing data for input
"b". You passed a data dictionary with keys [...]. Expected the following keys: [...]`` from call, fit,
predict and train_on_batch alike; extra keys are ignored; a list given to a model built on a dict whose
keys are not in sorted order raises "The structure of `inputs` doesn't match the expected structure".
"""

import warnings

import numpy as np
import pytest

from tapeviz import keras

Z = np.arange(8, dtype="float32").reshape(4, 2)
A = -np.ones((4, 2), "float32")
Y = np.linspace(0, 1, 4, dtype="float32").reshape(4, 1)


def _two_input_model(as_dict=False):
    """Inputs declared zeta first, alpha second: their sorted order is the other way round."""
    keras.utils.set_random_seed(3)
    zeta, alpha = keras.Input((2,), name="zeta"), keras.Input((2,), name="alpha")
    hidden = keras.layers.Concatenate()([keras.layers.Dense(3)(zeta), alpha])
    outputs = keras.layers.Dense(1)(hidden)
    return keras.Model({"zeta": zeta, "alpha": alpha} if as_dict else [zeta, alpha], outputs)


def test_a_dict_is_matched_to_the_inputs_by_name_not_by_sorted_position():
    model = _two_input_model()
    by_list = model([Z, A]).numpy()
    np.testing.assert_array_equal(model({"alpha": A, "zeta": Z}).numpy(), by_list)
    np.testing.assert_array_equal(model.predict({"zeta": Z, "alpha": A}, verbose=0), by_list)
    assert not np.allclose(model([A, Z]).numpy(), by_list)  # the swap the matching must not make


def test_fit_with_a_dict_trains_as_fit_with_the_list():
    weights = []
    for x in ([Z, A], {"alpha": A, "zeta": Z}):
        model = _two_input_model()
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
        model.fit(x, Y, batch_size=2, epochs=2, shuffle=False, verbose=0)
        weights.append(model.get_weights())
    for got, want in zip(*weights):
        np.testing.assert_array_equal(got, want)


def _missing(keys, expected):
    return f'Missing data for input "alpha". You passed a data dictionary with keys {keys}. Expected the following keys: {expected}'


@pytest.mark.parametrize("how", ["call", "fit", "predict", "train_on_batch", "evaluate"])
def test_a_missing_key_is_kerass_error_wherever_the_dict_goes(how):
    model = _two_input_model()
    model.compile(optimizer="sgd", loss="mse")
    before = [w.copy() for w in model.get_weights()]
    x = {"zeta": Z, "alfa": A}
    run = {
        "call": lambda: model(x),
        "fit": lambda: model.fit(x, Y, verbose=0),
        "predict": lambda: model.predict(x, verbose=0),
        "train_on_batch": lambda: model.train_on_batch(x, Y),
        "evaluate": lambda: model.evaluate(x, Y, verbose=0),
    }[how]
    with pytest.raises(ValueError) as info:
        run()
    assert str(info.value) == _missing(["zeta", "alfa"], ["zeta", "alpha"])  # Keras: unwrapped, Inputs' order
    for got, want in zip(model.get_weights(), before):
        np.testing.assert_array_equal(got, want)  # nothing trained


def test_a_model_built_on_a_dict_names_its_inputs_by_the_keys_sorted():
    model = _two_input_model(as_dict=True)
    with pytest.raises(ValueError) as info:
        model({"zeta": Z})
    assert str(info.value) == _missing(["zeta"], ["alpha", "zeta"])


def test_extra_keys_are_ignored_as_keras_does():
    model = _two_input_model()
    np.testing.assert_array_equal(model({"zeta": Z, "alpha": A, "unused": Z}).numpy(), model([Z, A]).numpy())


def test_a_single_input_model_given_a_dict_needs_its_inputs_name():
    inputs = keras.Input((2,), name="only")
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    assert model({"only": Z}).shape == (4, 1)
    with pytest.raises(ValueError, match='Missing data for input "only"'):
        model({"other": Z})


def test_a_list_for_a_model_built_on_an_unsorted_dict_is_refused():
    model = _two_input_model(as_dict=True)
    with pytest.raises(ValueError, match="The structure of `inputs` doesn't match the expected structure"):
        model([Z, A])


def test_a_list_for_a_model_built_on_a_sorted_dict_is_taken_in_key_order_with_keras_warning():
    alpha, zeta = keras.Input((2,), name="alpha"), keras.Input((2,), name="zeta")
    model = keras.Model({"alpha": alpha, "zeta": zeta}, keras.layers.Subtract()([alpha, zeta]))
    with pytest.warns(UserWarning, match="doesn't match the expected structure"):
        got = model([A, Z]).numpy()
    np.testing.assert_array_equal(got, A - Z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model({"zeta": Z, "alpha": A}).numpy(), A - Z)
