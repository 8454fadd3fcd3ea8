"""TF 2.21 dtype printing, common error messages and unknown-size Keras builds behind tests/test_tf_messages.py.

``scenario(tf)`` runs on TensorFlow or tapeviz and returns what it saw. Refresh with TensorFlow installed:

    python tests/tf_reference/messages_reference.py   # writes messages_values.json
"""

import json
import os

VALUES_FILE = os.path.join(os.path.dirname(__file__), "messages_values.json")


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the reference records whatever TF raises)
        return [type(exc).__name__, str(exc)]
    return None


def scenario(tf):
    out = {
        "dtype_repr": repr(tf.float32),
        "dtype_str": str(tf.float32),
        "dtype_format": f"{tf.int64}",
        "dtype_in_list": str([tf.float32, tf.bool]),
        "tensor_dtype_str": str(tf.constant([1.0]).dtype),
    }
    v = tf.Variable([1.0, 2.0])
    out["assign"] = _error(lambda: v.assign([1.0, 2.0, 3.0]))
    w = tf.Variable(tf.zeros([2, 3]), name="w")
    out["assign_named"] = _error(lambda: w.assign(tf.zeros([3, 2])))
    out["matmul"] = _error(lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 2])))

    class Project(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(4, 2))

        def call(self, x):
            return tf.matmul(x, self.w)

    layer = Project()
    layer.build((None, 4))
    out["matmul_in_layer"] = _error(lambda: layer(tf.ones([2, 3])))

    layers = tf.keras.layers
    model = tf.keras.Sequential(
        [layers.Conv2D(4, 3, input_shape=(None, None, 3)), layers.GlobalAveragePooling2D(), layers.Dense(2)]
    )
    out["conv_unknown_output_shape"] = list(model.output_shape)
    out["conv_unknown_calls"] = [list(model(tf.ones([1, 8, 10, 3])).shape), list(model(tf.ones([2, 5, 5, 3])).shape)]
    spatial = tf.keras.Sequential(
        [tf.keras.Input((None, None, 3)), layers.Conv2D(4, 3, padding="same"), layers.MaxPooling2D()]
    )
    out["input_unknown_output_shape"] = list(spatial.output_shape)
    inputs = tf.keras.Input((None, 3))
    outputs = layers.Dense(5)(inputs)
    out["functional_unknown"] = list(outputs.shape)
    return out


if __name__ == "__main__":
    import tensorflow

    result = scenario(tensorflow)
    result["tensorflow_version"] = tensorflow.__version__
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print(json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False))
