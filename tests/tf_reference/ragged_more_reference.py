"""TF 2.21 values for ragged slicing and nested ragged dimensions: tests/tf_reference/ragged_more_values.json.

Run with TensorFlow installed (never a dependency of tapeviz):

    python tests/tf_reference/ragged_more_reference.py

Each case is the Python expression the test evaluates too (``rt``, ``full``, ``wide``, ``nt``, ``tf``
in scope); the value is what TF gave (a list, or ["error", exception class]).
"""

import json
import pathlib

SETUP = """
rt = tf.ragged.constant([[1.0, 2.0, 3.0], [4.0], [], [5.0, 6.0]])
full = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
wide = tf.RaggedTensor.from_row_splits(values=[[1, 2], [3, 4], [5, 6]], row_splits=[0, 2, 3])
nt = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6], [], [7]]])
"""

CASES = [
    "rt[1]",
    "rt[-1]",
    "rt[0, 1]",
    "rt[1:3]",
    "rt[::2]",
    "rt[-2:]",
    "rt[:, 1:]",
    "rt[:, :2]",
    "rt[1:, 1:]",
    "rt[:, -1:]",
    "rt[:, ::2]",
    "rt[:, ::-1]",
    "rt[:, 0]",
    "full[:, 0]",
    "full[:, -1]",
    "full[1:, 0]",
    "full[:, 1]",
    "wide[:, 0]",
    "wide[:, :, 1]",
    "wide[1]",
    "wide[0, 1, 0]",
    "nt.ragged_rank",
    "nt.shape.as_list()",
    "[s.numpy().tolist() for s in nt.nested_row_splits]",
    "nt.flat_values",
    "nt.values",
    "nt.row_lengths()",
    "nt.row_lengths(axis=2)",
    "nt.to_tensor()",
    "nt.to_tensor(default_value=-1)",
    "nt.to_list()",
    "nt[0]",
    "nt[2, 0]",
    "nt[2, 0, 1]",
    "nt[2:, 1:]",
    "nt[:, :1]",
    "nt[:, :, :1]",
    "nt[:, 0]",
    "nt + 1",
    "nt * 2",
    "tf.reduce_sum(nt)",
    "nt.dtype.name",
    "tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4, 5, 6, 7], ([0, 2, 2, 5], [0, 2, 3, 6, 6, 7]))",
    "tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4, 5, 6, 7], ([2, 0, 3], [2, 1, 3, 0, 1]))",
    "tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]]).ragged_rank",
    "tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).shape.as_list()",
    "tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)[:, :, 0]",
    "repr(nt)",
    "str(nt.shape)",
]


def _plain(value):
    import tensorflow as tf

    if isinstance(value, tf.RaggedTensor):
        return {"ragged": value.to_list(), "ragged_rank": value.ragged_rank, "dtype": value.dtype.name}
    if isinstance(value, tf.Tensor):
        return {"dense": value.numpy().tolist(), "dtype": value.dtype.name}
    return value


def main():
    import tensorflow as tf

    scope = {"tf": tf}
    exec(SETUP, scope)
    values = {"setup": SETUP, "cases": {}}
    for case in CASES:
        try:
            values["cases"][case] = _plain(eval(case, scope))
        except Exception as e:  # noqa: BLE001 - the class name is the fact
            values["cases"][case] = ["error", type(e).__name__]
    v = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    with tf.GradientTape() as tape:
        tape.watch(v)
        r = tf.RaggedTensor.from_row_splits(v, [0, 3, 4, 4, 6])
        n = tf.RaggedTensor.from_nested_row_splits(v, ([0, 2, 3], [0, 1, 3, 6]))
        loss = (
            tf.reduce_sum(r[:, 1:].flat_values ** 2)
            + tf.reduce_sum(r[1:3].to_tensor() * 3.0)
            + tf.reduce_sum(r[0] * r[0])
            + tf.reduce_sum(n[1, 0] * 10.0)
            + tf.reduce_sum(n.to_tensor(default_value=-1.0) * 0.5)
        )
    values["gradient"] = {"loss": float(loss), "grad": tape.gradient(loss, v).numpy().tolist()}
    path = pathlib.Path(__file__).with_name("ragged_more_values.json")
    path.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
