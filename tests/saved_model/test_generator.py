"""A tf.random.Generator held by a saved tf.Module: its state is saved, and the loaded functions draw on from it.

Reference values are what TF 2.21.0 printed for the same modules, saved and
loaded in a fresh process (tests/tf_reference/saved_generator_reference.py).
Loading here runs in the same process without the class (the restored object),
except where the class is handed to ``load``.
"""

import json
import os

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.files import FileFormatError

MANIFEST = "tapeviz_saved_model.json"

# TF 2.21.0 (saved_generator_reference.py): [state, draw] per call of the loaded object, then the state.
PLAIN_LOADED = [[[256, 0, 0], -1.0359411239624023], [[512, 0, 0], -0.06425077468156815], [[768, 0, 0]]]
UNCALLED_LOADED = [[[0, 0, 0], -1.3544158935546875], [[256, 0, 0], -1.0359411239624023], [[512, 0, 0]]]
MIXED_BEFORE_SAVE = [[2.273057460784912, 3.7007436752319336], [0.399328351020813, 0.7840713262557983],
                     [0.43116673827171326, -1.4442064762115479], [6, 1]]  # fmt: skip
MIXED_LOADED = {
    "states": [[1543, 0, 0], [523, 0, 0]],
    "call": [3.222960948944092, 4.764268398284912],
    "draws": [[0.9556506872177124, 0.4111745357513428], [-1.5651421546936035, -0.46152302622795105], [9, 6]],
    "states_after": [[3079, 0, 0], [1035, 0, 0]],
}
MIRRORED_RUN = [-1.4154754877090454, -0.11388441175222397]


class Plain(tf.Module):  # the random numbers guide's module
    def __init__(self):
        super().__init__()
        self.g = tf.random.Generator.from_seed(0)

    @tf.function
    def __call__(self):
        return self.g.normal([])

    @tf.function
    def state(self):
        return self.g.state


class Mixed(tf.Module):
    """A variable, Generators in a list, a signed function and the other draws."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(2.0)
        self.gens = [tf.random.Generator.from_seed(7), tf.random.Generator.from_seed(11)]

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return self.w * x + self.gens[1].normal([2])

    @tf.function
    def draws(self):
        g = self.gens[0]
        return g.uniform([2]), g.truncated_normal([2]), g.uniform([2], 0, 10, dtype=tf.int64)

    @tf.function
    def states(self):
        return self.gens[0].state, self.gens[1].state


def _calls(loaded):
    """What the reference prints: [state, draw] twice, then the state."""
    found = []
    for _ in range(2):
        found.append([loaded.state().numpy().tolist(), float(loaded().numpy())])
    found.append([loaded.state().numpy().tolist()])
    return found


def _assert_calls(found, expected):
    for (state, *draw), (want_state, *want_draw) in zip(found, expected, strict=True):
        assert state == want_state
        np.testing.assert_allclose(draw, want_draw, rtol=1e-6)


def test_loaded_module_draws_on_from_the_saved_generator_state_as_tf(tmp_path):
    module = Plain()
    assert module.variables == ()  # as TF: a Generator is not a Module, its state not among the variables
    np.testing.assert_allclose(float(module()), -1.3544158935546875, rtol=1e-6)
    tf.saved_model.save(module, str(tmp_path))
    np.testing.assert_allclose(float(module()), -1.0359411239624023, rtol=1e-6)  # the original goes on
    loaded = tf.saved_model.load(str(tmp_path))
    _assert_calls(_calls(loaded), PLAIN_LOADED)  # from the state at saving, not the original's
    assert module.g.state.numpy().tolist() == [512, 0, 0]  # the loaded object's draws leave the original alone


def test_functions_never_called_are_traced_at_saving_without_moving_the_stream(tmp_path):
    module = Plain()  # TF gives a tf.function without parameters the input_signature (): saved uncalled
    tf.saved_model.save(module, str(tmp_path))
    assert module.g.state.numpy().tolist() == [0, 0, 0]  # tracing drew nothing
    _assert_calls(_calls(tf.saved_model.load(str(tmp_path))), UNCALLED_LOADED)


def test_generators_in_a_list_beside_a_variable_keep_their_own_states_as_tf(tmp_path):
    module = Mixed()
    before = [module(tf.constant([1.0, 2.0])).numpy().tolist()] + [d.numpy().tolist() for d in module.draws()]
    for got, want in zip(before, MIXED_BEFORE_SAVE, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    tf.saved_model.save(module, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert [s.numpy().tolist() for s in loaded.states()] == MIXED_LOADED["states"]
    np.testing.assert_allclose(loaded(tf.constant([1.0, 2.0])).numpy(), MIXED_LOADED["call"], rtol=1e-6)
    draws = loaded.draws()
    np.testing.assert_allclose(draws[0].numpy(), MIXED_LOADED["draws"][0], rtol=1e-6)
    np.testing.assert_allclose(draws[1].numpy(), MIXED_LOADED["draws"][1], rtol=1e-6)
    assert draws[2].dtype == tf.int64 and draws[2].numpy().tolist() == MIXED_LOADED["draws"][2]
    assert [s.numpy().tolist() for s in loaded.states()] == MIXED_LOADED["states_after"]
    assert float(loaded.w.numpy()) == 2.0


def test_state_is_stored_under_tfs_name_and_draws_as_data(tmp_path):
    tf.saved_model.save(Plain(), str(tmp_path))
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert [v["path"] for v in manifest["variables"]] == ["g/_state_var"]
    assert manifest["variables"][0]["dtype"] == "int64" and not manifest["variables"][0]["trainable"]
    (call,) = [f for f in manifest["saved_functions"] if f["name"] == "__call__"]
    text = json.dumps(call["traces"])
    assert '"random.Generator.normal"' in text and '"generator": {"state": 0, "algorithm": 1}' in text
    assert call["traces"][0]["captures"] == ["g/_state_var"]


@pytest.fixture
def two_cpus():
    tf.config.reset_logical_devices()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(2)])
    yield tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    tf.config.reset_logical_devices()


def test_generator_made_under_a_strategy_loads_outside_it_as_tf(tmp_path, two_cpus):
    with two_cpus.scope():
        module = Plain()
        runs = two_cpus.run(module)
        np.testing.assert_allclose(
            [float(v) for v in two_cpus.experimental_local_results(runs)], MIRRORED_RUN, rtol=1e-6
        )
        tf.saved_model.save(module, str(tmp_path))
    _assert_calls(_calls(tf.saved_model.load(str(tmp_path))), PLAIN_LOADED)  # the plain key, as TF


def test_a_class_handed_to_load_gets_the_saved_generator_state(tmp_path):
    module = Plain()
    module()
    tf.saved_model.save(module, str(tmp_path))
    rebuilt = tf.saved_model.load(str(tmp_path), custom_objects={"Plain": Plain})
    assert isinstance(rebuilt, Plain)
    assert rebuilt.g.state.numpy().tolist() == [256, 0, 0]
    np.testing.assert_allclose(float(rebuilt()), -1.0359411239624023, rtol=1e-6)


def test_a_dry_trace_of_a_draw_has_its_result_and_leaves_the_state(tmp_path):
    g = tf.random.Generator.from_seed(3)

    @tf.function
    def draw():
        return g.normal([2])

    concrete = draw.get_concrete_function()
    assert g.state.numpy().tolist() == [3, 0, 0]
    assert concrete.structured_outputs.shape == (2,)
    first = concrete()
    assert g.state.numpy().tolist() == [3 + 512, 0, 0]
    np.testing.assert_array_equal(first.numpy(), tf.random.Generator.from_seed(3).normal([2]).numpy())


def _edit_call_trace(folder, edit):
    path = os.path.join(folder, MANIFEST)
    with open(path) as f:
        manifest = json.load(f)
    (call,) = [f for f in manifest["saved_functions"] if f["name"] == "__call__"]
    text = json.dumps(call["traces"])
    call["traces"] = json.loads(edit(text))
    with open(path, "w") as f:
        json.dump(manifest, f)


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('"state": 0', '"state": 3', "not among those given"),
        ('"algorithm": 1', '"algorithm": 9', "alg"),
        ('"algorithm": 1', '"algorithm": "philox", "x": 1', "fields"),
        ('"algorithm": 1', '"algorithm": true', "algorithm"),
    ],
)
def test_a_malformed_stored_generator_is_refused(tmp_path, old, new, message):
    tf.saved_model.save(Plain(), str(tmp_path))
    _edit_call_trace(str(tmp_path), lambda text: text.replace(old, new))
    with pytest.raises(FileFormatError, match=message):
        tf.saved_model.load(str(tmp_path))


def test_a_stored_generator_on_a_variable_that_is_no_state_is_refused(tmp_path):
    module = Mixed()
    module(tf.constant([1.0, 2.0]))
    tf.saved_model.save(module, str(tmp_path))
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    (call,) = [f for f in manifest["saved_functions"] if f["name"] == "__call__"]
    assert call["traces"][0]["captures"] == ["w", "gens/1/_state_var"]
    _edit_call_trace(str(tmp_path), lambda text: text.replace('"state": 1', '"state": 0'))  # the generator on w
    with pytest.raises(FileFormatError, match="int64 Variable of 3 words"):
        tf.saved_model.load(str(tmp_path))


def test_a_generator_outside_a_host_calls_arguments_is_refused():
    from tapeviz.core import graph_codec

    with pytest.raises(ValueError, match="unknown value tag 'generator'"):
        graph_codec.decode_value({"generator": {"state": 0, "algorithm": 1}})


def test_a_folder_saved_before_generator_states_were_kept_still_rebuilds_the_class(tmp_path):
    class Scaled(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([1.0, 2.0])
            self.g = tf.random.Generator.from_seed(5)

    module = Scaled()
    module.w.assign([3.0, 4.0])
    tf.saved_model.save(module, str(tmp_path))
    # As tapeviz wrote it before: module.variables only (no Generator state), its one member in the data file.
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert [v["path"] for v in manifest["variables"]] == ["w", "g/_state_var"]
    manifest["variables"] = manifest["variables"][:1]
    data = tmp_path / manifest["data_file"]
    with np.load(data) as arrays:
        kept = {"0": arrays["0"]}
    with open(data, "wb") as f:
        np.savez(f, **kept)
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    rebuilt = tf.saved_model.load(str(tmp_path), custom_objects={"Scaled": Scaled})
    assert isinstance(rebuilt, Scaled)
    assert rebuilt.w.numpy().tolist() == [3.0, 4.0]
    assert rebuilt.g.state.numpy().tolist() == [5, 0, 0]  # the class's own, as before
    assert tf.saved_model.load(str(tmp_path)).w.numpy().tolist() == [3.0, 4.0]


def test_a_generator_method_called_on_something_else_is_refused(tmp_path):
    tf.saved_model.save(Plain(), str(tmp_path))
    _edit_call_trace(str(tmp_path), lambda text: text.replace('{"generator": {"state": 0, "algorithm": 1}}', "5"))
    with pytest.raises(FileFormatError, match="not a stored generator"):
        tf.saved_model.load(str(tmp_path))
