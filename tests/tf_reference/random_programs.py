"""Seeded random programs, written once for both TF 2.21 and tapeviz (pass ``tf`` = either module).

Each program runs from a fresh seed state and returns a list of arrays.
``random_reference.py`` runs them on TensorFlow and stores the values in
``random_values.json``; ``tests/test_random_tf_values.py`` runs them on
tapeviz and compares (the bits of every float, but where ``ULP1`` says one
ulp is allowed: float64 normals, whose log/sin/cos are NumPy's, not glibc's).
"""

import numpy as np

ULP1 = {"normal_float64", "stateless_float64", "generator_float64"}
CLOSE = {"orthogonal"}  # a QR decomposition of TF's numbers: LAPACK's and Eigen's differ in the last bits


def _arrays(values):
    return [np.asarray(v.numpy() if hasattr(v, "numpy") else v) for v in values]


def global_seed_sequence(tf):
    tf.random.set_seed(22)
    return _arrays(
        [
            tf.random.uniform([5]),
            tf.random.uniform([5]),
            tf.random.normal([3]),
            tf.random.truncated_normal([6], mean=1.0, stddev=0.5),
            tf.random.uniform([2, 3], minval=-3.0, maxval=7.0),
            tf.random.uniform([4], maxval=10.0),
            tf.random.uniform([3], dtype=tf.float16),
            tf.random.normal([5], dtype=tf.float16),
            tf.random.uniform([5], dtype=tf.float64),
            tf.random.uniform([6], minval=-3, maxval=7, dtype=tf.int32),
            tf.random.uniform([3], minval=-5, maxval=10**12, dtype=tf.int64),
            tf.random.truncated_normal([4], dtype=tf.float64),
        ]
    )


def op_seed_kernels(tf):
    tf.random.set_seed(1234)
    return _arrays(
        [
            tf.random.uniform([3], seed=1),
            tf.random.uniform([3], seed=1),  # the same kernel, moved on
            tf.random.uniform([2], seed=1, dtype=tf.float64),  # another kernel
            tf.random.normal([3], seed=1),
            tf.random.normal([4], seed=1),
            tf.random.uniform([3]),
            tf.random.uniform([3], seed=1),
        ]
    )


def op_seed_only(tf):
    tf.random.set_seed(None)
    first = tf.random.uniform([3], seed=5)
    return _arrays([first, tf.random.uniform([3], seed=5), tf.random.normal([2], seed=0)])


def unusual_global_seeds(tf):
    values = []
    for seed in (0, -7, 2**40 + 3):
        tf.random.set_seed(seed)
        values += [tf.random.uniform([2]), tf.random.uniform([2], seed=0)]
    return _arrays(values)


def normal_float64(tf):
    tf.random.set_seed(5)
    return _arrays([tf.random.normal([64], dtype=tf.float64), tf.random.normal([3], mean=2.0, stddev=3.0, seed=9)])


def large_draws(tf):
    tf.random.set_seed(3)
    return _arrays([tf.random.normal([20000]), tf.random.truncated_normal([5003]), tf.random.uniform([10000])])


def shuffles(tf):
    tf.random.set_seed(22)
    return _arrays(
        [
            tf.random.shuffle(tf.range(10)),
            tf.random.shuffle(tf.range(10)),
            tf.random.shuffle(tf.range(1000)),
            tf.random.shuffle(tf.reshape(tf.range(12), [6, 2]), seed=4),
            tf.random.shuffle(tf.range(10), seed=4),
            tf.random.shuffle(tf.constant([1.5, 2.5, 3.5]), seed=4),
        ]
    )


def categoricals(tf):
    tf.random.set_seed(3)
    logits = tf.math.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    return _arrays(
        [
            tf.random.categorical(logits, 7),
            tf.random.categorical(logits, 5, seed=2),
            tf.random.categorical(logits, 5, seed=2),
            tf.random.categorical(logits, 3, dtype=tf.int32),
            tf.random.stateless_categorical(logits, 6, seed=[4, 5]),
        ]
    )


def generator(tf):
    g = tf.random.Generator.from_seed(1234)
    values = [g.state, g.normal([5]), g.state, g.uniform([3], minval=-1.0, maxval=4.0)]
    values += [
        g.uniform([3], minval=-10, maxval=10, dtype=tf.int32),
        g.uniform([2], minval=0, maxval=10**10, dtype=tf.int64),
    ]
    values += [g.uniform_full_int([3], dtype=tf.int64), g.uniform_full_int([3], dtype=tf.int32)]
    values += [g.truncated_normal([7]), g.normal([3], dtype=tf.float16), g.make_seeds(2)]
    child = g.split(2)[1]
    values += [child.state, child.normal([2]), g.state]
    g.reset_from_seed(7)
    values += [g.uniform([4]), tf.random.Generator.from_seed(-3).normal([2])]
    return _arrays(values)


def generator_float64(tf):
    g = tf.random.Generator.from_seed(99)
    return _arrays([g.normal([16], dtype=tf.float64), g.truncated_normal([6], dtype=tf.float64)])


def stateless(tf):
    return _arrays(
        [
            tf.random.stateless_uniform([4], seed=[7, -3], minval=2.0, maxval=5.0),
            tf.random.stateless_uniform([4], seed=tf.constant([7, 3], tf.int32), minval=2, maxval=500, dtype=tf.int32),
            tf.random.stateless_uniform([4], seed=[7, 3], minval=None, maxval=None, dtype=tf.int64),
            tf.random.stateless_uniform([3], seed=[1, 2], dtype=tf.float16),
            tf.random.stateless_uniform([3], seed=[1, 2], dtype=tf.float64),
            tf.random.stateless_normal([2, 3], seed=[1, 2], mean=3.0, stddev=2.0),
            tf.random.stateless_normal([5], seed=[2**40, 1], dtype=tf.float16),
            tf.random.stateless_truncated_normal([9], seed=[1, 2]),
        ]
    )


def stateless_float64(tf):
    return _arrays(
        [
            tf.random.stateless_normal([16], seed=[3, 4], dtype=tf.float64),
            tf.random.stateless_truncated_normal([6], seed=[3, 4], dtype=tf.float64),
        ]
    )


def keras_initializers(tf):
    init = tf.keras.initializers
    return _arrays(
        [
            init.GlorotUniform(seed=22)((3, 4)),
            init.GlorotNormal(seed=22)((3, 4)),
            init.HeUniform(seed=1)((2, 2, 3, 4)),
            init.HeNormal(seed=1)((5, 2)),
            init.LecunUniform(seed=2)((4,)),
            init.LecunNormal(seed=2)((4, 3)),
            init.RandomNormal(seed=22)((3,)),
            init.RandomUniform(minval=-1.0, maxval=1.0, seed=22)((3,)),
            init.TruncatedNormal(stddev=0.1, seed=22)((3,)),
            init.VarianceScaling(2.0, "fan_out", "untruncated_normal", seed=5)((3, 2)),
            init.GlorotUniform(seed=22)((2, 2), dtype="float64"),
        ]
    )


def keras_dense_seeded(tf):
    layer = tf.keras.layers.Dense(3, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=22))
    layer.build((None, 4))
    embedding = tf.keras.layers.Embedding(10, 3, embeddings_initializer=tf.keras.initializers.RandomUniform(seed=3))
    embedding.build((None,))
    return _arrays([layer.kernel, layer.bias, embedding.embeddings])


def keras_model_after_set_random_seed(tf):
    tf.keras.utils.set_random_seed(22)
    model = tf.keras.Sequential(
        [tf.keras.Input((4,)), tf.keras.layers.Dense(5, activation="relu"), tf.keras.layers.Dense(2)]
    )
    return _arrays([w for w in model.weights] + [tf.keras.random.normal((3,)), tf.keras.random.normal((3,))])


def keras_random(tf):
    R = tf.keras.random
    gen = R.SeedGenerator(42)
    logits = np.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]).astype("float32")
    return _arrays(
        [
            R.normal((2, 3), seed=7),
            R.normal((3,), seed=gen),
            R.normal((3,), seed=gen),
            gen.state,
            R.uniform((4,), minval=-2.0, maxval=3.0, seed=gen),
            R.uniform((2,), dtype="float64", seed=2**33),
            R.truncated_normal((5,), seed=1),
            R.randint((5,), 0, 10, seed=1),
            R.categorical(logits, 4, seed=1),
            R.dropout(np.ones((2, 6), "float32"), 0.5, seed=1),
            R.shuffle(np.arange(8), seed=1),
        ]
    )


def datasets(tf):
    values = []
    ds = tf.data.Dataset.range(10).shuffle(10, seed=3)
    values += [[int(x) for x in ds], [int(x) for x in ds]]  # two epochs: two orders
    ds = tf.data.Dataset.from_tensor_slices(np.arange(40)).shuffle(8, seed=7).batch(10)
    values += [np.concatenate([b.numpy() for b in ds]), np.concatenate([b.numpy() for b in ds])]
    ds = tf.data.Dataset.range(12).shuffle(4, seed=7, reshuffle_each_iteration=False)
    values += [[int(x) for x in ds], [int(x) for x in ds]]
    tf.random.set_seed(22)
    ds = tf.data.Dataset.range(8).shuffle(100)
    values += [[int(x) for x in ds], tf.random.uniform([2])]
    ds = tf.data.Dataset.range(6).shuffle(6, seed=1).repeat(2)
    values += [[int(x) for x in ds]]
    ds = tf.data.Dataset.range(1000).shuffle(1000, seed=1)
    values += [[int(x) for x in ds]]
    tf.random.set_seed(None)
    return _arrays(values)


def nn_dropout(tf):
    tf.random.set_seed(0)
    x = tf.reshape(tf.range(1.0, 13.0), [3, 4])
    return _arrays(
        [
            tf.nn.dropout(x, rate=0.5, seed=1),
            tf.nn.dropout(x, rate=0.25),
            tf.nn.dropout(x, 0.5, noise_shape=[3, 1], seed=2),
        ]
    )


def image_flips(tf):
    tf.random.set_seed(4)
    images = tf.reshape(tf.range(24.0), [3, 2, 2, 2])
    return _arrays(
        [
            tf.image.random_flip_left_right(images, seed=3),
            tf.image.random_flip_up_down(images[0]),
            tf.image.random_flip_up_down(images[0]),
        ]
    )


def keras_fit_order(tf):
    """The rows each batch of ``fit(shuffle=True)`` sees, over two epochs (a layer that records its input)."""
    keras = tf.keras
    seen = []

    class Record(keras.layers.Layer):
        def call(self, x):
            seen.append(np.asarray(x)[:, 0].astype("int64"))
            return x

    keras.utils.set_random_seed(22)
    model = keras.Sequential([keras.Input((1,)), Record(), keras.layers.Dense(1)])
    model.compile("sgd", "mse", run_eagerly=True)
    x = np.arange(13, dtype="float32")[:, None]
    model.fit(x, np.zeros((13, 1), "float32"), batch_size=5, epochs=2, verbose=0)
    return _arrays(seen[-6:])  # tapeviz also calls the layer while it builds the model


def keras_layers_after_set_random_seed(tf):
    """Each layer draws its default seeds when it is made, in Keras's order, then its weights and noise."""
    keras = tf.keras
    keras.utils.set_random_seed(7)
    layers = [
        keras.layers.Conv2D(2, 3),
        keras.layers.Embedding(5, 2),
        keras.layers.SimpleRNN(2),
        keras.layers.LSTM(2),
        keras.layers.GRU(2),
        keras.layers.Dropout(0.5),
        keras.layers.GaussianNoise(0.3),
        keras.layers.Dense(2),
    ]
    shapes = [(1, 4, 4, 1), (1, 3), (1, 3, 2), (1, 3, 2), (1, 3, 2), (2, 4), (2, 4), (1, 3)]
    values = []
    for layer, shape in zip(layers, shapes):
        x = np.ones(shape, "float32") if layer.__class__.__name__ != "Embedding" else np.zeros(shape, "int32")
        if layer.__class__.__name__ in ("Dropout", "GaussianNoise"):
            values.append(layer(x, training=True))  # the noise (other outputs are arithmetic, not random)
        else:
            layer(x)
        values += [w for w in layer.weights if not w.name.endswith("recurrent_kernel")]  # orthogonal: see below
    return _arrays(values)


def orthogonal(tf):
    keras = tf.keras
    keras.utils.set_random_seed(7)
    cell = keras.layers.SimpleRNN(2)
    cell(np.ones((1, 3, 2), "float32"))
    return _arrays(
        [keras.initializers.Orthogonal(seed=22)((3, 3)), keras.initializers.Orthogonal(seed=1)((2, 5))]
        + [w for w in cell.weights if w.name.endswith("recurrent_kernel")]
    )


PROGRAMS = {
    fn.__name__: fn
    for fn in (
        global_seed_sequence,
        op_seed_kernels,
        op_seed_only,
        unusual_global_seeds,
        normal_float64,
        large_draws,
        shuffles,
        categoricals,
        generator,
        generator_float64,
        stateless,
        stateless_float64,
        keras_initializers,
        keras_dense_seeded,
        keras_model_after_set_random_seed,
        keras_random,
        datasets,
        nn_dropout,
        image_flips,
        keras_fit_order,
        keras_layers_after_set_random_seed,
        orthogonal,
    )
}
