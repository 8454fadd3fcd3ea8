"""TF 2.21 behaviour of tf.RaggedTensor and tf.ragged behind tests/test_ragged.py.

``scenario(tf)`` runs on TensorFlow or tapeviz and returns values, gradients and printing as plain
data. Refresh with TensorFlow installed:

    python tests/tf_reference/ragged_reference.py   # writes ragged_values.json
"""

import json
import os

VALUES_FILE = os.path.join(os.path.dirname(__file__), "ragged_values.json")


def scenario(tf):
    out = {}
    rt = tf.ragged.constant([[3.0, 1.0, 4.0, 1.0], [], [5.0, 9.0, 2.0], [6.0], []])
    out["repr"] = repr(rt)
    out["str"] = str(rt)
    out["row_lengths"] = rt.row_lengths().numpy().tolist()
    out["row_splits"] = [rt.row_splits.numpy().tolist(), rt.row_splits.dtype.name]
    out["values"] = rt.values.numpy().tolist()
    out["shape"] = str(rt.shape)
    out["nrows"] = int(rt.nrows())
    out["to_tensor"] = rt.to_tensor().numpy().tolist()
    out["to_tensor_default"] = rt.to_tensor(default_value=-1.0).numpy().tolist()
    out["to_list"] = rt.to_list()
    r2 = tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2], row_splits=[0, 4, 4, 6, 7])
    out["from_row_splits"] = r2.to_list()
    out["from_row_lengths"] = tf.RaggedTensor.from_row_lengths([1.0, 2.0, 3.0], [2, 0, 1]).to_list()
    out["add_scalar"] = (rt + 1.0).to_list()
    out["mul_ragged"] = (rt * rt).to_list()
    out["map_flat"] = tf.ragged.map_flat_values(tf.math.square, rt).to_list()
    for kind in ["sum", "mean", "max", "min"]:
        f = getattr(tf, "reduce_" + kind)
        out[kind + "_axis1"] = f(rt, axis=1).numpy().tolist()
        out[kind + "_all"] = float(f(rt))
    out["sum_axis0"] = tf.reduce_sum(rt, axis=0).numpy().tolist()
    out["mean_axis0"] = tf.reduce_mean(rt, axis=0).numpy().tolist()
    out["sum_keepdims"] = tf.reduce_sum(rt, axis=1, keepdims=True).numpy().tolist()
    v = tf.Variable([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    with tf.GradientTape() as t:
        r = tf.RaggedTensor.from_row_lengths(v, [4, 0, 3, 1, 0])
        loss = (
            tf.reduce_sum(tf.reduce_mean(r * r, axis=1)[0:1])
            + tf.reduce_sum(tf.reduce_max(r, axis=1)[2:4])
            + tf.reduce_sum(r.to_tensor() * 0.5)
        )
    out["grad"] = tf.convert_to_tensor(t.gradient(loss, v)).numpy().tolist()
    out["row"] = rt[2].numpy().tolist()
    try:
        tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1])
        out["bad_splits"] = None
    except Exception as e:
        out["bad_splits"] = type(e).__name__
    return out


if __name__ == "__main__":
    import tensorflow

    result = scenario(tensorflow)
    result["tensorflow_version"] = tensorflow.__version__
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(result, sort_keys=True))
