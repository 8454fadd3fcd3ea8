"""A file is data, never a program; a save is all or nothing (issue 17).

Every hostile file is built here, in tmp_path. A "sentinel" is a callable
patched in place of something a hostile file names (subprocess.Popen,
os.system, builtins.eval, ...): it records any call, so a test can show
that nothing named in a file ran.
"""

import gc
import json
import multiprocessing
import os
import subprocess
import sys
import time
import tracemalloc
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core import files
from tapeviz.core.files import FileFormatError
from tapeviz.keras.saving import config as saving_config
from tapeviz.keras.saving import registry

h5py = pytest.importorskip("h5py")
ROOT = Path(__file__).resolve().parents[2]
L = tf.keras.layers


@pytest.fixture
def sentinels(monkeypatch):
    """Replace what a hostile file might name with recorders; the list of calls is returned."""
    calls = []

    def recorder(label):
        def record(*args, **kwargs):
            calls.append((label, args, kwargs))
            raise AssertionError(f"{label} was called by a load")

        return record

    monkeypatch.setattr(subprocess, "Popen", recorder("subprocess.Popen"))
    monkeypatch.setattr(os, "system", recorder("os.system"))
    hostile = types.ModuleType("hostile_module")  # as if any class were imported in the session
    hostile.Boom = type("Boom", (tf.Module,), {"__init__": recorder("hostile_module.Boom")})
    hostile.boom = recorder("hostile_module.boom")
    monkeypatch.setitem(sys.modules, "hostile_module", hostile)
    return calls


def small_model():
    model = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(3, activation="relu"), L.Dense(1)], name="small")
    return model


def weights_of(model):
    return [w.copy() for w in model.get_weights()]


def assert_same_weights(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def rewrite_member(path, name, data):
    """Replace one member of a zip file (builds hostile .keras files from real ones)."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members[name] = data
    with zipfile.ZipFile(path, "w") as z:
        for n, d in members.items():
            z.writestr(n, d)


# -- 1. tf.saved_model.load resolves no name read from the file ----------------------------------


class Scaled(tf.Module):
    built = 0

    def __init__(self, scale=1.0, name=None):
        super().__init__(name=name)
        type(self).built += 1
        self.w = tf.Variable([float(scale), 2.0])


def hostile_saved_model(folder, module, qualname, init_args):
    """A SavedModel folder (real variables) whose manifest names ``module.qualname`` with constructor args."""
    tf.saved_model.save(Scaled(), str(folder))
    with open(folder / "tapeviz_saved_model.json") as f:
        manifest = json.load(f)
    manifest["class"] = {"name": qualname, "module": module, "qualname": qualname}
    manifest["init"] = {"args": init_args, "kwargs": {}}
    with open(folder / "tapeviz_saved_model.json", "w") as f:
        json.dump(manifest, f)


@pytest.mark.parametrize(
    "module, qualname, args",
    [
        ("subprocess", "Popen", [["touch", "PWNED"]]),
        ("os", "system", ["touch PWNED"]),
        ("builtins", "eval", ["__import__('os').system('touch PWNED')"]),
        ("io", "FileIO", ["VICTIM", "w"]),
        ("tapeviz.keras.saving", "save_model", []),
        ("hostile_module", "Boom", []),
        ("hostile_module", "boom", []),
    ],
)
def test_saved_model_manifest_naming_any_class_restores_variables_only(
    tmp_path, monkeypatch, sentinels, module, qualname, args
):
    victim = tmp_path / "VICTIM"
    victim.write_bytes(b"precious")
    monkeypatch.chdir(tmp_path)  # a relative 'VICTIM' or 'PWNED' would land here
    hostile_saved_model(tmp_path / "m", module, qualname, args)
    restored = tf.saved_model.load(str(tmp_path / "m"))
    assert type(restored).__name__ == "_Restored"
    np.testing.assert_array_equal(restored.w.numpy(), [1.0, 2.0])
    assert sentinels == []
    assert victim.read_bytes() == b"precious"
    assert not (tmp_path / "PWNED").exists()


def test_saved_model_rebuilds_only_a_class_passed_in_or_registered(tmp_path, monkeypatch):
    module = Scaled(3.0)
    tf.saved_model.save(module, str(tmp_path / "m"))
    Scaled.built = 0
    restored = tf.saved_model.load(str(tmp_path / "m"))  # Scaled is defined and imported, but not given
    assert Scaled.built == 0 and not isinstance(restored, Scaled)
    np.testing.assert_array_equal(restored.w.numpy(), [3.0, 2.0])
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        restored.missing
    loaded = tf.saved_model.load(str(tmp_path / "m"), custom_objects={"Scaled": Scaled})
    assert isinstance(loaded, Scaled) and Scaled.built == 1
    np.testing.assert_array_equal(loaded.w.numpy(), [3.0, 2.0])

    registered = tf.keras.saving.register_keras_serializable("tests")(type("Registered", (Scaled,), {}))
    tf.saved_model.save(registered(5.0), str(tmp_path / "r"))
    with open(tmp_path / "r" / "tapeviz_saved_model.json") as f:
        assert json.load(f)["class"]["name"] == "tests>Registered"
    again = tf.saved_model.load(str(tmp_path / "r"))
    assert type(again) is registered and again.w.numpy().tolist() == [5.0, 2.0]


def test_saved_model_methods_run_from_their_traces_or_say_how_to_pass_the_class(tmp_path):
    class Doubler(tf.Module):
        def __init__(self):
            super().__init__()
            self.k = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None])])
        def __call__(self, x):
            return x * self.k

    tf.saved_model.save(Doubler(), str(tmp_path / "d"))
    restored = tf.saved_model.load(str(tmp_path / "d"))
    assert restored(tf.constant([1.0, 3.0])).numpy().tolist() == [2.0, 6.0]  # its stored trace, no class needed
    manifest_path = tmp_path / "d" / "tapeviz_saved_model.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["saved_functions"], manifest["signatures"]  # as a folder from before traces were stored
    manifest_path.write_text(json.dumps(manifest))
    restored = tf.saved_model.load(str(tmp_path / "d"))
    with pytest.raises(AttributeError, match="custom_objects=\\{'Doubler': TheClass\\}"):
        restored(tf.constant([1.0]))
    assert isinstance(tf.saved_model.load(str(tmp_path / "d"), custom_objects={"Doubler": Doubler}), Doubler)


@pytest.mark.parametrize("data_file", ["../outside.npz", "/etc/passwd", "variables.npz/../../x.npz", 7])
def test_saved_model_reads_no_file_outside_its_folder(tmp_path, data_file):
    tf.saved_model.save(Scaled(), str(tmp_path / "m"))
    manifest_path = tmp_path / "m" / "tapeviz_saved_model.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["data_file"] = data_file
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(FileFormatError, match="unexpected data file"):
        tf.saved_model.load(str(tmp_path / "m"))


def test_saved_model_refuses_pickles_and_values_the_manifest_does_not_describe(tmp_path, sentinels):
    tf.saved_model.save(Scaled(), str(tmp_path / "m"))
    folder = tmp_path / "m"
    data = folder / json.loads((folder / "tapeviz_saved_model.json").read_text())["data_file"]
    np.savez(data, **{"0": np.array([object(), 1], dtype=object)})  # a pickle inside the npz
    with pytest.raises(FileFormatError):
        tf.saved_model.load(str(folder))
    np.savez(data, **{"0": np.zeros((5,), np.float32)})  # the wrong shape
    with pytest.raises(FileFormatError, match="not the"):
        tf.saved_model.load(str(folder))
    assert sentinels == []


# -- 2. load_model calls only registered Keras families; safe_mode ------------------------------


def saved_keras(tmp_path, model=None, name="m.keras"):
    path = tmp_path / name
    (model or small_model()).save(str(path))
    return path


def first_dense(config):
    """The config entry of the model's first Dense layer (entry 0 is its InputLayer)."""
    return next(entry for entry in config["model"]["layers"] if entry.get("__object__") == "Dense")


def config_of(path):
    with zipfile.ZipFile(path) as z:
        return json.loads(z.read("config.json"))


@pytest.mark.parametrize(
    "entry",
    [
        {"__function__": "save_model"},
        {"__function__": "load_model"},
        {  # the exploit: save_model(Sequential([]), 'other.keras') called during the load
            "__object__": "save_model",
            "args": [{"__object__": "Sequential", "args": [[]], "kwargs": {}}, "other.keras"],
            "kwargs": {},
        },
        {"__object__": "Popen", "args": [["touch", "PWNED"]], "kwargs": {}},
        {"__object__": "ModelCheckpoint", "args": ["PWNED"], "kwargs": {}},
        {"__object__": "LambdaCallback", "args": [], "kwargs": {}},
        {"__function__": "system"},
        {"__function__": "eval"},
        {"__object__": "Boom", "args": [], "kwargs": {}},
        {"__function__": "boom"},
        {"__object__": "Dense", "family": "callbacks", "args": [1], "kwargs": {}},
    ],
)
def test_a_config_naming_anything_but_a_registered_keras_class_is_refused(tmp_path, monkeypatch, sentinels, entry):
    monkeypatch.chdir(tmp_path)
    path = saved_keras(tmp_path)
    config = config_of(path)
    first_dense(config)["kwargs"]["activation"] = entry
    rewrite_member(path, "config.json", json.dumps(config))
    target = tmp_path / "other.keras"
    target.write_bytes(b"the user's other model")
    with pytest.raises(ValueError, match="Could not locate class or function"):
        tf.keras.models.load_model(str(path))
    assert sentinels == [] and target.read_bytes() == b"the user's other model"
    assert sorted(os.listdir(tmp_path)) == ["m.keras", "other.keras"]


def test_the_families_functions_are_loadable_by_name():
    # losses/ and metrics/ are packages: functions defined in their modules are still theirs to load
    assert registry.lookup("mean_squared_error", "losses") is tf.keras.losses.mean_squared_error
    assert registry.lookup("sparse_top_k_categorical_accuracy", "metrics") is (
        tf.keras.metrics.sparse_top_k_categorical_accuracy
    )
    builtin = {name for (_, name) in registry._BUILTIN}
    assert "LossFunctionWrapper" not in builtin and "AutoAccuracy" not in builtin  # helpers, not in __all__


def test_save_model_is_not_reachable_from_a_config(tmp_path):
    saved_keras(tmp_path)
    assert "save_model" not in {name for (_, name) in registry._BUILTIN}
    with pytest.raises(ValueError, match="Could not locate"):
        saving_config.deserialize({"__function__": "save_model"})
    with pytest.raises(ValueError, match="names a class, not a function"):
        saving_config.deserialize({"__function__": "Dense"})


def test_safe_mode_refuses_a_saved_lambda_and_runs_it_only_when_asked(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(2, activation=lambda t: t * 3.0)])
    with pytest.warns(UserWarning, match="includes a `lambda`. This is unsafe"):  # as Keras 3 warns
        path = saved_keras(tmp_path, model)
    with pytest.raises(ValueError) as info:
        tf.keras.models.load_model(str(path))
    # Keras 3.15: "Requested the deserialization of a Python lambda. This carries a potential risk of arbitrary
    # code execution and thus it is disallowed by default. If you trust the source of the artifact, you can
    # override this error by passing `safe_mode=False` to the loading function, ..."
    assert str(info.value).startswith(
        "Requested the deserialization of a Python lambda. This carries a potential risk of arbitrary code execution"
    )
    assert "safe_mode=False" in str(info.value)
    loaded = tf.keras.models.load_model(str(path), safe_mode=False)
    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy())


def test_safe_mode_refuses_a_hostile_lambda_before_anything_runs(tmp_path):
    sentinel = str(tmp_path / "ran")

    def hostile():
        return lambda x: open(sentinel, "w").write("ran") or x  # noqa: SIM115

    with pytest.warns(UserWarning, match="lambda"):
        data = saving_config.serialize(hostile())
    assert "__lambda__" in data
    path = saved_keras(tmp_path)
    config = config_of(path)
    first_dense(config)["kwargs"]["activation"] = data
    rewrite_member(path, "config.json", json.dumps(config))
    with pytest.raises(ValueError, match="Python lambda"):
        tf.keras.models.load_model(str(path))
    with pytest.raises(ValueError, match="Python lambda"):
        tf.keras.models.load_model(str(path), compile=False)
    assert not os.path.exists(sentinel)


# -- 3. HDF5: no links, no external or virtual storage -------------------------------------------


def secret_file(tmp_path):
    """A file outside the model whose bytes, if read, would be recognisable weights."""
    path = tmp_path / "id_rsa"
    np.full(6, 1234.5, np.float32).tofile(path)
    return path


def hostile_weights(tmp_path, kind):
    model = small_model()
    path = tmp_path / f"{kind}.weights.h5"
    model.save_weights(str(path))
    secret = secret_file(tmp_path)
    with h5py.File(path, "a") as f:
        del f["layers/dense/vars/0"]
        if kind == "external":
            f.create_dataset("layers/dense/vars/0", shape=(2, 3), dtype="float32", external=[(str(secret), 0, 24)])
        elif kind == "virtual":
            with h5py.File(tmp_path / "outside.h5", "w") as g:
                g["data"] = np.full((2, 3), 1234.5, np.float32)
            layout = h5py.VirtualLayout(shape=(2, 3), dtype="float32")
            layout[:] = h5py.VirtualSource(str(tmp_path / "outside.h5"), "data", shape=(2, 3))
            f["layers/dense/vars"].create_virtual_dataset("0", layout)
        elif kind == "soft":
            f["elsewhere"] = np.full((2, 3), 1234.5, np.float32)
            f["layers/dense/vars/0"] = h5py.SoftLink("/elsewhere")
        elif kind == "external_link":
            with h5py.File(tmp_path / "outside.h5", "w") as g:
                g["data"] = np.full((2, 3), 1234.5, np.float32)
            f["layers/dense/vars/0"] = h5py.ExternalLink(str(tmp_path / "outside.h5"), "/data")
    return path


@pytest.mark.parametrize(
    "kind, message",
    [
        ("external", "external Dataset"),
        ("virtual", "virtual Dataset"),
        ("soft", "SoftLink"),
        ("external_link", "ExternalLink"),
    ],
)
def test_weights_files_with_links_or_outside_storage_are_refused(tmp_path, kind, message):
    path = hostile_weights(tmp_path, kind)
    model = small_model()
    before = weights_of(model)
    with pytest.raises(FileFormatError, match=message):
        model.load_weights(str(path))
    assert_same_weights(weights_of(model), before)
    assert not any(np.any(w == 1234.5) for w in model.get_weights())  # the outside bytes reached no weight

    keras_path = saved_keras(tmp_path, small_model(), name=f"{kind}.keras")  # the same h5 inside a .keras
    rewrite_member(keras_path, "model.weights.h5", path.read_bytes())
    with pytest.raises(FileFormatError, match=message):
        tf.keras.models.load_model(str(keras_path))
    with pytest.raises(FileFormatError, match=message):
        model.load_weights(str(keras_path))
    assert_same_weights(weights_of(model), before)


def test_a_failed_weights_load_changes_no_weight(tmp_path):
    path = tmp_path / "m.weights.h5"
    small_model().save_weights(str(path))
    with h5py.File(path, "a") as f:  # the second layer's kernel has the wrong shape: the first must not change
        del f["layers/dense_1/vars/0"]
        f["layers/dense_1/vars/0"] = np.zeros((4, 1), np.float32)
    model = small_model()
    before = weights_of(model)
    with pytest.raises(ValueError, match="could not be loaded"):
        model.load_weights(str(path))
    assert_same_weights(weights_of(model), before)


# -- 5. overwrite=False ---------------------------------------------------------------------------


def test_overwrite_false_keeps_an_existing_file(tmp_path):
    model = small_model()
    for name, save in (("m.keras", model.save), ("m.weights.h5", model.save_weights)):
        path = tmp_path / name
        save(str(path), overwrite=False)  # no file yet: written
        original = path.read_bytes()
        other = small_model()
        with pytest.raises(FileExistsError, match="overwrite=False"):
            (other.save if name.endswith(".keras") else other.save_weights)(str(path), overwrite=False)
        assert path.read_bytes() == original
        (other.save if name.endswith(".keras") else other.save_weights)(str(path))  # overwrite=True: replaced
        assert path.read_bytes() != original
    assert sorted(os.listdir(tmp_path)) == ["m.keras", "m.weights.h5"]


def test_overwrite_false_never_replaces_a_file_that_appears_while_writing(tmp_path):
    path = tmp_path / "race.bin"
    with pytest.raises(FileExistsError):
        with files.atomic_write(path, overwrite=False) as f:
            f.write(b"mine")
            path.write_bytes(b"theirs")  # another process got there first
    assert path.read_bytes() == b"theirs" and os.listdir(tmp_path) == ["race.bin"]


# -- 6. atomic writes ---------------------------------------------------------------------------


def test_a_save_that_fails_midway_leaves_the_old_file(tmp_path):
    good = small_model()
    for name, save in (("m.keras", "save"), ("m.weights.h5", "save_weights")):
        path = tmp_path / name
        getattr(good, save)(str(path))
        original = path.read_bytes()
        bad = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(1, name="nul\x00name")])
        with pytest.raises(ValueError, match="NUL"):
            getattr(bad, save)(str(path))
        assert path.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == ["m.keras", "m.weights.h5"]  # no temporary file left behind
    assert_same_weights(tf.keras.models.load_model(str(tmp_path / "m.keras")).get_weights(), good.get_weights())


def test_ctrl_c_during_a_save_leaves_the_old_file(tmp_path, monkeypatch):
    old = small_model()
    paths = {"keras": tmp_path / "m.keras", "h5": tmp_path / "m.weights.h5", "dir": tmp_path / "sm"}
    old.save(str(paths["keras"]))
    old.save_weights(str(paths["h5"]))
    tf.saved_model.save(Scaled(7.0), str(paths["dir"]))
    before = {k: sorted(os.listdir(p)) if p.is_dir() else p.read_bytes() for k, p in paths.items()}

    def interrupted(fd):
        raise KeyboardInterrupt  # after the new bytes are written, before the file is moved into place

    monkeypatch.setattr(files.os, "fsync", interrupted)
    new = small_model()
    for call in (
        lambda: new.save(str(paths["keras"])),
        lambda: new.save_weights(str(paths["h5"])),
        lambda: tf.saved_model.save(Scaled(9.0), str(paths["dir"])),
    ):
        with pytest.raises(KeyboardInterrupt):
            call()
    monkeypatch.undo()
    after = {k: sorted(os.listdir(p)) if p.is_dir() else p.read_bytes() for k, p in paths.items()}
    assert after == before
    assert tf.saved_model.load(str(paths["dir"])).w.numpy().tolist() == [7.0, 2.0]
    assert sorted(os.listdir(tmp_path)) == ["m.keras", "m.weights.h5", "sm"]


def test_saved_files_get_the_usual_permissions(tmp_path):
    path = tmp_path / "m.weights.h5"
    small_model().save_weights(str(path))
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask


def race_model():
    return tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(256), L.Dense(256)])  # big enough to take a while


def _save_repeatedly(kind, path, seed, times):
    for i in range(times):
        if kind == "module":
            tf.saved_model.save(Scaled(float(seed * 100 + i)), path)
            continue
        model = race_model()
        model.set_weights([np.full(w.shape, seed * 100 + i, np.float32) for w in model.get_weights()])
        model.save(path) if kind == "keras" else model.save_weights(path)


def _read_back(kind, path):
    """The one value every weight of the file holds (each save writes a single value everywhere)."""
    if kind == "module":
        return float(tf.saved_model.load(path).w.numpy()[0])
    if kind == "keras":
        model = tf.keras.models.load_model(path)
    else:
        model = race_model()
        model.load_weights(path)
    values = {float(w.flat[0]) for w in model.get_weights()}
    assert len(values) == 1, "weights from two different saves in one file"
    return values.pop()


@pytest.mark.parametrize("kind, name", [("keras", "race.keras"), ("h5", "race.weights.h5"), ("module", "race_dir")])
def test_processes_saving_to_one_path_never_leave_an_unreadable_file(tmp_path, kind, name):
    """Three processes save to one path while this one reads it: every read and the final file are whole saves.

    (With a plain open(path, 'wb') writer instead of atomic_write, reads during such a run fail hundreds of times.)
    """
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    path = str(tmp_path / name)
    saved = {s * 100 + i for s in (1, 2, 3) for i in range(5)}
    reads = []
    for _attempt in range(3):
        workers = [context.Process(target=_save_repeatedly, args=(kind, path, seed, 5)) for seed in (1, 2, 3)]
        for w in workers:
            w.start()
        while kind != "module" and any(w.is_alive() for w in workers):  # a folder is read file by file: not here
            if os.path.exists(path):
                reads.append(_read_back(kind, path))
        for w in workers:
            w.join(60)
            assert w.exitcode == 0
        reads.append(_read_back(kind, path))
        leftovers = os.listdir(path) if kind == "module" else os.listdir(tmp_path)
        assert [n for n in leftovers if n.endswith(".tmp")] == []
    assert set(reads) <= saved
    if kind != "module":
        assert os.listdir(tmp_path) == [name]


# -- 7. register_keras_serializable -------------------------------------------------------------


def test_a_registered_class_is_saved_under_its_registered_name_and_loads(tmp_path):
    @tf.keras.saving.register_keras_serializable(package="lesson", name="Scaler")
    class TimesTwo(L.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    assert tf.keras.saving.get_registered_name(TimesTwo) == "lesson>Scaler"
    assert tf.keras.saving.get_registered_object("lesson>Scaler") is TimesTwo
    model = tf.keras.Sequential([tf.keras.Input((2,)), TimesTwo(3.0), L.Dense(1)])
    path = saved_keras(tmp_path, model)
    assert [entry["__object__"] for entry in config_of(path)["model"]["layers"]] == [
        "InputLayer",
        "lesson>Scaler",
        "Dense",
    ]
    loaded = tf.keras.models.load_model(str(path))
    assert type(loaded.layers[0]) is TimesTwo and loaded.layers[0].factor == 3.0
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def test_a_user_class_named_dense_never_replaces_the_built_in(tmp_path):
    path = saved_keras(tmp_path)  # saved before the user's Dense exists

    @tf.keras.saving.register_keras_serializable(package="mine")
    class Dense(L.Layer):
        def call(self, x):
            raise AssertionError("the user's Dense was called for the built-in one")

    later = saved_keras(tmp_path, name="later.keras")
    for p in (path, later):
        loaded = tf.keras.models.load_model(str(p))
        assert all(type(layer) is L.Dense for layer in loaded.layers)
    assert tf.keras.saving.get_registered_object("mine>Dense") is Dense
    assert tf.keras.saving.get_registered_object("Dense") is None


def test_a_loss_and_a_metric_of_one_name_load_as_what_they_were(tmp_path):
    model = small_model()
    model.compile(
        optimizer="sgd", loss=tf.keras.losses.MeanSquaredError(), metrics=[tf.keras.metrics.MeanSquaredError()]
    )
    loaded = tf.keras.models.load_model(str(saved_keras(tmp_path, model)))
    assert isinstance(loaded._compile_args["loss"], tf.keras.losses.MeanSquaredError)
    assert isinstance(loaded._compile_args["metrics"][0], tf.keras.metrics.MeanSquaredError)


# -- 8. no import cycle between module.py and keras saving --------------------------------------


def _imports(path):
    import ast

    with open(path) as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_module_py_and_saving_import_nothing_above_them():
    root = os.path.dirname(tf.__file__)
    assert not any(name.startswith("tapeviz.keras") for name in _imports(os.path.join(root, "module.py")))
    for name in ("config.py", "model_file.py", "weights.py", "registry.py", "__init__.py"):
        imported = _imports(os.path.join(root, "keras", "saving", name))
        outside = {
            n
            for n in imported
            if n.startswith("tapeviz")
            and not n.startswith(("tapeviz.core", "tapeviz.keras.saving", "tapeviz.keras.utils.naming"))
        }
        assert outside == set(), (name, outside)  # saving reaches models only through its registry
    for name in ("files.py", "records.py"):
        assert not any(
            n.startswith("tapeviz") and n != "tapeviz.core" for n in _imports(os.path.join(root, "core", name))
        )


@pytest.mark.parametrize(
    "module",
    [
        "tapeviz.core.files",
        "tapeviz.core.records",
        "tapeviz.module",
        "tapeviz.saved_model",
        "tapeviz.keras.saving",
        "tapeviz.keras.saving.model_file",
        "tapeviz.keras.saving.weights",
        "tapeviz.keras.models",
    ],
)
def test_each_saving_module_imports_first_in_a_fresh_interpreter(module):
    result = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_write_bytes_replaces_whole_files_only(tmp_path):
    path = tmp_path / "a.bin"
    files.write_bytes(path, b"one")
    files.write_bytes(path, b"two")
    assert path.read_bytes() == b"two" and os.listdir(tmp_path) == ["a.bin"]
    with pytest.raises(RuntimeError):
        with files.atomic_write(path) as f:
            f.write(b"half")
            raise RuntimeError("failed midway")
    assert path.read_bytes() == b"two" and os.listdir(tmp_path) == ["a.bin"]


# -- pictures: the visualizer's exports are written all or nothing too ---------------------------


def test_a_gif_export_that_fails_midway_leaves_the_old_file(tmp_path):
    pytest.importorskip("PIL", reason="GIF export needs Pillow (tapeviz[viz])")
    from PIL import Image

    from tapeviz.viz.gif import GifWriter

    path = tmp_path / "sweep.gif"
    path.write_bytes(b"the last good GIF")
    with pytest.raises(RuntimeError, match="frame 2"):
        with GifWriter(str(path), (4, 4)) as gif:
            gif.add(Image.new("RGB", (4, 4), "white"))
            raise RuntimeError("drawing frame 2 failed")
    assert path.read_bytes() == b"the last good GIF"
    assert os.listdir(tmp_path) == ["sweep.gif"]  # no temporary file left behind
    with GifWriter(str(path), (4, 4)) as gif:
        gif.add(Image.new("RGB", (4, 4), "white"))
    with Image.open(path) as image:
        assert image.size == (4, 4)


def test_picture_and_player_exports_replace_whole_files(tmp_path, monkeypatch):
    from tapeviz.viz import animation, display, recorder

    was_watching = recorder.is_watching()
    recorder.watch_all()  # the player needs the recorded sweep (other test modules turn the recorder off)
    try:
        x = tf.Variable(3.0, name="x")
        with tf.GradientTape() as tape:
            y = x * x
        tape.gradient(y, x)
    finally:
        if not was_watching:
            recorder.stop_watching()
    written = []
    real = files.os.replace
    monkeypatch.setattr(files.os, "replace", lambda src, dst: (written.append(os.path.basename(dst)), real(src, dst)))
    display.Figure(tape).save(str(tmp_path / "tape.dot"))
    animation.animate(tape).save_html(str(tmp_path / "sweep.html"))
    assert written == ["tape.dot", "sweep.html"]  # each moved into place whole, by os.replace
    assert (tmp_path / "tape.dot").read_text().startswith("digraph")
    assert "<html" in (tmp_path / "sweep.html").read_text().lower()


# -- 8. compression bombs: a small file never makes a loader allocate what no object can hold ----------

BOMB_ITEMS = 1 << 26  # float32 zeros: 256 MiB declared, about 250 KiB deflated
PEAK_LIMIT = 16 << 20  # bytes a refused load may allocate (tracemalloc): the file, headers, small arrays


def npy_member(archive, name, dtype, shape, data_bytes=None):
    """Write member ``name``: an .npy header declaring ``dtype`` ``shape``, then ``data_bytes`` zero bytes
    (by default what the header declares), deflated and streamed (nothing large is built here)."""
    dtype = np.dtype(dtype)
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)}
    size = dtype.itemsize * int(np.prod(shape, dtype=np.int64)) if data_bytes is None else data_bytes
    chunk = bytes(1 << 20)
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with archive.open(info, "w", force_zip64=True) as member:
        np.lib.format.write_array_header_2_0(member, header)
        for start in range(0, size, len(chunk)):
            member.write(chunk[: min(len(chunk), size - start)])


def bomb_zip(path, members):
    """A zip at ``path`` whose members are ``(name, dtype, shape, data_bytes)`` .npy files (deflated)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, dtype, shape, data_bytes in members:
            npy_member(archive, name, dtype, shape, data_bytes)
    assert os.path.getsize(path) < 1 << 20  # a small file


def peak_of(load):
    """``(the exception load raised, the peak bytes traced meanwhile)``."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with pytest.raises(ValueError) as info:
            load()
        return info.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_checkpoint_declaring_a_huge_value_is_refused_before_it_is_inflated(tmp_path):
    v = tf.Variable(np.arange(4, dtype=np.float32))
    prefix = tf.train.Checkpoint(v=v).write(str(tmp_path / "ckpt"))
    index = json.loads((tmp_path / "ckpt.index").read_text())
    entry = next(e for e in index["variables"] if e["key"].startswith("v/"))
    entry["shape"] = [BOMB_ITEMS]
    (tmp_path / "ckpt.index").write_text(json.dumps(index))
    members = [(f"{i}.npy", e["dtype"], e["shape"], None) for i, e in enumerate(index["variables"])]
    bomb_zip(tmp_path / "ckpt.data-00000-of-00001", members)
    error, peak = peak_of(lambda: tf.train.Checkpoint(v=v).restore(prefix))
    assert "incompatible tensor" in str(error)
    assert peak < PEAK_LIMIT, f"restore allocated {peak >> 20} MiB for a refused value"
    np.testing.assert_array_equal(v.numpy(), np.arange(4, dtype=np.float32))  # nothing changed
    shapes = tf.train.load_checkpoint(prefix).get_variable_to_shape_map()  # reads the index only
    assert shapes[entry["key"]] == [BOMB_ITEMS]


@pytest.mark.parametrize("where", ["checkpoint", "saved_model", "npz"])
def test_an_npy_header_declaring_more_than_its_bytes_is_refused_before_anything_is_allocated(tmp_path, where):
    """A member a few bytes long whose header claims 2^30 floats: refused from the header, nothing allocated."""
    huge = (1 << 30,)
    if where == "checkpoint":
        prefix = tf.train.Checkpoint(v=tf.Variable(np.zeros(4, np.float32))).write(str(tmp_path / "ckpt"))
        bomb_zip(tmp_path / "ckpt.data-00000-of-00001", [("0.npy", "float32", huge, 16)])

        def load():
            tf.train.Checkpoint(v=tf.Variable(np.zeros(4, np.float32))).restore(prefix)
    elif where == "saved_model":
        tf.saved_model.save(Scaled(), str(tmp_path))
        data_file = next(n for n in os.listdir(tmp_path) if n.endswith(".npz"))
        bomb_zip(tmp_path / data_file, [("0.npy", "float32", huge, 16)])

        def load():
            tf.saved_model.load(str(tmp_path))
    else:
        members = [(f"{k}.npy", "uint8", huge if k == "x_train" else (3,), 3) for k in ("x_train", "y_train")]
        bomb_zip(tmp_path / "mnist.npz", members + [("x_test.npy", "uint8", (3,), 3), ("y_test.npy", "uint8", (3,), 3)])

        def load():
            tf.keras.datasets.mnist.load_data(path=str(tmp_path / "mnist.npz"))

    _error, peak = peak_of(load)
    assert peak < PEAK_LIMIT, f"{where}: {peak >> 20} MiB allocated for a header that lies"


def test_a_keras_file_inflates_its_weights_only_up_to_what_the_model_holds(tmp_path):
    path = tmp_path / "m.keras"
    small_model().save(str(path))
    with zipfile.ZipFile(path) as z:
        config = z.read("config.json")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.json", config)
        npy_member(z, "model.weights.h5", "float32", (BOMB_ITEMS,))  # 256 MiB of zeros where an HDF5 file goes
    assert os.path.getsize(path) < 1 << 20
    error, peak = peak_of(lambda: tf.keras.models.load_model(str(path)))
    assert "more than a model file for this model holds" in str(error)
    assert peak < PEAK_LIMIT, f"load_model allocated {peak >> 20} MiB"
    model = small_model()
    before = weights_of(model)
    error, peak = peak_of(lambda: model.load_weights(str(path)))
    assert peak < PEAK_LIMIT
    assert_same_weights(before, weights_of(model))


def test_a_weights_file_declaring_a_huge_compressed_dataset_is_refused_before_reading_it(tmp_path):
    model = small_model()
    path = tmp_path / "m.weights.h5"
    model.save_weights(str(path))
    with h5py.File(path, "a") as f:
        kernel = next(name for name in _datasets(f) if name.endswith("vars/0"))
        del f[kernel]  # a gzip dataset of 2^26 zeros with no chunk written: reading it would fill 256 MiB
        f.create_dataset(kernel, shape=(BOMB_ITEMS,), dtype="float32", compression="gzip", fillvalue=0)
    before = weights_of(model)
    error, peak = peak_of(lambda: model.load_weights(str(path)))
    assert "shape" in str(error)
    assert peak < PEAK_LIMIT
    assert_same_weights(before, weights_of(model))


def _datasets(h5file):
    names = []
    h5file.visititems(lambda name, item: names.append(name) if isinstance(item, h5py.Dataset) else None)
    return names


# -- 9. a save killed midway leaves a temporary file; the next save or load of the folder removes it -------


def _dead_pid():
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(child.stdout)


def _leftover(folder, target):
    """A temporary file named as atomic_write names it, by a process that is gone."""
    path = folder / f".{target}.{_dead_pid()}.k1ll3d_x.tmp"
    path.write_bytes(b"\0" * 4096)
    return path


def _saves_and_loads(folder):
    """(what writes into ``folder``, what reads from it) for each format."""
    model = small_model()
    model.compile(optimizer="adam", loss="mse")
    checkpoint = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    return [
        ("model.keras", lambda: model.save(str(folder / "model.keras")),
         lambda: tf.keras.models.load_model(str(folder / "model.keras"))),
        ("w.weights.h5", lambda: model.save_weights(str(folder / "w.weights.h5")),
         lambda: model.load_weights(str(folder / "w.weights.h5"))),
        ("ckpt-1.index", lambda: checkpoint.save(str(folder / "ckpt")),
         lambda: checkpoint.restore(str(folder / "ckpt-1"))),
        ("tapeviz_saved_model.json", lambda: tf.saved_model.save(Scaled(), str(folder)),
         lambda: tf.saved_model.load(str(folder))),
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["keras", "h5", "checkpoint", "saved_model"])
def test_leftover_temporaries_are_removed_by_the_next_save_and_by_a_load(tmp_path, kind):
    position = ["keras", "h5", "checkpoint", "saved_model"].index(kind)
    folder = tmp_path / kind
    folder.mkdir()
    target, save, load = _saves_and_loads(folder)[position]
    stale = _leftover(folder, target)
    alive = folder / f".{target}.{os.getpid()}.st1llon.tmp"  # a save under way in this process: kept
    alive.write_bytes(b"partial")
    save()
    assert not stale.exists() and alive.exists()
    stale = _leftover(folder, target)
    load()
    assert not stale.exists() and alive.exists()
    alive.unlink()
    assert [n for n in os.listdir(folder) if n.endswith(".tmp")] == []


KILLED_SAVE = """
import os, sys, time
import numpy as np
import tapeviz as tf
os.fsync = lambda fd: time.sleep(600)  # the save stops here, its temporary file written: then kill -9
tf.train.Checkpoint(v=tf.Variable(np.full(1 << 20, 2.0, np.float32))).save(sys.argv[1])
"""


def test_a_checkpoint_save_killed_midway_leaves_a_temporary_that_the_next_save_removes(tmp_path):
    checkpoint = tf.train.Checkpoint(v=tf.Variable(np.ones(1 << 20, np.float32)))
    first = checkpoint.save(str(tmp_path / "ckpt"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(tmp_path / "ckpt")], env=env)
    try:
        deadline = time.monotonic() + 120
        while not any(n.endswith(".tmp") for n in os.listdir(tmp_path)):
            assert child.poll() is None and time.monotonic() < deadline, "the child never reached its save"
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait(30)
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]  # the killed save's leftover
    restored = tf.train.Checkpoint(v=tf.Variable(np.zeros(1 << 20, np.float32)))
    restored.restore(first)  # the previous checkpoint is whole (the load also removed the leftover)
    assert float(restored.v.numpy()[0]) == 1.0
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")] == []
