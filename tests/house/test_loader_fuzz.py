"""Every loader against malformed and hostile input (issue 17), with hypothesis.

For each input, a loader either loads or raises ``ValueError`` (tapeviz's
``FileFormatError`` for a damaged file, Keras's messages for an unknown class
or a lambda): never a stray KeyError, zipfile or h5py error. It runs nothing
named in the file (subprocess.Popen and os.system are recorders here), writes
no file, and a failed ``load_weights`` leaves every weight as it was.
The loaders are ``keras.models.load_model``, ``model.load_weights``
(.weights.h5 and .keras), ``tf.saved_model.load`` and ``tf.train``'s
checkpoint readers (``Checkpoint.restore``, ``latest_checkpoint``,
``list_variables``); a failed restore also leaves every variable as it was. Examples are bounded and
derandomized so the file runs in seconds; TAPEVIZ_FUZZ_EXAMPLES=400 runs a
deeper, random search.
"""

import io
import json
import os
import subprocess
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tapeviz as tf

h5py = pytest.importorskip("h5py")  # the 'saving' extra, as in test_keras3_api.py

L = tf.keras.layers
FUZZ = settings(
    max_examples=int(os.environ.get("TAPEVIZ_FUZZ_EXAMPLES", 40)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize="TAPEVIZ_FUZZ_EXAMPLES" not in os.environ,
)

# Words a hostile config would use: the format's own keys, real and forbidden names, odd dtypes.
WORDS = st.sampled_from(
    [
        "__object__",
        "__function__",
        "__array__",
        "__tuple__",
        "__dict__",
        "__lambda__",
        "__sequential__",
        "__functional__",
        "args",
        "kwargs",
        "family",
        "dtype",
        "name",
        "layers",
        "nodes",
        "inputs",
        "outputs",
        "parents",
        "layer",
        "input",
        "shape",
        "build_input_shape",
        "code",
        "Dense",
        "Conv2D",
        "LSTM",
        "Sequential",
        "Model",
        "InputLayer",
        "Adam",
        "relu",
        "save_model",
        "load_model",
        "Popen",
        "system",
        "eval",
        "ModelCheckpoint",
        "object",
        "O",
        "float32",
        "int64",
        "S3",
        "layers",
        "activation",
        "units",
        "Custom>Net",
        "../x",
    ]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 8) | st.floats(-4, 4) | WORDS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(WORDS, inner, max_size=4),
    max_leaves=16,
)


@pytest.fixture
def quiet_world(tmp_path, monkeypatch):
    """Run in tmp_path with process-starting calls replaced by recorders; yields the list of their calls."""
    calls = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: calls.append(("Popen", a)))
    monkeypatch.setattr(os, "system", lambda *a, **k: calls.append(("system", a)))
    monkeypatch.chdir(tmp_path)
    return calls


def model():
    net = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(3, activation="relu"), L.Dense(1)])
    net.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    net.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), epochs=1, verbose=0)  # optimizer state too
    return net


def listing(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, names in os.walk(folder) for f in names)


def expect_clean(load, folder, calls, net=None):
    """``load()`` loads or raises ValueError; nothing runs, nothing is written, a failed load changes no weight."""
    files_before = listing(folder)
    weights_before = None if net is None else [w.copy() for w in net.get_weights()]
    try:
        load()
    except ValueError:
        if net is not None:
            for a, b in zip(net.get_weights(), weights_before):
                np.testing.assert_array_equal(a, b)
    assert calls == []
    assert listing(folder) == files_before


def paths(value, prefix=()):
    """Every path into a JSON value (for replacing one subtree)."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from paths(child, (*prefix, i))


def replaced(value, path, new):
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def mutate_bytes(data, flips, cut):
    data = bytearray(data)
    for position, byte in flips:
        data[position % len(data)] = byte
    return bytes(data[: max(1, len(data) - cut)])


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """A real .keras, .weights.h5 and SavedModel folder to mutate."""
    folder = tmp_path_factory.mktemp("originals")
    net = model()
    net.save(str(folder / "m.keras"))
    net.save_weights(str(folder / "m.weights.h5"))

    tf.saved_model.save(Holder(), str(folder / "sm"))
    manifest = json.loads((folder / "sm" / "tapeviz_saved_model.json").read_text())
    with zipfile.ZipFile(folder / "m.keras") as z:
        config = json.loads(z.read("config.json"))
    return Originals(
        {
            "keras": (folder / "m.keras").read_bytes(),
            "config": config,
            "h5": (folder / "m.weights.h5").read_bytes(),
            "manifest": manifest,
            "npz": (folder / "sm" / manifest["data_file"]).read_bytes(),
        }
    )


class Originals(dict):
    def __repr__(self):  # hypothesis prints its arguments when a case fails: keep the bytes out of it
        return "<originals: " + ", ".join(self) + ">"


@tf.custom_gradient
def clip_gradients(y):
    return y, lambda dy: tf.clip_by_norm(dy, 0.5)


class Holder(tf.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.w = tf.Variable([float(scale), 2.0])
        self.inner = [tf.Variable(tf.ones([2, 2]))]

    @tf.function(input_signature=[tf.TensorSpec([1, 2], tf.float32)])
    def f(self, x):  # a stored trace: variables read, a custom gradient, a matmul
        return clip_gradients(tf.exp(x * self.w)) @ self.inner[0]


def write_keras(path, original, config=None, weights=None):
    with zipfile.ZipFile(path, "w") as z:
        with zipfile.ZipFile(io.BytesIO(original)) as source:
            for name in source.namelist():
                data = source.read(name)
                if name == "config.json" and config is not None:
                    data = json.dumps(config)
                if name == "model.weights.h5" and weights is not None:
                    data = weights
                z.writestr(name, data)


# -- .keras ---------------------------------------------------------------------------------------


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6), cut=st.integers(0, 400))
def test_keras_file_with_damaged_bytes(tmp_path, quiet_world, originals, flips, cut):
    path = tmp_path / "fuzz.keras"
    path.write_bytes(mutate_bytes(originals["keras"], flips, cut))
    net = model()
    expect_clean(lambda: tf.keras.models.load_model(str(path)), tmp_path, quiet_world)
    expect_clean(lambda: net.load_weights(str(path)), tmp_path, quiet_world, net)


@FUZZ
@given(where=st.integers(0, 10**4), value=JSON, safe=st.booleans())
def test_keras_config_with_a_hostile_subtree(tmp_path, quiet_world, originals, where, value, safe):
    config = originals["config"]
    chosen = list(paths(config))
    config = replaced(config, chosen[where % len(chosen)], value)
    path = tmp_path / "fuzz.keras"
    write_keras(path, originals["keras"], config=config)
    expect_clean(lambda: tf.keras.models.load_model(str(path), safe_mode=safe), tmp_path, quiet_world)


@FUZZ
@given(config=JSON)
def test_keras_config_that_is_any_json(tmp_path, quiet_world, originals, config):
    path = tmp_path / "fuzz.keras"
    write_keras(path, originals["keras"], config={"format": "tapeviz-keras-model", "model": config, "compile": config})
    expect_clean(lambda: tf.keras.models.load_model(str(path)), tmp_path, quiet_world)


def test_keras_file_that_is_not_a_zip_or_lacks_members(tmp_path, quiet_world, originals):
    path = tmp_path / "fuzz.keras"
    for data in (b"", b"PK\x03\x04", b"not a zip", originals["h5"]):
        path.write_bytes(data)
        with pytest.raises(ValueError, match="not a readable .keras"):
            tf.keras.models.load_model(str(path))
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("config.json", "{}")
    with pytest.raises(ValueError, match="has no 'model.weights.h5'"):
        tf.keras.models.load_model(str(path))
    with pytest.raises(FileNotFoundError):
        tf.keras.models.load_model(str(tmp_path / "missing.keras"))
    assert quiet_world == []


# -- .weights.h5 ----------------------------------------------------------------------------------


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=8), cut=st.integers(0, 3000))
def test_weights_file_with_damaged_bytes(tmp_path, quiet_world, originals, flips, cut):
    path = tmp_path / "fuzz.weights.h5"
    path.write_bytes(mutate_bytes(originals["h5"], flips, cut))
    net = model()
    expect_clean(lambda: net.load_weights(str(path)), tmp_path, quiet_world, net)


@FUZZ
@given(
    layout=st.dictionaries(
        st.sampled_from(["vars", "layers/dense/vars", "layers/dense_1/vars", "optimizer/vars", "layers/dense"]),
        st.lists(
            st.sampled_from(["f4_2x3", "f4_3", "f8_3x1", "i4_1", "str", "group", "empty", "f4_0", "bool_3"]),
            max_size=3,
        ),
        max_size=4,
    )
)
def test_weights_file_with_a_hostile_layout(tmp_path, quiet_world, layout):
    path = tmp_path / "fuzz.weights.h5"
    with h5py.File(path, "w") as f:
        for group, items in layout.items():
            g = f.require_group(group)
            for i, kind in enumerate(items):
                if kind == "str":
                    g[str(i)] = "text"
                elif kind == "group":
                    g.create_group(str(i))
                elif kind == "empty":
                    g.create_dataset(str(i), dtype="f4")
                elif kind == "bool_3":
                    g[str(i)] = np.ones(3, bool)
                else:
                    dtype, dims = kind.split("_")
                    g[str(i)] = np.ones([int(n) for n in dims.split("x")], dtype)
    net = model()
    expect_clean(lambda: net.load_weights(str(path)), tmp_path, quiet_world, net)


# -- SavedModel folder ----------------------------------------------------------------------------


def write_saved_model(folder, manifest, npz):
    folder.mkdir(exist_ok=True)
    for name in os.listdir(folder):
        os.unlink(folder / name)
    (folder / "tapeviz_saved_model.json").write_text(json.dumps(manifest))
    (folder / "variables-0123456789abcdef.npz").write_bytes(npz)


@FUZZ
@given(where=st.integers(0, 10**4), value=JSON, rebuild=st.booleans())
def test_saved_model_manifest_with_a_hostile_subtree(tmp_path, quiet_world, originals, where, value, rebuild):
    manifest = dict(originals["manifest"], data_file="variables-0123456789abcdef.npz")
    chosen = list(paths(manifest))
    manifest = replaced(manifest, chosen[where % len(chosen)], value)
    write_saved_model(tmp_path / "sm", manifest, originals["npz"])
    custom = {"Holder": Holder} if rebuild else None
    expect_clean(lambda: tf.saved_model.load(str(tmp_path / "sm"), custom_objects=custom), tmp_path, quiet_world)


# What a hostile function graph would say: ops and host calls by name, sizes that overflow, odd kinds.
GRAPH_WORDS = st.sampled_from(
    [
        "os.system",
        "subprocess.Popen",
        "eval",
        "HostCall",
        "CustomGradient",
        "ReadVariableOp",
        "AssignVariableOp",
        "Exp",
        "MatMul",
        "Reshape",
        "If",
        "While",
        "then",
        "else",
        "cond",
        "body",
        "n_then",
        "n_vars",
        "n_cond",
        "maximum_iterations",
        "print",
        "random.uniform",
        "tuple",
        "list",
        "dict",
        "slot",
        "numpy_type",
        "numpy_dtype",
        "array",
        "dtype",
        "float",
        "T",
        "V",
        "L",
        "VAR_KEYWORD",
        "POSITIONAL_ONLY",
        "w",
        "inner/0",
        "nan",
    ]
)
GRAPH_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 8) | st.sampled_from([2**40, 2**62, 2**64, 10**30]) | GRAPH_WORDS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(GRAPH_WORDS | WORDS, inner, max_size=3),
    max_leaves=12,
)


@FUZZ
@given(where=st.integers(0, 10**5), value=GRAPH_JSON, rebuild=st.booleans())
def test_saved_model_function_graph_with_a_hostile_subtree(tmp_path, quiet_world, originals, where, value, rebuild):
    manifest = dict(originals["manifest"], data_file="variables-0123456789abcdef.npz")
    chosen = [p for p in paths(manifest) if p[:1] in (("saved_functions",), ("signatures",))]
    manifest = replaced(manifest, chosen[where % len(chosen)], value)
    write_saved_model(tmp_path / "sm", manifest, originals["npz"])
    custom = {"Holder": Holder} if rebuild else None
    loaded = []
    expect_clean(
        lambda: loaded.append(tf.saved_model.load(str(tmp_path / "sm"), custom_objects=custom)), tmp_path, quiet_world
    )
    if loaded and not rebuild:  # a graph that loads runs tapeviz primitives only: nothing named in it is called
        try:
            getattr(loaded[0], "f", lambda x: None)(tf.constant([[0.5, -1.0]]))
        except Exception:  # noqa: BLE001 - a damaged graph may fail to compute; it must not run anything else
            pass
        assert quiet_world == [] and listing(tmp_path) == [
            "sm/tapeviz_saved_model.json",
            "sm/variables-0123456789abcdef.npz",
        ]


class Loops(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def g(self, x):  # a stored trace with a While holding an If (AutoGraph's), a captured variable
        total = tf.constant(0.0)
        for v in x:
            if v > 0:
                total += v * self.w
        return total


@pytest.fixture(scope="module")
def loop_originals(tmp_path_factory):
    folder = tmp_path_factory.mktemp("loops")
    tf.saved_model.save(Loops(), str(folder / "sm"))
    manifest = json.loads((folder / "sm" / "tapeviz_saved_model.json").read_text())
    return Originals({"manifest": manifest, "npz": (folder / "sm" / manifest["data_file"]).read_bytes()})


def _control_flow_paths(manifest):
    """Paths into the stored If and While nodes (their attributes and sub-graphs)."""
    found = []
    for path in paths(manifest):
        if path[:1] not in (("saved_functions",), ("signatures",)):
            continue
        node = manifest
        for step in path[:-1]:
            node = node[step]
            if isinstance(node, dict) and node.get("op") in ("If", "While"):
                found.append(path)
                break
    return found


def test_the_loop_model_round_trips(tmp_path, loop_originals):
    manifest = dict(loop_originals["manifest"], data_file="variables-0123456789abcdef.npz")
    assert _control_flow_paths(manifest), "the stored trace holds no If/While node"
    write_saved_model(tmp_path / "sm", manifest, loop_originals["npz"])
    loaded = tf.saved_model.load(str(tmp_path / "sm"))
    assert float(loaded.g(tf.constant([1.0, -2.0, 3.0]))) == 8.0


@FUZZ
@given(where=st.integers(0, 10**5), value=GRAPH_JSON)
def test_saved_model_cond_and_while_with_a_hostile_subtree(tmp_path, quiet_world, loop_originals, where, value):
    """A hostile subtree inside a stored If or While node loads cleanly or is refused with ValueError
    (the graph is not run: a well-formed loop may still loop for ever, as TF's may)."""
    manifest = dict(loop_originals["manifest"], data_file="variables-0123456789abcdef.npz")
    chosen = _control_flow_paths(manifest)
    manifest = replaced(manifest, chosen[where % len(chosen)], value)
    write_saved_model(tmp_path / "sm", manifest, loop_originals["npz"])
    expect_clean(lambda: tf.saved_model.load(str(tmp_path / "sm")), tmp_path, quiet_world)


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6), cut=st.integers(0, 300))
def test_saved_model_variables_with_damaged_bytes(tmp_path, quiet_world, originals, flips, cut):
    manifest = dict(originals["manifest"], data_file="variables-0123456789abcdef.npz")
    write_saved_model(tmp_path / "sm", manifest, mutate_bytes(originals["npz"], flips, cut))
    expect_clean(lambda: tf.saved_model.load(str(tmp_path / "sm")), tmp_path, quiet_world)


@FUZZ
@given(manifest=JSON)
def test_saved_model_manifest_that_is_any_json(tmp_path, quiet_world, originals, manifest):
    if isinstance(manifest, dict):
        manifest = dict(manifest, format="tapeviz-saved-model")
    write_saved_model(tmp_path / "sm", manifest, originals["npz"])
    expect_clean(lambda: tf.saved_model.load(str(tmp_path / "sm")), tmp_path, quiet_world)


# -- tf.train.Checkpoint --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def checkpoint_files(tmp_path_factory):
    """A real checkpoint (index, data, state file) of a tf.Module tree and a trained Keras optimizer."""
    folder = tmp_path_factory.mktemp("ckpt")
    net = model()
    path = tf.train.Checkpoint(holder=Holder(), optimizer=net.optimizer).save(str(folder / "ckpt"))
    return Originals(
        {
            "index": json.loads(open(path + ".index").read()),
            "data": open(path + ".data-00000-of-00001", "rb").read(),
            "state": (folder / "checkpoint").read_text(),
        }
    )


def write_checkpoint_files(folder, index, data, state):
    (folder / "ckpt-1.index").write_text(index if isinstance(index, str) else json.dumps(index))
    (folder / "ckpt-1.data-00000-of-00001").write_bytes(data)
    (folder / "checkpoint").write_text(state)


def restore_checkpoint(folder):
    """Restore the folder's latest checkpoint into fresh objects (some values wait for slots that never come)."""
    net = model()
    holder = Holder(0.5)
    before = [v.numpy().copy() for v in holder.variables] + [w.numpy().copy() for w in net.optimizer.variables]
    ckpt = tf.train.Checkpoint(holder=holder, optimizer=net.optimizer)
    try:
        ckpt.restore(tf.train.latest_checkpoint(str(folder)))
    except ValueError:
        after = [v.numpy() for v in holder.variables] + [w.numpy() for w in net.optimizer.variables]
        for a, b in zip(after, before):
            np.testing.assert_array_equal(a, b)  # a failed restore changes nothing
        raise


@FUZZ
@given(where=st.integers(0, 10**4), value=JSON)
def test_checkpoint_index_with_a_hostile_subtree(tmp_path, quiet_world, checkpoint_files, where, value):
    index = checkpoint_files["index"]
    chosen = list(paths(index))
    index = replaced(index, chosen[where % len(chosen)], value)
    write_checkpoint_files(tmp_path, index, checkpoint_files["data"], checkpoint_files["state"])
    expect_clean(lambda: restore_checkpoint(tmp_path), tmp_path, quiet_world)


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6), cut=st.integers(0, 300))
def test_checkpoint_data_with_damaged_bytes(tmp_path, quiet_world, checkpoint_files, flips, cut):
    data = mutate_bytes(checkpoint_files["data"], flips, cut)
    write_checkpoint_files(tmp_path, checkpoint_files["index"], data, checkpoint_files["state"])
    expect_clean(lambda: restore_checkpoint(tmp_path), tmp_path, quiet_world)


@FUZZ
@given(index=JSON, state=st.text(max_size=80) | st.sampled_from(['model_checkpoint_path: "../ckpt-1"', "", "x: 1"]))
def test_checkpoint_index_and_state_that_are_anything(tmp_path, quiet_world, checkpoint_files, index, state):
    if isinstance(index, dict):
        index = dict(index, format="tapeviz.checkpoint")
    write_checkpoint_files(tmp_path, index, checkpoint_files["data"], state)
    expect_clean(lambda: restore_checkpoint(tmp_path), tmp_path, quiet_world)
    expect_clean(lambda: list_or_not_found(tmp_path), tmp_path, quiet_world)


def list_or_not_found(folder):
    """An empty state file names no checkpoint: TF's NotFoundError (a FileNotFoundError) is the answer then."""
    try:
        tf.train.list_variables(str(folder))
    except tf.errors.NotFoundError:
        pass


# -- compression bombs: whatever a file declares, a load allocates no more than its objects hold -------------

SIZES = st.sampled_from([0, 1, 3, 6, 1 << 20, 1 << 24, 1 << 28, 1 << 31, 1 << 40])
DATA = st.sampled_from([0, 16, 4096, 1 << 20, 1 << 24])  # zero bytes actually stored (deflated): up to 16 MiB
BOMB_PEAK = 48 << 20  # bytes of traced memory a load of these small files may reach (a fresh model included)


def bomb_member(archive, name, descr, shape, data_bytes):
    """Member ``name``: an .npy header declaring ``descr`` ``shape``, then ``data_bytes`` zeros, deflated."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    chunk = bytes(1 << 20)
    with archive.open(info, "w", force_zip64=True) as member:
        np.lib.format.write_array_header_2_0(member, {"descr": descr, "fortran_order": False, "shape": tuple(shape)})
        for start in range(0, data_bytes, len(chunk)):
            member.write(chunk[: min(len(chunk), data_bytes - start)])


def with_bomb(npz, name, descr, shape, data_bytes):
    """The bytes of the .npz ``npz`` with member ``name`` replaced by a bomb."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(npz)) as original, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for member in original.namelist():
            if member != name:
                archive.writestr(member, original.read(member))
        bomb_member(archive, name, descr, shape, data_bytes)
    return out.getvalue()


def peak_while(load):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        load()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@FUZZ
@given(
    which=st.integers(0, 10**3),
    declared=st.lists(SIZES, min_size=1, max_size=2),
    header=st.lists(SIZES, min_size=1, max_size=2),
    descr=st.sampled_from(["<f4", "<f8", "|u1", "<c16", "|O", "<U8"]),
    data_bytes=DATA,
)
def test_checkpoint_compression_bombs(
    tmp_path, quiet_world, checkpoint_files, which, declared, header, descr, data_bytes
):
    """The index declares one shape, the member's header another, the member holds some zeros: restore,
    list and read allocate little whatever the claims (and a failed restore changes nothing)."""
    index = json.loads(json.dumps(checkpoint_files["index"]))
    position = which % len(index["variables"])
    index["variables"][position]["shape"] = declared
    data = with_bomb(checkpoint_files["data"], f"{position}.npy", descr, header, data_bytes)
    write_checkpoint_files(tmp_path, index, data, checkpoint_files["state"])
    key = index["variables"][position]["key"]

    def load():
        expect_clean(lambda: restore_checkpoint(tmp_path), tmp_path, quiet_world)
        expect_clean(lambda: tf.train.load_variable(str(tmp_path), key), tmp_path, quiet_world)

    assert peak_while(load) < BOMB_PEAK


@FUZZ
@given(
    which=st.integers(0, 10**3),
    header=st.lists(SIZES, min_size=1, max_size=2),
    descr=st.sampled_from(["<f4", "<f8", "|O"]),
    data_bytes=DATA,
)
def test_saved_model_compression_bombs(tmp_path, quiet_world, originals, which, header, descr, data_bytes):
    manifest = dict(originals["manifest"], data_file="variables-0123456789abcdef.npz")
    position = which % len(manifest["variables"])
    npz = with_bomb(originals["npz"], f"{position}.npy", descr, header, data_bytes)
    write_saved_model(tmp_path / "sm", manifest, npz)
    peak = peak_while(lambda: expect_clean(lambda: tf.saved_model.load(str(tmp_path / "sm")), tmp_path, quiet_world))
    assert peak < BOMB_PEAK


@FUZZ
@given(size=st.sampled_from([1 << 16, 1 << 20, 1 << 24, 1 << 27]))
def test_keras_file_compression_bombs(tmp_path, quiet_world, originals, size):
    """model.weights.h5 replaced by ``size`` zero bytes (deflated: a small file): load_model and
    load_weights inflate no more than the model holds."""
    path = tmp_path / "bomb.keras"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", json.dumps(originals["config"]))
        bomb_member(archive, "model.weights.h5", "<f4", (size // 4,), size)
    net = model()

    def load():
        expect_clean(lambda: tf.keras.models.load_model(str(path)), tmp_path, quiet_world)
        expect_clean(lambda: net.load_weights(str(path)), tmp_path, quiet_world, net)

    assert peak_while(load) < BOMB_PEAK
