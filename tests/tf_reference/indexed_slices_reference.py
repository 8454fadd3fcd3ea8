"""TF 2.21 behaviour of tf.IndexedSlices as the gradient of gather and embedding lookups, behind
tests/core/test_indexed_slices.py. ``scenario(tf)`` runs on TensorFlow or tapeviz. Refresh with TensorFlow:

    python tests/tf_reference/indexed_slices_reference.py   # writes indexed_slices_values.json
"""

import json
import os

import numpy as np

VALUES_FILE = os.path.join(os.path.dirname(__file__), "indexed_slices_values.json")


def _slices(g):
    return {
        "type": type(g).__name__,
        "indices": g.indices.numpy().tolist(),
        "values": g.values.numpy().tolist(),
        "dense_shape": g.dense_shape.numpy().tolist(),
        "index_dtype": g.indices.dtype.name,
        "shape_dtype": g.dense_shape.dtype.name,
    }


def scenario(tf):
    out = {}
    p = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape(persistent=True) as t:
        y = tf.reduce_sum(tf.gather(p, [2, 0, 2]) * 2.0)
        y2 = tf.reduce_sum(tf.gather(p, [1])) + tf.reduce_sum(tf.gather(p, [3, 1]))
        y3 = tf.reduce_sum(tf.gather(p, [1])) + tf.reduce_sum(p)
        y4 = tf.reduce_sum(tf.gather(p, [1, 2], axis=1))
        y5 = tf.reduce_sum(tf.gather(p, [[0, 1], [1, 1]]) * 3.0)
    g = t.gradient(y, p)
    out["gather"] = _slices(g)
    out["two_gathers"] = _slices(t.gradient(y2, p))
    out["gather_and_dense"] = type(t.gradient(y3, p)).__name__
    out["gather_axis1"] = type(t.gradient(y4, p)).__name__
    out["gather_2d_indices"] = _slices(t.gradient(y5, p))
    out["dense"] = tf.convert_to_tensor(g).numpy().tolist()
    out["str"] = str(g)

    emb = tf.keras.layers.Embedding(5, 2)
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(emb(tf.constant([1, 3, 1])))
    ge = t.gradient(loss, emb.trainable_variables)[0]
    out["embedding"] = {"type": type(ge).__name__, "indices": ge.indices.numpy().tolist()}
    out["embedding_dense_shape"] = ge.dense_shape.numpy().tolist()

    # Optimizers take IndexedSlices: rows gathered once update as a dense gradient would.
    q = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape() as t:
        z = tf.reduce_sum(tf.gather(q, [2, 0]) ** 2)
    gq = t.gradient(z, q)
    tf.keras.optimizers.SGD(0.1).apply_gradients([(gq, q)])
    out["sgd"] = q.numpy().tolist()
    adam_var = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    adam = tf.keras.optimizers.Adam(0.1)
    for _ in range(2):
        with tf.GradientTape() as t:
            z = tf.reduce_sum(tf.gather(adam_var, [3, 0]) ** 2)
        adam.apply_gradients([(t.gradient(z, adam_var), adam_var)])
    out["adam_unique_rows"] = adam_var.numpy().tolist()
    out["global_norm"] = float(tf.linalg.global_norm([g]).numpy())
    clipped, norm = tf.clip_by_global_norm([g], 1.0)
    out["clipped"] = [type(clipped[0]).__name__, clipped[0].values.numpy().tolist(), float(norm.numpy())]

    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            w = tf.reduce_sum(tf.gather(x, [0, 2]) ** 3)
        gi = inner.gradient(w, x)
        s = tf.reduce_sum(gi.values)
    go = outer.gradient(s, x)
    out["second_order"] = _slices(go)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            w = tf.reduce_sum(tf.gather(x, [0, 2, 0]) ** 3)
        gi = tf.convert_to_tensor(inner.gradient(w, x))
        s = tf.reduce_sum(gi * gi)
    out["second_order_dense"] = tf.convert_to_tensor(outer.gradient(s, x)).numpy().tolist()
    return out


if __name__ == "__main__":
    import tensorflow

    result = scenario(tensorflow)
    result["tensorflow_version"] = tensorflow.__version__
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(result, sort_keys=True))
