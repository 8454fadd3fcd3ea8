"""TF 2.21 behaviour of SavedModel functions behind tests/saved_model/test_functions.py.

Run with TensorFlow installed: python tests/tf_reference/saved_function_reference.py.
It saves four modules, then loads them in a fresh Python (where the classes are
not defined) and prints values, gradients and the error for a call that fits no
trace. Printed on TF 2.21.0 (the numbers are used in tests/saved_model/test_functions.py):

    guide 4.0 2.0
    dense y [[3.5253100395202637, 4.572880744934082], [0.7111154794692993, 3.8683347702026367], [2.8653364181518555, 12.000503540039062]]
    dense dx [[-0.3063386082649231, 1.013490915298462], [-0.45032116770744324, 0.90667724609375], [-0.3513108789920807, 1.0486786365509033]]
    dense dw db ds [[[0.16139373183250427, 0.008705586194992065], [1.3943504095077515, 1.6430604457855225]], [0.6534454226493835, 0.8807080984115601], 3.74819278717041]
    twice [3.0, 6.0] [4.5, 9.0]
    inner [[1.5, 3.0]]
    signatures ['serving_default'] ['serving_default']
    nograd 4.0 LookupError No gradient defined for operation'IdentityN' (op type: IdentityN). In general every operation must have an associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. If you want to pretend this operation is a constant in your program, you may insert `tf.stop_gradient`. This can be useful to silence the error in cases where you know gradients are not needed, e.g. the forward pass of tf.custom_gradient. Please see more details in https://www.tensorflow.org/api_docs/python/tf/custom_gradient.
    counter 2.0 5.0 5.0
    no fit ValueError Could not find matching concrete function to call loaded from the SavedModel. Got:
      Positional arguments (2 total):
        * <tf.Tensor 'x:0' shape=(3,) dtype=float32>
        * 2
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
      Keyword arguments: {}
    no fit literal ValueError Could not find matching concrete function to call loaded from the SavedModel. Got:
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
      Keyword arguments: {}
    TF 2.21.0
"""

import subprocess
import sys
import tempfile
import textwrap

import tensorflow as tf

SAVE = """
import tensorflow as tf

@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward

class MyModule(tf.Module):  # the advanced autodiff guide's module
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)

class Dense(tf.Module):
    def __init__(self):
        self.w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
        self.b = tf.Variable([0.25, -1.0])
        self.inner = Scale()

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return self.inner.scaled(tf.nn.softplus(x @ self.w + self.b))

    @tf.function
    def twice(self, x, times=2):
        return x * float(times) * self.inner.s

class Scale(tf.Module):
    def __init__(self):
        self.s = tf.Variable(1.5)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def scaled(self, x):
        return clip_gradients(x * self.s)

m = MyModule()
tf.saved_model.save(m, FOLDER + "/guide", options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
d = Dense()
d.twice(tf.constant([1.0, 2.0]))
d.twice(tf.constant([1.0, 2.0]), times=3)
tf.saved_model.save(d, FOLDER + "/dense")
tf.saved_model.save(m, FOLDER + "/nograd", options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))

class Counter(tf.Module):
    def __init__(self):
        self.n = tf.Variable(0.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def add(self, x):
        self.n.assign_add(x)
        return self.n * 1.0

tf.saved_model.save(Counter(), FOLDER + "/counter")
"""

LOAD = """
import tensorflow as tf
loaded = tf.saved_model.load(FOLDER + "/guide")
v = tf.Variable(2.0)
with tf.GradientTape() as t:
    output = loaded.call_custom_grad(v * v)
print("guide", output.numpy(), t.gradient(output, v).numpy())

d = tf.saved_model.load(FOLDER + "/dense")
x = tf.constant([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    y = d(x)
    s = tf.reduce_sum(y)
print("dense y", y.numpy().tolist())
print("dense dx", t.gradient(s, x).numpy().tolist())
print("dense dw db ds", [g.numpy().tolist() for g in t.gradient(s, [d.w, d.b, d.inner.s])])
print("twice", d.twice(tf.constant([1.0, 2.0])).numpy().tolist(), d.twice(tf.constant([1.0, 2.0]), times=3).numpy().tolist())
print("inner", d.inner.scaled(tf.constant([[1.0, 2.0]])).numpy().tolist())
print("signatures", sorted(d.signatures), sorted(loaded.signatures))
nograd = tf.saved_model.load(FOLDER + "/nograd")
try:
    with tf.GradientTape() as t:
        output = nograd.call_custom_grad(v * v)
    print("nograd", t.gradient(output, v))
except LookupError as e:
    print("nograd", float(output), type(e).__name__, str(e))
c = tf.saved_model.load(FOLDER + "/counter")
print("counter", c.add(2.0).numpy(), c.add(3.0).numpy(), c.n.numpy())
try:
    d.twice(tf.constant([1.0, 2.0, 3.0]))
except Exception as e:
    print("no fit", type(e).__name__, str(e))
try:
    d.twice(tf.constant([1.0, 2.0]), times=5)
except Exception as e:
    print("no fit literal", type(e).__name__, str(e))
"""

folder = tempfile.mkdtemp()
for code in (SAVE, LOAD):
    program = f"FOLDER = {folder!r}\n" + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    print(done.stdout, end="")
    if done.returncode:
        print(done.stderr[-3000:])
print("TF", tf.__version__)
