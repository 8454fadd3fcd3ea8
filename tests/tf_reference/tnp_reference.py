"""TF 2.21 values for tf.experimental.numpy: tests/tf_reference/tnp_values.json.

Run with TensorFlow installed (never a dependency of tapeviz):

    python tests/tf_reference/tnp_reference.py

Each fact runs in a fresh process where it needs NumPy behavior on or off, so
the switches do not leak between them.
"""

import json
import pathlib
import subprocess
import sys

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = {"int": "3", "float": "1.5", "bool": "True"}

ENABLED = r"""
import json, numpy as np, tensorflow as tf
import tensorflow.experimental.numpy as tnp
tnp.experimental_enable_numpy_behavior(prefer_float32=PREFER)
DTYPES = DTYPES_LIST
SCALARS = SCALARS_DICT
facts = {}
def one(d):
    return tf.ones([2], dtype=d)
def dtype_of(fn):
    try:
        return fn().dtype.name
    except Exception as e:
        return "error"
facts["tensor_plus_tensor"] = {f"{a},{b}": dtype_of(lambda: one(a) + one(b)) for a in DTYPES for b in DTYPES}
facts["tensor_plus_scalar"] = {f"{a},{k}": dtype_of(lambda: one(a) + eval(v)) for a in DTYPES for k, v in SCALARS.items()}
facts["scalar_plus_tensor"] = {f"{k},{a}": dtype_of(lambda: eval(v) + one(a)) for a in DTYPES for k, v in SCALARS.items()}
facts["tensor_div_tensor"] = {a: dtype_of(lambda: one(a) / one(a)) for a in DTYPES}
facts["asarray"] = {repr(v): tnp.asarray(v).dtype.name for v in [1, 1.5, True, [1, 2], [1, 2.5], [[True]]]}
facts["add_python"] = tnp.add(1., 2.).dtype.name
facts["creation"] = {
    "ones": tnp.ones([2]).dtype.name, "zeros": tnp.zeros(3).dtype.name, "eye": tnp.eye(2).dtype.name,
    "arange_int": [tnp.arange(5).dtype.name, tnp.arange(5).numpy().tolist()],
    "arange_float": [tnp.arange(1.0, 2.0, 0.25).dtype.name, tnp.arange(1.0, 2.0, 0.25).numpy().tolist()],
    "arange_dtype": [tnp.arange(2, 9, 3, dtype=tnp.float32).dtype.name, tnp.arange(2, 9, 3, dtype=tnp.float32).numpy().tolist()],
    "linspace": [tnp.linspace(0, 1, 5).dtype.name, tnp.linspace(0, 1, 5).numpy().tolist()],
    "linspace_no_end": tnp.linspace(0, 1, 4, endpoint=False).numpy().tolist(),
    "full": [tnp.full([2], 7).dtype.name, tnp.full([2], 7).numpy().tolist()],
    "array_ndmin": list(tnp.array([1, 2], ndmin=3).shape),
}
x = tnp.asarray([[1, -2, 3], [4, 5, -6]], dtype=tnp.int32)
f = tnp.asarray([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=tnp.float32)
def value(t):
    return [t.dtype.name, t.numpy().tolist()]
facts["reductions_int32"] = {n: value(getattr(tnp, n)(x)) for n in ["sum", "mean", "prod", "std", "var", "max", "min", "argmax", "argmin", "cumsum"]}
facts["reductions_axis"] = {n: value(getattr(tnp, n)(f, axis=1)) for n in ["sum", "mean", "std", "var", "max", "min", "argmax"]}
facts["reductions_keepdims"] = value(tnp.sum(f, axis=0, keepdims=True))
facts["unary_int32"] = {n: value(getattr(tnp, n)(x)) for n in ["sqrt", "exp", "square", "abs", "negative", "sign", "tanh"]}
facts["binary_mixed"] = {n: value(getattr(tnp, n)(x, f)) for n in ["add", "subtract", "multiply", "true_divide", "maximum", "minimum", "greater"]}
facts["matmul_mixed"] = value(tnp.matmul(x, tnp.transpose(f)))
facts["dot"] = value(tnp.dot(tnp.asarray([1., 2.]), tnp.asarray([3., 4.])))
facts["clip"] = value(tnp.clip(f, -1, 1))
facts["where"] = value(tnp.where(f > 0, f, 0))
facts["concatenate"] = value(tnp.concatenate([x, f], axis=0))
facts["methods"] = {
    "T": value(f.T), "reshape_args": list(f.reshape(3, 2).shape), "reshape_tuple": list(f.reshape((3, 2)).shape),
    "reshape_minus1": list(f.reshape(-1).shape), "ravel": value(f.ravel()), "astype": value(f.astype(tnp.int32)),
    "mean": value(f.mean()), "max_axis": value(f.max(axis=0)), "min": value(f.min()), "size": int(f.size),
    "tolist": f.tolist(), "clip": value(f.clip(0, 1)), "transpose": value(x.transpose()),
}
g = tnp.arange(24).reshape(2, 3, 4)
facts["indexing"] = {
    "basic": value(g[1, tnp.newaxis, 1:3, ...]),
    "boolean": value(g[:, (True, False, True)]),
    "advanced": value(g[1, (0, 0, 1), tnp.asarray([0, 1, 1])]),
}
w = tf.constant([[0.5, -1.0], [2.0, 0.25]], dtype=tf.float64)
b = tf.constant([0.1, -0.2], dtype=tf.float64)
inp = tnp.asarray([[1.0, 2.0], [3.0, -1.0]])
with tf.GradientTape() as tape:
    tape.watch([w, b])
    y = tnp.maximum(tnp.matmul(inp, w) + b, 0)
    loss = tnp.sum(tnp.square(y - 1)) + tnp.mean(tnp.exp(w)) + tnp.std(w)
dw, db = tape.gradient(loss, [w, b])
facts["gradient"] = {"loss": float(loss), "dw": dw.numpy().tolist(), "db": db.numpy().tolist()}
i32 = tf.constant([1, 2], tf.int32)
f32 = tf.constant([0.5, 1.5], tf.float32)
with tf.GradientTape() as tape:
    tape.watch(f32)
    mixed = tnp.sum((i32 * f32) ** 2)
df = tape.gradient(mixed, f32)
facts["gradient_mixed"] = {"dtype": mixed.dtype.name, "value": float(mixed), "df": df.numpy().tolist(), "df_dtype": df.dtype.name}
facts["np_sum_of_tensor"] = [type(np.sum(tnp.ones([2, 3]))).__name__, float(np.sum(tnp.ones([2, 3])))]
facts["tensor_plus_ndarray"] = value(tnp.ones([2]) + np.ones([2]))
print(json.dumps(facts))
"""

DISABLED = r"""
import json, tensorflow as tf
import tensorflow.experimental.numpy as tnp
facts = {}
facts["tnp_add_promotes"] = tnp.add(tf.constant([1], tf.int32), tf.constant([1.5], tf.float32)).dtype.name
try:
    tf.constant([1], tf.int32) + tf.constant([1.5], tf.float32)
    facts["operator_mixed"] = "ok"
except Exception as e:
    facts["operator_mixed"] = type(e).__name__
facts["has_reshape_method"] = hasattr(tf.constant([1.0]), "reshape")
print(json.dumps(facts))
"""


def run(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr[-3000:])
    out = done.stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    fill = {"DTYPES_LIST": repr(DTYPES), "SCALARS_DICT": repr(SCALARS)}

    def enabled(prefer):
        code = ENABLED.replace("PREFER", prefer)
        for key, text in fill.items():
            code = code.replace(key, text)
        return run(code)

    values = {"dtypes": DTYPES, "scalars": SCALARS, "enabled": enabled("False"),
              "prefer_float32": enabled("True"), "disabled": run(DISABLED)}  # fmt: skip
    path = pathlib.Path(__file__).with_name("tnp_values.json")
    path.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
