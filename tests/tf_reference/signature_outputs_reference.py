"""A loaded signature's ``structured_outputs`` (TF 2.21), for tests/saved_model/test_functions.py:

/tmp/tfenv/bin/python tests/tf_reference/signature_outputs_reference.py
"""

import os
import tempfile

import tensorflow as tf


class Named(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def __call__(self, x):
        return {"custom_output_name": x * 2.0}


class Plain(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return x * 2.0


for module in (Named(), Plain()):
    path = os.path.join(tempfile.mkdtemp(), "m")
    tf.saved_model.save(module, path)
    print(tf.saved_model.load(path).signatures["serving_default"].structured_outputs)
