"""TF 2.21 behaviour of tf.SparseTensor and tf.sparse behind tests/test_sparse.py.

``scenario(tf)`` runs on TensorFlow or tapeviz and returns values and gradients as plain data.
Refresh with TensorFlow installed:

    python tests/tf_reference/sparse_reference.py   # writes sparse_values.json
"""

import json
import os

import numpy as np

VALUES_FILE = os.path.join(os.path.dirname(__file__), "sparse_values.json")


def scenario(tf):
    out = {}
    st = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])
    out["repr"] = str(st)
    out["to_dense"] = tf.sparse.to_dense(st).numpy().tolist()
    out["to_dense_default"] = tf.sparse.to_dense(st, default_value=-1.0).numpy().tolist()
    d = tf.constant([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    fd = tf.sparse.from_dense(d)
    out["from_dense"] = [
        fd.indices.numpy().tolist(),
        fd.values.numpy().tolist(),
        fd.dense_shape.numpy().tolist(),
        fd.indices.dtype.name,
    ]
    vals = tf.Variable([1.0, 2.0, 3.0])
    B = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 3)
    with tf.GradientTape(persistent=True) as t:
        sp = tf.SparseTensor([[0, 0], [1, 2], [2, 1]], vals, [3, 4])
        y = tf.sparse.sparse_dense_matmul(sp, B)
        loss = tf.reduce_sum(y * y)
        spt = tf.sparse.sparse_dense_matmul(sp, tf.transpose(B), adjoint_b=True)
        spa = tf.sparse.sparse_dense_matmul(sp, B[:3] * 2.0, adjoint_a=True)
        l2 = tf.reduce_sum(spt) + tf.reduce_sum(spa * spa)
        rs = tf.sparse.reduce_sum(sp, axis=1)
        l3 = tf.reduce_sum(rs * tf.constant([1.0, 2.0, 3.0]))
    out["matmul"] = y.numpy().tolist()
    out["matmul_grads"] = [g.numpy().tolist() for g in t.gradient(loss, [vals, B])]
    out["matmul_adjoint"] = [spt.numpy().tolist(), spa.numpy().tolist()]
    out["matmul_adjoint_grads"] = [g.numpy().tolist() for g in t.gradient(l2, [vals, B])]
    out["reduce_sum_axis1"] = rs.numpy().tolist()
    out["reduce_sum_grad"] = t.gradient(l3, vals).numpy().tolist()
    out["reduce_sum_all"] = float(tf.sparse.reduce_sum(st))
    a = tf.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
    b = tf.SparseTensor([[0, 1], [1, 0]], [10.0, 20.0], [3, 4])
    s = tf.sparse.add(a, b)
    out["add_sparse"] = [s.indices.numpy().tolist(), s.values.numpy().tolist()]
    out["add_dense"] = tf.sparse.add(a, tf.ones([3, 4])).numpy().tolist()
    r = tf.sparse.reorder(tf.SparseTensor([[2, 0], [0, 3], [1, 1]], [1, 2, 3], [3, 4]))
    out["reorder"] = [r.indices.numpy().tolist(), r.values.numpy().tolist()]
    return out


if __name__ == "__main__":
    import tensorflow

    result = scenario(tensorflow)
    result["tensorflow_version"] = tensorflow.__version__
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(result, sort_keys=True))
