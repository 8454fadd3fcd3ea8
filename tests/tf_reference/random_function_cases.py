"""Random ops inside tf.function: TF's graph seed rule (op seeds counted per traced graph, loop bodies
their own graph; the global seed of the trace; one kernel per op that moves on with each call and restarts
with set_seed). Run the same way by TF 2.21 (random_function_reference.py) and by tapeviz
(tests/test_random_function.py). ``run(tf)`` returns every draw as a list."""


def run(tf):
    def v(t):
        return [float(x) for x in tf.reshape(t, [-1]).numpy()]

    out = {}
    tf.random.set_seed(1234)

    @tf.function
    def f():
        return tf.random.uniform([2]), tf.random.uniform([2])

    @tf.function
    def g():
        return tf.random.uniform([2]), tf.random.uniform([2])

    out["f1"] = [v(t) for t in f()]
    out["f2"] = [v(t) for t in f()]
    out["g1"] = [v(t) for t in g()]
    out["eager_after"] = v(tf.random.uniform([2]))
    tf.random.set_seed(1234)
    out["f_after_reset"] = [v(t) for t in f()]
    out["eager_after_reset"] = v(tf.random.uniform([2]))

    @tf.function
    def h():
        return tf.random.uniform([2], seed=1), tf.random.uniform([2], seed=1), tf.random.normal([3])

    out["h1"] = [v(t) for t in h()]
    out["h2"] = [v(t) for t in h()]

    @tf.function
    def k(x):
        return x + tf.random.normal(tf.shape(x))

    out["k_scalar"] = v(k(tf.constant(0.0)))
    out["k_vec"] = v(k(tf.constant([0.0, 0.0])))
    out["k_scalar2"] = v(k(tf.constant(0.0)))
    tf.random.set_seed(7)
    e = v(tf.random.uniform([1]))

    @tf.function
    def m():
        a = tf.random.uniform([1])
        for _ in tf.range(2):
            a += tf.random.uniform([1])
        return a

    out["eager_first"] = e
    out["m1"] = v(m())
    out["m2"] = v(m())
    return out
