"""The TensorFlow numbers pasted into the tests of issue 11's ops (runs only with TF).

    /work/scratch/tfenv/bin/python tests/tf_reference/ops_reference.py

Output of TF 2.21.0 (CPU) is pasted, section by section, into
tests/test_array_constructors.py, tests/test_linalg_decomp.py,
tests/test_image.py and tests/test_tf_parity_ops.py. The inputs here and
there are the same expressions; ``weights(shape)`` is the fixed projection
each gradient test uses (cos of a range, computed by NumPy on both sides).
Not collected by pytest (the file name does not start with test_), and it
imports nothing from tapeviz.
"""

import numpy as np
import tensorflow as tf


def weights(*shape):
    """The fixed weights a loss sum(out * weights) uses: cos(0), cos(1), ... (float64)."""
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape)


def plain(value):
    """A value as plain Python data to paste (float32 values print exactly as float64)."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if value is None:
        return None
    return np.asarray(value).tolist()


def emit(name, value):
    print(f"    {name!r}: {plain(value)!r},")


def error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - recording which error TF raises
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    return "no error"


def grads(fn, *values, dtype=tf.float32):
    """Gradients of sum(fn(*vars) * weights) with respect to each input."""
    variables = [tf.Variable(np.asarray(v), dtype=dtype) for v in values]
    with tf.GradientTape() as tape:
        out = fn(*variables)
        loss = tf.reduce_sum(out * tf.constant(weights(*out.shape), dtype=out.dtype))
    return tape.gradient(loss, variables)


def section(title):
    print(f"\n# -- {title} " + "-" * (70 - len(title)))


def array_constructors():
    section("array constructors (tests/test_array_constructors.py)")
    t = tf.linspace(0, 1, 5)
    emit("linspace_int", [t.numpy(), t.dtype.name])
    emit("linspace_7", tf.linspace(-1.0, 1.0, 7))
    emit("linspace_batched", tf.linspace([0.0, 1.0], [1.0, 3.0], 3))
    emit("linspace_batched_last", tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=-1))
    emit("linspace_broadcast", tf.linspace([[0.0], [1.0]], [1.0, 3.0, 5.0], 3))
    emit("linspace_grad", grads(lambda s, e: tf.linspace(s, e, 4, axis=1), [0.5, 1.0], [2.0, -1.0]))
    emit("linspace_grad_num1", grads(lambda s, e: tf.linspace(s, e, 1), 0.5, 2.0))
    emit(
        "linspace_errors",
        [
            error(lambda: tf.linspace(0.0, 1.0, 3.0)),
            error(lambda: tf.linspace(2.0, 3.0, -1)),
            error(lambda: tf.linspace(tf.constant(0.0), tf.constant(4.0, tf.float64), 3)),
        ],
    )

    x, y = tf.meshgrid([1, 2, 3], [4, 5])
    emit("meshgrid_xy", [x, y])
    x, y = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    emit("meshgrid_ij", [x, y])
    emit("meshgrid_grad", grads(lambda a, b: tf.stack(tf.meshgrid(a, b * b)), [1.0, 2.0, 3.0], [4.0, 5.0]))
    emit("meshgrid_bad_indexing", error(lambda: tf.meshgrid([1], [2], indexing="yx")))

    values = [3.0, 1.0, 2.0, 1.0, 5.0]
    emit("sort", [tf.sort(values), tf.sort(values, direction="DESCENDING")])
    emit("argsort", [tf.argsort(values), tf.argsort(values, direction="DESCENDING")])
    emit("sort_int", tf.sort([3, -2, 7, 0]))
    matrix = [[1.0, 4.0, 2.0], [9.0, 0.0, 9.0]]
    emit("sort_axis0", tf.sort(matrix, axis=0))
    emit("sort_grad", grads(lambda v: tf.sort(v), matrix))
    emit("sort_grad_axis0_desc", grads(lambda v: tf.sort(v, axis=0, direction="DESCENDING"), matrix))
    top = tf.math.top_k(matrix, k=2)
    emit("top_k", [top.values, top.indices, top.indices.dtype.name])
    emit("top_k_grad", grads(lambda v: tf.math.top_k(v, k=2).values, matrix))
    emit("top_k_errors", [error(lambda: tf.math.top_k(values, k=6)), error(lambda: tf.math.top_k(1.0))])
    emit("sort_errors", [error(lambda: tf.sort(values, direction="UP"))])

    table = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    mask2d = [[True, False], [False, True], [True, True]]
    emit(
        "boolean_mask",
        [
            tf.boolean_mask(table, [True, False, True]),
            tf.boolean_mask(table, mask2d),
            tf.boolean_mask(table, [False, True], axis=1),
        ],
    )
    emit("boolean_mask_grad", grads(lambda v: tf.boolean_mask(v, mask2d), table))
    emit(
        "boolean_mask_errors",
        [error(lambda: tf.boolean_mask(table, [True, False])), error(lambda: tf.boolean_mask(table, True))],
    )

    emit(
        "scatter_nd",
        [
            tf.scatter_nd([[4], [3], [1], [7]], [9.0, 10.0, 11.0, 12.0], [8]),
            tf.scatter_nd([[1], [1]], [9.0, 10.0], [3]),
            tf.scatter_nd([[0], [2]], [[1.0, 2.0], [3.0, 4.0]], [3, 2]),
        ],
    )
    emit(
        "scatter_nd_errors",
        [error(lambda: tf.scatter_nd([[5]], [1.0], [3])), error(lambda: tf.scatter_nd([[1], [2]], [1.0], [3]))],
    )
    pairs = [[0, 1], [2, 0]]
    emit(
        "tensor_scatter",
        [
            tf.tensor_scatter_nd_update(table, pairs, [10.0, 20.0]),
            tf.tensor_scatter_nd_update(table, [[0], [2]], [[10.0, 20.0], [30.0, 40.0]]),
            tf.tensor_scatter_nd_add(table, [[0, 1], [0, 1]], [10.0, 20.0]),
            tf.tensor_scatter_nd_sub(table, pairs, [10.0, 20.0]),
        ],
    )
    emit(
        "tensor_scatter_grads",
        [
            grads(lambda v, u: tf.tensor_scatter_nd_update(v, pairs, u), table, [10.0, 20.0]),
            grads(lambda v, u: tf.tensor_scatter_nd_add(v, [[0, 1], [0, 1]], u), table, [10.0, 20.0]),
            grads(lambda v, u: tf.tensor_scatter_nd_sub(v, pairs, u), table, [10.0, 20.0]),
            grads(lambda u: tf.scatter_nd([[0, 1], [2, 0], [0, 1]], u, [3, 2]), [10.0, 20.0, 30.0]),
            grads(lambda v, u: tf.tensor_scatter_nd_update(v, [[1], [1]], tf.stack([u, 2.0 * u])), table, [1.0, 2.0]),
        ],
    )
    emit("tensor_scatter_errors", [error(lambda: tf.tensor_scatter_nd_update(table, [[3, 0]], [1.0]))])

    v = tf.Variable([-2.0, -1.0, 0.5, 1.0, 3.0])
    with tf.GradientTape() as tape:
        clipped = tf.clip_by_value(v, -1.0, 1.0)
        loss = tf.reduce_sum(clipped * tf.constant(weights(5), tf.float32))
    emit("clip_variable", [clipped, tape.gradient(loss, v)])
    emit("clip_int_variable", tf.clip_by_value(tf.Variable([-5, 0, 7]), -1, 1))
    v.assign(tf.clip_by_value(v, 0.0, 1.0))
    emit("clip_assigned", v.numpy())

    sequence = [[0.0, 3.0, 8.0, 9.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0]]
    emit(
        "searchsorted",
        [
            tf.searchsorted(sequence, [[2.0, 10.0], [0.0, 3.0]]),
            tf.searchsorted(sequence, [[2.0, 10.0], [0.0, 3.0]], side="right"),
            tf.searchsorted([1.0, 2.0, 3.0], [2.5, 0.0, 3.0]),
            tf.searchsorted([1.0, 2.0, 3.0], [2.5], out_type=tf.int64).dtype.name,
        ],
    )
    emit(
        "searchsorted_errors",
        [
            error(lambda: tf.searchsorted(sequence, [2.0, 10.0])),
            error(lambda: tf.searchsorted([1.0, 2.0], [1.0], side="middle")),
            error(lambda: tf.searchsorted([1.0, 2.0, 3.0], [2])),
        ],
    )


def linalg():
    section("tf.linalg (tests/test_linalg_decomp.py), float64")
    f64 = tf.float64
    spd = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    general = np.array([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0], [0.5, 1.0, 4.0]])
    rhs = np.array([[1.0, -1.0], [2.0, 0.5], [3.0, 2.0]])
    tall = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    wide = tall.T.copy()

    def g(fn, *values):
        return grads(fn, *values, dtype=f64)

    emit("solve", [tf.linalg.solve(general, rhs), tf.linalg.solve(general, rhs, adjoint=True)])
    emit("solve_grad", g(lambda a, b: tf.linalg.solve(a, b), general, rhs))
    emit("solve_grad_adjoint", g(lambda a, b: tf.linalg.solve(a, b, adjoint=True), general, rhs))
    emit(
        "solve_errors",
        [
            error(lambda: tf.linalg.solve(tf.zeros([2, 2]), tf.ones([2, 1]))),
            error(lambda: tf.linalg.solve(tf.constant(general), tf.constant([1.0, 2.0, 3.0], f64))),
        ],
    )
    emit(
        "triangular_solve",
        [
            tf.linalg.triangular_solve(general, rhs),
            tf.linalg.triangular_solve(general, rhs, lower=False),
            tf.linalg.triangular_solve(general, rhs, adjoint=True),
            tf.linalg.triangular_solve(tf.zeros([2, 2]), tf.ones([2, 1])),
        ],
    )
    emit("triangular_solve_grad", g(lambda a, b: tf.linalg.triangular_solve(a, b), general, rhs))
    emit(
        "triangular_solve_grad_upper_adjoint",
        g(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), general, rhs),
    )
    emit(
        "triangular_solve_broadcast",
        tf.linalg.triangular_solve(tf.stack([tf.constant(general), 2.0 * tf.constant(general)]), rhs),
    )
    emit("cholesky", tf.linalg.cholesky(spd))
    emit("cholesky_grad", g(lambda a: tf.linalg.cholesky(a), spd))
    emit("cholesky_f32", tf.linalg.cholesky(tf.constant(spd, tf.float32)))
    emit("cholesky_errors", [error(lambda: tf.linalg.cholesky(tf.constant([[1, 0], [0, 1]])))])
    q, r = tf.linalg.qr(general)
    emit("qr", [q, r])
    emit("qr_tall", list(tf.linalg.qr(tall)))
    emit("qr_tall_full", list(tf.linalg.qr(tall, full_matrices=True)))
    emit("qr_wide", list(tf.linalg.qr(wide)))
    emit("qr_grad", g(lambda a: tf.concat([tf.reshape(t, [-1]) for t in tf.linalg.qr(a)], 0), general))
    emit("qr_grad_tall", g(lambda a: tf.concat([tf.reshape(t, [-1]) for t in tf.linalg.qr(a)], 0), tall))
    emit("qr_grad_wide", g(lambda a: tf.concat([tf.reshape(t, [-1]) for t in tf.linalg.qr(a)], 0), wide))

    def sign_free(*tensors):
        return tf.concat([tf.reshape(t * t, [-1]) for t in tensors], 0)

    emit("svd_values", [tf.linalg.svd(general, compute_uv=False), tf.linalg.svd(tall, compute_uv=False)])
    _, u, v = tf.linalg.svd(general)
    emit("svd_abs_vectors", [tf.abs(u), tf.abs(v)])
    emit("svd_grad_values", g(lambda a: tf.linalg.svd(a, compute_uv=False), general))
    emit("svd_grad", g(lambda a: sign_free(*tf.linalg.svd(a)), general))
    emit("svd_grad_tall", g(lambda a: sign_free(*tf.linalg.svd(a)), tall))
    emit("svd_grad_wide", g(lambda a: sign_free(*tf.linalg.svd(a)), wide))
    emit("svd_grad_full", g(lambda a: sign_free(*tf.linalg.svd(a, full_matrices=True)), tall))
    e, vectors = tf.linalg.eigh(spd)
    emit("eigh", [e, tf.abs(vectors)])
    emit("eigh_grad", g(lambda a: sign_free(*tf.linalg.eigh(a)), spd))
    emit("eigvalsh_grad", g(lambda a: tf.linalg.eigvalsh(a), spd))
    emit("eigh_grad_unsymmetric_input", g(lambda a: sign_free(*tf.linalg.eigh(a)), general))
    emit("logdet", [tf.linalg.logdet(spd), tf.linalg.logdet(general)])
    emit("logdet_grad", g(lambda a: tf.linalg.logdet(a), spd))
    sign, logabs = tf.linalg.slogdet(general)
    emit("slogdet", [sign, logabs, list(tf.linalg.slogdet(tf.zeros([2, 2])))])
    emit("slogdet_grad", g(lambda a: tf.linalg.slogdet(a).log_abs_determinant, general))
    emit(
        "band_part",
        [tf.linalg.band_part(general, 1, 0), tf.linalg.band_part(general, 0, -1), tf.linalg.band_part(general, -2, 0)],
    )
    emit("band_part_grad", g(lambda a: tf.linalg.band_part(a, 0, 1), general))
    emit("band_part_errors", [error(lambda: tf.linalg.band_part(general, 5, 5))])
    emit(
        "trace_diag_transpose",
        [
            tf.linalg.trace(general),
            tf.linalg.diag_part(general),
            tf.linalg.matrix_transpose(tf.zeros([2, 3, 4])).shape.as_list(),
        ],
    )
    emit("set_diag", tf.linalg.set_diag(general, tf.constant([9.0, 8.0, 7.0], f64)))


def image():
    section("tf.image (tests/test_image.py)")
    img = tf.reshape(tf.range(12, dtype=tf.float32), [2, 3, 2])
    ramp = tf.reshape(tf.range(20.0), [4, 5, 1])
    emit("resize_bilinear_up", tf.image.resize(img, [3, 5]))
    emit("resize_nearest_up", tf.image.resize(img, [3, 5], method="nearest"))
    emit("resize_bilinear_down", tf.image.resize(ramp, [2, 3]))
    emit("resize_nearest_down", tf.image.resize(ramp, [2, 3], method="nearest"))
    odd = tf.reshape(tf.cos(tf.range(5 * 4 * 2, dtype=tf.float32)), [1, 5, 4, 2])  # fewer rows, more columns
    emit("resize_bilinear_odd", tf.image.resize(odd, [3, 7]))
    emit("resize_nearest_odd", tf.image.resize(odd, [3, 7], method="nearest"))
    small = tf.constant([[[1], [2]], [[3], [4]]])
    emit(
        "resize_dtypes",
        [
            tf.image.resize(small, [3, 3]).dtype.name,
            tf.image.resize(small, [3, 3], method="nearest").dtype.name,
            tf.image.resize(tf.cast(small, tf.float64), [3, 3]).dtype.name,
            tf.image.resize(tf.cast(small, tf.float64), [3, 3], method="nearest").dtype.name,
        ],
    )
    emit("resize_aspect", tf.image.resize(tf.zeros([4, 8, 1]), [4, 4], preserve_aspect_ratio=True).shape.as_list())
    emit(
        "resize_grads",
        [
            grads(lambda x: tf.image.resize(x, [3, 5]), np.arange(6.0).reshape(2, 3, 1)),
            grads(lambda x: tf.image.resize(x, [3, 5], method="nearest"), np.arange(6.0).reshape(2, 3, 1)),
            grads(lambda x: tf.image.resize(x, [3, 7]), odd.numpy()),
            grads(lambda x: tf.image.resize(x, [3, 7], method="nearest"), odd.numpy()),
        ],
    )
    emit(
        "resize_errors",
        [
            error(lambda: tf.image.resize(tf.zeros([4, 4]), (2, 2))),
            error(lambda: tf.image.resize(img, [3, 5], method="foo")),
        ],
    )
    emit(
        "flips",
        [
            tf.image.flip_left_right(img),
            tf.image.flip_up_down(img),
            tf.image.flip_left_right(tf.reshape(tf.range(8.0), [2, 2, 2, 1])),
        ],
    )
    emit("flip_errors", [error(lambda: tf.image.flip_left_right(tf.zeros([2, 2])))])
    emit(
        "grayscale",
        [
            tf.image.rgb_to_grayscale(tf.constant([[[0.2, 0.5, 0.9], [1.0, 0.0, 0.0]]])),
            tf.image.rgb_to_grayscale(tf.constant([[[200, 100, 50]]], tf.uint8)),
            tf.image.rgb_to_grayscale(tf.constant([[[0.2, 0.5, 0.9]]], tf.float64)),
        ],
    )
    emit("grayscale_grad", grads(lambda x: tf.image.rgb_to_grayscale(x), np.cos(np.arange(12.0)).reshape(2, 2, 3)))
    pixels = [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]]
    emit(
        "adjust_contrast",
        [
            tf.image.adjust_contrast(pixels, 2.0),
            tf.image.adjust_contrast(tf.constant([[[10, 20, 30], [250, 5, 6]]], tf.uint8), 2.0),
            tf.image.adjust_contrast(tf.constant([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], tf.float64), 2.0),
            tf.image.adjust_contrast(tf.constant([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]), tf.constant(0.5)),
        ],
    )
    emit(
        "adjust_brightness",
        [
            tf.image.adjust_brightness(pixels, 0.5),
            tf.image.adjust_brightness(tf.constant([[[10, 250, 30]]], tf.uint8), 0.1),
        ],
    )
    emit(
        "convert_image_dtype",
        [
            tf.image.convert_image_dtype(tf.constant([0, 128, 255], tf.uint8), tf.float32),
            tf.image.convert_image_dtype(tf.constant([0.0, 0.5, 1.0, 1.2]), tf.uint8),
            tf.image.convert_image_dtype(tf.constant([0.0, 0.5, 1.0, 1.2]), tf.uint8, saturate=True),
            tf.image.convert_image_dtype(tf.constant([0, 128, 255], tf.uint8), tf.int32),
        ],
    )

    # The autodiff guide's cell (site/en/guide/autodiff.ipynb): no gradient registered.
    image_var = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image_var, delta)
    emit("autodiff_guide_adjust_contrast", [new_image, error(lambda: tape.gradient(new_image, [image_var, delta]))])


def parity():
    section("parity cases and printing (tests/test_tf_parity_ops.py)")
    w = tf.Variable([0.0, 4.0, -1.0])
    cases = {
        "sqrt": lambda: tf.where(w > 0, tf.sqrt(w), 0.0),
        "rsqrt": lambda: tf.where(w > 0, tf.math.rsqrt(w), 0.0),
        "reciprocal": lambda: tf.where(w > 0, tf.math.reciprocal(w), 0.0),
        "log": lambda: tf.where(w > 0, tf.math.log(w), 0.0),
        "divide": lambda: tf.where(w > 0, 1.0 / w, 0.0),
        "sqrt_at_zero_taken": lambda: tf.where(w >= 0, tf.sqrt(w), 0.0),
    }
    for name, fn in cases.items():
        with tf.GradientTape() as tape:
            y = fn()
        emit(f"where_{name}", [y, tape.gradient(y, w)])
    x = tf.Variable([0.0, -1.0, 2.0])
    for name, fn in (("selu", tf.nn.selu), ("elu", tf.nn.elu)):
        with tf.GradientTape() as tape:
            y = fn(x)
        emit(name, [y, tape.gradient(y, x)])
    x64 = tf.Variable(0.0, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.nn.selu(x64)
    emit("selu_grad_at_0_float64", tape.gradient(y, x64))
    emit(
        "integer_division_by_zero",
        [
            error(lambda: tf.constant(5) // tf.constant(0)),
            error(lambda: tf.constant(5) % tf.constant(0)),
            error(lambda: tf.math.floordiv(tf.constant([5, 3], tf.int64), [1, 0])),
        ],
    )
    emit("float_division_by_zero", [tf.constant(5.0) // 0.0, tf.constant(5.0) % 0.0, tf.constant(5) / tf.constant(0)])
    emit(
        "no_integer_kernel",
        {
            name: error(fn)
            for name, fn in {
                "sqrt_int32": lambda: tf.sqrt(tf.constant(4)),
                "exp_int32": lambda: tf.exp(tf.constant(4)),
                "sqrt_bool": lambda: tf.sqrt(tf.constant(True)),
                "exp_bool": lambda: tf.exp(tf.constant([True])),
                "log_int64": lambda: tf.math.log(tf.constant(4, tf.int64)),
                "sigmoid_int32": lambda: tf.sigmoid(tf.constant(4)),
                "sqrt_python_int": lambda: tf.sqrt(4),
            }.items()
        },
    )
    emit("integer_kernels_kept", [tf.square(tf.constant(4)), tf.abs(tf.constant(-4)), tf.sign(tf.constant(-4))])

    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    emit(
        "shape_text",
        [
            repr(t.shape),
            str(t.shape),
            repr(tf.constant(1.0).shape),
            repr(tf.TensorShape(None)),
            str(tf.TensorShape(None)),
            repr(tf.TensorShape([None, 3])),
            str(tf.TensorShape([None, 3])),
            repr(t.shape[1:]),
            repr(t.shape + (3,)),
            repr((3,) + t.shape),
        ],
    )
    emit(
        "shape_api",
        [
            t.shape == (2, 2),
            t.shape == [2, 2],
            t.shape.as_list(),
            t.shape.rank,
            tf.TensorShape([2, 3]).num_elements(),
            tf.TensorShape(None).rank,
            tf.TensorShape([None, 2]).is_fully_defined(),
            tf.TensorShape([1, 2]).is_compatible_with([None, 2]),
            repr(tf.TensorShape([None, 2]).merge_with([3, 2])),
            bool(tf.TensorShape([])),
            error(lambda: tf.TensorShape(None).as_list()),
        ],
    )
    v = tf.Variable(2.5)
    emit(
        "format",
        [
            f"{tf.constant(1.23456):.3f}",
            f"{tf.constant(1.5)}",
            f"{t}",
            f"{t}",
            error(lambda: f"{t:.3f}"),
            f"{v}",
            f"{tf.constant(7):>4d}",
            f"{tf.constant(0.5):.1%}",
            str(t),
            repr(t),
        ],
    )


if __name__ == "__main__":
    print(f"# TF {tf.__version__}")
    array_constructors()
    linalg()
    image()
    parity()
