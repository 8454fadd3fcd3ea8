"""tf.saved_model keeps traced tf.functions: a loaded object is called and differentiated without its class (issue 21).

Reference numbers are what TF 2.21.0 printed for the same modules, saved and
loaded in a fresh process (tests/tf_reference/saved_function_reference.py).
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.files import FileFormatError

MANIFEST = "tapeviz_saved_model.json"


@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)

    return y, backward


class MyModule(tf.Module):  # the advanced autodiff guide's module
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.s = tf.Variable(1.5)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def scaled(self, x):
        return clip_gradients(x * self.s)


class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
        self.b = tf.Variable([0.25, -1.0])
        self.inner = Scale()

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return self.inner.scaled(tf.nn.softplus(x @ self.w + self.b))

    @tf.function
    def twice(self, x, times=2):
        return x * float(times) * self.inner.s


X = [[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]]
# TF 2.21.0, loaded in a fresh process (saved_function_reference.py):
TF_GUIDE = (4.0, 2.0)  # output, gradient: "guide 4.0 2.0"
TF_DENSE_Y = [[3.5253100395202637, 4.572880744934082], [0.7111154794692993, 3.8683347702026367]]
TF_DENSE_Y += [[2.8653364181518555, 12.000503540039062]]
TF_DENSE_DX = [[-0.3063386082649231, 1.013490915298462], [-0.45032116770744324, 0.90667724609375]]
TF_DENSE_DX += [[-0.3513108789920807, 1.0486786365509033]]
TF_DENSE_DW = [[0.16139373183250427, 0.008705586194992065], [1.3943504095077515, 1.6430604457855225]]
TF_DENSE_DB, TF_DENSE_DS = [0.6534454226493835, 0.8807080984115601], 3.74819278717041
TF_TWICE = ([3.0, 6.0], [4.5, 9.0])
# TF 2.21.0's message for d.twice(tf.constant([1.0, 2.0]), times=5), traced with times=2 and times=3:
TF_NO_MATCH = """Could not find matching concrete function to call loaded from the SavedModel. Got:
  Positional arguments (2 total):
    * <tf.Tensor 'x:0' shape=(2,) dtype=float32>
    * 5
  Keyword arguments: {}

 Expected these arguments to match one of the following 2 option(s):

Option 1:
  Positional arguments (2 total):
    * TensorSpec(shape=(2,), dtype=tf.float32, name='x')
    * 2
  Keyword arguments: {}

Option 2:
  Positional arguments (2 total):
    * TensorSpec(shape=(2,), dtype=tf.float32, name='x')
    * 3
  Keyword arguments: {}"""

# Run in a fresh interpreter, where MyModule, Dense and Scale are not defined.
LOAD = """
import json, sys
import tapeviz as tf
folder = sys.argv[1]
out = {}
loaded = tf.saved_model.load(folder + "/guide")
v = tf.Variable(2.0)
with tf.GradientTape() as t:
    output = loaded.call_custom_grad(v * v)
out["guide"] = [float(output), float(t.gradient(output, v))]
d = tf.saved_model.load(folder + "/dense")
x = tf.constant(X_VALUES)
with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    y = d(x)
    s = tf.reduce_sum(y)
out["y"] = y.numpy().tolist()
out["dx"] = t.gradient(s, x).numpy().tolist()
dw, db, ds = t.gradient(s, [d.w, d.b, d.inner.s])
out["dw"], out["db"], out["ds"] = dw.numpy().tolist(), db.numpy().tolist(), float(ds)
out["twice"] = [d.twice(tf.constant([1.0, 2.0])).numpy().tolist(), d.twice(tf.constant([1.0, 2.0]), times=3).numpy().tolist()]
out["inner"] = d.inner.scaled(tf.constant([[1.0, 2.0]])).numpy().tolist()
out["signatures"] = [sorted(d.signatures), sorted(loaded.signatures)]
out["classes"] = [name for name in ("MyModule", "Dense", "Scale") if name in dir(sys.modules["__main__"])]
try:
    d.twice(tf.constant([1.0, 2.0]), times=5)
except ValueError as e:
    out["no_match"] = str(e)
print(json.dumps(out))
""".replace("X_VALUES", repr(X))


def original_values():
    """What the original objects give, in this process, for the calls LOAD makes."""
    model, dense = MyModule(), Dense()
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = model.call_custom_grad(v * v)
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = dense(x)
        s = tf.reduce_sum(y)
    dw, db, ds = tape.gradient(s, [dense.w, dense.b, dense.inner.s])
    return {
        "guide": [float(output), float(t.gradient(output, v))],
        "y": y.numpy().tolist(),
        "dx": tape.gradient(s, x).numpy().tolist(),
        "dw": dw.numpy().tolist(),
        "db": db.numpy().tolist(),
        "ds": float(ds),
    }


def test_loaded_in_a_fresh_process_without_the_classes_it_runs_and_differentiates_as_tf(tmp_path):
    tf.saved_model.save(
        MyModule(), str(tmp_path / "guide"), options=tf.saved_model.SaveOptions(experimental_custom_gradients=True)
    )
    dense = Dense()
    dense.twice(tf.constant([1.0, 2.0]))
    dense.twice(tf.constant([1.0, 2.0]), times=3)
    tf.saved_model.save(dense, str(tmp_path / "dense"))
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(tmp_path)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert loaded["classes"] == []  # nothing defined the classes there
    original = original_values()
    assert loaded["guide"] == original["guide"] == list(TF_GUIDE)  # the custom gradient clipped 4 to 2, as in TF
    for key in ("y", "dx", "dw", "db", "ds"):
        np.testing.assert_allclose(loaded[key], original[key], rtol=1e-6)
    np.testing.assert_allclose(loaded["y"], TF_DENSE_Y, rtol=1e-6)
    np.testing.assert_allclose(loaded["dx"], TF_DENSE_DX, rtol=1e-6)
    np.testing.assert_allclose(loaded["dw"], TF_DENSE_DW, rtol=1e-6)
    np.testing.assert_allclose(loaded["db"], TF_DENSE_DB, rtol=1e-6)
    np.testing.assert_allclose(loaded["ds"], TF_DENSE_DS, rtol=1e-6)
    assert loaded["twice"] == [list(TF_TWICE[0]), list(TF_TWICE[1])]  # each Python value picks its own trace
    assert loaded["inner"] == [[1.5, 3.0]]  # a sub-module's function, at its path (TF: [[1.5, 3.0]])
    assert loaded["signatures"] == [["serving_default"], ["serving_default"]]  # TF: the same keys
    assert loaded["no_match"] == TF_NO_MATCH  # TF's message, word for word


def test_loaded_functions_read_the_restored_variables(tmp_path):
    tf.saved_model.save(Dense(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert type(loaded).__name__ != "Dense"
    x = tf.constant(X)
    before = loaded(x).numpy()
    loaded.inner.s.assign(3.0)  # captured by reference, as TF's restored variables
    np.testing.assert_allclose(loaded(x).numpy(), before * 2.0, rtol=1e-6)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(loaded(x))
    assert tape.gradient(y, loaded.inner.s) is not None and loaded.trainable_variables


def test_a_signature_is_called_with_keywords_and_returns_a_dict(tmp_path):
    tf.saved_model.save(Dense(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert loaded.__call__.concrete_functions[0].structured_input_signature[0][0].shape == (None, 2)  # as TF's
    outputs = loaded.signatures["serving_default"](x=tf.constant(X))
    assert sorted(outputs) == ["output_0"]
    np.testing.assert_allclose(outputs["output_0"].numpy(), TF_DENSE_Y, rtol=1e-6)


def test_signatures_passed_to_save_are_kept(tmp_path):
    dense = Dense()
    tf.saved_model.save(dense, str(tmp_path / "m"), signatures={"inner": dense.inner.scaled})
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert sorted(loaded.signatures) == ["inner"]
    assert loaded.signatures["inner"](x=tf.constant([[1.0, 2.0]]))["output_0"].numpy().tolist() == [[1.5, 3.0]]
    with pytest.raises(ValueError, match="has no input_signature"):
        tf.saved_model.save(dense, str(tmp_path / "n"), signatures=dense.twice)


def test_a_trace_that_depends_on_its_input_sizes_refuses_other_sizes(tmp_path):
    class Fold(tf.Module):
        @tf.function(input_signature=(tf.TensorSpec([None, 6], tf.float32),))
        def fold(self, x):
            return tf.reshape(x, [x.shape[0] * 2, -1])  # the traced batch size, baked into an attribute

    module = Fold()
    assert module.fold(tf.zeros([4, 6])).shape == (8, 3)
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert loaded.fold(tf.ones([4, 6])).shape == (8, 3)
    with pytest.raises(ValueError, match="depends on its inputs' sizes"):
        loaded.fold(tf.zeros([2, 6]))  # the live function would trace again; a loaded one cannot: no wrong value


def test_a_function_a_file_cannot_hold_is_left_out_with_one_warning_and_a_note(tmp_path):
    class Trainer(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)
            self.optimizer = tf.keras.optimizers.SGD(0.1)

        @tf.function
        def step(self):
            with tf.GradientTape() as tape:
                loss = self.v * self.v
            self.optimizer.apply_gradients([(tape.gradient(loss, self.v), self.v)])
            return loss

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def predict(self, x):
            return self.v * x

    trainer = Trainer()
    trainer.step()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tf.saved_model.save(trainer, str(tmp_path / "m"))
    messages = [str(w.message) for w in caught if "left out" in str(w.message)]
    assert len(messages) == 1 and "step" in messages[0] and "Python, not data" in messages[0]
    manifest = json.loads((tmp_path / "m" / MANIFEST).read_text())
    notes = {entry["name"]: entry["not_saved"] for entry in manifest["saved_functions"]}
    assert "Python, not data" in notes["step"] and notes["predict"] is None
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert float(loaded.predict(2.0)) == pytest.approx(2.0 * float(trainer.v))  # a number is converted, as TF binds
    with pytest.raises(ValueError, match="was not saved"):
        loaded.step()


def test_a_function_capturing_a_variable_the_object_does_not_hold_is_left_out(tmp_path):
    outside = tf.Variable(3.0)

    class Holder(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def times_outside(self, x):
            return x * outside

    with pytest.warns(UserWarning, match="does not hold"):
        tf.saved_model.save(Holder(), str(tmp_path / "m"))
    with pytest.raises(ValueError, match="was not saved"):
        tf.saved_model.load(str(tmp_path / "m")).times_outside(1.0)


def test_a_failing_signature_leaves_the_last_good_folder(tmp_path):
    folder = str(tmp_path / "m")
    tf.saved_model.save(Dense(), folder)
    before = sorted(os.listdir(folder)), (tmp_path / "m" / MANIFEST).read_bytes()
    outside = tf.Variable(3.0)

    class Other(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return x * outside

    other = Other()
    with pytest.raises(ValueError, match="cannot be saved"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tf.saved_model.save(other, folder, signatures=other.f)
    assert (sorted(os.listdir(folder)), (tmp_path / "m" / MANIFEST).read_bytes()) == before
    with pytest.raises(ValueError, match="cannot be saved"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tf.saved_model.save(other, str(tmp_path / "new"), signatures=other.f)
    assert not (tmp_path / "new").exists()  # refused before anything was written
    np.testing.assert_allclose(tf.saved_model.load(folder)(tf.constant(X)).numpy(), TF_DENSE_Y, rtol=1e-6)


def test_a_class_passed_in_is_still_rebuilt_and_an_unsaved_call_is_tfs_error(tmp_path):
    tf.saved_model.save(Dense(), str(tmp_path / "m"))
    rebuilt = tf.saved_model.load(str(tmp_path / "m"), custom_objects={"Dense": Dense})
    assert isinstance(rebuilt, Dense)
    np.testing.assert_allclose(rebuilt(tf.constant(X)).numpy(), TF_DENSE_Y, rtol=1e-6)
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    with pytest.raises(ValueError, match="Found zero restored functions for caller function twice"):
        loaded.twice(tf.constant([1.0]))  # never traced before saving: TF saves no trace for it either


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda t: t["graph"]["nodes"][-1].update(op="os.system"), "not in tapeviz's primitive registry"),
        (lambda t: t["graph"]["nodes"][1]["inputs"].append(0), "does not fit its op"),  # Mul of 3
        (lambda t: t["graph"]["nodes"][-1]["inputs"].append(0), "not its 1 arguments and 0 variables"),
        (lambda t: t["graph"]["nodes"][-1].update(inputs=[99]), "before it is made"),
        (lambda t: t["graph"]["variables"][0].__setitem__(1, 7), "needs more variables"),
        (lambda t: t.update(captures=["nowhere"]), "does not hold"),
        (lambda t: t["graph"]["constants"].append([40, _huge_array()]), "does not fill its shape"),
        (lambda t: t.update(traced_shapes={"tuple": [{"tuple": [2**70, 2]}]}), "traced with the shape"),
        (lambda t: t.update(parameters=[["x", "VAR_KEYWORD"], ["y", "POSITIONAL_ONLY"]]), "malformed"),
        (lambda t: t["graph"].update(outputs=1234), "no op makes"),
    ],
)
def test_malformed_function_data_is_refused_while_loading(tmp_path, monkeypatch, damage, message):
    calls = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: calls.append(a))
    folder = tmp_path / "m"
    tf.saved_model.save(Dense(), str(folder))
    manifest = json.loads((folder / MANIFEST).read_text())
    trace = next(e for e in manifest["saved_functions"] if e["name"] == "scaled")["traces"][0]
    assert trace["graph"]["variables"]  # the trace reads inner/s
    damage(trace)
    (folder / MANIFEST).write_text(json.dumps(manifest))
    listing = sorted(os.listdir(folder))
    with pytest.raises(FileFormatError, match=message):
        tf.saved_model.load(str(folder))
    with pytest.raises(FileFormatError, match=message):
        tf.saved_model.load(str(folder), custom_objects={"Dense": Dense})  # refused whatever the class
    assert calls == [] and sorted(os.listdir(folder)) == listing


def _huge_array():
    return {"dtype": "float32", "shape": [2**32, 2**32], "data": ""}  # 2**64 elements: wraps to 0 in int64


def test_without_custom_gradients_a_loaded_function_raises_tfs_lookup_error_when_differentiated(tmp_path):
    options = tf.saved_model.SaveOptions(experimental_custom_gradients=False)
    tf.saved_model.save(MyModule(), str(tmp_path / "m"), options=options)
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = loaded.call_custom_grad(v * v)
    assert float(output) == 4.0  # the function itself was kept
    with pytest.raises(
        LookupError, match=r"^No gradient defined for operation 'clip_gradients' \(op type: IdentityN\)"
    ):
        t.gradient(output, v)  # TF 2.21, in a fresh process: LookupError: No gradient defined for operation'IdentityN'


def test_a_stateful_signed_function_saved_untraced_keeps_its_assignments(tmp_path):
    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.n = tf.Variable(0.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def add(self, x):
            self.n.assign_add(x)
            return self.n * 1.0

    counter = Counter()
    tf.saved_model.save(counter, str(tmp_path / "m"))
    assert float(counter.n) == 0.0  # tracing it for the save assigned nothing
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert [float(loaded.add(2.0)), float(loaded.add(3.0)), float(loaded.n)] == [2.0, 5.0, 5.0]  # TF: 2.0 5.0 5.0


def test_a_loaded_function_gives_its_concrete_functions(tmp_path):
    dense = Dense()
    dense.twice(tf.constant([1.0, 2.0]))
    tf.saved_model.save(dense, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    scaled = loaded.inner.scaled.get_concrete_function(tf.TensorSpec([5, 2], tf.float32))  # within [None, 2]
    assert scaled(tf.constant([[1.0, 2.0]])).numpy().tolist() == [[1.5, 3.0]]
    twice = loaded.twice.get_concrete_function(tf.constant([2.0, 1.0]))
    assert twice is loaded.twice.concrete_functions[0] and "times: Literal[2]" in repr(twice)
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.twice.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert "times (POSITIONAL_OR_KEYWORD): Literal[2]" in loaded.twice.pretty_printed_concrete_signatures()


def test_every_rule_cases_trace_is_accepted_by_the_load_time_checks():
    """The checks refuse malformed graphs, never a real one: each gradcheck case, traced, stored and loaded."""
    import warnings as _warnings

    from tapeviz.core.function import ConcreteFunction
    from tests.rule_cases import collect

    stored = []
    for name, case in sorted(collect().items()):
        inputs = [case.make_input(np.asarray(a)) for a in case.inputs]
        function = tf.function(case.fn)
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")  # a case that reads a value runs eagerly: nothing to store
            expected = function(*inputs)
        if not function.concrete_functions:
            continue
        concrete = function.concrete_functions[0]
        data = json.loads(json.dumps(concrete.to_dict()))  # GraphNotStorable would fail the test
        restored = [tf.Variable(v.numpy()) for v in concrete.captured_variables()]
        loaded = ConcreteFunction.from_dict(data, restored)  # raises if the checks refused it
        got = loaded.call_as_function(*inputs)
        for a, b in zip(tf.nest.flatten(got), tf.nest.flatten(expected)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, err_msg=name)
        stored.append(name)
    assert len(stored) == len(collect())  # every primitive's case was stored and replayed


def test_a_loaded_function_can_be_drawn(tmp_path):
    from tapeviz import viz

    tf.saved_model.save(MyModule(), str(tmp_path / "m"))
    figure = viz.show(tf.saved_model.load(str(tmp_path / "m")).call_custom_grad)
    assert "<B>clip_gradients</B>" in figure.dot and "custom gradient</FONT>" in figure.dot
    assert repr(figure).splitlines()[0] == "call_custom_grad: 1 inputs, 1 ops"


def test_functions_of_modules_in_lists_are_restored_at_their_paths(tmp_path):
    class Stack(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Scale(), Scale()]
            self.layers[1].s.assign(-2.0)

    tf.saved_model.save(Stack(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    x = tf.constant([[1.0, 2.0]])
    assert loaded.layers[0].scaled(x).numpy().tolist() == [[1.5, 3.0]]
    assert loaded.layers[1].scaled(x).numpy().tolist() == [[-2.0, -4.0]]  # each reads its own variable


def test_a_function_that_fell_back_to_eager_is_left_out_with_a_note(tmp_path):
    class Branchy(tf.Module):
        @tf.function(autograph=False)  # unconverted, the if reads a value
        def relu_ish(self, x):
            if x > 0:  # a Python decision on a value: the function runs eagerly from then on
                return x
            return -x

    module = Branchy()
    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        module.relu_ish(tf.constant(2.0))
    with pytest.warns(UserWarning, match="relu_ish \\(it runs eagerly"):
        tf.saved_model.save(module, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="was not saved"):
        tf.saved_model.load(str(tmp_path / "m")).relu_ish(tf.constant(2.0))


def test_a_restored_object_without_call_is_not_callable(tmp_path):
    module = tf.Module()
    module.v = tf.Variable(1.0)
    tf.saved_model.save(module, str(tmp_path / "m"))
    with pytest.raises(TypeError, match="not callable"):
        tf.saved_model.load(str(tmp_path / "m"))(1.0)  # TF: TypeError: '_UserObject' object is not callable


def test_a_signed_function_that_returns_nothing_is_not_the_default_signature(tmp_path):
    """TF leaves out a signature without outputs (tests/tf_reference/saved_model_signatures_reference.py)."""

    class Mutating(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)

        @tf.function
        def __call__(self, x):
            return x * self.v

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def mutate(self, new_v):
            self.v.assign(new_v)

    class Returning(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return {"a": x * 2}

    module = Mutating()
    module(tf.constant(0.0))
    found = []
    for name, saved in (("mutating", module), ("returning", Returning())):
        tf.saved_model.save(saved, str(tmp_path / name))
        found.append(sorted(tf.saved_model.load(str(tmp_path / name)).signatures))
    assert found == [[], ["serving_default"]]  # TF 2.21's
    loaded = tf.saved_model.load(str(tmp_path / "mutating"))
    loaded.mutate(tf.constant(2.0))  # the function itself is still saved
    assert float(loaded(tf.constant(3.0))) == 6.0


def test_a_loaded_signature_lists_its_outputs_by_name(tmp_path):
    """TF 2.21's values (tests/tf_reference/signature_outputs_reference.py): the saved_model guide's
    `signatures['serving_default'].structured_outputs`."""

    class Named(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def __call__(self, x):
            return {"custom_output_name": x * 2.0}

    class Plain(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            return x * 2.0

    found = []
    for name, module in (("named", Named()), ("plain", Plain())):
        tf.saved_model.save(module, str(tmp_path / name))
        found.append(repr(tf.saved_model.load(str(tmp_path / name)).signatures["serving_default"].structured_outputs))
    assert found == [
        "{'custom_output_name': TensorSpec(shape=<unknown>, dtype=tf.float32, name='custom_output_name')}",
        "{'output_0': TensorSpec(shape=(None, 2), dtype=tf.float32, name='output_0')}",
    ]
