"""TF 2.21 behaviour of tf.Module, tf.TensorSpec and tf.function(input_signature) behind tests/test_module.py.

Run with TensorFlow installed: python tests/tf_reference/module_reference.py. Printed on TF 2.21.0:

    name seq seq/ <class 'tensorflow.python.framework.ops.name_scope_v2'>
    vars ['a_j:0', 'a_k:0', 'b:0', 'w:0', 'b:0', 'w:0']
    trainable ['a_j:0', 'a_k:0', 'w:0', 'w:0']
    nontrain ['b:0', 'b:0']
    submodules ['dense', 'last']
    False False
    tf.Tensor([[6.]], shape=(1, 1), dtype=float32)
    module dense dense
    ValueError 'bad name' is not a valid module name. Module names must be valid Python identifiers (e.g. a valid class name).
    ValueError 'a/b' is not a valid module name. Module names must be valid Python identifiers (e.g. a valid class name).
    cc/v:0
    outer/x:0
    scope str cc/
    TensorSpec(shape=(None, 3), dtype=tf.float32, name=None) TensorSpec(shape=(2,), dtype=tf.float32, name='x')
    tf.Tensor([2. 4.], shape=(2,), dtype=float32)
    TypeError Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(1, 2), dtype=tf.float32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (<tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[1., 2.]], dtype=float32)>,) and kwargs: {} for signature: (x: TensorSpec(shape=(None,), dtype=tf.float32, name=None)).
    TypeError Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2,), dtype=tf.int32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>,) and kwargs: {} for signature: (x: TensorSpec(shape=(None,), dtype=tf.float32, name=None)).
    tf.Tensor([2. 4.], shape=(2,), dtype=float32)
    tf.Tensor([2. 4.], shape=(2,), dtype=float32)

(and basic_training_loops's MyModel prints its variables sorted by attribute: b then w.)
"""

import keras
import numpy as np
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, i, o, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones([i, o]), name="w")
        self.b = tf.Variable(tf.zeros([o]), name="b", trainable=False)

    @tf.Module.with_name_scope
    def __call__(self, x):
        print("scope inside:", tf.name_scope("q").__enter__()) if False else None
        return x @ self.w + self.b


class Seq(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.z_layers = [Dense(3, 2), Dense(2, 1, name="last")]
        self.a = {"k": tf.Variable(1.0, name="a_k"), "j": (tf.Variable(2.0, name="a_j"),)}
        self.kl = keras.layers.Dense(2)
        self.kl.build((None, 3))

    def __call__(self, x):
        with self.name_scope:
            return self.z_layers[1](self.z_layers[0](x))


s = Seq()
print("name", s.name, s.name_scope.name, type(s.name_scope))
print("vars", [v.name for v in s.variables])
print("trainable", [v.name for v in s.trainable_variables])
print("nontrain", [v.name for v in s.non_trainable_variables])
print("submodules", [m.name for m in s.submodules])
print(repr(s))
print(isinstance(s.kl, tf.Module), isinstance(keras.Model(), tf.Module))
print(s(tf.ones([1, 3])))
print(tf.Module().name, Dense(1, 1).name, Dense(1, 1).name)
try:
    tf.Module(name="bad name")
except Exception as e:
    print(type(e).__name__, e)
try:
    tf.Module(name="a/b")
except Exception as e:
    print(type(e).__name__, e)


# name scoping of variables created in with_name_scope
class C(tf.Module):
    @tf.Module.with_name_scope
    def make(self):
        self.v = tf.Variable(1.0, name="v")
        return self.v


c = C(name="cc")
print(c.make().name)
with tf.name_scope("outer"):
    print(tf.Variable(1.0, name="x").name)
with c.name_scope as scope:
    print("scope str", scope)
print(tf.TensorSpec(shape=[None, 3], dtype=tf.float32), repr(tf.TensorSpec([2], name="x")))


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def f(x):
    return x * 2


print(f(tf.constant([1.0, 2.0])))
try:
    print(f(tf.constant([[1.0, 2.0]])))
except Exception as e:
    print(type(e).__name__, str(e)[:400])
try:
    print(f(tf.constant([1, 2])))
except Exception as e:
    print(type(e).__name__, str(e)[:400])
print(f(np.array([1.0, 2.0])))
try:
    print(f([1.0, 2.0]))
except Exception as e:
    print(type(e).__name__, str(e)[:300])
