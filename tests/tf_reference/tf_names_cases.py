"""TF top-level names added to tapeviz (issue 33), exercised by the same code on TF 2.21 and on tapeviz.

``facts(tf)`` returns plain data: values, dtypes, shapes, gradients (``None``
when there is none) and error class names. Nothing here imports TensorFlow
or tapeviz.
"""

import numpy as np

X = np.arange(1.0, 13.0).reshape(3, 4) / 7.0  # float64, no ties


def _plain(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "numpy"):
        array = np.asarray(value.numpy())
        if array.dtype.kind == "f":
            return [str(array.dtype), np.round(array.astype(np.float64), 10).tolist()]
        return [str(array.dtype), array.tolist()]
    return value


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - which error is the fact
        return type(exc).__name__
    return None


def _grad(tf, fn, *arrays):
    """fn's value and the gradient of sum(fn * weights) for each input (float64 constants)."""
    inputs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out = fn(*inputs)
        weights = tf.constant(np.linspace(0.5, 1.5, int(np.prod(out.shape))).reshape(out.shape), dtype=out.dtype)
        loss = tf.reduce_sum(out * weights)
    return [_plain(out), _plain(tape.gradient(loss, inputs))]


def facts(tf):
    out = {}
    # repeat, as a textbook's helper module calls it (masked softmax: valid lengths per query)
    out["repeat:axis0"] = _grad(tf, lambda x: tf.repeat(x, repeats=[2, 0, 1], axis=0), X)
    out["repeat:flat"] = _grad(tf, lambda x: tf.repeat(x, 2), X)
    out["repeat:axis1"] = _grad(tf, lambda x: tf.repeat(x, repeats=3, axis=1), X)
    out["repeat:valid_lens"] = _plain(tf.repeat(tf.constant([2, 3]), repeats=4))
    out["repeat:valid_lens2d"] = _plain(tf.repeat(tf.constant([[1, 2], [3, 4]]), repeats=2, axis=0))
    out["roll"] = _grad(tf, lambda x: tf.roll(x, shift=[1, -3], axis=[0, 1]), X)
    out["roll:same_axis"] = _plain(tf.roll(tf.constant(X), shift=[2, 3], axis=[1, 1]))
    out["reverse_sequence"] = _grad(tf, lambda x: tf.reverse_sequence(x, [2, 4, 0], seq_axis=1, batch_axis=0), X)
    out["reverse_sequence:t"] = _plain(tf.reverse_sequence(tf.constant(X.T), [1, 3, 2], seq_axis=0, batch_axis=1))
    out["sequence_mask"] = _plain(tf.sequence_mask([1, 3, 0], 4))
    out["sequence_mask:2d"] = _plain(tf.sequence_mask(tf.constant([[1, 2], [3, 0]])))
    out["sequence_mask:float"] = _plain(tf.sequence_mask([2, 1], 3, dtype=tf.float32))
    out["unique"] = _plain(list(tf.unique(tf.constant([3.0, 1.0, 3.0, 2.0, 1.0]))))
    out["unique_with_counts"] = _plain(list(tf.unique_with_counts(tf.constant([4, 4, 2, 7, 2, 4]), out_idx=tf.int64)))
    x = tf.constant([3.0, 1.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.unique(x).y
    out["unique:gradient"] = _error(lambda: tape.gradient(y, x))
    out["truncatediv:int"] = _plain(tf.truncatediv(tf.constant([-7, 7, -8, 9]), tf.constant([2, -2, 3, 3])))
    out["truncatemod:int"] = _plain(tf.truncatemod(tf.constant([-7, 7, -8, 9]), tf.constant([2, -2, 3, 3])))
    out["truncatediv:float"] = _plain(tf.truncatediv(tf.constant([-7.5, 7.5]), tf.constant([2.0, -2.0])))
    out["truncatemod:float"] = _plain(tf.truncatemod(tf.constant([-7.5, 7.5]), tf.constant([2.0, -2.0])))
    a = tf.constant([-7.5, 7.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        q, r = tf.truncatediv(a, 2.0), tf.truncatemod(a, 2.0)
    out["truncatediv:gradient"] = _plain(tape.gradient(q, a))
    out["truncatemod:gradient"] = _error(lambda: tape.gradient(r, a))
    out["scalar_mul"] = _grad(tf, lambda x: tf.math.scalar_mul(3.0, x), X)
    values = tf.constant([-1.0, 0.0, 1.5, 2.0, 4.99, 5.0, 15.0])
    out["histogram_fixed_width"] = _plain(tf.histogram_fixed_width(values, [0.0, 5.0], nbins=5))
    out["histogram_fixed_width_bins"] = _plain(tf.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5))
    out["unravel_index"] = _plain(tf.unravel_index(tf.constant([1, 5, 7]), tf.constant([3, 3])))
    out["shape_n"] = _plain(tf.shape_n([tf.zeros((2, 3)), tf.zeros(4)]))
    out["identity_n"] = _grad(tf, lambda x: tf.identity_n([x, x * 2.0])[1], X)
    out["broadcast_static_shape"] = list(tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])))
    out["broadcast_dynamic_shape"] = _plain(tf.broadcast_dynamic_shape(tf.constant([2, 1]), tf.constant([3])))
    out["ensure_shape:bad"] = _error(lambda: tf.ensure_shape(tf.zeros(3), [4]))
    out["ensure_shape:ok"] = _plain(tf.ensure_shape(tf.zeros(3), [None]))
    out["get_static_value"] = tf.get_static_value(tf.constant([1, 2])).tolist()
    out["no_op"], out["group"] = tf.no_op(), tf.group(tf.constant(1.0))
    out["tuple"] = _plain(tf.tuple([tf.constant(1.0), tf.constant([2])]))
    out["parallel_stack"] = _error(lambda: tf.parallel_stack([tf.constant(1.0)]))
    out["hessians:eager"] = _error(lambda: tf.hessians(tf.constant(1.0), tf.constant(1.0)))
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            out["get_current_name_scope"] = tf.get_current_name_scope()
    out["inside_function"] = [tf.inside_function(), bool(tf.function(lambda: tf.constant(tf.inside_function()))())]
    with tf.control_dependencies([tf.constant(1.0)]):
        out["control_dependencies"] = _plain(tf.constant(2.0) + 1.0)
    for name in ("asinh", "acosh", "atanh"):
        point = {"asinh": [-1.5, 0.3, 2.0], "acosh": [1.2, 2.0, 3.5], "atanh": [-0.6, 0.1, 0.8]}[name]
        out[name] = _grad(tf, getattr(tf.math, name), np.array(point))
    out["no_gradient:existing"] = _error(lambda: tf.no_gradient("AddV2"))
    # sliced assignment on a Variable, and what gradients see
    v = tf.Variable(X.copy())
    returned = v[1, 2].assign(9.0)
    out["slice_assign:element"] = [type(returned).__name__.replace("_UnreadVariable", "Variable"), _plain(v)]
    v[0:2, ::2].assign([[-1.0, -2.0], [-3.0, -4.0]])
    v[2].assign(5.0)
    out["slice_assign:ranges"] = _plain(v)
    out["slice_assign:bad_shape"] = _error(lambda: v[0].assign([1.0, 2.0]))
    out["slice_assign_add"] = [hasattr(v[0], "assign_add"), hasattr(v[0], "assign_sub")]
    s = tf.Variable(2.0, dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        r = v[0, 0].assign(s * 2.0)
        y = tf.reduce_sum(r * r)
        z = tf.reduce_sum(v[0] * 3.0)
    out["slice_assign:gradients"] = [
        _plain(tape.gradient(y, s)),
        _plain(tape.gradient(y, v)),
        _plain(tape.gradient(z, v)),
    ]
    # TF's own initializers and Keras's namespace
    out["constant_initializer"] = _plain(tf.constant_initializer([1, 2, 3, 4])(shape=[2, 2]))
    out["constant_initializer:float"] = _plain(tf.constant_initializer(0.5)(shape=[3], dtype=tf.float64))
    out["zeros_initializer"] = _plain(tf.zeros_initializer()(shape=[2]))
    out["ones_initializer"] = _plain(tf.ones_initializer()([2], dtype=tf.int32))
    out["random_initializers:shape"] = [
        _plain(tf.shape(tf.random_normal_initializer(stddev=0.1)([3, 2]))),
        _plain(tf.shape(tf.random_uniform_initializer(-1.0, 1.0)([4]))),
    ]
    out["initializers"] = [hasattr(tf.initializers, n) for n in ("GlorotUniform", "Zeros", "HeNormal", "Orthogonal")]
    out["variable_policies"] = [
        tf.VariableAggregation.MEAN.value,
        tf.VariableSynchronization.ON_READ.value,
        tf.AggregationMethod.ADD_N,
        str(tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM).aggregation.name),
    ]
    # recompute_grad and grad_pass_through
    w = tf.Variable(np.array([0.5, -1.0, 2.0]))
    block = tf.recompute_grad(lambda t: tf.sin(t) * w)
    with tf.GradientTape() as tape:
        t = tf.constant(np.array([0.1, 0.7, -0.4]))
        tape.watch(t)
        loss = tf.reduce_sum(block(t) * tf.constant([1.0, 2.0, 3.0], dtype=tf.float64))
    out["recompute_grad"] = _plain(tape.gradient(loss, [t, w]))
    with tf.GradientTape() as tape:
        tape.watch(t)
        loss = tf.reduce_sum(
            tf.grad_pass_through(lambda u: tf.round(u * w))(t) * tf.constant([1.0, 2.0, 3.0], tf.float64)
        )
    out["grad_pass_through"] = _plain(tape.gradient(loss, [t, w]))
    # resize_with_pad: values and the gradient reaching the image
    image = np.linspace(0.0, 1.0, 4 * 6).reshape(4, 6, 1)
    out["resize_with_pad"] = _grad(tf, lambda im: tf.image.resize_with_pad(tf.cast(im, tf.float32), 5, 5), image)
    out["resize_with_pad:nearest"] = _plain(
        tf.image.resize_with_pad(tf.constant(image[None], tf.float32), 3, 8, method="nearest")
    )
    m = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    out["strided_slice"] = _grad(
        tf, lambda t: tf.strided_slice(t, [0, 1, 0], [2, 3, 4], [1, 1, 2]), np.arange(24.0).reshape(2, 3, 4)
    )
    out["strided_slice:masks"] = [
        _plain(tf.strided_slice(m, [1, 0], [-1, 2], shrink_axis_mask=1)),
        _plain(tf.strided_slice(m, [0, 0, 0], [0, 2, -1], [1, 1, -1], begin_mask=1, end_mask=5)),
        _plain(tf.strided_slice(m, [0, 1], [0, 2], ellipsis_mask=1)),
        _plain(tf.shape(tf.strided_slice(m, [0, 0], [0, 1], new_axis_mask=1, end_mask=1))),
    ]
    out["assert_equal"] = [tf.assert_equal(tf.constant([1, 2]), [1, 2]), _error(lambda: tf.assert_equal(1, 2))]
    out["assert_greater"] = [
        tf.assert_greater(2.0, 1.0),
        _error(lambda: tf.assert_greater(tf.constant([1.0, 3.0]), 2.0)),
    ]
    out["assert_less"] = [tf.assert_less(1, 2), _error(lambda: tf.assert_less(tf.constant([1, 3]), 2))]
    out["assert_rank"] = [tf.assert_rank(tf.zeros((2, 3)), 2), _error(lambda: tf.assert_rank(tf.zeros(2), 2))]
    out["Assert"] = [tf.Assert(tf.constant(True), ["x"]), _error(lambda: tf.Assert(tf.constant(False), ["x", 1]))]
    out["losses_metrics"] = [
        hasattr(tf.losses, "MeanSquaredError"),
        hasattr(tf.losses, "sparse_categorical_crossentropy"),
        hasattr(tf.metrics, "Accuracy"),
    ]
    grid = np.arange(2 * 4 * 6 * 3, dtype=np.float64).reshape(2, 4, 6, 3) / 50.0
    out["space_to_batch_nd"] = _grad(tf, lambda t: tf.space_to_batch_nd(t, [2, 3], [[0, 2], [1, 2]]), grid)
    out["space_to_batch"] = _plain(tf.space_to_batch(tf.constant(np.arange(10.0).reshape(1, 10, 1)), [4], [[1, 1]]))
    blocks = np.arange(4 * 2 * 3 * 1, dtype=np.float64).reshape(4, 2, 3, 1)
    out["batch_to_space"] = _grad(tf, lambda t: tf.batch_to_space(t, [2, 2], [[0, 1], [1, 0]]), blocks)
    out["required_space_to_batch_paddings"] = _plain(
        list(tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 1]]))
    )
    rows = np.arange(12.0).reshape(4, 3) / 5.0
    for part in range(3):
        out[f"dynamic_partition:{part}"] = _grad(
            tf, lambda t, p=part: tf.dynamic_partition(t, [1, 0, 1, 2], 3)[p], rows
        )
    out["dynamic_partition:2d"] = _plain(
        tf.dynamic_partition(tf.constant(np.arange(8.0).reshape(2, 2, 2)), tf.constant([[0, 1], [1, 1]]), 2)
    )
    out["dynamic_stitch"] = _grad(
        tf, lambda a, b: tf.dynamic_stitch([tf.constant([0, 3]), tf.constant([1, 3, 2])], [a, b]), rows[:2], rows[1:]
    )
    left, right = tf.constant([0b1100, 7, -3]), tf.constant([0b1010, 2, 1])
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
        out[f"bitwise.{op}"] = _plain(getattr(tf.bitwise, op)(left, right))
    out["bitwise.invert"] = [
        _plain(tf.bitwise.invert(left)),
        _plain(tf.bitwise.invert(tf.constant([0, 200], tf.uint8))),
    ]
    out["bitwise:float"] = _error(lambda: tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([1.0])))
    out["assign_keywords"] = _plain(tf.Variable([1.0, 2.0]).assign_add([1.0, 1.0], use_locking=True, name="step"))
    return out
