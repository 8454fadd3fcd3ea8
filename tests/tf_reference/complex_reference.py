"""TF 2.21 values and gradients of complex64/complex128 computations behind tests/core/primitives/test_complex.py.

``scenario(tf)`` runs on TensorFlow or tapeviz; each case returns its value
and the tape's gradient (TF's convention for complex sources: dL/dx + i dL/dy
for a real L of z = x + iy). Refresh with TensorFlow installed:

    python tests/tf_reference/complex_reference.py   # writes complex_values.json
"""

import json
import os

import numpy as np

VALUES_FILE = os.path.join(os.path.dirname(__file__), "complex_values.json")

Z = np.array([1 + 2j, -0.5 + 0.3j, 0.25 - 1.5j])
W = np.array([0.3 - 1j, 2 + 0.5j, -1 + 0.1j])
A = np.array([[1 + 1j, 2 - 0.5j], [0.5j, -1 + 0.25j]])
B = np.array([[0.5 - 1j, 1.5], [-2j, 0.75 + 0.5j]])


def cases(tf):
    """name -> (function of the sources, sources as NumPy arrays)."""
    m = tf.math
    return {
        "mul_abs_exp": (lambda z, w: tf.reduce_sum(tf.abs(z * w + tf.exp(z)) ** 2), [Z, W]),
        "div_log": (lambda z, w: m.real(tf.reduce_sum(tf.math.log(z / w))), [Z, W]),
        "matmul": (lambda a, b: m.real(tf.reduce_sum(tf.matmul(a, b) * m.conj(a))), [A, B]),
        "matmul_adjoint_parts": (
            lambda a, b: tf.reduce_sum(m.imag(tf.matmul(a, b, transpose_b=True)) + m.angle(a) * m.real(b)),
            [A, B],
        ),
        "square_sqrt_mean": (lambda z: m.real(tf.reduce_mean(tf.square(z) + tf.sqrt(z))), [Z]),
        "complex_of_parts": (
            lambda x, y: tf.reduce_sum(tf.abs(tf.complex(x, y) * tf.complex(y, x)) + m.angle(tf.complex(x, -y))),
            [Z.real.copy(), Z.imag.copy()],
        ),
        "complex_target": (lambda z: z * z + 3 * z, [Z]),
        "cast_to_real": (lambda z: tf.reduce_sum(tf.cast(z * z, tf.float64) ** 2), [Z]),
    }


def scenario(tf):
    out = {}
    for dtype in ("complex64", "complex128"):
        for name, (fn, arrays) in cases(tf).items():
            if name == "complex_of_parts":
                arrays = [a.astype(np.float32 if dtype == "complex64" else np.float64) for a in arrays]
            else:
                arrays = [a.astype(dtype) for a in arrays]
            sources = [tf.Variable(a) for a in arrays]
            with tf.GradientTape() as tape:
                value = fn(*sources)
            grads = tape.gradient(value, sources)
            out[f"{name}/{dtype}"] = {
                "value_dtype": value.dtype.name,
                "value": [np.real(value.numpy()).tolist(), np.imag(value.numpy()).tolist()],
                "grads": [[np.real(g.numpy()).tolist(), np.imag(g.numpy()).tolist(), g.dtype.name] for g in grads],
            }
    out["dtype_str"] = [str(tf.complex64), repr(tf.complex128)]
    out["python_complex"] = tf.constant(1 + 2j).dtype.name
    out["complex_op_dtype"] = tf.complex(1.0, 2.0).dtype.name
    out["abs_dtype"] = tf.abs(tf.constant(np.array([3 + 4j], np.complex64))).dtype.name
    out["real_of_real"] = tf.math.real(tf.constant([1.5, -2.0])).numpy().tolist()
    out["imag_of_real"] = tf.math.imag(tf.constant([1.5, -2.0])).numpy().tolist()
    out["angle_of_real"] = tf.math.angle(tf.constant([1.5, -2.0])).numpy().tolist()
    return out


if __name__ == "__main__":
    import tensorflow

    result = scenario(tensorflow)
    result["tensorflow_version"] = tensorflow.__version__
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps({k: v for k, v in result.items() if "/" not in k}, indent=1))
