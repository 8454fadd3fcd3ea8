"""Which tf.function TF 2.21 exports as 'serving_default' when save() is given no signatures.

    /tmp/tfenv/bin/python tests/tf_reference/saved_model_signatures_reference.py
prints: [] ['serving_default']
(TF's saved_model guide: a module whose one signed method only assigns has no signature.)
"""

import os
import tempfile

import tensorflow as tf


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


found = []
for module in (Mutating(), Returning()):
    path = os.path.join(tempfile.mkdtemp(), "m")
    tf.saved_model.save(module, path)
    found.append(sorted(tf.saved_model.load(path).signatures))
print(*found)
