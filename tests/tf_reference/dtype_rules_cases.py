"""The result dtype of arithmetic between tensors of each dtype and Python numbers, computed by the same
code on TF 2.21 and on tapeviz (``facts(tf)``). Nothing here imports TensorFlow or tapeviz.

Each fact is the result's dtype name, or ``"error:<class>"`` when the op refuses the pair.
"""

DTYPES = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "bool",
]  # fmt: skip
SCALARS = {"int": 3, "float": 2.5, "bool": True, "complex": 1 + 2j}

OPS = {
    "x / y": lambda tf, a, b: a / b,
    "tf.divide": lambda tf, a, b: tf.divide(a, b),
    "tf.math.divide": lambda tf, a, b: tf.math.divide(a, b),
    "tf.math.truediv": lambda tf, a, b: tf.math.truediv(a, b),
    "x // y": lambda tf, a, b: a // b,
    "x % y": lambda tf, a, b: a % b,
    "x ** y": lambda tf, a, b: a**b,
    "x + y": lambda tf, a, b: a + b,
    "x - y": lambda tf, a, b: a - b,
    "x * y": lambda tf, a, b: a * b,
}


def _dtype(fn):
    try:
        return fn().dtype.name
    except Exception as exc:  # noqa: BLE001 - which error is the fact
        return f"error:{type(exc).__name__}"


def facts(tf):
    out = {}
    for dtype in DTYPES:
        x = tf.constant([True, False]) if dtype == "bool" else tf.constant([1, 2], dtype=dtype)
        for op, fn in OPS.items():
            out[f"{op} | {dtype} tensor, same"] = _dtype(lambda fn=fn, x=x: fn(tf, x, x))
            for kind, scalar in SCALARS.items():
                out[f"{op} | {dtype} tensor, {kind} right"] = _dtype(lambda fn=fn, x=x, s=scalar: fn(tf, x, s))
                out[f"{op} | {dtype} tensor, {kind} left"] = _dtype(lambda fn=fn, x=x, s=scalar: fn(tf, s, x))
    for kind, scalar in SCALARS.items():  # two Python numbers: what tf.divide makes of them
        out[f"tf.divide | {kind} numbers"] = _dtype(lambda s=scalar: tf.divide(s, s))
    return out


SATURATE = [
    ([300.0, -5.0, 1.5], "float32", "uint8"),
    ([1e10, -1e10], "float32", "int32"),
    ([1e20, -1e20], "float64", "int64"),
    ([1000, -1000], "int32", "int8"),
    ([70000.0, -1e6], "float64", "float16"),
    ([2**40, -3], "int64", "uint32"),
    ([-3 + 4j], "complex64", "float32"),
    ([1e39], "float64", "float32"),
    ([5, 300], "uint16", "uint8"),
    ([-1, 7], "int8", "uint64"),
    ([3.7, -2.2], "float32", "int16"),
]


def saturate_facts(tf):
    """``tf.dtypes.saturate_cast`` on values past the target's range: dtype and values."""
    out = []
    for values, source, target in SATURATE:
        result = tf.dtypes.saturate_cast(tf.constant(values, dtype=source), target)
        out.append([result.dtype.name, result.numpy().tolist()])
    return out


def dtype_facts(tf):
    """Each dtype's name, size, limits and kind flags, and what ``as_dtype`` makes of names and NumPy types."""
    import numpy as np

    out = {}
    for name in DTYPES:
        d = tf.dtypes.as_dtype(name)
        try:
            limits = [int(v) for v in d.limits]
        except ValueError:
            limits = None
        try:
            bounds = [float(d.min), float(d.max)]
        except TypeError:
            bounds = None
        flags = [d.is_floating, d.is_integer, d.is_complex, d.is_unsigned, d.is_bool, d.is_numeric, d.is_quantized]
        out[name] = [d.name, d.size, limits, bounds, *flags, repr(d), str(d), d.real_dtype.name]
        out[name].append(tf.dtypes.as_dtype(np.dtype(name)).name)
    out["half"], out["double"] = tf.dtypes.half.name, tf.dtypes.double.name
    return out
