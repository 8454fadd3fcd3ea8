"""tf.Module, tf.TensorSpec, tf.function(input_signature) and tf.saved_model, against TF 2.21's behaviour.

TF's output is quoted from tests/tf_reference/module_reference.py (run on TF 2.21.0).
"""

import sys

import numpy as np
import pytest

import tapeviz as tf


class Dense(tf.Module):
    def __init__(self, i, o, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones([i, o]), name="w")
        self.b = tf.Variable(tf.zeros([o]), name="b", trainable=False)

    @tf.Module.with_name_scope
    def __call__(self, x):
        return x @ self.w + self.b


class Seq(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.z_layers = [Dense(3, 2), Dense(2, 1, name="last")]
        self.a = {"k": tf.Variable(1.0, name="a_k"), "j": (tf.Variable(2.0, name="a_j"),)}
        self.kl = tf.keras.layers.Dense(2)
        self.kl.build((None, 3))

    def __call__(self, x):
        with self.name_scope:
            return self.z_layers[1](self.z_layers[0](x))


def test_module_walks_attributes_as_tf():
    s = Seq()
    assert (s.name, s.name_scope.name) == ("seq", "seq/")
    # TF: vars ['a_j:0', 'a_k:0', 'b:0', 'w:0', 'b:0', 'w:0']
    assert [v.name for v in s.variables] == ["a_j:0", "a_k:0", "b:0", "w:0", "b:0", "w:0"]
    assert [v.name for v in s.trainable_variables] == ["a_j:0", "a_k:0", "w:0", "w:0"]
    assert [v.name for v in s.non_trainable_variables] == ["b:0", "b:0"]
    assert [m.name for m in s.submodules] == ["dense", "last"]
    assert not isinstance(s.kl, tf.Module) and not isinstance(tf.keras.Model(), tf.Module)  # TF: False False
    np.testing.assert_array_equal(s(tf.ones([1, 3])).numpy(), [[6.0]])
    assert isinstance(s.variables, tuple)


def test_module_names_and_scopes_as_tf():
    assert (tf.Module().name, Dense(1, 1).name, Dense(1, 1).name) == ("module", "dense", "dense")
    for bad in ("bad name", "a/b"):
        with pytest.raises(ValueError) as info:
            tf.Module(name=bad)
        assert str(info.value) == (
            f"{bad!r} is not a valid module name. Module names must be valid Python "
            "identifiers (e.g. a valid class name)."
        )

    class C(tf.Module):
        @tf.Module.with_name_scope
        def make(self):
            self.v = tf.Variable(1.0, name="v")
            return self.v

    c = C(name="cc")
    assert c.make().name == "cc/v:0"  # TF: cc/v:0
    with tf.name_scope("outer"):
        assert tf.Variable(1.0, name="x").name == "outer/x:0"
        inner = tf.Module(name="inner")
    with c.name_scope as scope:
        assert scope == "cc/"
    with inner.name_scope as scope:
        assert scope == "outer/inner/"  # the scope it was created in


def test_a_module_is_seen_once_and_cycles_end():
    a, b = tf.Module(name="a"), tf.Module(name="b")
    a.v = tf.Variable(1.0)
    a.other = b
    b.back = a
    b.same = [a.v, a.v]
    assert len(a.variables) == 1 and [m.name for m in a.submodules] == ["b"]


def test_tensor_spec_and_input_signature_as_tf():
    spec = tf.TensorSpec(shape=[None, 3], dtype=tf.float32)
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)"
    assert repr(tf.TensorSpec([2], name="x")) == "TensorSpec(shape=(2,), dtype=tf.float32, name='x')"
    assert spec.is_compatible_with(np.zeros((5, 3), np.float32)) and not spec.is_compatible_with(
        np.zeros((5, 2), np.float32)
    )

    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def f(x):
        return x * 2

    for value in (tf.constant([1.0, 2.0]), np.array([1.0, 2.0]), [1.0, 2.0]):
        out = f(value)
        assert out.dtype == tf.float32 and out.numpy().tolist() == [2.0, 4.0]
    with pytest.raises(TypeError) as info:
        f(tf.constant([[1.0, 2.0]]))
    assert str(info.value) == (
        "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(1, 2), dtype=tf.float32, "
        "name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (<tf.Tensor: "
        "shape=(1, 2), dtype=float32, numpy=array([[1., 2.]], dtype=float32)>,) and kwargs: {} for signature: "
        "(x: TensorSpec(shape=(None,), dtype=tf.float32, name=None))."
    )
    with pytest.raises(TypeError, match="Can not cast TensorSpec\\(shape=\\(2,\\), dtype=tf.int32"):
        f(tf.constant([1, 2]))
    assert f.input_signature == (tf.TensorSpec([None]),)


def test_input_signature_on_a_method_skips_self():
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 2])])
        def g(self, x):
            return x + 1

    assert M().g([[1.0, 2.0]]).numpy().tolist() == [[2.0, 3.0]]
    with pytest.raises(TypeError, match="signature: \\(x: TensorSpec"):
        M().g([1.0, 2.0])


class Scaled(tf.Module):
    """A module whose second variable is made on the first call (as Keras-style lazy builds do)."""

    def __init__(self, scale, name=None):
        super().__init__(name=name)
        self.scale = tf.Variable(float(scale))
        self.offset = None

    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def __call__(self, x):
        if self.offset is None:
            self.offset = tf.Variable(tf.zeros([2]))
        return x * self.scale + self.offset


def test_saved_model_round_trip_of_a_module(tmp_path):
    module = Scaled(3.0)
    module(tf.ones([1, 2]))
    module.offset.assign([0.5, -0.5])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"), custom_objects={"Scaled": Scaled})  # never found by its name
    assert isinstance(loaded, Scaled)
    np.testing.assert_array_equal(loaded(tf.ones([2, 2])).numpy(), module(tf.ones([2, 2])).numpy())
    assert [v.numpy().tolist() for v in loaded.variables] == [[0.5, -0.5], 3.0]


def test_saved_model_without_the_class_restores_variables(tmp_path, monkeypatch):
    module = Seq()
    tf.saved_model.save(module, str(tmp_path / "s"))
    monkeypatch.setattr(sys.modules[__name__], "Seq", None)  # as in a session that never defined Seq
    restored = tf.saved_model.load(str(tmp_path / "s"))
    assert len(restored.variables) == 6
    np.testing.assert_array_equal(restored.z_layers[0].w.numpy(), np.ones((3, 2)))
    assert float(restored.a.k.numpy()) == 1.0


def test_saved_model_of_a_keras_model_and_clear_errors(tmp_path):
    pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    tf.saved_model.save(model, str(tmp_path / "k"))
    loaded = tf.saved_model.load(str(tmp_path / "k"))
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    with pytest.raises(OSError, match="does not exist"):
        tf.saved_model.load(str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="tf.Module"):
        tf.saved_model.save(object(), str(tmp_path / "o"))


def test_save_options_from_the_advanced_autodiff_guide_are_accepted(tmp_path):
    class Scaled(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

    options = tf.saved_model.SaveOptions(experimental_custom_gradients=True)
    assert options.experimental_custom_gradients is True
    tf.saved_model.save(Scaled(), str(tmp_path / "m"), options=options)
    loaded = tf.saved_model.load(str(tmp_path / "m"), options=tf.saved_model.LoadOptions())
    assert float(loaded.w) == 2.0
