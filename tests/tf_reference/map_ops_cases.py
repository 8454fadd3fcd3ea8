"""tf.TensorArray, tf.map_fn, tf.vectorized_map, tf.scan, tf.foldl, tf.foldr: eager, under a tape, inside
tf.function (as TF's function guide uses a TensorArray), run the same way by TF 2.21 (map_ops_reference.py)
and by tapeviz (tests/test_map_ops.py). ``run(tf)`` returns every result as plain lists."""


def run(tf):
    out = {}
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = ta.write(0, [1.0, 2.0])
    ta = ta.write(2, [5.0, 6.0])
    out["dyn"] = ta.stack().numpy().tolist()
    out["size"] = int(ta.size())
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=3)
        for i in range(3):
            ta = ta.write(i, x * float(i + 1))
        y = tf.reduce_sum(ta.stack() ** 2) + tf.reduce_sum(ta.read(1))
    out["grad"] = tape.gradient(y, x).numpy().tolist()
    ta = tf.TensorArray(tf.float32, size=4).unstack(tf.reshape(tf.range(8.0), (4, 2)))
    out["gather"] = ta.gather([3, 1]).numpy().tolist()
    out["concat"] = ta.concat().numpy().tolist()

    @tf.function
    def dynamic_rnn(input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = input_data[i] + state
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    out["rnn"] = dynamic_rnn(tf.reshape(tf.range(24.0), (2, 3, 4)), tf.ones([2, 4])).numpy().tolist()

    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())
        i = tf.constant(0)
        while i < n:
            ta = ta.write(i, i * i)
            i += 1
        return ta.stack()

    out["squares"] = squares(tf.constant(5)).numpy().tolist()
    out["squares_again"] = squares(tf.constant(3)).numpy().tolist()  # the same trace, run to another length

    def body(i, ta):
        return i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)

    _, ta = tf.while_loop(lambda i, ta: i < 3, body, (0, tf.TensorArray(tf.float32, size=3)))
    out["while_eager"] = ta.stack().numpy().tolist()
    out["map_fn"] = tf.map_fn(lambda r: r * 2 + 1, tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist()
    out["map_fn_tuple"] = [
        t.numpy().tolist()
        for t in tf.map_fn(
            lambda a: (a[0] + a[1], a[0] * a[1]),
            (tf.constant([1, 2, 3]), tf.constant([4, 5, 6])),
            fn_output_signature=(tf.int32, tf.int32),
        )
    ]
    out["vmap"] = (
        tf.vectorized_map(lambda r: tf.reduce_sum(r) * r, tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist()
    )
    out["scan"] = tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4])).numpy().tolist()
    out["scan_rev_init"] = (
        tf.scan(lambda a, x: a * x, tf.constant([1.0, 2.0, 3.0]), initializer=tf.constant(2.0), reverse=True)
        .numpy()
        .tolist()
    )
    out["foldl"] = int(tf.foldl(lambda a, x: a - x, tf.constant([1, 2, 3]), initializer=10))
    out["foldr"] = int(tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3])))
    w = tf.Variable(2.0)
    xs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = tf.reduce_sum(tf.map_fn(lambda r: w * r * r, xs))
    gw, gx = tape.gradient(y, [w, xs])
    out["map_grad"] = [float(gw), gx.numpy().tolist()]

    @tf.function
    def per_example(xs):
        def f(r):
            with tf.GradientTape() as t:
                t.watch(r)
                v = tf.reduce_sum(r**3)
            return t.gradient(v, r)

        return tf.vectorized_map(f, xs)

    out["vmap_tape_fn"] = per_example(xs).numpy().tolist()

    @tf.function
    def cumulative(xs):
        n = tf.shape(xs)[0]

        def body(i, total, ta):
            total = total + xs[i]
            return i + 1, total, ta.write(i, total)

        start = (tf.constant(0), tf.constant(0.0), tf.TensorArray(tf.float32, size=n, element_shape=()))
        _, _, ta = tf.while_loop(lambda i, total, ta: i < n, body, start)
        return ta.stack()

    out["while_traced"] = cumulative(tf.constant([1.0, 2.0, 3.0, 4.0])).numpy().tolist()
    return out
