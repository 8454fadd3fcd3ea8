"""AutoGraph and tf.cond/tf.while_loop cases compared with TF 2.21: shared by autograph_reference.py and
tests/test_autograph.py.

Each case is a function of ``tf`` (TensorFlow or tapeviz) returning plain Python
values; it defines its tf.function inside, so AutoGraph reads its source from
this file on both. ``run`` gives ``["ok", value]`` or ``[error type name, message's first line]``.
"""

import numpy as np


def _values(tensors):
    return [np.asarray(t.numpy()).tolist() for t in tensors]


def if_else(tf):
    @tf.function
    def f(x):
        if x > 0:
            y = x * 2
        else:
            y = -x
        return y

    return _values([f(tf.constant(3.0)), f(tf.constant(-2.0))]) + [f.experimental_get_tracing_count()]


def if_elif_else(tf):
    @tf.function
    def f(x):
        if x > 10:
            y = x - 10
        elif x > 0:
            y = x * 10
        else:
            y = tf.constant(0.0)
        return y

    return _values([f(tf.constant(v)) for v in (12.0, 3.0, -1.0)])


def if_returns(tf):
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            return x * 2
        return -x

    return _values([f(tf.constant([1.0, 2.0])), f(tf.constant([-1.0, -5.0]))])


def if_python_numbers(tf):
    @tf.function
    def f(x):
        if x > 0:
            y = 1
        else:
            y = 2
        return y

    out = f(tf.constant(-1.0))
    return [out.numpy().tolist(), out.dtype.name]


def conditional_expression(tf):
    @tf.function
    def f(x):
        return x * 2 if x > 0 else x - 1

    return _values([f(tf.constant(3.0)), f(tf.constant(-3.0))]) + [f.experimental_get_tracing_count()]


def while_sum(tf):
    @tf.function
    def f(n):
        i = tf.constant(0)
        s = tf.constant(0)
        while i < n:
            s += i
            i += 1
        return s

    return _values([f(tf.constant(5)), f(tf.constant(10))]) + [f.experimental_get_tracing_count()]


def while_python_counter(tf):
    @tf.function
    def f(x, n):
        i = 0
        while i < n:
            x = x * 2.0
            i += 1
        return x

    return _values([f(tf.constant(1.5), tf.constant(3)), f(tf.constant(1.5), tf.constant(0))])


def for_tensor_break_continue(tf):
    @tf.function
    def f(x):
        total = tf.constant(0.0)
        for v in x:
            if v < 0:
                continue
            if v > 10:
                break
            total += v
        return total

    return _values([f(tf.constant([1.0, -2.0, 3.0, 20.0, 5.0])), f(tf.constant([4.0, 4.0]))])


def for_range(tf):
    @tf.function
    def f(n):
        acc = tf.constant(1)
        for i in tf.range(n):
            acc = acc * 2 + i
        return acc

    return _values([f(tf.constant(3)), f(tf.constant(5)), f(tf.constant(0))])


def while_break(tf):
    @tf.function
    def f(x):
        while x < 100.0:
            x = x * 3.0
            if x > 50.0:
                break
            x = x + 1.0
        return x

    return _values([f(tf.constant(1.0)), f(tf.constant(20.0)), f(tf.constant(200.0))])


def gradient_through_if_and_loop(tf):
    @tf.function
    def f(x):
        y = x
        for _ in tf.range(3):
            if tf.reduce_sum(y) > 0:
                y = y * x
            else:
                y = y - x
        return tf.reduce_sum(y)

    grads = []
    for values in ([1.0, 2.0], [-1.0, -0.5]):
        x = tf.constant(values, dtype=tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grads.append(tape.gradient(y, x).numpy().tolist())
    return grads


def cond_op(tf):
    x = tf.constant(2.0)
    eager = tf.cond(x > 0, lambda: x * 10, lambda: -x)

    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x * 10, lambda: -x)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return _values([eager, f(tf.constant(-3.0)), y, tape.gradient(y, x)])


def while_loop_op(tf):
    @tf.function
    def f(x):
        return tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * x), (tf.constant(0), tf.constant(1.0)))

    x = tf.constant(1.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        i, v = f(x)
    eager = tf.while_loop(lambda i: i < 10, lambda i: [i + 3], [tf.constant(0)])
    return _values([i, v, tape.gradient(v, x)]) + [np.asarray(eager[0].numpy()).tolist()]


def case_and_switch(tf):
    @tf.function
    def f(x):
        return tf.case([(x < 0, lambda: tf.constant(-1)), (x < 5, lambda: tf.constant(5))], default=lambda: x * 2)

    @tf.function
    def g(i):
        return tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20), lambda: tf.constant(30)])

    return _values([f(tf.constant(-4)), f(tf.constant(3)), f(tf.constant(9))]) + _values(
        [g(tf.constant(0)), g(tf.constant(2)), g(tf.constant(7))]
    )


def unused_gather_is_pruned(tf):
    @tf.function
    def f(x):
        tf.gather(x, 10)  # out of range, and nothing uses it: TF never runs it
        return x * 2

    return _values([f(tf.constant([1.0, 2.0]))])


def error_one_branch(tf):
    @tf.function
    def f(x):
        if x > 0:
            y = x * 2
        return y

    return f(tf.constant(1.0))


def error_return_in_loop(tf):
    @tf.function
    def f(x):
        while x < 10:
            x = x + 1
            if x > 5:
                return x
        return x

    return f(tf.constant(1.0))


def error_branch_dtypes(tf):
    @tf.function
    def f(x):
        if x > 0:
            y = tf.constant(1)
        else:
            y = tf.constant(1.0)
        return y

    return f(tf.constant(1.0))


def for_rows_nested_loop(tf):
    @tf.function
    def f(m):
        total = tf.zeros([2])
        for row in m:
            j = tf.constant(0)
            while j < 2:
                total += row * tf.cast(j + 1, tf.float32)
                j += 1
        return total

    return _values([f(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])), f(tf.constant([[1.0, 1.0]]))])


def tracing_python_side_effects(tf):
    seen = []

    @tf.function
    def f(x):
        if x > 0:
            seen.append("then")
            y = x
        else:
            seen.append("else")
            y = -x
        return y

    results = _values([f(tf.constant(1.0)), f(tf.constant(-1.0)), f(tf.constant(2.0))])
    return results + [sorted(seen)]


CASES = {
    name: function
    for name, function in dict(globals()).items()
    if callable(function) and not name.startswith("_") and name not in ("run",) and name != "np"
}


def run(tf, case):
    try:
        return ["ok", case(tf)]
    except Exception as exc:  # noqa: BLE001 - the error is the result
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        return [type(exc).__name__, lines[-1] if lines else ""]
